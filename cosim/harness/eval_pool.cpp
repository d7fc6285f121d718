// eval_pool.cpp: see eval_pool.h.
#include "eval_pool.h"

#include <sched.h>

#include <chrono>

namespace vianic {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// How long a worker spins for the next run before it sleeps. Edges of a
// running simulation follow each other within a few microseconds; a pause
// longer than this is the simulator waiting for its clients.
constexpr auto kSpin = std::chrono::microseconds(200);

}  // namespace

unsigned EvalPool::default_threads(unsigned nodes) {
    unsigned cpus = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = unsigned(CPU_COUNT(&set));
    if (cpus == 0) cpus = std::thread::hardware_concurrency();
    if (cpus == 0) cpus = 1;
    return nodes < cpus ? (nodes ? nodes : 1) : cpus;
}

EvalPool::EvalPool(unsigned threads) : threads_(threads ? threads : 1) {
    for (unsigned i = 1; i < threads_; i++) workers_.emplace_back(&EvalPool::worker, this, i);
}

EvalPool::~EvalPool() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_.store(true);
        gen_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
}

void EvalPool::run(unsigned items, Job job, void* arg) {
    unsigned used = items < threads_ ? items : threads_;  // threads with work
    if (used <= 1) {
        for (unsigned i = 0; i < items; i++) job(arg, i);
        return;
    }
    job_ = job;
    arg_ = arg;
    items_ = items;
    done_.store(0, std::memory_order_relaxed);
    gen_.fetch_add(1);  // seq_cst: pairs with a worker's sleepers_ increment
    if (sleepers_.load() > 0) {
        std::lock_guard<std::mutex> lk(mu_);
        cv_.notify_all();
    }
    for (unsigned i = 0; i < items; i += threads_) job(arg, i);
    // every worker takes part in every run (one with no item just reports)
    const unsigned workers = threads_ - 1;
    while (done_.load(std::memory_order_acquire) != workers) cpu_relax();
}

void EvalPool::worker(unsigned self) {
    uint64_t seen = 0;
    for (;;) {
        uint64_t g = gen_.load(std::memory_order_acquire);
        if (g == seen) {
            auto until = std::chrono::steady_clock::now() + kSpin;
            unsigned n = 0;
            while ((g = gen_.load(std::memory_order_acquire)) == seen) {
                cpu_relax();
                if (++n % 256 == 0 && std::chrono::steady_clock::now() > until) {
                    std::unique_lock<std::mutex> lk(mu_);
                    sleepers_.fetch_add(1);  // seq_cst, then gen_ is read again
                    cv_.wait(lk, [&] { return gen_.load() != seen; });
                    sleepers_.fetch_sub(1);
                    until = std::chrono::steady_clock::now() + kSpin;
                }
            }
        }
        seen = g;
        if (stop_.load()) return;
        Job job = job_;
        void* arg = arg_;
        unsigned items = items_;
        for (unsigned i = self; i < items; i += threads_) job(arg, i);
        done_.fetch_add(1, std::memory_order_release);
    }
}

}  // namespace vianic

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
    for (unsigned i = 1; i < threads_; i++) workers_.emplace_back(&EvalPool::worker, this);
}

EvalPool::~EvalPool() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_.store(true);
        state_.fetch_add(uint64_t(1) << 32);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
}

void EvalPool::run(unsigned items, Job job, void* arg) {
    if (items <= 1 || threads_ == 1 || items > 0xffff) {
        for (unsigned i = 0; i < items; i++) job(arg, i);
        return;
    }
    job_ = job;
    arg_ = arg;
    done_.store(0, std::memory_order_relaxed);
    uint32_t gen = uint32_t(state_.load(std::memory_order_relaxed) >> 32) + 1;
    // seq_cst: pairs with a worker's sleepers_ increment
    state_.store((uint64_t(gen) << 32) | (uint64_t(items) << 16));
    if (sleepers_.load() > 0) {
        std::lock_guard<std::mutex> lk(mu_);
        cv_.notify_all();
    }
    work(gen);
    while (done_.load(std::memory_order_acquire) != items) cpu_relax();
}

void EvalPool::work(uint32_t gen) {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
        if (uint32_t(s >> 32) != gen) return;  // a later run (or the end)
        uint32_t i = uint32_t(s) & 0xffff;
        if (i >= (uint32_t(s) >> 16)) return;  // all claimed
        if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
        job_(arg_, i);
        done_.fetch_add(1, std::memory_order_release);
        s = state_.load(std::memory_order_acquire);
    }
}

void EvalPool::worker() {
    uint32_t seen = 0;
    for (;;) {
        uint32_t g = uint32_t(state_.load(std::memory_order_acquire) >> 32);
        if (g == seen) {
            auto until = std::chrono::steady_clock::now() + kSpin;
            unsigned n = 0;
            while ((g = uint32_t(state_.load(std::memory_order_acquire) >> 32)) == seen) {
                cpu_relax();
                if (++n % 256 == 0 && std::chrono::steady_clock::now() > until) {
                    std::unique_lock<std::mutex> lk(mu_);
                    sleepers_.fetch_add(1);  // seq_cst, then state_ is read again
                    cv_.wait(lk, [&] { return uint32_t(state_.load() >> 32) != seen; });
                    sleepers_.fetch_sub(1);
                    until = std::chrono::steady_clock::now() + kSpin;
                }
            }
        }
        seen = g;
        if (stop_.load()) return;
        work(g);
    }
}

}  // namespace vianic

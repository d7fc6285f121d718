// eval_pool.h: evaluates the nodes' Verilated models of one clock edge on
// several threads at once.
//
// The nodes of one simulator do not share any state inside their models
// (each NIC loops its network port back to itself), so the evaluations of
// one edge are independent: the harness drives every node's inputs, the pool
// evaluates the models in parallel, and the harness samples the outputs, all
// in node order on the main thread. The results do not depend on the thread
// count: a run is the same cycles and the same waveform with 1 thread or 16.
//
// Item i of a run always goes to thread i % threads (thread 0 is the caller),
// so a node is evaluated by the same thread every edge while the same set of
// nodes is awake. Workers spin for a short while after each run (the next
// edge usually follows within microseconds) and then sleep until the next
// run, so an idle simulator costs no CPU.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace vianic {

class EvalPool {
public:
    using Job = void (*)(void* arg, unsigned item);

    // threads >= 1; threads - 1 workers are started.
    explicit EvalPool(unsigned threads);
    ~EvalPool();
    EvalPool(const EvalPool&) = delete;
    EvalPool& operator=(const EvalPool&) = delete;

    unsigned threads() const { return threads_; }

    // Runs job(arg, i) for every i in [0, items) and returns when all are
    // done. Item i runs on thread i % threads(); with one item, or one
    // thread, everything runs on the caller.
    void run(unsigned items, Job job, void* arg);

    // Number of threads a simulator of `nodes` nodes uses by default: one per
    // node up to the CPUs this process may run on.
    static unsigned default_threads(unsigned nodes);

private:
    void worker(unsigned self);

    const unsigned threads_;
    std::vector<std::thread> workers_;
    std::atomic<uint64_t> gen_{0};       // incremented by every run
    std::atomic<unsigned> done_{0};      // workers finished with the current run
    std::atomic<unsigned> sleepers_{0};  // workers waiting on cv_
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    // the current run (written before gen_ is incremented)
    Job job_ = nullptr;
    void* arg_ = nullptr;
    unsigned items_ = 0;
};

}  // namespace vianic

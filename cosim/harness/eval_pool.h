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
// The items of a run are claimed one at a time by whichever thread is free
// (the caller included), so a worker that is slow to wake up never holds the
// caller back: the caller then evaluates the items itself. Workers spin for
// a short while after each run (the next edge usually follows within
// microseconds) and then sleep until the next run, so a simulator waiting
// for its clients leaves the CPUs to them.
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

    // Runs job(arg, i) for every i in [0, items), each exactly once, on any
    // of the threads, and returns when all are done. With one item, or one
    // thread, everything runs on the caller.
    void run(unsigned items, Job job, void* arg);

    // Number of threads a simulator of `nodes` nodes uses by default: one per
    // node up to the CPUs this process may run on.
    static unsigned default_threads(unsigned nodes);

private:
    void worker();
    // claims and runs items of run `gen` until none is left
    void work(uint32_t gen);

    const unsigned threads_;
    std::vector<std::thread> workers_;
    // the current run: generation (bits 63:32), item count (31:16) and next
    // unclaimed item (15:0); a claim is a compare-and-swap of all three, so
    // a late worker never claims an item of another run
    std::atomic<uint64_t> state_{0};
    std::atomic<unsigned> done_{0};      // items of the current run finished
    std::atomic<unsigned> sleepers_{0};  // workers waiting on cv_
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    // the current run (written before state_ announces it)
    Job job_ = nullptr;
    void* arg_ = nullptr;
};

}  // namespace vianic

// waits.h: WAIT requests in progress (irq level, memory word, cycle count)
// with their deadlines, and their one-line descriptions for the deadlock
// report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol.h"

namespace vianic {

constexpr uint64_t kNever = UINT64_MAX;

struct Wait {
    uint32_t client;
    uint32_t tag;
    unsigned node;
    proto::WaitReq req;
    uint64_t start;     // cycle the wait began
    uint64_t end;       // cycles kind: cycle it is satisfied; else kNever
    uint64_t deadline;  // timeout: cycle it times out; else kNever
    bool done;
};

// "wait irq mask 0x1", "wait mem 0x1000 & 0xffffffff == 0x1", "wait cycles 100"
std::string describe_wait(const Wait& w);

inline uint64_t sat_add(uint64_t a, uint64_t b) { return a > kNever - b ? kNever : a + b; }

class WaitList {
public:
    std::vector<Wait>& all() { return v_; }
    const std::vector<Wait>& all() const { return v_; }
    bool empty() const { return v_.empty(); }
    void add(const Wait& w) {
        v_.push_back(w);
        uint64_t d = w.end < w.deadline ? w.end : w.deadline;
        if (d < next_deadline_) next_deadline_ = d;
    }
    // earliest cycle at which some wait ends by itself (cycles, timeout)
    uint64_t next_deadline() const { return next_deadline_; }
    // removes the waits marked done and recomputes the next deadline
    void compact();

private:
    std::vector<Wait> v_;
    uint64_t next_deadline_ = kNever;
};

}  // namespace vianic

// waits.cpp: wait descriptions and list maintenance (see waits.h).
#include "waits.h"

#include <algorithm>
#include <cstdio>

namespace vianic {

std::string describe_wait(const Wait& w) {
    char buf[160];
    switch (w.req.kind) {
        case proto::kWaitKindIrq:
            snprintf(buf, sizeof buf, "wait irq mask 0x%x", w.req.irq_mask);
            break;
        case proto::kWaitKindMem:
            snprintf(buf, sizeof buf, "wait mem 0x%llx & 0x%llx == 0x%llx", (unsigned long long)w.req.addr,
                     (unsigned long long)w.req.mask, (unsigned long long)w.req.value);
            break;
        default:
            snprintf(buf, sizeof buf, "wait cycles %llu", (unsigned long long)w.req.cycles);
            break;
    }
    std::string s = buf;
    if (w.req.timeout) s += " (timeout " + std::to_string(w.req.timeout) + " cycles)";
    return s;
}

void WaitList::compact() {
    v_.erase(std::remove_if(v_.begin(), v_.end(), [](const Wait& w) { return w.done; }), v_.end());
    next_deadline_ = kNever;
    for (const Wait& w : v_) {
        uint64_t d = std::min(w.end, w.deadline);
        if (d < next_deadline_) next_deadline_ = d;
    }
}

}  // namespace vianic

// irq.cpp: interrupt delivery. When a node's irq outputs gain a set bit, an
// IRQ message (the outputs now high, and the cycle) goes to every connection
// of that node that asked for interrupts in HELLO; WAIT irq is level
// sensitive and is checked against the outputs whenever they change.
#include "log.h"
#include "server.h"

namespace vianic {

void Server::on_irq(unsigned node, uint32_t old_vec, uint32_t new_vec, uint64_t cycle) {
    if (new_vec & ~old_vec) {
        uint8_t msg[proto::kIrqBytes];
        proto::encode_irq(msg, new_vec, cycle);
        for (const auto& c : conns_) {
            if (c->hello_done && c->node == node && c->want_irq && !c->closing) c->send(msg, sizeof msg);
        }
        log_verbose("node%u: irq 0x%x at cycle %llu", node, new_vec, (unsigned long long)cycle);
    }
    if (!new_vec || waits_.empty()) return;
    bool any = false;
    for (Wait& w : waits_.all()) {
        if (w.done || w.node != node || w.req.kind != proto::kWaitKindIrq) continue;
        if (new_vec & w.req.irq_mask) {
            finish_wait(w, proto::kWaitSatisfied, new_vec, "");
            any = true;
        }
    }
    if (any) waits_.compact();
}

}  // namespace vianic

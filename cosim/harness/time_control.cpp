// time_control.cpp: the cycle loop over all nodes, idle skip, wait
// deadlines, the deadlock report, WAIT handling and the answers the bus
// models produce while cycles run (see server.h for the loop).
//
// Clock: edge k (the k-th rising edge, "cycle k") is at time k*clock_ps;
// inputs change at the falling edge before it, at k*clock_ps - clock_ps/2.
// Nodes are always processed in index order and connections in id order, so
// a run is a function of the messages and of when time was frozen.
#include <algorithm>

#include "log.h"
#include "server.h"
#include "verilated.h"

namespace vianic {

namespace {

// One edge's evaluations for the pool: items [0, n) are nodes, item n the
// switch.
struct EdgeItems {
    Node** nodes;
    unsigned n;
    Fabric* fab;
};

void eval_edge_item(void* arg, unsigned i) {
    EdgeItems* it = static_cast<EdgeItems*>(arg);
    if (i < it->n)
        it->nodes[i]->eval();
    else
        it->fab->eval();
}

}  // namespace

bool Server::any_awake() const {
    for (const auto& n : nodes_)
        if (n->awake()) return true;
    return fabric_->awake() || fabric_->in_flight() > 0;
}

void Server::step() {
    const uint64_t period = o_.clock_ps;
    Fabric* fab = fabric_.get();
    // the links' symbols due at this edge; a sleeping node that gets one
    // wakes up
    uint32_t got = fab->deliver(cycle_);
    const bool link_rst = fab->in_reset();
    Node* awake[16];
    unsigned na = 0;
    for (const auto& n : nodes_) {
        if ((got >> n->idx) & 1) n->wake(cycle_);
        if (n->awake()) {
            n->set_link_in(fab->to_node(n->idx), link_rst);
            awake[na++] = n.get();
        }
    }
    const bool fab_awake = fab->awake();
    // the models of one edge are evaluated in parallel (the switch is the
    // item after the nodes); everything else runs here, in node order
    EdgeItems items{awake, na, fab};
    const auto eval = eval_edge_item;
    const unsigned ni = na + (fab_awake ? 1 : 0);

    uint64_t t = cycle_ * period + period / 2;
    ctx_->time(t);
    for (unsigned i = 0; i < na; i++) awake[i]->negedge_drive(cycle_);
    if (fab_awake) fab->negedge_drive();
    if (!single_eval_)
        pool_->run(ni, eval, &items);
    else if (fab_awake)
        fab->eval();  // its register port's read data is combinational
    for (unsigned i = 0; i < na; i++) awake[i]->negedge_sample(cycle_);
    if (fab_awake) fab->negedge_sample();
    trace_.dump(t, cycle_);

    cycle_++;
    t = cycle_ * period;
    ctx_->time(t);
    for (unsigned i = 0; i < na; i++) awake[i]->posedge_drive();
    if (fab_awake) fab->posedge_drive();
    pool_->run(ni, eval, &items);
    trace_.dump(t, cycle_);

    for (unsigned i = 0; i < na; i++) {
        awake[i]->after_posedge(cycle_);
        fab->collect_node(awake[i]->idx, awake[i]->link_out(), cycle_);
    }
    if (fab_awake) fab->after_posedge(cycle_);
}

// --quantum Q: the nodes meet at every multiple of Q cycles and at every
// wait deadline (so a WAIT of n cycles still ends at its cycle), and at
// every cycle while a READ or RESET is under way (a register read's round
// trip stays exact: a driver's set-up is thousands of them).
unsigned Server::quantum_length() const {
    for (const auto& nd : nodes_)
        if (nd->mmio.answer_due()) return 1;
    const uint64_t q = o_.quantum;
    uint64_t n = q - cycle_ % q;
    const uint64_t d = waits_.next_deadline();
    if (d > cycle_ && d - cycle_ < n) n = d - cycle_;
    return unsigned(n);
}

// The nodes and the switch run cycles [t0, t0+n) apart: nothing crosses a
// link in fewer than L >= n cycles, so what each takes off its lines was
// put before the quantum and what it puts is due after it. Their events
// (answers, interrupts, DMA writes, log lines) are kept and then replayed
// here in cycle order (node order within a cycle, the switch last), with
// the clock showing each event's cycle, so an answer carries the cycle it
// happened at; requests that follow it apply at the quantum's end. With a
// waveform or a transaction log (one file for every node, written in cycle
// order) the same quantum runs edge by edge across the nodes instead, as
// step() does: the results are the same, only the order of work differs.
void Server::run_quantum(unsigned n) {
    const uint64_t period = o_.clock_ps;
    const uint64_t t0 = cycle_;
    Fabric* fab = fabric_.get();
    // (what a node sends in the quantum reaches the switch after it)
    const bool fab_run = fab->awake() || fab->in_flight() > 0;
    for (const auto& nd : nodes_) nd->relay.set_buffering(true);
    fab_relay_->set_buffering(true);
    fab->begin_quantum(fab_run);
    const unsigned nn = unsigned(nodes_.size());
    if (!trace_.enabled() && !txlog_.enabled()) {
        struct Items {
            Node** nodes;
            unsigned n;
            Fabric* fab;
            uint64_t t0;
            unsigned cycles;
        };
        Node* all[16];
        for (unsigned i = 0; i < nn; i++) all[i] = nodes_[i].get();
        Items items{all, nn, fab, t0, n};
        auto job = [](void* arg, unsigned i) {
            Items* it = static_cast<Items*>(arg);
            if (i < it->n)
                it->nodes[i]->run_quantum(it->fab, it->t0, it->cycles);
            else
                it->fab->run_quantum(it->t0, it->cycles);
        };
        pool_->run(nn + (fab_run ? 1 : 0), job, &items);
    } else {
        Node* act[16];
        EdgeItems items{act, 0, fab};
        bool fab_act = false;
        const auto eval = eval_edge_item;
        for (uint64_t c = t0; c < t0 + n; c++) {
            unsigned na = 0;
            for (const auto& nd : nodes_)
                if (nd->quantum_negedge(fab, c)) act[na++] = nd.get();
            items.n = na;
            fab_act = fab_run && fab->quantum_negedge(c);
            const unsigned ni = na + (fab_act ? 1 : 0);
            uint64_t t = c * period + period / 2;
            ctx_->time(t);
            if (!single_eval_)
                pool_->run(ni, eval, &items);
            else if (fab_act)
                fab->eval();
            for (unsigned i = 0; i < na; i++) act[i]->negedge_sample(c);
            if (fab_act) fab->negedge_sample();
            trace_.dump(t, c);
            t = (c + 1) * period;
            ctx_->time(t);
            for (unsigned i = 0; i < na; i++) act[i]->posedge_drive();
            if (fab_act) fab->posedge_drive();
            pool_->run(ni, eval, &items);
            trace_.dump(t, c + 1);
            for (unsigned i = 0; i < na; i++) act[i]->quantum_posedge(fab, c);
            if (fab_act) fab->quantum_posedge(c);
        }
    }
    fab->end_quantum();
    for (const auto& nd : nodes_) nd->relay.set_buffering(false);
    fab_relay_->set_buffering(false);
    replay_events();
    cycle_ = t0 + n;
    ctx_->time(cycle_ * period);
}

void Server::replay_events() {
    EventRelay* rs[Fabric::kPorts + 1];
    size_t pos[Fabric::kPorts + 1] = {};
    unsigned nr = 0;
    for (const auto& nd : nodes_) rs[nr++] = &nd->relay;
    rs[nr++] = fab_relay_.get();
    for (;;) {
        int best = -1;
        uint64_t bc = 0;
        for (unsigned i = 0; i < nr; i++) {
            if (pos[i] == rs[i]->size()) continue;
            uint64_t c = rs[i]->cycle_of(pos[i]);
            if (best < 0 || c < bc) {
                best = int(i);
                bc = c;
            }
        }
        if (best < 0) break;
        cycle_ = bc;
        rs[best]->replay(pos[best]++, this);
    }
    for (unsigned i = 0; i < nr; i++) rs[i]->clear();
}

// Answers produced while cycles run are buffered (Conn::cork) and sent
// when the cycles stop: the simulator then goes straight back to poll(),
// which on a small machine lets the client, woken by the answer, run on the
// CPU the simulator leaves instead of waking another one (several times
// slower on a VM). A chunk stops at the end of the cycle in which something
// was sent (in lockstep, an answer stops time there anyway), so nothing
// waits for the rest of a chunk.
bool Server::run_cycles(unsigned max) {
    Conn::cork = true;
    Conn::corked = 0;
    bool all = run_cycles_corked(max);
    Conn::cork = false;
    for (size_t i = 0; i < conns_.size(); i++) {
        Conn* c = conns_[i].get();
        if (c->out_pending() && !c->broken) c->flush();
    }
    return all;
}

bool Server::run_cycles_corked(unsigned max) {
    for (unsigned i = 0; i < max;) {
        if (!time_may_advance()) return false;  // someone was answered: time stops here
        if (stop_signal_ || terminate_ || !any_awake()) return false;
        if (o_.quantum && !fabric_->in_reset()) {
            unsigned n = quantum_length();
            run_quantum(n);
            i += n;
        } else {
            step();
            i++;
        }
        if (cycle_ >= waits_.next_deadline()) process_deadlines();
        // flow control ends at the first cycle the node's queue has room
        if (flow_conns_) {
            for (size_t k = 0; k < conns_.size(); k++)
                if (conns_[k]->flow) update_flow(conns_[k].get());
        }
        if (Conn::corked) return false;  // send it now
    }
    return true;
}

void Server::jump_to(uint64_t cycle) {
    if (cycle > cycle_) {
        log_verbose("idle: skipping from cycle %llu to %llu", (unsigned long long)cycle_, (unsigned long long)cycle);
        cycle_ = cycle;
        ctx_->time(cycle_ * o_.clock_ps);
    }
    process_deadlines();
}

void Server::process_deadlines() {
    if (cycle_ < waits_.next_deadline()) return;
    for (Wait& w : waits_.all()) {
        if (w.done) continue;
        if (w.end <= cycle_)
            finish_wait(w, proto::kWaitSatisfied, 0, "");
        else if (w.deadline <= cycle_)
            finish_wait(w, proto::kWaitTimeout, wait_value(w), "");
    }
    waits_.compact();
}

void Server::report_deadlock() {
    std::string text;
    for (const auto& c : conns_) {
        std::string mine;
        for (const Wait& w : waits_.all()) {
            if (w.client != c->id || w.done) continue;
            if (!mine.empty()) mine += ", ";
            mine += describe_wait(w);
        }
        if (mine.empty()) continue;
        if (!text.empty()) text += "; ";
        text += "client " + std::to_string(c->id) + " (" + proto::role_name(c->role) + " node " +
                std::to_string(c->node) + (c->name.empty() ? "" : ", \"" + c->name + "\"") + "): " + mine;
    }
    log_info("deadlock at cycle %llu: every client is blocked, every node is idle and no wait has a deadline: %s",
             (unsigned long long)cycle_, text.c_str());
    for (Wait& w : waits_.all())
        if (!w.done) finish_wait(w, proto::kWaitDeadlock, wait_value(w), text);
    waits_.compact();
}

// ------------------------------------------------------------------ waits

bool Server::read_word(Node& n, uint64_t addr, unsigned size, uint64_t* v) {
    *v = 0;
    if (!n.mem.contains(addr, size)) return false;
    uint8_t b[8] = {};
    if (!n.mem.read(addr, b, size)) return false;
    uint64_t x = 0;
    for (unsigned i = 0; i < size; i++) x |= uint64_t(b[i]) << (8 * i);
    *v = x;
    return true;
}

uint64_t Server::wait_value(const Wait& w) {
    Node& n = *nodes_[w.node];
    switch (w.req.kind) {
        case proto::kWaitKindIrq:
            return n.irq();
        case proto::kWaitKindMem: {
            uint64_t v = 0;
            read_word(n, w.req.addr, w.req.size, &v);
            return v;
        }
        default:
            return 0;
    }
}

void Server::start_wait(Conn* c, uint32_t tag, const proto::WaitReq& req) {
    Node& n = *nodes_[c->node];
    Wait w{};
    w.client = c->id;
    w.tag = tag;
    w.node = c->node;
    w.req = req;
    w.start = cycle_;
    w.end = kNever;
    w.deadline = req.timeout ? sat_add(cycle_, req.timeout) : kNever;
    w.done = false;
    switch (req.kind) {
        case proto::kWaitKindIrq:
            if (n.irq() & req.irq_mask) {
                finish_wait(w, proto::kWaitSatisfied, n.irq(), "");
                return;
            }
            break;
        case proto::kWaitKindMem: {
            uint64_t v;
            if (req.addr % req.size != 0) {
                finish_wait(w, proto::kWaitAborted, 0, "the word's address is not a multiple of its size");
                return;
            }
            if (!n.mem.attached() || !n.mem.contains(req.addr, req.size)) {
                finish_wait(w, proto::kWaitAborted, 0,
                            n.mem.attached() ? "the word is outside the node's host memory"
                                             : "the node has no host memory attached");
                return;
            }
            if (!read_word(n, req.addr, req.size, &v)) {
                finish_wait(w, proto::kWaitAborted, 0, "reading host memory faulted (the memfd shrank)");
                return;
            }
            if ((v & req.mask) == req.value) {
                finish_wait(w, proto::kWaitSatisfied, v, "");
                return;
            }
            break;
        }
        default:
            if (req.cycles == 0) {
                finish_wait(w, proto::kWaitSatisfied, 0, "");
                return;
            }
            w.end = sat_add(cycle_, req.cycles);
            break;
    }
    waits_.add(w);
}

void Server::finish_wait(Wait& w, uint16_t status, uint64_t value, const std::string& text) {
    w.done = true;
    Conn* c = find(w.client);
    if (!c) return;
    std::vector<uint8_t> out;
    proto::encode_wait_done(&out, w.tag, status, cycle_, value, text);
    c->send(out.data(), out.size());
    answered(c, w.tag);
}

// ------------------------------------------------- answers from the models

void Server::on_read_done(unsigned, uint32_t client, uint32_t tag, uint16_t status, uint64_t value,
                          uint64_t cycle) {
    Conn* c = find(client);
    if (!c) return;
    uint8_t out[proto::kReadDataBytes];
    proto::encode_read_data(out, tag, status, value, cycle);
    c->send(out, sizeof out);
    answered(c, tag);
}

void Server::on_fabric_done(uint32_t client, uint32_t tag, bool write, uint32_t value, uint64_t cycle) {
    Conn* c = find(client);
    if (!c) return;
    if (write) {
        send_ack(c, tag, 0);
        answered(c, tag);
        return;
    }
    uint8_t out[proto::kReadDataBytes];
    proto::encode_read_data(out, tag, proto::kReadOk, value, cycle);
    c->send(out, sizeof out);
    answered(c, tag);
}

void Server::on_write_error(unsigned node, uint32_t client, uint32_t tag, uint32_t offset, unsigned resp,
                            uint64_t cycle) {
    const char* r = TxLog::resp_name(resp);
    log_verbose("node%u: posted write to 0x%x got %s at cycle %llu (client %u)", node, offset, r,
                (unsigned long long)cycle, client);
    Conn* c = find(client);
    if (!c) return;
    char text[128];
    snprintf(text, sizeof text, "posted write to offset 0x%x got %s at cycle %llu", offset, r,
             (unsigned long long)cycle);
    send_error(c, tag, proto::kCodeBusError, false, proto::kMsgMmioWrite, offset, text);
}

void Server::on_reset_done(unsigned node, uint32_t client, uint32_t tag, uint64_t cycle) {
    log_verbose("node%u: reset done at cycle %llu", node, (unsigned long long)cycle);
    Conn* c = find(client);
    if (!c) return;
    send_ack(c, tag, 0);
    answered(c, tag);
}

void Server::on_wait_reached(unsigned, uint32_t client, uint32_t tag, bool dropped) {
    auto it = queued_waits_.find((uint64_t(client) << 32) | tag);
    if (it == queued_waits_.end()) return;  // its connection is gone
    proto::WaitReq req = it->second;
    queued_waits_.erase(it);
    Conn* c = find(client);
    if (!c) return;
    if (dropped) {
        Wait w{};
        w.client = client;
        w.tag = tag;
        w.node = c->node;
        w.req = req;
        finish_wait(w, proto::kWaitAborted, 0,
                    "node " + std::to_string(c->node) + " detached: its driver disconnected");
        return;
    }
    start_wait(c, tag, req);
}

void Server::on_fw_line(unsigned node, uint64_t cycle, const std::string& text) {
    log_info("node%u cycle %llu fw: %s", node, (unsigned long long)cycle, text.c_str());
}

void Server::on_dma_write(unsigned node, uint64_t addr, uint64_t len) {
    if (waits_.empty()) return;
    bool any = false;
    for (Wait& w : waits_.all()) {
        if (w.done || w.node != node || w.req.kind != proto::kWaitKindMem) continue;
        // the written bytes touch the word?
        if (addr >= w.req.addr + w.req.size || w.req.addr >= addr + len) continue;
        uint64_t v;
        if (read_word(*nodes_[node], w.req.addr, w.req.size, &v) && (v & w.req.mask) == w.req.value) {
            finish_wait(w, proto::kWaitSatisfied, v, "");
            any = true;
        }
    }
    if (any) waits_.compact();
}

}  // namespace vianic

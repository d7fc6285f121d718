// dispatch.cpp: handling of client messages: state and role checks, HELLO,
// host memory, MMIO with the access rights of each role, grants, trace
// control, reset, stats, terminate, cancel. Every message was validated by
// proto::parse_client_message before anything here looks at it; an access
// outside a role's rights is refused here, when it is received, before it is
// queued.
//
// Answers: a refused read gets READ_DATA with status REFUSED (and no ERROR);
// refused entries of a posted MMIO_WRITE get one non-fatal ERROR REFUSED;
// a request that cannot be carried out otherwise gets its normal answer
// with an error status (ACK status, WAIT_DONE aborted). ERROR with fatal set
// is only for protocol violations, and the connection is then closed.
#include <cstdio>
#include <unistd.h>

#include "log.h"
#include "server.h"
#include "via_bar0.h"

namespace vianic {

namespace {

std::string hex(uint64_t v) {
    char b[24];
    snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return b;
}

// message types each role may send (HELLO aside)
bool type_allowed(uint8_t role, uint16_t type) {
    switch (role) {
        case proto::kRoleDriver:
            return true;
        case proto::kRoleUser:
            return type == proto::kMsgMmioRead || type == proto::kMsgMmioWrite || type == proto::kMsgWait ||
                   type == proto::kMsgTrace || type == proto::kMsgStats || type == proto::kMsgCancel;
        case proto::kRoleMonitor:
            return type == proto::kMsgMmioRead || type == proto::kMsgMmioWrite || type == proto::kMsgStats ||
                   type == proto::kMsgCancel || type == proto::kMsgFabricRead || type == proto::kMsgFabricWrite;
        default:
            return false;
    }
}

constexpr uint64_t kLoggedRefusals = 10;

}  // namespace

void Server::handle_message(Conn* c, const proto::Header& h, const uint8_t* payload) {
    proto::Message m;
    std::string why;
    uint16_t code = proto::parse_client_message(h, payload, &m, &why);
    if (code) {
        fatal(c, h, code, why);
        return;
    }
    if (!c->hello_done) {
        if (h.type != proto::kMsgHello) {
            fatal(c, h, proto::kCodeMalformed,
                  std::string("the first message must be HELLO, not ") + proto::type_name(h.type));
            return;
        }
        do_hello(c, m);
        return;
    }
    if (h.type == proto::kMsgHello) {
        fatal(c, h, proto::kCodeMalformed, "HELLO sent twice");
        return;
    }
    if (!type_allowed(c->role, h.type)) {
        fatal(c, h, proto::kCodeRole,
              std::string(proto::type_name(h.type)) + " is not allowed for a " + proto::role_name(c->role) +
                  " connection");
        return;
    }
    if (proto::expects_answer(h.type)) {
        if (h.tag == 0) {
            fatal(c, h, proto::kCodeMalformed, std::string(proto::type_name(h.type)) + " needs a non-zero tag");
            return;
        }
        if (c->has_tag(h.tag)) {
            fatal(c, h, proto::kCodeMalformed,
                  std::string(proto::type_name(h.type)) + ": tag " + std::to_string(h.tag) +
                      " is already used by an outstanding request");
            return;
        }
    }
    Node& n = *nodes_[c->node];
    switch (h.type) {
        case proto::kMsgAttachMem:
            do_attach(c, m);
            return;
        case proto::kMsgMmioRead:
            do_read(c, m);
            return;
        case proto::kMsgMmioWrite:
            do_write(c, m);
            return;
        case proto::kMsgWait: {
            add_tag(c, h.tag);
            Action a{};
            a.kind = Action::kWait;
            a.wait = m.wait;
            a.tag = h.tag;
            submit(c, a);
            return;
        }
        case proto::kMsgTrace:
            if (!trace_.enabled()) {
                send_ack(c, h.tag, proto::kCodeUnsupported);
                return;
            }
            trace_.set_on(m.trace_on != 0);
            log_verbose("%s: trace %s at cycle %llu", who(c).c_str(), m.trace_on ? "on" : "off",
                        (unsigned long long)cycle_);
            if (!m.trace_on) trace_.flush();
            send_ack(c, h.tag, 0);
            return;
        case proto::kMsgReset: {
            add_tag(c, h.tag);
            Action a{};
            a.kind = Action::kMmio;
            a.op = MmioOp{MmioOp::kReset, 0, 0, 0, c->id, h.tag};
            a.tag = h.tag;
            submit(c, a);
            return;
        }
        case proto::kMsgGrant:
            do_grant(c, m);
            return;
        case proto::kMsgRevoke:
            n.revoke(m.revoke_token);
            log_verbose("%s: revoked token %s", who(c).c_str(), hex(m.revoke_token).c_str());
            send_ack(c, h.tag, 0);
            return;
        case proto::kMsgTerminate:
            send_ack(c, h.tag, 0);
            terminate_ = true;
            return;
        case proto::kMsgStats:
            do_stats(c, h.tag);
            return;
        case proto::kMsgCancel:
            do_cancel(c, m.cancel_tag);
            return;
        case proto::kMsgFabricRead:
        case proto::kMsgFabricWrite: {
            add_tag(c, h.tag);
            Action a{};
            a.kind = Action::kFabric;
            a.fabric = Fabric::Op{h.type == proto::kMsgFabricWrite, m.fabric.addr, m.fabric.value, c->id, h.tag};
            a.tag = h.tag;
            submit(c, a);
            return;
        }
        default:
            fatal(c, h, proto::kCodeMalformed, "unexpected message");  // unreachable: parse checked
            return;
    }
}

void Server::do_hello(Conn* c, const proto::Message& m) {
    const proto::Hello& x = m.hello;
    const proto::Header& h = m.h;
    c->name = x.name;
    if (x.role < proto::kRoleDriver || x.role > proto::kRoleMonitor) {
        fatal(c, h, proto::kCodeRole, "HELLO: unknown role " + std::to_string(x.role));
        return;
    }
    if (x.node >= nodes_.size()) {
        fatal(c, h, proto::kCodeNoNode,
              "HELLO: node " + std::to_string(x.node) + " does not exist (the simulator has " +
                  std::to_string(nodes_.size()) + " nodes)");
        return;
    }
    Node& n = *nodes_[x.node];
    if (x.role == proto::kRoleDriver && n.driver != 0) {
        fatal(c, h, proto::kCodeBusy,
              "HELLO: node " + std::to_string(x.node) + " already has a driver (client " + std::to_string(n.driver) +
                  ")");
        return;
    }
    c->role = x.role;
    c->node = x.node;
    c->want_irq = (x.flags & 1) != 0;
    c->token = x.role == proto::kRoleUser ? x.token : 0;
    c->hello_done = true;
    if (x.role == proto::kRoleDriver) {
        n.driver = c->id;
        if (drivers_seen_ < o_.wait_drivers && ++drivers_seen_ == o_.wait_drivers)
            log_info("%u driver%s attached: time starts at cycle %llu", o_.wait_drivers, o_.wait_drivers == 1 ? "" : "s",
                     (unsigned long long)cycle_);
    }
    if (counts(c)) unblocked_++;

    proto::HelloOk v;
    v.nodes = uint16_t(nodes_.size());
    v.irqs = uint16_t(num_irq_);
    v.bar_bytes = bar_bytes_;
    v.clock_ps = o_.clock_ps;
    v.map_hash = VIA_BAR0_HASH;
    v.cycle = cycle_;
    v.mode = o_.lockstep ? proto::kModeLockstep : proto::kModeFreeRun;
    v.client_id = c->id;
    v.data_width = Node::bus_bytes() * 8;
    uint8_t out[proto::kHelloOkBytes];
    proto::encode_hello_ok(out, h.tag, v);
    c->send(out, sizeof out);
    log_info("%s connected over %s%s, protocol %u.%u", who(c).c_str(), c->peer.c_str(),
             c->want_irq ? ", interrupts" : "", x.major, x.minor);
}

void Server::do_attach(Conn* c, const proto::Message& m) {
    uint32_t tag = m.h.tag;
    if (!c->is_unix) {
        send_ack(c, tag, proto::kCodeUnsupported);
        log_info("%s: ATTACH_MEM over TCP is not supported (host memory needs a Unix socket)", who(c).c_str());
        return;
    }
    int fd = c->take_fd();
    if (fd < 0) {
        send_ack(c, tag, proto::kCodeNoMemory);
        log_error("%s: ATTACH_MEM came without a file descriptor", who(c).c_str());
        return;
    }
    Node& n = *nodes_[c->node];
    std::string why;
    uint16_t st = n.mem.attach(fd, m.attach.base, m.attach.size, &why);
    close(fd);
    if (st) {
        log_error("%s: %s", who(c).c_str(), why.c_str());
        send_ack(c, tag, st);
        return;
    }
    log_info("%s: host memory attached, %llu bytes", who(c).c_str(), (unsigned long long)m.attach.size);
    send_ack(c, tag, 0);
    // the word a memory wait looks at may differ in the new memory
    for (Wait& w : waits_.all()) {
        if (w.done || w.node != n.idx || w.req.kind != proto::kWaitKindMem) continue;
        uint64_t v;
        if (read_word(n, w.req.addr, w.req.size, &v) && (v & w.req.mask) == w.req.value)
            finish_wait(w, proto::kWaitSatisfied, v, "");
    }
    waits_.compact();
}

bool Server::check_access(const Conn* c, uint32_t offset, uint8_t size, bool write, std::string* why) const {
    if (offset % size) {
        *why = "offset " + hex(offset) + " is not aligned to the access size " + std::to_string(size);
        return false;
    }
    if (uint64_t(offset) + size > bar_bytes_) {
        *why = "offset " + hex(offset) + " is outside BAR0 (" + std::to_string(bar_bytes_) + " bytes)";
        return false;
    }
    switch (c->role) {
        case proto::kRoleDriver:
            return true;
        case proto::kRoleMonitor:
            if (write) *why = "a monitor connection may only read";
            return !write;
        default: {
            if (offset < VIA_DOORBELL_BASE) {
                *why = "offset " + hex(offset) + " is outside the doorbell pages";
                return false;
            }
            uint32_t vi = (offset - VIA_DOORBELL_BASE) / VIA_DOORBELL_STRIDE;
            if (vi >= num_vi_) {
                *why = "offset " + hex(offset) + " is outside the doorbell pages";
                return false;
            }
            if (!nodes_[c->node]->granted(c->token, vi)) {
                *why = "the doorbell page of VI " + std::to_string(vi) + " (offset " + hex(offset) +
                       ") is not granted to token " + hex(c->token);
                return false;
            }
            return true;
        }
    }
}

void Server::note_refused(Conn* c, const std::string& what) {
    nodes_[c->node]->stats.refused++;
    if (c->refused++ < kLoggedRefusals || log_is_verbose())
        log_error("%s: refused: %s%s", who(c).c_str(), what.c_str(),
                  c->refused == kLoggedRefusals ? " (further refusals of this client: --verbose)" : "");
}

void Server::do_read(Conn* c, const proto::Message& m) {
    std::string why;
    if (!check_access(c, m.read.offset, m.read.size, false, &why)) {
        note_refused(c, "read: " + why);
        uint8_t out[proto::kReadDataBytes];
        proto::encode_read_data(out, m.h.tag, proto::kReadRefused, 0, cycle_);
        c->send(out, sizeof out);
        return;
    }
    add_tag(c, m.h.tag);
    Action a;
    a.kind = Action::kMmio;
    a.op = MmioOp{MmioOp::kRead, m.read.size, m.read.offset, 0, c->id, m.h.tag};
    a.tag = m.h.tag;
    submit(c, a);
}

void Server::do_write(Conn* c, const proto::Message& m) {
    uint32_t refused = 0;
    uint32_t first_off = 0;
    std::string first_why;
    Action a;
    a.kind = Action::kMmio;
    a.tag = m.h.tag;
    for (uint32_t i = 0; i < m.write_count; i++) {
        proto::WriteEntry e = proto::write_entry(m, i);
        std::string why;
        if (!check_access(c, e.offset, e.size, true, &why)) {
            if (refused++ == 0) {
                first_off = e.offset;
                first_why = why;
            }
            continue;
        }
        a.op = MmioOp{MmioOp::kWrite, e.size, e.offset, e.value, c->id, m.h.tag};
        submit(c, a);
    }
    if (refused) {
        std::string text = std::to_string(refused) + " of " + std::to_string(m.write_count) +
                           " writes refused; first: " + first_why;
        note_refused(c, "write: " + text);
        send_error(c, m.h.tag, proto::kCodeRefused, false, proto::kMsgMmioWrite, first_off, text);
    }
}

void Server::do_grant(Conn* c, const proto::Message& m) {
    const proto::Grant& g = m.grant;
    if (g.token == 0 || uint64_t(g.first) + g.count > num_vi_) {
        log_error("%s: GRANT of VIs %u..+%u to token %s refused: %s", who(c).c_str(), g.first, g.count,
                  hex(g.token).c_str(),
                  g.token == 0 ? "token 0 is reserved" : ("the NIC has " + std::to_string(num_vi_) + " VIs").c_str());
        send_ack(c, m.h.tag, proto::kCodeRefused);
        return;
    }
    nodes_[c->node]->grant(g.token, g.first, g.count);
    log_verbose("%s: granted VIs %u..%u to token %s", who(c).c_str(), g.first, g.first + g.count - 1,
                hex(g.token).c_str());
    send_ack(c, m.h.tag, 0);
}

void Server::do_stats(Conn* c, uint32_t tag) {
    std::vector<uint8_t> out;
    proto::encode_stats(&out, tag, stats_text());
    c->send(out.data(), out.size());
}

// CANCEL: the WAIT or MMIO_READ with that tag is answered now (WAIT_DONE
// aborted, READ_DATA CANCELED) unless it is past the point of no return: a
// read whose AXI4-Lite transaction has started completes normally. No
// answer of its own; an unknown or already answered tag is ignored.
void Server::do_cancel(Conn* c, uint32_t tag) {
    if (tag == 0 || !c->has_tag(tag)) {
        log_verbose("%s: CANCEL of tag %u: nothing outstanding with that tag", who(c).c_str(), tag);
        return;
    }
    Node& n = *nodes_[c->node];
    static const std::string kText = "canceled by the client";
    log_verbose("%s: CANCEL of tag %u at cycle %llu", who(c).c_str(), tag, (unsigned long long)cycle_);
    auto cancel_read = [&]() {
        uint8_t out[proto::kReadDataBytes];
        proto::encode_read_data(out, tag, proto::kReadCanceled, 0, cycle_);
        c->send(out, sizeof out);
        answered(c, tag);
    };
    // still in the connection's queue (lockstep, time frozen)
    for (size_t i = 0; i < c->deferred.size(); i++) {
        const Action& a = c->deferred[i];
        if (a.tag != tag) continue;
        if (a.kind == Action::kWait) {
            Wait w{};
            w.client = c->id;
            w.tag = tag;
            w.node = c->node;
            w.req = a.wait;
            c->deferred.erase(c->deferred.begin() + long(i));
            finish_wait(w, proto::kWaitAborted, wait_value(w), kText);
            update_flow(c);
            return;
        }
        if (a.kind == Action::kMmio && a.op.kind == MmioOp::kRead) {
            c->deferred.erase(c->deferred.begin() + long(i));
            cancel_read();
            update_flow(c);
            return;
        }
    }
    // a WAIT behind earlier accesses in the node's MMIO queue: its barrier
    // stays there and is ignored when it reaches the head
    auto q = queued_waits_.find((uint64_t(c->id) << 32) | tag);
    if (q != queued_waits_.end()) {
        Wait w{};
        w.client = c->id;
        w.tag = tag;
        w.node = c->node;
        w.req = q->second;
        queued_waits_.erase(q);
        finish_wait(w, proto::kWaitAborted, wait_value(w), kText);
        return;
    }
    // a WAIT in progress
    for (Wait& w : waits_.all()) {
        if (w.done || w.client != c->id || w.tag != tag) continue;
        finish_wait(w, proto::kWaitAborted, wait_value(w), kText);
        waits_.compact();
        return;
    }
    // a read queued on the node but not started on the bus
    if (n.mmio.cancel_read(c->id, tag)) {
        cancel_read();
        return;
    }
    log_verbose("%s: CANCEL of tag %u: too late (the access is on the bus, or it is not a WAIT or MMIO_READ)",
                who(c).c_str(), tag);
}

void Server::submit(Conn* c, const Action& a) {
    // lockstep: everything that depends on time waits for the instant time
    // next advances (when every client is blocked), in connection order;
    // monitors are outside lockstep: their reads go at once
    if (o_.lockstep && c->role != proto::kRoleMonitor)
        c->deferred.push_back(a);
    else
        apply(c, a);
}

void Server::apply(Conn* c, const Action& a) {
    if (a.kind == Action::kFabric) {
        fabric_->push(a.fabric);
        return;
    }
    Node& n = *nodes_[c->node];
    if (a.kind == Action::kWait) {
        // behind the connection's earlier accesses (see mmio_master.h)
        queued_waits_[(uint64_t(c->id) << 32) | a.tag] = a.wait;
        n.mmio.push(MmioOp{MmioOp::kWait, 0, 0, 0, c->id, a.tag});
    } else {
        n.mmio.push(a.op);
    }
    n.wake(cycle_);
}

void Server::apply_deferred() {
    bool any = false;
    for (size_t i = 0; i < conns_.size(); i++) {
        Conn* c = conns_[i].get();
        if (c->deferred.empty() || c->closing) continue;
        for (const Action& a : c->deferred) apply(c, a);
        c->deferred.clear();
        any = true;
    }
    if (any) update_flow_all();  // node queues grew
}

}  // namespace vianic

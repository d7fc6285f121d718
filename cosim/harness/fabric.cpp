// fabric.cpp: the switch model, the link delay lines and the capture (see
// fabric.h).
#include "fabric.h"

#include <cerrno>
#include <cstring>

#include "Vvia_fabric.h"
#include "events.h"
#include "log.h"
#include "verilated.h"
#include "via_wire.h"

namespace vianic {

namespace {

// bits [64p, 64p+63] of a wide port
uint64_t get64(const VlWide<32>& w, unsigned p) { return uint64_t(w[2 * p]) | (uint64_t(w[2 * p + 1]) << 32); }
void set64(VlWide<32>& w, unsigned p, uint64_t v) {
    w[2 * p] = uint32_t(v);
    w[2 * p + 1] = uint32_t(v >> 32);
}
uint8_t get8(const VlWide<4>& w, unsigned p) { return uint8_t(w[p / 4] >> (8 * (p % 4))); }
void set8(VlWide<4>& w, unsigned p, uint8_t v) {
    uint32_t sh = 8 * (p % 4);
    w[p / 4] = (w[p / 4] & ~(uint32_t(0xff) << sh)) | (uint32_t(v) << sh);
}

void put_le32(uint8_t* b, uint32_t v) {
    for (int i = 0; i < 4; i++) b[i] = uint8_t(v >> (8 * i));
}

}  // namespace

Fabric::Fabric(VerilatedContext* ctx, unsigned nodes, unsigned latency, NodeEvents* ev)
    : top_(new Vvia_fabric{ctx, "fabric"}), ev_(ev), nodes_(nodes), lat_(latency ? latency : 1) {
    for (unsigned p = 0; p < kPorts; p++) {
        up_[p].slot.assign(2 * lat_, Sym{});
        down_[p].slot.assign(2 * lat_, Sym{});
    }
}

Fabric::~Fabric() {
    close_pcap();
    if (top_) top_->final();
}

bool Fabric::open_pcap(const std::string& path, uint32_t clock_ps, std::string* why) {
    FILE* f = fopen(path.c_str(), "wb");
    if (!f) {
        *why = "--pcap " + path + ": " + strerror(errno);
        return false;
    }
    uint8_t h[24] = {};
    put_le32(h, 0xa1b23c4d);  // nanosecond timestamps
    h[4] = 2;                 // version 2.4
    h[6] = 4;
    put_le32(h + 16, 262144);  // snap length
    put_le32(h + 20, 1);       // LINKTYPE_ETHERNET
    if (fwrite(h, 1, sizeof h, f) != sizeof h) {
        fclose(f);
        *why = "--pcap " + path + ": cannot write";
        return false;
    }
    pcap_ = f;
    pcap_path_ = path;
    clock_ps_ = clock_ps;
    return true;
}

void Fabric::close_pcap() {
    if (!pcap_) return;
    fclose(pcap_);
    pcap_ = nullptr;
}

void Fabric::put(Line& l, uint64_t due, const Sym& s) {
    l.slot[due % (2 * lat_)] = s;
    in_flight_.fetch_add(1, std::memory_order_relaxed);
}

Fabric::Sym Fabric::take(Line& l, uint64_t due) {
    Sym& s = l.slot[due % (2 * lat_)];
    Sym r = s;
    if (r.any()) {
        s = Sym{};
        in_flight_.fetch_sub(1, std::memory_order_relaxed);
    }
    return r;
}

void Fabric::initial_eval() {
    Vvia_fabric* t = top_.get();
    t->clk = 0;
    t->rst = 1;
    t->nports = uint8_t(nodes_);
    t->cfg_we = 0;
    t->cfg_addr = 0;
    t->cfg_wdata = 0;
    t->in_valid = 0;
    t->in_last = 0;
    t->out_credit = 0;
    t->eval();
}

uint32_t Fabric::deliver(uint64_t cycle) {
    uint32_t woken = 0;
    if (in_flight() == 0) {
        for (unsigned p = 0; p < nodes_; p++) node_in_[p] = sw_in_[p] = Sym{};
        return 0;
    }
    for (unsigned p = 0; p < nodes_; p++) {
        node_in_[p] = take(down_[p], cycle + 1);
        sw_in_[p] = take(up_[p], cycle + 1);
        if (node_in_[p].any()) woken |= 1u << p;
        if (sw_in_[p].any()) awake_ = true;
    }
    return woken;
}

void Fabric::negedge_drive() {
    Vvia_fabric* t = top_.get();
    t->clk = 0;
    t->rst = rst_left_ > 0;
    uint16_t valid = 0, last = 0, credit = 0;
    for (unsigned p = 0; p < nodes_; p++) {
        const Sym& s = sw_in_[p];
        if (s.valid) {
            valid |= uint16_t(1u << p);
            if (s.last) last |= uint16_t(1u << p);
            set64(t->in_data, p, s.data);
            set8(t->in_keep, p, s.keep);
        }
        if (s.credit) credit |= uint16_t(1u << p);
    }
    t->in_valid = valid;
    t->in_last = last;
    t->out_credit = credit;
    // the register port: one access per cycle, after the power-on reset
    op_live_ = !ops_.empty() && rst_left_ == 0;
    if (op_live_) {
        const Op& op = ops_.front();
        t->cfg_we = op.write;
        t->cfg_addr = uint8_t(op.addr);
        t->cfg_wdata = op.value;
    } else {
        t->cfg_we = 0;
    }
}

void Fabric::negedge_sample() {
    if (op_live_) op_rdata_ = top_->cfg_rdata;
}

void Fabric::posedge_drive() { top_->clk = 1; }

void Fabric::eval() { top_->eval(); }

void Fabric::after_posedge(uint64_t cycle) {
    Vvia_fabric* t = top_.get();
    if (rst_left_ > 0) {
        rst_left_--;
        return;
    }
    if (op_live_) {
        Op op = ops_.front();
        ops_.pop_front();
        op_live_ = false;
        ev_->on_fabric_done(op.client, op.tag, op.write, op_rdata_, cycle);
    }
    uint16_t ov = t->out_valid, ol = t->out_last, ic = t->in_credit;
    for (unsigned p = 0; p < nodes_; p++) {
        Sym s;
        if (ov & (1u << p)) {
            s.valid = true;
            s.last = (ol >> p) & 1;
            s.data = get64(t->out_data, p);
            s.keep = get8(t->out_keep, p);
            if (pcap_) {
                if (frame_[p].empty()) frame_cycle_[p] = cycle;
                for (unsigned b = 0; b < 8; b++)
                    if ((s.keep >> b) & 1) frame_[p].push_back(uint8_t(s.data >> (8 * b)));
                if (s.last) capture(p, cycle);
            }
        }
        s.credit = (ic >> p) & 1;
        if (s.any()) put(down_[p], cycle + lat_, s);
    }
    // (in a quantum, end_quantum decides: the lines are not the switch's
    // alone then)
    if (!quantum_ && t->idle && in_flight() == 0 && ops_.empty()) awake_ = false;
}

void Fabric::collect_node(unsigned p, const Sym& s, uint64_t cycle) {
    if (p < nodes_ && s.any()) {
        put(up_[p], cycle + lat_, s);
        awake_ = true;
    }
}

// In a quantum the switch cannot look at the other lines (the nodes write
// them meanwhile), so it sleeps as soon as it is idle and wakes when a
// symbol arrives for it: evaluating an idle switch changes nothing.
bool Fabric::quantum_negedge(uint64_t cycle) {
    bool got = false;
    for (unsigned p = 0; p < nodes_; p++) {
        sw_in_[p] = take(up_[p], cycle + 1);
        got |= sw_in_[p].any();
    }
    if (got) awake_ = true;
    if (!awake_) return false;
    negedge_drive();
    return true;
}

void Fabric::quantum_posedge(uint64_t cycle) {
    after_posedge(cycle + 1);
    if (rst_left_ == 0 && top_->idle && ops_.empty()) awake_ = false;
}

void Fabric::run_quantum(uint64_t t0, unsigned n) {
    if (!run_) return;
    for (uint64_t c = t0; c < t0 + n; c++) {
        if (!quantum_negedge(c)) continue;
        eval();
        negedge_sample();
        posedge_drive();
        eval();
        quantum_posedge(c);
    }
}

void Fabric::end_quantum() {
    quantum_ = false;
    if (in_flight() > 0) awake_ = true;
    run_ = false;
}

void Fabric::capture(unsigned p, uint64_t) {
    std::vector<uint8_t>& f = frame_[p];
    // the frame's time: its first beat on the link to the node
    uint64_t ns = (frame_cycle_[p] * uint64_t(clock_ps_)) / 1000;
    uint32_t len = uint32_t(f.size() + 14);
    uint8_t rec[16 + 14];
    put_le32(rec, uint32_t(ns / 1000000000ull));
    put_le32(rec + 4, uint32_t(ns % 1000000000ull));
    put_le32(rec + 8, len);
    put_le32(rec + 12, len);
    uint8_t* e = rec + 16;
    // destination and source MAC: MAC_PREFIX + the frame's DST_NODE / SRC_NODE
    uint64_t dst = uint64_t(VIA_WIRE_MAC_PREFIX) + (f.size() > 0 ? f[0] : 0);
    uint64_t src = uint64_t(VIA_WIRE_MAC_PREFIX) + (f.size() > 1 ? f[1] : 0);
    for (int i = 0; i < 6; i++) {
        e[i] = uint8_t(dst >> (8 * (5 - i)));
        e[6 + i] = uint8_t(src >> (8 * (5 - i)));
    }
    e[12] = uint8_t(VIA_WIRE_ETHERTYPE >> 8);
    e[13] = uint8_t(VIA_WIRE_ETHERTYPE);
    if (fwrite(rec, 1, sizeof rec, pcap_) != sizeof rec || fwrite(f.data(), 1, f.size(), pcap_) != f.size()) {
        log_error("--pcap %s: write failed (%s); capture stopped", pcap_path_.c_str(), strerror(errno));
        close_pcap();
    }
    captured_++;
    f.clear();
}

}  // namespace vianic

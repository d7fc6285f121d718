// node.cpp: one simulated NIC and its cycle phases (see node.h).
#include "node.h"
#include "log.h"

#include <string>
#include <type_traits>
#include <utility>

#include "Vvia_node.h"
#include "Vvia_node___024root.h"
#include "dut_params.h"
#include "events.h"
#include "txlog.h"
#include "verilated.h"

namespace vianic {

namespace {

using DataPort = std::remove_reference_t<decltype(std::declval<Vvia_node&>().m_axi_wdata)>;
static_assert(sizeof(DataPort) >= 8 && sizeof(DataPort) <= DmaMemory::kMaxBusBytes,
              "DMA data width must be 64..512 bits");
static_assert(sizeof(DataPort) * 8 == dut::kDataWidth, "the DMA data port is not DATA_WIDTH bits wide");

// A Verilated model finds a rising edge by comparing clk with the value its
// previous eval() saw. Evaluated once per cycle (always with clk high) it
// would never see one, so before that evaluation the harness sets the value
// remembered to 0 itself. The variable is Verilator's own
// (__Vtrigrprev__TOP__clk in Verilator 5.0xx); a Verilator that names it
// otherwise makes ok false, and the nodes are evaluated twice per cycle.
template <typename R, typename = void>
struct ClkPrev {
    static constexpr bool ok = false;
    static void clear(R*) {}
};
template <typename R>
struct ClkPrev<R, std::void_t<decltype(std::declval<R&>().__Vtrigrprev__TOP__clk)>> {
    static constexpr bool ok = true;
    static void clear(R* r) { r->__Vtrigrprev__TOP__clk = 0; }
};
using RootClk = ClkPrev<Vvia_node___024root>;

}  // namespace

bool Node::single_eval_supported() { return RootClk::ok; }

unsigned Node::bus_bytes() { return unsigned(sizeof(DataPort)); }

Node::Node(unsigned idx_, VerilatedContext* ctx, const Options& o, NodeEvents* ev, TxLog* txlog)
    : idx(idx_),
      relay(ev, idx_),
      mmio(idx_, &relay, txlog, &stats),
      dma(idx_, bus_bytes(), o, &mem, &relay, txlog, &stats),
      top_(new Vvia_node{ctx, ("node" + std::to_string(idx_)).c_str()}),
      txlog_(txlog),
      ev_(&relay) {}

Node::~Node() {
    if (top_) top_->final();
}

bool Node::dut_idle() const { return top_->idle; }

void Node::initial_eval() {
    Vvia_node* t = top_.get();
    t->clk = 0;
    t->rst = 1;
    // the board strap: node k is on fabric port k
    t->node_id = uint8_t(idx);
    MmioMaster::drive_quiet(t);
    DmaMemory::drive_quiet(t);
    // the fabric link: nothing on it, held in reset with the switch
    t->link_rst = 1;
    t->rx_valid = 0;
    t->rx_last = 0;
    t->rx_keep = 0;
    t->rx_data = 0;
    t->tx_credit = 0;
    t->eval();
    irq_ = uint32_t(t->irq);
}

void Node::negedge_drive(uint64_t cycle) {
    Vvia_node* t = top_.get();
    MmioOp op;
    if (mmio.take_reset_request(&op)) {
        hold_reset(kResetCycles);
        reset_op_ = true;
        stats.resets++;
    }
    bool rst = rst_left_ > 0;
    rst_driven_ = rst;
    t->rst = rst;
    t->clk = 0;
    // the platform time base: the simulated cycle (it keeps counting while
    // the node sleeps, as a real time base would)
    t->time_cycles = cycle;
    t->link_rst = link_rst_;
    t->rx_valid = link_in_.valid;
    if (link_in_.valid) {
        t->rx_data = link_in_.data;
        t->rx_keep = link_in_.keep;
        t->rx_last = link_in_.last;
    }
    t->tx_credit = link_in_.credit;
    if (rst) {
        MmioMaster::drive_quiet(t);
        DmaMemory::drive_quiet(t);
        mmio.invalidate_drive();
        dma.invalidate_drive();
        drive_idle_ = false;
    } else {
        mmio.drive(t);
        dma.drive(t);
        drive_idle_ = mmio.idle() && dma.idle();
    }
}

void Node::eval() { top_->eval(); }

Fabric::Sym Node::link_out() const {
    const Vvia_node* t = top_.get();
    Fabric::Sym s;
    s.valid = t->tx_valid;
    if (s.valid) {
        s.data = t->tx_data;
        s.keep = t->tx_keep;
        s.last = t->tx_last;
    }
    s.credit = t->rx_credit;
    return s;
}

void Node::negedge_sample(uint64_t cycle) {
    Vvia_node* t = top_.get();
    if (rst_driven_) {
        mmio.clear_sample();
        dma.clear_sample();
    } else {
        mmio.sample(t, cycle + 1);
        dma.sample(t, single_eval_);
    }
    stats.busy_cycles++;
}

void Node::posedge_drive() {
    if (single_eval_) RootClk::clear(top_->rootp);
    top_->clk = 1;
}

void Node::after_posedge(uint64_t cycle) {
    if (rst_driven_) {
        if (rst_left_ > 0 && --rst_left_ == 0 && reset_op_) {
            reset_op_ = false;
            mmio.reset_finished(cycle);
        }
    } else {
        if (single_eval_) dma.taken_rb(top_->dma_r_taken, top_->dma_b_taken);
        mmio.edge(cycle);
        dma.edge(cycle);
    }
    if (top_->fw_log_valid) fw_log_word(uint32_t(top_->fw_log_word), cycle);
    uint32_t v = uint32_t(top_->irq);
    if (v != irq_) {
        uint32_t old = irq_;
        irq_ = v;
        if (v & ~old) stats.irqs++;
        ev_->on_irq(idx, old, v, cycle);
    }
    if (!rst_driven_ && !link_rst_ && rst_left_ == 0 && drive_idle_ && mmio.idle() && dma.idle() && dut_idle()) {
        awake_ = false;
        sleep_since_ = cycle;
    }
}

bool Node::quantum_negedge(Fabric* fab, uint64_t c) {
    Fabric::Sym in = fab->take_node(idx, c);
    if (in.any()) wake(c);
    if (!awake_) return false;
    set_link_in(in, false);
    relay.set_cycle(c);
    negedge_drive(c);
    return true;
}

void Node::quantum_posedge(Fabric* fab, uint64_t c) {
    relay.set_cycle(c + 1);
    after_posedge(c + 1);
    fab->put_up(idx, link_out(), c + 1);
}

void Node::run_quantum(Fabric* fab, uint64_t t0, unsigned n) {
    for (uint64_t c = t0; c < t0 + n; c++) {
        if (!quantum_negedge(fab, c)) continue;
        if (!single_eval_) eval();
        negedge_sample(c);
        posedge_drive();
        eval();
        quantum_posedge(fab, c);
    }
}

// fw_log_word collects the bytes of one logged word (first byte in bits
// 7:0, NUL padding) into lines, prints each line on the console tagged with
// node and cycle, and keeps the recent ones for STATS.
void Node::fw_log_word(uint32_t w, uint64_t cycle) {
    for (int i = 0; i < 4; i++) {
        char ch = char((w >> (8 * i)) & 0xff);
        if (ch == 0) continue;
        if (fw_line_.empty()) fw_line_cycle_ = cycle;
        if (ch == '\n' || fw_line_.size() >= 512) {
            if (ch != '\n') fw_line_ += ch;
            ev_->on_fw_line(idx, fw_line_cycle_, fw_line_);
            fw_log_.push_back(FwLogLine{fw_lines_++, fw_line_cycle_, fw_line_});
            if (fw_log_.size() > kFwLogKeep) fw_log_.pop_front();
            fw_line_.clear();
            continue;
        }
        fw_line_ += (ch >= 0x20 && ch < 0x7f) || ch == '\t' ? ch : '?';
    }
}

void Node::wake(uint64_t cycle) {
    if (awake_) return;
    awake_ = true;
    if (cycle > sleep_since_) dma.skip_cycles(cycle - sleep_since_);
}

void Node::hold_reset(unsigned n) {
    if (rst_left_ < n) rst_left_ = n;
    dma.drop_all();
    awake_ = true;
}

void Node::detach(uint64_t cycle) {
    mmio.abort_all(cycle);
    dma.drop_all();
    mem.detach();
    grants_.clear();
    driver = 0;
    reset_op_ = false;
    stats.resets++;
    wake(cycle);
    hold_reset(kResetCycles);
    txlog_->note(cycle, idx, "detached: driver gone, held in reset");
}

bool Node::granted(uint64_t token, uint32_t vi) const {
    auto it = grants_.find(token);
    if (it == grants_.end()) return false;
    size_t w = vi / 64;
    return w < it->second.size() && ((it->second[w] >> (vi % 64)) & 1);
}

void Node::grant(uint64_t token, uint32_t first, uint32_t count) {
    std::vector<uint64_t>& bits = grants_[token];
    size_t need = (size_t(first) + count + 63) / 64;
    if (bits.size() < need) bits.resize(need, 0);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t vi = first + i;
        bits[vi / 64] |= uint64_t(1) << (vi % 64);
    }
}

}  // namespace vianic

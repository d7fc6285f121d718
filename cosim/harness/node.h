// node.h: one simulated node: a Verilated via_node ("nodeK": via_nic and
// its fabric link port, rtl/via_node.v) with its MMIO
// master model, host memory and DMA model, hard reset, interrupt tracking,
// idle detection, and the node's ownership state (driver, doorbell grants).
//
// A cycle of a node, driven by the server for every awake node in turn
// (the evals of all nodes run in parallel, see eval_pool.h):
//   negedge_drive(c)  set inputs from the models (changes happen half a cycle
//                     before the edge that samples them), clk=0
//   eval()
//   negedge_sample(c) sample the handshakes the rising edge will see
//   posedge_drive()   clk=1
//   eval()
//   after_posedge(c) the models take the handshakes of edge c, irq changes
//                    are reported, the reset counter runs, and the node goes
//                    to sleep if it is idle
// A sleeping node is not evaluated at all: its inputs are the models' idle
// constants and via_nic promises (idle = 1) that nothing changes inside it
// until an input changes. Anything given to the node wakes it.
//
// With --quantum the node runs a whole quantum of cycles on its own
// (run_quantum, on any thread): its link symbols come off the switch's line
// to it (written at least a link latency earlier, so before the quantum),
// its outputs go onto its line to the switch, and what its models report
// is kept by its relay until the server replays it after the quantum.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "dma_memory.h"
#include "events.h"
#include "fabric.h"
#include "host_memory.h"
#include "mmio_master.h"
#include "stats.h"

class Vvia_node;
class VerilatedContext;

namespace vianic {

struct Options;
struct NodeEvents;
class TxLog;

class Node {
public:
    static constexpr unsigned kStartupResetCycles = 8;
    static constexpr unsigned kResetCycles = 8;  // RESET request and detach

    Node(unsigned idx, VerilatedContext* ctx, const Options& o, NodeEvents* ev, TxLog* txlog);
    ~Node();

    // Settles the model at time 0 (rst=1, clk=0) before the first cycle.
    void initial_eval();
    // the link's symbols due at the next edge (Fabric::to_node) and the
    // link's reset (the switch's, at power-on); before negedge_drive
    void set_link_in(const Fabric::Sym& s, bool link_rst) {
        link_in_ = s;
        link_rst_ = link_rst;
    }
    // the link's outputs after the edge (after_posedge)
    Fabric::Sym link_out() const;
    void negedge_drive(uint64_t cycle);
    void negedge_sample(uint64_t cycle);
    void posedge_drive();
    // Evaluates the model; the only call that may run on another thread
    // (touches nothing outside this node's model).
    void eval();
    // One evaluation per cycle instead of two (no waveform: nothing needs
    // the model settled between the falling and the rising edge): the
    // evaluation after negedge_drive is skipped, the bus models' samples are taken from the
    // outputs of the last rising edge (none of them depends on the inputs
    // but rready and bready, whose handshakes via_node registers as
    // dma_r_taken / dma_b_taken for after_posedge). The cycles are the
    // same either way.
    // (only where the Verilator build allows it: single_eval_supported)
    void set_single_eval(bool on) { single_eval_ = on && single_eval_supported(); }
    bool single_eval() const { return single_eval_; }
    static bool single_eval_supported();
    void after_posedge(uint64_t cycle);

    // --quantum: cycles [t0, t0+n) of this node alone (touches nothing but
    // this node, its lines and its relay, so nodes may run it in parallel)
    void run_quantum(Fabric* fab, uint64_t t0, unsigned n);
    // the halves of one of those cycles, for a schedule that runs every
    // node edge by edge (waveform, transaction log): quantum_negedge takes
    // the link symbol and drives the inputs (false: the node sleeps, skip
    // the rest); then eval(), negedge_sample(c), posedge_drive(), eval(),
    // quantum_posedge(c)
    bool quantum_negedge(Fabric* fab, uint64_t c);
    void quantum_posedge(Fabric* fab, uint64_t c);

    bool awake() const { return awake_; }
    void wake(uint64_t cycle);
    bool in_reset() const { return rst_left_ > 0; }

    // Holds rst for n cycles from the next edge on; drops DMA in flight.
    void hold_reset(unsigned n);
    // The driver is gone: everything in flight is dropped (pending reads
    // answered DETACHED), memory unmapped, grants revoked, reset held.
    void detach(uint64_t cycle);

    uint32_t irq() const { return irq_; }

    // Firmware log lines the node's debug port (fw_log_valid/fw_log_word)
    // carried, oldest first, at most kFwLogKeep; index counts every line.
    struct FwLogLine {
        uint64_t index;
        uint64_t cycle;  // cycle of the line's first word
        std::string text;
    };
    static constexpr size_t kFwLogKeep = 64;
    const std::deque<FwLogLine>& fw_log() const { return fw_log_; }
    Vvia_node* model() { return top_.get(); }
    static unsigned bus_bytes();

    // doorbell page grants: token -> one bit per VI
    bool granted(uint64_t token, uint32_t vi) const;
    void grant(uint64_t token, uint32_t first, uint32_t count);
    void revoke(uint64_t token) { grants_.erase(token); }

    const unsigned idx;
    uint32_t driver = 0;  // client id of the driver connection, 0 if none
    NodeStats stats;
    EventRelay relay;  // the models' events on their way to the server
    HostMemory mem;
    MmioMaster mmio;
    DmaMemory dma;

private:
    bool dut_idle() const;
    void fw_log_word(uint32_t w, uint64_t cycle);

    std::unique_ptr<Vvia_node> top_;
    TxLog* txlog_;
    bool awake_ = true;
    bool single_eval_ = false;
    bool drive_idle_ = false;  // the last drive was the models' idle constants
    unsigned rst_left_ = kStartupResetCycles;
    bool rst_driven_ = true;   // rst value of the last drive
    bool reset_op_ = false;    // the reset running is a RESET request
    uint32_t irq_ = 0;
    uint64_t sleep_since_ = 0;  // edge after which the node fell asleep
    std::unordered_map<uint64_t, std::vector<uint64_t>> grants_;
    NodeEvents* ev_;
    Fabric::Sym link_in_;
    bool link_rst_ = true;
    std::string fw_line_;        // the firmware log line being assembled
    uint64_t fw_line_cycle_ = 0;
    uint64_t fw_lines_ = 0;
    std::deque<FwLogLine> fw_log_;
};

}  // namespace vianic

// fabric.h: the cluster's network: the Verilated switch (rtl/via_fabric.v,
// model "fabric", built with kPorts ports; the nports input says how many
// have a node) and the links between it and every node's link port
// (rtl/via_node.v), with the capture of the frames it delivers.
//
// A link carries symbols only: a data beat one way and a credit pulse the
// other, both registered at their source. The harness delays every symbol
// by the link latency L (cycles, >= 1): a symbol a model outputs after
// rising edge c is driven into the far end before edge c + L (at the falling
// edge before it). This is the boundary the nodes and the switch can be
// evaluated apart at: nothing crosses it faster than L cycles.
//
// With --quantum the nodes and the switch run a quantum of at most L
// cycles apart, each on its own (run_quantum): every symbol taken in the
// quantum was put before it, and every symbol put is due after it. A line
// holds 2L slots so that its reader and its writer, on different threads,
// never touch the same slot within a quantum.
//
// Per cycle (Server::step): deliver() takes the symbols due at the next edge
// off the lines (and wakes a sleeping node that gets one), the models are
// driven, evaluated and sampled, then collect_*() puts the symbols the
// models output onto the lines. The switch sleeps, like a node, while it is
// idle and nothing is in flight on a link.
//
// Capture (--pcap): every frame the switch sends to a node, as the node's
// link receives it (so a frame a fault rule corrupts shows with its bad CRC,
// a dropped one does not show), in the libpcap format with nanosecond
// timestamps (the simulated time of the frame's first beat on the link),
// Ethernet framing with the MACs of the nodes and the EtherType of
// docs/wire.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

class Vvia_fabric;
class Vvia_node;
class VerilatedContext;

namespace vianic {

struct NodeEvents;

class Fabric {
public:
    static constexpr unsigned kPorts = 16;   // the model's PORTS (nodes 1..16)
    static constexpr unsigned kResetCycles = 8;

    // One symbol of a link in one cycle: a beat and/or a credit pulse.
    struct Sym {
        uint64_t data = 0;
        uint8_t keep = 0;
        bool valid = false, last = false, credit = false;
        bool any() const { return valid || credit; }
    };

    // A client's access to the switch's register port (FABRIC_READ or
    // FABRIC_WRITE): one per cycle, in order. A write takes effect at the
    // rising edge of its cycle and is acknowledged after it; a read returns
    // the register's value in its cycle (cfg_rdata is combinational).
    struct Op {
        bool write;
        uint32_t addr;  // word index, 0..255
        uint32_t value;
        uint32_t client, tag;
    };

    Fabric(VerilatedContext* ctx, unsigned nodes, unsigned latency, NodeEvents* ev);
    ~Fabric();

    // Opens the capture file (--pcap); false with *why on failure.
    bool open_pcap(const std::string& path, uint32_t clock_ps, std::string* why);
    void close_pcap();

    Vvia_fabric* model() { return top_.get(); }
    unsigned latency() const { return lat_; }

    void initial_eval();
    // Takes the symbols due at edge cycle+1 off every line: to_node(p) and
    // the switch's inputs. Returns the nodes that get a symbol (bit p).
    uint32_t deliver(uint64_t cycle);
    const Sym& to_node(unsigned p) const { return node_in_[p]; }
    bool in_reset() const { return rst_left_ > 0; }

    void push(const Op& op) {
        ops_.push_back(op);
        awake_ = true;
    }
    bool awake() const { return awake_; }
    void negedge_drive();
    void negedge_sample();
    void posedge_drive();
    void eval();
    // after edge `cycle`: the switch's outputs onto the lines, the capture
    void after_posedge(uint64_t cycle);
    // node p's outputs of edge `cycle` onto its line to the switch
    void collect_node(unsigned p, const Sym& s, uint64_t cycle);

    // --quantum (see above). The server calls begin_quantum(run) before
    // the threads start (run: the switch takes part, because it is awake
    // or something is on a line) and end_quantum() after they are done. In between: take_node(p, c) and put_up(p, s, c+1) on node p's
    // thread, run_quantum() (or the switch's halves of a cycle) on the
    // switch's.
    void begin_quantum(bool run) {
        quantum_ = true;
        run_ = run;
    }
    void end_quantum();
    bool quantum_runs() const { return run_; }
    Sym take_node(unsigned p, uint64_t cycle) { return take(down_[p], cycle + 1); }
    void put_up(unsigned p, const Sym& s, uint64_t cycle) {
        if (s.any()) put(up_[p], cycle + lat_, s);
    }
    void run_quantum(uint64_t t0, unsigned n);
    // the halves of one of its cycles, for the edge-by-edge schedule (as
    // Node's): quantum_negedge takes the switch's inputs due at edge c+1
    // off the nodes' lines and drives them (false: it sleeps, skip the
    // rest); then eval(), negedge_sample(), posedge_drive(), eval(),
    // quantum_posedge(c)
    bool quantum_negedge(uint64_t c);
    void quantum_posedge(uint64_t c);

    // symbols on the links (either way), not yet delivered
    uint64_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
    uint64_t frames_captured() const { return captured_; }

private:
    struct Line {
        std::vector<Sym> slot;  // slot (c % 2L): the symbol due at edge c
    };
    void put(Line& l, uint64_t due, const Sym& s);
    Sym take(Line& l, uint64_t due);
    void capture(unsigned p, uint64_t cycle);

    std::unique_ptr<Vvia_fabric> top_;
    NodeEvents* ev_;
    std::deque<Op> ops_;
    bool op_live_ = false;  // ops_.front() is driven this cycle
    uint32_t op_rdata_ = 0;
    const unsigned nodes_;
    const unsigned lat_;
    Line up_[kPorts], down_[kPorts];
    Sym node_in_[kPorts], sw_in_[kPorts];
    std::atomic<uint64_t> in_flight_{0};  // nodes' threads put, the switch's takes
    bool quantum_ = false;                 // a quantum is running
    bool run_ = false;                     // ... and the switch takes part
    unsigned rst_left_ = kResetCycles;
    bool awake_ = true;

    FILE* pcap_ = nullptr;
    std::string pcap_path_;
    uint32_t clock_ps_ = 4000;
    std::vector<uint8_t> frame_[kPorts];
    uint64_t frame_cycle_[kPorts] = {};
    uint64_t captured_ = 0;
};

}  // namespace vianic

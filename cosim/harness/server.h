// server.h: the simulator process's core: listeners and client connections,
// message dispatch with role checks, the time control of
// docs/cosim-protocol.md (lockstep / free-run, idle skip, deadlock report),
// waits, interrupt delivery, detach, and the cycle loop over all nodes.
//
// Loop (single thread):
//   - lockstep: when every attached client (monitors excepted) is blocked
//     (a request outstanding, or held by flow control: its queue or its
//     node's MMIO queue is full), the requests they queued while time was
//     frozen are applied, connection by connection in increasing client_id
//     order, then time advances;
//     a monitor's requests are never queued, and while one is outstanding
//     time advances too (a register tool works while a test is stopped);
//   - while some node is awake, cycles run in chunks of kChunkCycles with a
//     non-blocking poll between chunks; answers are buffered while cycles
//     run and sent when they stop, and a chunk ends early (at the end of the
//     cycle) as soon as a lockstep client is answered;
//   - when every node sleeps, time jumps to the earliest wait deadline; with
//     none, lockstep reports a deadlock to every waiting client, and both
//     modes sleep in poll() without a timeout (no CPU while idle).
#pragma once

#include <poll.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "connection.h"
#include "eval_pool.h"
#include "fabric.h"
#include "events.h"
#include "node.h"
#include "options.h"
#include "trace.h"
#include "txlog.h"
#include "waits.h"

class VerilatedContext;

namespace vianic {

class Server : public NodeEvents {
public:
    static constexpr unsigned kChunkCycles = 128;

    explicit Server(const Options& o);
    ~Server() override;

    // Builds the nodes, runs the power-on reset, opens the trace and the
    // transaction log, starts listening and prints the listening line.
    // Returns false (after logging why) on any failure.
    bool start();
    // Serves until TERMINATE or SIGINT/SIGTERM; returns the exit status.
    int run();

    // NodeEvents
    void on_fabric_done(uint32_t client, uint32_t tag, bool write, uint32_t value, uint64_t cycle) override;
    void on_read_done(unsigned node, uint32_t client, uint32_t tag, uint16_t status, uint64_t value,
                      uint64_t cycle) override;
    void on_write_error(unsigned node, uint32_t client, uint32_t tag, uint32_t offset, unsigned resp,
                        uint64_t cycle) override;
    void on_reset_done(unsigned node, uint32_t client, uint32_t tag, uint64_t cycle) override;
    void on_wait_reached(unsigned node, uint32_t client, uint32_t tag, bool dropped) override;
    void on_dma_write(unsigned node, uint64_t addr, uint64_t len) override;
    void on_irq(unsigned node, uint32_t old_vec, uint32_t new_vec, uint64_t cycle) override;
    void on_fw_line(unsigned node, uint64_t cycle, const std::string& text) override;

private:
    // setup and teardown
    bool listen_unix();
    bool listen_tcp();
    void shutdown();

    // cycles and time
    void step();
    // --quantum: the next n cycles with every node (and the switch) on its
    // own, then the events they kept, in cycle order
    void run_quantum(unsigned n);
    void replay_events();
    unsigned quantum_length() const;
    bool run_cycles(unsigned max);  // true when it ran all max cycles
    bool run_cycles_corked(unsigned max);
    bool any_awake() const;
    void jump_to(uint64_t cycle);
    void process_deadlines();
    void report_deadlock();

    // I/O
    void poll_io(int timeout_ms);
    void set_client_limit();
    void accept_on(int lfd, bool is_unix);
    void read_conn(Conn* c);
    void parse_input(Conn* c);
    bool may_read(const Conn* c) const;
    // the connection's queue or its node's MMIO queue is full: the server
    // takes no more messages from it until they drain
    bool backpressured(const Conn* c) const;
    void resume_stalled();
    void handle_signal(int sig);
    void sweep();
    void close_conn(Conn* c);
    void detach_node(Node& n);

    // messages
    void handle_message(Conn* c, const proto::Header& h, const uint8_t* payload);
    void do_hello(Conn* c, const proto::Message& m);
    void do_attach(Conn* c, const proto::Message& m);
    void do_read(Conn* c, const proto::Message& m);
    void do_write(Conn* c, const proto::Message& m);
    void do_grant(Conn* c, const proto::Message& m);
    void do_stats(Conn* c, uint32_t tag);
    void do_cancel(Conn* c, uint32_t tag);
    bool check_access(const Conn* c, uint32_t offset, uint8_t size, bool write, std::string* why) const;
    void submit(Conn* c, const Action& a);
    void apply(Conn* c, const Action& a);
    void apply_deferred();

    // waits
    void start_wait(Conn* c, uint32_t tag, const proto::WaitReq& req);
    void finish_wait(Wait& w, uint16_t status, uint64_t value, const std::string& text);
    bool read_word(Node& n, uint64_t addr, unsigned size, uint64_t* v);
    uint64_t wait_value(const Wait& w);

    // answers and bookkeeping
    Conn* find(uint32_t id) const;
    bool counts(const Conn* c) const;  // attached, not a monitor: takes part in lockstep
    // lockstep: a request awaits its answer, or flow control holds it
    static bool blocked(const Conn* c) { return !c->outstanding.empty() || c->flow; }
    void set_flow(Conn* c, bool on);
    void update_flow(Conn* c);
    void update_flow_all();
    // lockstep: time may advance (every client blocked, or a monitor waits)
    bool time_may_advance() const {
        return drivers_seen_ >= o_.wait_drivers && (!o_.lockstep || unblocked_ == 0 || monitor_pending_ > 0);
    }
    void add_tag(Conn* c, uint32_t tag);
    void answered(Conn* c, uint32_t tag);
    void send_ack(Conn* c, uint32_t tag, uint16_t status);
    void send_error(Conn* c, uint32_t tag, uint16_t code, bool fatal, uint16_t ref_type, uint64_t ref_offset,
                    const std::string& text);
    void fatal(Conn* c, const proto::Header& h, uint16_t code, const std::string& text);
    void note_refused(Conn* c, const std::string& what);
    std::string who(const Conn* c) const;
    std::string stats_text() const;

    Options o_;
    unsigned drivers_seen_ = 0;  // driver connections attached, up to o_.wait_drivers
    std::unique_ptr<VerilatedContext> ctx_;
    std::vector<std::unique_ptr<Node>> nodes_;
    std::unique_ptr<EventRelay> fab_relay_;  // the switch's events (register port answers)
    std::unique_ptr<Fabric> fabric_;
    std::unique_ptr<EvalPool> pool_;  // evaluates the nodes' models of an edge in parallel
    Trace trace_;
    TxLog txlog_;

    int unix_fd_ = -1;
    int tcp_fd_ = -1;
    std::string tcp_shown_;  // HOST:PORT actually bound
    bool unlink_socket_ = false;
    std::vector<std::unique_ptr<Conn>> conns_;  // in increasing id order
    std::unordered_map<uint32_t, Conn*> by_id_;
    uint32_t next_id_ = 1;
    unsigned max_clients_ = 0;    // o_.max_clients, capped by the descriptor limit
    bool accept_paused_ = false;  // out of descriptors: listeners rest until a client leaves
    std::vector<struct pollfd> pfds_;
    std::vector<Conn*> pconns_;

    uint64_t cycle_ = 0;
    bool single_eval_ = false;  // the nodes are not evaluated at the falling edge (no waveform)
    int unblocked_ = 0;        // attached non-monitor clients that are not blocked
    int flow_conns_ = 0;       // connections held by flow control
    int monitor_pending_ = 0;  // requests of monitors awaiting an answer
    WaitList waits_;
    // WAITs applied but still behind earlier MMIO in their node's queue,
    // by (client << 32 | tag)
    std::unordered_map<uint64_t, proto::WaitReq> queued_waits_;
    bool terminate_ = false;
    int stop_signal_ = 0;

    uint32_t bar_bytes_;
    uint32_t num_irq_;
    uint32_t num_vi_;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace vianic

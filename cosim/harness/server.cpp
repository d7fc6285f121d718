// server.cpp: setup, listeners, the event loop, socket I/O, connection
// life and detach (see server.h). Message handling is in dispatch.cpp, the
// cycle loop and time control in time_control.cpp, interrupts in irq.cpp.
#include "server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "Vvia_node.h"
#include "backlog.h"
#include "dut_params.h"
#include "log.h"
#include "verilated.h"

namespace vianic {

namespace {

int g_sig_pipe[2] = {-1, -1};

void on_signal(int sig) {
    int saved = errno;
    uint8_t b = uint8_t(sig);
    ssize_t r = write(g_sig_pipe[1], &b, 1);
    (void)r;
    errno = saved;
}

bool install_signals(std::string* why) {
    if (pipe2(g_sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        *why = std::string("pipe: ") + strerror(errno);
        return false;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGUSR1, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    return true;
}

// mkdir -p with mode 0700 for the directories it creates
bool make_dirs(const std::string& dir, std::string* why) {
    if (dir.empty()) return true;
    struct stat st;
    if (stat(dir.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) return true;
        *why = dir + " exists and is not a directory";
        return false;
    }
    size_t slash = dir.rfind('/');
    if (slash != std::string::npos && slash > 0 && !make_dirs(dir.substr(0, slash), why)) return false;
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        *why = "cannot create " + dir + ": " + strerror(errno);
        return false;
    }
    return true;
}

}  // namespace

Server::Server(const Options& o) : o_(o) {
    // the built model's parameters, not the layout's defaults
    bar_bytes_ = uint32_t(1) << (dut::kAxilAddrWidth & 31);
    num_irq_ = dut::kNumIrq;
    num_vi_ = dut::kNumVi;
}

Server::~Server() { shutdown(); }

bool Server::start() {
    t0_ = std::chrono::steady_clock::now();
    std::string why;
    if (!install_signals(&why)) {
        log_error("%s", why.c_str());
        return false;
    }
    HostMemory::install_fault_handler();
    set_client_limit();

    ctx_.reset(new VerilatedContext);
    // random initial values (the build uses --x-initial unique), repeatable
    // for a given seed
    ctx_->randReset(2);
    ctx_->randSeed(int(o_.seed));
    if (!o_.trace_file.empty()) Trace::enable_context(ctx_.get());
    pool_.reset(new EvalPool(o_.threads ? o_.threads : EvalPool::default_threads(o_.nodes)));
    for (unsigned i = 0; i < o_.nodes; i++) nodes_.emplace_back(new Node(i, ctx_.get(), o_, this, &txlog_));
    fab_relay_.reset(new EventRelay(this, o_.nodes));
    fabric_.reset(new Fabric(ctx_.get(), o_.nodes, o_.link_latency, fab_relay_.get()));
    if (!o_.pcap_file.empty() && !fabric_->open_pcap(o_.pcap_file, o_.clock_ps, &why)) {
        log_error("%s", why.c_str());
        return false;
    }

    if (!o_.txlog_file.empty() && !txlog_.open(o_.txlog_file, &why)) {
        log_error("%s", why.c_str());
        return false;
    }
    if (!o_.trace_file.empty()) {
        std::vector<Vvia_node*> models;
        for (auto& n : nodes_) models.push_back(n->model());
        if (!trace_.open(o_.trace_file, models, fabric_->model(), o_.trace_start, o_.trace_end, &why)) {
            log_error("%s", why.c_str());
            return false;
        }
    }

    // without a waveform, one evaluation of each node per cycle (node.h)
    single_eval_ = !trace_.enabled() && Node::single_eval_supported();
    for (auto& n : nodes_) n->set_single_eval(single_eval_);
    if (!trace_.enabled() && !single_eval_)
        log_verbose("this Verilator's models are evaluated twice per cycle (no one-evaluation support)");

    // power-on reset, done before anyone can connect so that every run
    // starts from the same cycle
    ctx_->time(0);
    for (auto& n : nodes_) n->initial_eval();
    fabric_->initial_eval();
    trace_.dump(0, 0);
    for (unsigned i = 0; i < 256 && (i < Node::kStartupResetCycles + 2 || any_awake()); i++) step();

    if (!o_.tcp.empty() && !listen_tcp()) return false;
    if (!listen_unix()) return false;

    std::string mode = o_.lockstep ? "lockstep" : "free-run";
    if (o_.quantum) mode += ", quantum " + std::to_string(o_.quantum) + " cycles";
    log_info("%u node%s (%u thread%s), %s, %.6g MHz (%u ps), DMA latency read %llu / write %llu cycles, bandwidth %s, seed %u%s%s",
             o_.nodes, o_.nodes == 1 ? "" : "s", pool_->threads(), pool_->threads() == 1 ? "" : "s", mode.c_str(), o_.clock_mhz, o_.clock_ps,
             (unsigned long long)o_.dma_read_latency, (unsigned long long)o_.dma_write_latency,
             o_.dma_bandwidth_mbps ? (std::to_string(o_.dma_bandwidth_mbps) + " MB/s").c_str() : "unlimited",
             o_.seed, o_.trace_file.empty() ? "" : ", trace ", o_.trace_file.c_str());
    // both listeners are ready; the unix line first (launchers take the
    // first "listening on" line)
    printf("vianic-sim: listening on unix:%s\n", o_.socket_path.c_str());
    if (tcp_fd_ >= 0) printf("vianic-sim: listening on tcp:%s\n", tcp_shown_.c_str());
    fflush(stdout);
    return true;
}

bool Server::listen_unix() {
    const std::string& path = o_.socket_path;
    struct sockaddr_un sa;
    if (path.size() >= sizeof sa.sun_path) {
        log_error("--socket %s: the path is longer than %zu bytes, the limit of Unix sockets", path.c_str(),
                  sizeof sa.sun_path - 1);
        return false;
    }
    std::string why;
    size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0 && !make_dirs(path.substr(0, slash), &why)) {
        log_error("socket directory: %s", why.c_str());
        return false;
    }
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path.c_str(), path.size());

    struct stat st;
    if (lstat(path.c_str(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            log_error("--socket %s exists and is not a socket", path.c_str());
            return false;
        }
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        bool live = probe >= 0 && connect(probe, reinterpret_cast<struct sockaddr*>(&sa), sizeof sa) == 0;
        if (probe >= 0) close(probe);
        if (live) {
            log_error("another simulator is listening on %s", path.c_str());
            return false;
        }
        unlink(path.c_str());  // stale, left by a simulator that died
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, reinterpret_cast<struct sockaddr*>(&sa), sizeof sa) != 0 || listen(fd, listen_backlog()) != 0) {
        log_error("cannot listen on unix:%s: %s", path.c_str(), strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    chmod(path.c_str(), 0600);
    unix_fd_ = fd;
    unlink_socket_ = true;
    return true;
}

bool Server::listen_tcp() {
    std::string host = o_.tcp.substr(0, o_.tcp.rfind(':'));
    std::string port = o_.tcp.substr(o_.tcp.rfind(':') + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    struct addrinfo* res = nullptr;
    int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
    if (rc != 0) {
        log_error("--tcp %s: %s", o_.tcp.c_str(), gai_strerror(rc));
        return false;
    }
    int fd = -1;
    std::string err = "no address";
    for (struct addrinfo* a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, listen_backlog()) == 0) break;
        err = strerror(errno);
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        log_error("cannot listen on tcp:%s: %s", o_.tcp.c_str(), err.c_str());
        return false;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char hbuf[NI_MAXHOST] = "?", pbuf[NI_MAXSERV] = "?";
    if (getsockname(fd, reinterpret_cast<struct sockaddr*>(&ss), &len) == 0)
        getnameinfo(reinterpret_cast<struct sockaddr*>(&ss), len, hbuf, sizeof hbuf, pbuf, sizeof pbuf,
                    NI_NUMERICHOST | NI_NUMERICSERV);
    tcp_fd_ = fd;
    bool v6 = strchr(hbuf, ':') != nullptr;
    tcp_shown_ = std::string(v6 ? "[" : "") + hbuf + (v6 ? "]" : "") + ":" + pbuf;
    return true;
}

void Server::shutdown() {
    // best effort: let every client get what was sent to it (up to 1 s)
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    for (;;) {
        std::vector<struct pollfd> p;
        for (auto& c : conns_) {
            if (c->out_pending() && !c->broken && c->flush() && c->out_pending())
                p.push_back({c->fd, POLLOUT, 0});
        }
        auto now = std::chrono::steady_clock::now();
        if (p.empty() || now >= until) break;
        int ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
        if (poll(p.data(), p.size(), ms) <= 0) break;
    }
    conns_.clear();
    by_id_.clear();
    if (unix_fd_ >= 0) close(unix_fd_);
    if (tcp_fd_ >= 0) close(tcp_fd_);
    unix_fd_ = tcp_fd_ = -1;
    if (unlink_socket_) unlink(o_.socket_path.c_str());
    unlink_socket_ = false;
    trace_.close();
    txlog_.close();
    nodes_.clear();
}

int Server::run() {
    for (;;) {
        if (stop_signal_) {
            log_info("stopping on %s at cycle %llu", strsignal(stop_signal_), (unsigned long long)cycle_);
            shutdown();
            return 0;
        }
        sweep();
        if (terminate_) {
            log_info("TERMINATE at cycle %llu", (unsigned long long)cycle_);
            shutdown();
            return 0;
        }
        resume_stalled();
        if (o_.lockstep) {
            update_flow_all();
            if (unblocked_ == 0) apply_deferred();
        }
        bool can_advance = time_may_advance();
        if (can_advance && any_awake()) {
            // a chunk that stopped early changed the state (an answer, all
            // idle): the loop decides again at once, without a poll syscall,
            // unless time goes on after something was sent (free-run, an
            // IRQ): then input is read first, as after a full chunk
            bool full = run_cycles(kChunkCycles);
            if (full || (Conn::corked && time_may_advance() && any_awake())) poll_io(0);
            continue;
        }
        // skipping ahead or declaring a deadlock needs every (non-monitor)
        // client blocked, not just a monitor waiting
        if (drivers_seen_ >= o_.wait_drivers && (!o_.lockstep || unblocked_ == 0)) {
            if (waits_.next_deadline() != kNever) {
                jump_to(waits_.next_deadline());
                continue;
            }
            if (o_.lockstep && !waits_.empty()) {
                report_deadlock();
                continue;
            }
        }
        poll_io(-1);
    }
}

// ------------------------------------------------------------------ I/O

bool Server::backpressured(const Conn* c) const {
    return c->deferred.size() >= o_.queue_depth || (c->hello_done && nodes_[c->node]->mmio.queued() >= o_.queue_depth);
}

bool Server::may_read(const Conn* c) const { return !c->closing && !c->stalled && !backpressured(c); }

// Whole messages left in a connection's buffer when its queue filled up are
// taken as soon as there is room again (poll would not report them).
void Server::resume_stalled() {
    for (size_t i = 0; i < conns_.size(); i++) {
        Conn* c = conns_[i].get();
        if (c->stalled && !c->closing && !backpressured(c)) parse_input(c);
    }
}

// Flow control (lockstep): a client the server stops reading because its
// queue, or its node's MMIO queue, is full counts as blocked. Otherwise a
// client that only posts writes would freeze time with a full queue that
// only time can drain. The limits are counts of requests, so where a run
// is cut is the same in every run.
void Server::set_flow(Conn* c, bool on) {
    if (c->flow == on) return;
    bool was = blocked(c);
    c->flow = on;
    flow_conns_ += on ? 1 : -1;
    if (counts(c) && was != blocked(c)) unblocked_ += blocked(c) ? -1 : 1;
    log_verbose("%s: flow control %s at cycle %llu (%zu requests queued, %zu MMIO operations on node %u)",
                who(c).c_str(), on ? "on" : "off", (unsigned long long)cycle_, c->deferred.size(),
                c->hello_done ? nodes_[c->node]->mmio.queued() : size_t(0), unsigned(c->node));
}

void Server::update_flow(Conn* c) {
    bool on = o_.lockstep && !c->closing && backpressured(c) && counts(c);
    if (on != c->flow) set_flow(c, on);
}

void Server::update_flow_all() {
    for (size_t i = 0; i < conns_.size(); i++) update_flow(conns_[i].get());
}

void Server::poll_io(int timeout_ms) {
    pfds_.clear();
    pconns_.clear();
    pfds_.push_back({g_sig_pipe[0], POLLIN, 0});
    pconns_.push_back(nullptr);
    if (unix_fd_ >= 0 && !accept_paused_) {
        pfds_.push_back({unix_fd_, POLLIN, 0});
        pconns_.push_back(nullptr);
    }
    if (tcp_fd_ >= 0 && !accept_paused_) {
        pfds_.push_back({tcp_fd_, POLLIN, 0});
        pconns_.push_back(nullptr);
    }
    for (auto& c : conns_) {
        short ev = 0;
        if (may_read(c.get())) ev |= POLLIN;
        if (c->out_pending()) ev |= POLLOUT;
        if (!ev && !c->closing) {
            static bool warned = false;
            if (!warned) {
                log_info("flow control: %s has %zu requests queued and its node %zu MMIO operations; not reading "
                         "it until they drain (logged once)",
                         who(c.get()).c_str(), c->deferred.size(),
                         c->hello_done ? nodes_[c->node]->mmio.queued() : size_t(0));
                warned = true;
            }
        }
        pfds_.push_back({c->fd, ev, 0});
        pconns_.push_back(c.get());
    }
    int r = poll(pfds_.data(), pfds_.size(), timeout_ms);
    if (r <= 0) return;
    for (size_t i = 0; i < pfds_.size(); i++) {
        short re = pfds_[i].revents;
        if (!re) continue;
        int fd = pfds_[i].fd;
        Conn* c = pconns_[i];
        if (!c) {
            if (fd == g_sig_pipe[0]) {
                uint8_t buf[16];
                ssize_t n;
                while ((n = read(fd, buf, sizeof buf)) > 0)
                    for (ssize_t k = 0; k < n; k++) handle_signal(buf[k]);
            } else {
                accept_on(fd, fd == unix_fd_);
            }
            continue;
        }
        if (re & POLLOUT) c->flush();
        if (c->stalled && (re & (POLLHUP | POLLERR)) && c->in_size() == Conn::kInCapacity) {
            // its buffer is full of messages flow control holds back: poll
            // would report the hang-up forever without it being read
            c->close_later("disconnected with a full queue (the messages not yet taken are dropped)");
            continue;
        }
        if (re & (POLLIN | POLLHUP | POLLERR)) read_conn(c);
    }
}

void Server::handle_signal(int sig) {
    if (sig == SIGUSR1) {
        std::string s = "vianic-sim: stats at cycle " + std::to_string(cycle_) + "\n" + stats_text();
        ssize_t w = write(STDERR_FILENO, s.data(), s.size());
        (void)w;
        txlog_.flush();
        trace_.flush();
    } else {
        stop_signal_ = sig;
    }
}

// The connection limit: --max-clients, within the process's descriptor
// limit (raised to the hard limit) less a margin for the waveform, the
// transaction log, host memory descriptors and the listeners.
void Server::set_client_limit() {
    max_clients_ = o_.max_clients;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    const rlim_t margin = 64;
    const rlim_t per_client = 1 + Conn::kMaxFds;  // its socket and the descriptors it may hold
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > margin) {
        rlim_t fit = (rl.rlim_cur - margin) / per_client;
        if (fit < max_clients_) {
            log_info("--max-clients %u lowered to %llu by the descriptor limit (ulimit -n %llu)", o_.max_clients,
                     (unsigned long long)fit, (unsigned long long)rl.rlim_cur);
            max_clients_ = unsigned(fit ? fit : 1);
        }
    }
}

// Accepts the connections waiting on a listener, a bounded number per call
// so that a flood of connects cannot keep the event loop from time control,
// signals and the other clients. Beyond the connection limit a client gets a
// fatal ERROR BUSY and is closed.
void Server::accept_on(int lfd, bool is_unix) {
    static constexpr int kAcceptBurst = 32;
    for (int n = 0; n < kAcceptBurst; n++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int fd = accept4(lfd, reinterpret_cast<struct sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) {
                // poll would report the listener forever: rest it until a
                // client leaves (the pending connects wait in the backlog)
                if (!accept_paused_)
                    log_error("accept: %s with %zu clients; not accepting until one leaves", strerror(errno),
                              conns_.size());
                accept_paused_ = true;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
                log_error("accept: %s", strerror(errno));
            }
            return;
        }
        std::string peer = "unix";
        if (!is_unix) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            char h[NI_MAXHOST] = "?", p[NI_MAXSERV] = "?";
            getnameinfo(reinterpret_cast<struct sockaddr*>(&ss), len, h, sizeof h, p, sizeof p,
                        NI_NUMERICHOST | NI_NUMERICSERV);
            peer = std::string("tcp ") + h + ":" + p;
        }
        uint32_t id = next_id_++;
        conns_.emplace_back(new Conn(fd, id, is_unix, peer));
        Conn* c = conns_.back().get();
        by_id_[id] = c;
        log_verbose("client %u connected (%s)", id, peer.c_str());
        if (conns_.size() > max_clients_) {
            proto::Header h{};
            fatal(c, h, proto::kCodeBusy,
                  "the simulator already has " + std::to_string(max_clients_) + " clients (--max-clients)");
        }
    }
}

void Server::read_conn(Conn* c) {
    for (int round = 0; round < 8 && !c->closing; round++) {
        size_t got = 0;
        std::string err;
        Conn::ReadResult r = c->read_some(&got, &err);
        if (r == Conn::kError) {
            c->close_later("receive failed: " + err);
            return;
        }
        if (r == Conn::kData) parse_input(c);
        if (c->stalled) return;  // queue full: the rest stays in the socket
        if (!err.empty() && !c->closing) {  // descriptors sent wrongly
            proto::Header h;
            fatal(c, h, proto::kCodeMalformed, err);
            return;
        }
        if (r == Conn::kEof) {
            if (c->in_size())
                c->close_later("disconnected in the middle of a message (" + std::to_string(c->in_size()) +
                               " bytes of it received)");
            else
                c->close_later("disconnected");
            return;
        }
        if (r == Conn::kAgain || got < 4096) return;
    }
}

void Server::parse_input(Conn* c) {
    c->stalled = false;
    while (!c->closing) {
        size_t avail = c->in_size();
        if (avail < proto::kHeaderSize) break;
        if (backpressured(c)) {
            // the cut is after the message that filled the queue, so it is
            // at the same place in every run
            c->stalled = true;
            break;
        }
        const uint8_t* p = c->in_data();
        proto::Header h;
        std::string why;
        if (!proto::parse_header(p, &h, &why)) {
            fatal(c, h, proto::kCodeMalformed, why);
            break;
        }
        size_t total = proto::kHeaderSize + h.len;
        if (avail < total) break;
        handle_message(c, h, p + proto::kHeaderSize);
        c->consume(total);
    }
    update_flow(c);
}

void Server::sweep() {
    // closing one connection (a driver: detach) may break others; repeat
    // until nothing new is closing
    bool any = false;
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < conns_.size(); i++) {
            Conn* c = conns_[i].get();
            if (c->closing && !c->closed) {
                close_conn(c);
                c->closed = true;
                any = again = true;
            }
        }
    }
    if (!any) return;
    std::vector<std::unique_ptr<Conn>> keep;
    keep.reserve(conns_.size());
    for (auto& c : conns_) {
        if (c->closed) {
            c->flush();  // a last try, for a fatal ERROR
        } else {
            keep.push_back(std::move(c));
        }
    }
    conns_.swap(keep);  // the closed ones are destroyed with keep
    accept_paused_ = false;
}

void Server::close_conn(Conn* c) {
    log_info("%s disconnected: %s", who(c).c_str(), c->close_reason.c_str());
    bool was_unblocked = counts(c) && !blocked(c);
    by_id_.erase(c->id);  // from here no answer reaches it
    if (was_unblocked) unblocked_--;
    if (c->flow) {
        c->flow = false;
        flow_conns_--;
    }
    c->stalled = false;
    if (c->role == proto::kRoleMonitor) monitor_pending_ -= int(c->outstanding.size());
    c->outstanding.clear();
    c->deferred.clear();
    if (!c->hello_done) return;
    for (Wait& w : waits_.all())
        if (w.client == c->id) w.done = true;
    waits_.compact();
    for (auto it = queued_waits_.begin(); it != queued_waits_.end();) {
        if ((it->first >> 32) == c->id)
            it = queued_waits_.erase(it);
        else
            ++it;
    }
    Node& n = *nodes_[c->node];
    if (c->role == proto::kRoleDriver && n.driver == c->id) detach_node(n);
    c->hello_done = false;
}

void Server::detach_node(Node& n) {
    log_info("node %u detached at cycle %llu: held in reset, DMA and MMIO in flight dropped, host memory unmapped, "
             "grants revoked",
             n.idx, (unsigned long long)cycle_);
    n.detach(cycle_);
    for (Wait& w : waits_.all()) {
        if (w.node == n.idx && !w.done && w.req.kind != proto::kWaitKindCycles)
            finish_wait(w, proto::kWaitAborted, wait_value(w),
                        "node " + std::to_string(n.idx) + " detached: its driver disconnected");
    }
    waits_.compact();
    update_flow_all();  // the node's MMIO queue is empty now
}

// ----------------------------------------------------------- bookkeeping

Conn* Server::find(uint32_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second;
}

bool Server::counts(const Conn* c) const {
    return c->hello_done && c->role != proto::kRoleMonitor && by_id_.count(c->id);
}

void Server::add_tag(Conn* c, uint32_t tag) {
    if (!blocked(c) && counts(c)) unblocked_--;
    if (c->role == proto::kRoleMonitor) monitor_pending_++;
    c->outstanding.push_back(tag);
}

void Server::answered(Conn* c, uint32_t tag) {
    if (!c->remove_tag(tag)) return;
    if (c->role == proto::kRoleMonitor) monitor_pending_--;
    if (!blocked(c) && counts(c)) unblocked_++;
}

void Server::send_ack(Conn* c, uint32_t tag, uint16_t status) {
    uint8_t m[proto::kAckBytes];
    proto::encode_ack(m, tag, status);
    c->send(m, sizeof m);
}

void Server::send_error(Conn* c, uint32_t tag, uint16_t code, bool fatal_, uint16_t ref_type, uint64_t ref_offset,
                        const std::string& text) {
    std::vector<uint8_t> m;
    proto::encode_error(&m, tag, code, fatal_, ref_type, ref_offset, text);
    c->send(m.data(), m.size());
}

void Server::fatal(Conn* c, const proto::Header& h, uint16_t code, const std::string& text) {
    log_error("%s: %s", who(c).c_str(), text.c_str());
    send_error(c, h.tag, code, true, h.type, 0, text);
    c->close_later("protocol error: " + text);
}

std::string Server::who(const Conn* c) const {
    std::string s = "client " + std::to_string(c->id);
    if (!c->name.empty()) s += " \"" + c->name + "\"";
    if (c->hello_done)
        s += std::string(" (") + proto::role_name(c->role) + " node " + std::to_string(c->node) + ")";
    return s;
}

std::string Server::stats_text() const {
    std::string s;
    char buf[512];
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    uint64_t evaluated = 0;
    for (auto& n : nodes_) evaluated += n->stats.busy_cycles;
    unsigned clients = 0;
    for (auto& c : conns_)
        if (c->hello_done) clients++;
    snprintf(buf, sizeof buf,
             "cycle %llu\n"
             "time_us %.3f\n"
             "mode %s\n"
             "nodes %u\n"
             "clients %u\n"
             "waits %zu\n"
             "wall_seconds %.3f\n"
             "evaluated_node_cycles %llu\n",
             (unsigned long long)cycle_, double(cycle_) * o_.clock_ps / 1e6, o_.lockstep ? "lockstep" : "freerun",
             o_.nodes, clients, waits_.all().size(), wall, (unsigned long long)evaluated);
    s += buf;
    for (auto& n : nodes_) append_node_stats(&s, n->idx, n->stats, cycle_);
    // recent firmware log lines: "fw_log.node<N>.<index> <cycle> <text>"
    for (auto& n : nodes_)
        for (const auto& l : n->fw_log())
            s += "fw_log.node" + std::to_string(n->idx) + "." + std::to_string(l.index) + " " +
                 std::to_string(l.cycle) + " " + l.text + "\n";
    return s;
}

}  // namespace vianic

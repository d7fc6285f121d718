// options.cpp: parsing and checking of vianic-sim's command line (see
// usage() below, which is also the reference for --help).
#include "options.h"

#include <getopt.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "protocol.h"

namespace vianic {

namespace {

#ifndef VIANIC_TRACE_FST
#define VIANIC_TRACE_FST 0
#endif

const char* kTraceExt = VIANIC_TRACE_FST ? ".fst" : ".vcd";

void usage(FILE* f) {
    fprintf(f,
            "usage: vianic-sim [options]\n"
            "\n"
            "Simulates N vianic nodes (Verilated via_node: the NIC and its fabric link) and\n"
            "the fabric switch between them (via_fabric), and serves the co-simulation\n"
            "protocol (docs/cosim-protocol.md, version %u.%u) on a Unix socket.\n"
            "\n"
            "  --socket PATH              Unix socket to listen on (default $VIANIC_RUN_DIR/sim.sock,\n"
            "                             else ${XDG_RUNTIME_DIR:-/tmp}/vianic-$UID/sim-<pid>.sock)\n"
            "  --tcp HOST:PORT            also listen on TCP (no host memory over TCP); port 0 picks one\n"
            "  --nodes N                  number of NICs, 1..16 (default 2)\n"
            "  --threads N                threads evaluating the nodes' models, 1..16 (default: one per\n"
            "                             node, at most one per CPU); results do not depend on it\n"
            "  --quantum N                the nodes meet once every N cycles, 1..the link latency in\n"
            "                             cycles (default 0: at every cycle); requests and answers\n"
            "                             then take effect at quantum ends (docs/fabric.md,\n"
            "                             \"Quantum synchronisation\")\n"
            "  --mode lockstep|freerun    time control (default lockstep)\n"
            "  --wait-drivers N           time holds (after the power-on reset) until N driver\n"
            "                             connections have attached, 0..16 (default 0): programs in\n"
            "                             several processes then start at the same cycle every run\n"
            "  --clock-mhz F              NIC clock (default 250)\n"
            "  --dma-read-latency-ns N    host memory read latency (default 500)\n"
            "  --dma-write-latency-ns N   host memory write latency (default 150)\n"
            "  --dma-bandwidth-mbps N     host memory bandwidth per direction in MB/s\n"
            "                             (default 8000 = 8 GB/s; 0 = unlimited)\n"
            "  --link-latency-ns N        fabric link latency each way, node to switch and back\n"
            "                             (default 100; at least one cycle; rounds up to cycles)\n"
            "  --pcap FILE                capture every frame the fabric switch delivers to a node\n"
            "                             (libpcap, ns timestamps; docs/fabric.md, \"Captures\")\n"
            "  --trace FILE               waveform of every node into one %s file (this binary\n"
            "                             writes %s; the other build writes the other format)\n"
            "  --trace-start CYCLE        first cycle dumped (default 0)\n"
            "  --trace-end CYCLE          dump only before this cycle (default: no end)\n"
            "  --txlog FILE               one line per MMIO and DMA transaction\n"
            "  --seed N                   seed of Verilator's random initial values (default 1; 0 picks one at random)\n"
            "  --max-clients N            connections open at once, 1..65536 (default 1024); more are\n"
            "                             answered with ERROR BUSY and closed\n"
            "  --queue-depth N            flow control: requests queued per connection while time is\n"
            "                             frozen, and MMIO operations queued per node, before the\n"
            "                             simulator stops reading a client, 64..2^30 (default 2^20)\n"
            "  --verbose                  log more\n"
            "  --help                     this text\n"
            "\n"
            "Signals: SIGUSR1 prints time and activity counters to stderr; SIGINT and SIGTERM\n"
            "close the waveform properly and exit.\n",
            proto::kProtocolMajor, proto::kProtocolMinor, VIANIC_TRACE_FST ? "FST" : "VCD", VIANIC_TRACE_FST ? "FST" : "VCD");
}

[[noreturn]] void bad(const char* fmt, const char* a, const char* b = "") {
    fprintf(stderr, "vianic-sim: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nvianic-sim: see --help\n");
    exit(2);
}

uint64_t parse_u64(const char* opt, const char* s, uint64_t lo, uint64_t hi) {
    if (!s || !*s || *s == '-' || *s == '+') bad("%s: '%s' is not a non-negative integer", opt, s ? s : "");
    errno = 0;
    char* end = nullptr;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end) bad("%s: '%s' is not a non-negative integer", opt, s);
    if (v < lo || v > hi) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s is out of range %llu..%llu", s, (unsigned long long)lo, (unsigned long long)hi);
        bad("%s: %s", opt, msg);
    }
    return v;
}

bool ends_with(const std::string& s, const char* suffix) {
    size_t n = strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::string default_socket_path() {
    const char* run = getenv("VIANIC_RUN_DIR");
    if (run && *run) return std::string(run) + "/sim.sock";
    const char* xdg = getenv("XDG_RUNTIME_DIR");
    std::string dir = (xdg && *xdg) ? xdg : "/tmp";
    dir += "/vianic-" + std::to_string(getuid());
    return dir + "/sim-" + std::to_string(getpid()) + ".sock";
}

}  // namespace

void parse_options(int argc, char** argv, Options* o) {
    enum {
        O_SOCKET = 1000, O_TCP, O_NODES, O_THREADS, O_MODE, O_WAITDRV, O_CLOCK, O_RDLAT, O_WRLAT, O_BW, O_LINKLAT, O_PCAP, O_TRACE, O_TSTART, O_TEND,
        O_TXLOG, O_SEED, O_MAXCLIENTS, O_QDEPTH, O_VERBOSE, O_HELP, O_QUANTUM
    };
    static const struct option longopts[] = {
        {"socket", required_argument, nullptr, O_SOCKET},
        {"tcp", required_argument, nullptr, O_TCP},
        {"nodes", required_argument, nullptr, O_NODES},
        {"threads", required_argument, nullptr, O_THREADS},
        {"quantum", required_argument, nullptr, O_QUANTUM},
        {"mode", required_argument, nullptr, O_MODE},
        {"wait-drivers", required_argument, nullptr, O_WAITDRV},
        {"clock-mhz", required_argument, nullptr, O_CLOCK},
        {"dma-read-latency-ns", required_argument, nullptr, O_RDLAT},
        {"dma-write-latency-ns", required_argument, nullptr, O_WRLAT},
        {"dma-bandwidth-mbps", required_argument, nullptr, O_BW},
        {"link-latency-ns", required_argument, nullptr, O_LINKLAT},
        {"pcap", required_argument, nullptr, O_PCAP},
        {"trace", required_argument, nullptr, O_TRACE},
        {"trace-start", required_argument, nullptr, O_TSTART},
        {"trace-end", required_argument, nullptr, O_TEND},
        {"txlog", required_argument, nullptr, O_TXLOG},
        {"seed", required_argument, nullptr, O_SEED},
        {"max-clients", required_argument, nullptr, O_MAXCLIENTS},
        {"queue-depth", required_argument, nullptr, O_QDEPTH},
        {"verbose", no_argument, nullptr, O_VERBOSE},
        {"help", no_argument, nullptr, O_HELP},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":hv", longopts, nullptr)) != -1) {
        const char* name = (optind - 1 < argc) ? argv[optind - 1] : "";
        switch (c) {
            case O_SOCKET:
                if (!*optarg) bad("--socket: empty path%s", "");
                o->socket_path = optarg;
                break;
            case O_TCP: {
                std::string s = optarg;
                size_t colon = s.rfind(':');
                if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
                    bad("--tcp: '%s' is not HOST:PORT", optarg);
                parse_u64("--tcp port", s.c_str() + colon + 1, 0, 65535);
                o->tcp = s;
                break;
            }
            case O_NODES: o->nodes = unsigned(parse_u64("--nodes", optarg, 1, 16)); break;
            case O_THREADS: o->threads = unsigned(parse_u64("--threads", optarg, 1, 16)); break;
            case O_QUANTUM: o->quantum = unsigned(parse_u64("--quantum", optarg, 0, 1000000)); break;
            case O_WAITDRV: o->wait_drivers = unsigned(parse_u64("--wait-drivers", optarg, 0, 16)); break;
            case O_MODE:
                if (!strcmp(optarg, "lockstep")) o->lockstep = true;
                else if (!strcmp(optarg, "freerun") || !strcmp(optarg, "free-run")) o->lockstep = false;
                else bad("--mode: '%s' is neither lockstep nor freerun", optarg);
                break;
            case O_CLOCK: {
                errno = 0;
                char* end = nullptr;
                double f = strtod(optarg, &end);
                if (errno || *end || !(f >= 1.0 && f <= 5000.0))
                    bad("--clock-mhz: '%s' is not a frequency in 1..5000 MHz", optarg);
                o->clock_mhz = f;
                break;
            }
            case O_RDLAT: o->dma_read_latency_ns = parse_u64("--dma-read-latency-ns", optarg, 0, 1000000000); break;
            case O_WRLAT: o->dma_write_latency_ns = parse_u64("--dma-write-latency-ns", optarg, 0, 1000000000); break;
            case O_BW: o->dma_bandwidth_mbps = parse_u64("--dma-bandwidth-mbps", optarg, 0, 1000000000); break;
            case O_LINKLAT: o->link_latency_ns = parse_u64("--link-latency-ns", optarg, 0, 1000000); break;
            case O_PCAP:
                if (!*optarg) bad("--pcap: empty file name%s", "");
                o->pcap_file = optarg;
                break;
            case O_TRACE:
                if (!*optarg) bad("--trace: empty file name%s", "");
                o->trace_file = optarg;
                break;
            case O_TSTART: o->trace_start = parse_u64("--trace-start", optarg, 0, UINT64_MAX); break;
            case O_TEND: o->trace_end = parse_u64("--trace-end", optarg, 0, UINT64_MAX); break;
            case O_TXLOG:
                if (!*optarg) bad("--txlog: empty file name%s", "");
                o->txlog_file = optarg;
                break;
            case O_SEED: o->seed = uint32_t(parse_u64("--seed", optarg, 0, 0x7fffffff)); break;
            case O_MAXCLIENTS: o->max_clients = unsigned(parse_u64("--max-clients", optarg, 1, 65536)); break;
            case O_QDEPTH: o->queue_depth = parse_u64("--queue-depth", optarg, 64, uint64_t(1) << 30); break;
            case 'v':
            case O_VERBOSE: o->verbose = true; break;
            case 'h':
            case O_HELP: usage(stdout); exit(0);
            case ':': bad("option %s needs a value", name);
            default: bad("unknown option %s", name);
        }
    }
    if (optind < argc) bad("unexpected argument '%s'", argv[optind]);
    if (o->wait_drivers > o->nodes) {
        char n[16];
        snprintf(n, sizeof n, "%u", o->nodes);
        bad("--wait-drivers: more drivers than nodes (%s)%s", n, "");
    }

    if (!o->trace_file.empty() && !ends_with(o->trace_file, kTraceExt)) {
        const char* other = VIANIC_TRACE_FST ? "build/sim/vcd/vianic-sim" : "build/sim/fst/vianic-sim";
        fprintf(stderr,
                "vianic-sim: --trace %s: this binary writes %s waveforms, so the file name must end in %s;\n"
                "vianic-sim: for the other format use %s\n",
                o->trace_file.c_str(), VIANIC_TRACE_FST ? "FST" : "VCD", kTraceExt, other);
        exit(2);
    }
    if (o->trace_end <= o->trace_start && !o->trace_file.empty()) bad("--trace-end must be after --trace-start%s", "");
    if (o->socket_path.empty()) o->socket_path = default_socket_path();

    // an even number of picoseconds per cycle, so both clock edges fall on ps
    double ps = 1e6 / o->clock_mhz;
    uint64_t half = uint64_t(std::llround(ps / 2.0));
    if (half < 1) half = 1;
    o->clock_ps = uint32_t(half * 2);
    // latencies round up: the model never answers faster than asked
    o->dma_read_latency = (o->dma_read_latency_ns * 1000 + o->clock_ps - 1) / o->clock_ps;
    o->dma_write_latency = (o->dma_write_latency_ns * 1000 + o->clock_ps - 1) / o->clock_ps;
    uint64_t ll = (o->link_latency_ns * 1000 + o->clock_ps - 1) / o->clock_ps;
    o->link_latency = unsigned(ll < 1 ? 1 : ll);
    if (o->quantum > o->link_latency) {
        fprintf(stderr,
                "vianic-sim: --quantum %u is longer than the link latency (%u cycles at %.6g MHz): a frame\n"
                "vianic-sim: could cross a link within a quantum; use at most %u\n",
                o->quantum, o->link_latency, o->clock_mhz, o->link_latency);
        exit(2);
    }
}

}  // namespace vianic

// options.h: command-line options of vianic-sim and the cycle-level values
// derived from them (latencies and bandwidth in clock cycles).
#pragma once

#include <cstdint>
#include <string>

namespace vianic {

struct Options {
    std::string socket_path;  // unix listener (always)
    std::string tcp;          // optional HOST:PORT listener
    unsigned nodes = 2;
    unsigned threads = 0;  // model evaluation threads; 0 = one per node up to the CPUs
    unsigned quantum = 0;  // cycles the nodes run apart (<= link_latency); 0: they meet every cycle
    bool lockstep = true;
    unsigned wait_drivers = 0;  // time holds until this many driver connections have attached
    double clock_mhz = 250.0;
    uint64_t dma_read_latency_ns = 500;
    uint64_t dma_write_latency_ns = 150;
    uint64_t dma_bandwidth_mbps = 8000;  // MB/s per direction; 0 = unlimited
    uint64_t link_latency_ns = 100;  // fabric link latency, each way (>= 1 cycle)
    std::string pcap_file;           // capture of the frames the switch delivers
    std::string trace_file;
    uint64_t trace_start = 0;
    uint64_t trace_end = UINT64_MAX;
    std::string txlog_file;
    uint32_t seed = 1;
    unsigned max_clients = 1024;  // open connections at once (more are refused with BUSY)
    uint64_t queue_depth = uint64_t(1) << 20;  // flow control: queued actions per connection, MMIO ops per node
    bool verbose = false;

    // derived
    uint32_t clock_ps = 4000;         // even, so that half a period is exact
    uint64_t dma_read_latency = 125;  // cycles
    uint64_t dma_write_latency = 38;  // cycles
    unsigned link_latency = 25;       // cycles
};

// Parses argv into *o. On --help prints usage to stdout and exits 0; on a bad
// option prints a clear message to stderr and exits 2.
void parse_options(int argc, char** argv, Options* o);

}  // namespace vianic

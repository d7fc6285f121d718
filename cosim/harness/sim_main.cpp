// sim_main.cpp: entry point of vianic-sim, the co-simulation process: N
// Verilated via_nic models behind the protocol of docs/cosim-protocol.md.
// Built by sim-scripts/build-sim.sh (VCD and FST variants).
#include <cstdio>

#include "log.h"
#include "options.h"
#include "server.h"

int main(int argc, char** argv) {
    vianic::Options o;
    vianic::parse_options(argc, argv, &o);
    vianic::log_set_verbose(o.verbose);
    int rc;
    {
        vianic::Server s(o);
        if (!s.start()) return 1;
        rc = s.run();
    }
    fflush(stdout);
    return rc;
}

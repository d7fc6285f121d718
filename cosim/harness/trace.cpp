// trace.cpp: waveform file handling (see trace.h). The build defines
// VIANIC_TRACE_FST=1 for the FST variant.
#include "trace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "Vvia_fabric.h"
#include "Vvia_node.h"
#include "verilated.h"

#ifndef VIANIC_TRACE_FST
#define VIANIC_TRACE_FST 0
#endif

#if VIANIC_TRACE_FST
#include "verilated_fst_c.h"
using TraceFile = VerilatedFstC;
#else
#include "verilated_vcd_c.h"
using TraceFile = VerilatedVcdC;
#endif

namespace vianic {

namespace {
TraceFile* tf(void* p) { return static_cast<TraceFile*>(p); }
}  // namespace

Trace::~Trace() { close(); }

void Trace::enable_context(VerilatedContext* ctx) { ctx->traceEverOn(true); }

bool Trace::open(const std::string& path, const std::vector<Vvia_node*>& models, Vvia_fabric* fabric, uint64_t start, uint64_t end,
                 std::string* why) {
    // a clear message before Verilator tries (it may only warn)
    FILE* probe = fopen(path.c_str(), "w");
    if (!probe) {
        *why = "--trace " + path + ": " + strerror(errno);
        return false;
    }
    fclose(probe);
    TraceFile* t = new TraceFile;
    // levels: the whole hierarchy of every node
    for (Vvia_node* m : models) m->trace(t, 99);
    if (fabric) fabric->trace(t, 99);
    t->open(path.c_str());
    if (!t->isOpen()) {
        delete t;
        *why = "--trace " + path + ": cannot open the file for writing";
        return false;
    }
    tfp_ = t;
    start_ = start;
    end_ = end;
    path_ = path;
    return true;
}

void Trace::dump_now(uint64_t time_ps) { tf(tfp_)->dump(time_ps); }

void Trace::flush() {
    if (tfp_) tf(tfp_)->flush();
}

void Trace::close() {
    if (!tfp_) return;
    tf(tfp_)->close();
    delete tf(tfp_);
    tfp_ = nullptr;
}

}  // namespace vianic

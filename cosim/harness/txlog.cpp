// txlog.cpp: the transaction log writer (see txlog.h). Buffered; flushed on
// TERMINATE, on exit and on SIGUSR1.
#include "txlog.h"

#include <cerrno>
#include <cstring>

namespace vianic {

bool TxLog::open(const std::string& path, std::string* why) {
    f_ = fopen(path.c_str(), "w");
    if (!f_) {
        *why = "--txlog " + path + ": " + strerror(errno);
        return false;
    }
    setvbuf(f_, nullptr, _IOFBF, 1 << 20);
    fprintf(f_, "# vianic-sim transaction log: cycle node kind dir fields...\n");
    return true;
}

void TxLog::close() {
    if (f_) fclose(f_);
    f_ = nullptr;
}

void TxLog::flush() {
    if (f_) fflush(f_);
}

const char* TxLog::resp_name(unsigned resp) {
    switch (resp) {
        case 0: return "OKAY";
        case 1: return "EXOKAY";
        case 2: return "SLVERR";
        case 3: return "DECERR";
        default: return "?";
    }
}

void TxLog::mmio(uint64_t cycle, unsigned node, bool write, uint32_t offset, uint32_t data, unsigned resp,
                 uint32_t client) {
    if (!f_) return;
    fprintf(f_, "%llu node%u mmio %s off=0x%05x data=0x%08x resp=%s client=%u\n", (unsigned long long)cycle, node,
            write ? "wr" : "rd", offset, data, resp_name(resp), client);
}

void TxLog::dma(uint64_t cycle, unsigned node, bool write, uint64_t addr, unsigned beats, unsigned beat_bytes,
                unsigned id, unsigned burst, unsigned resp, uint64_t start_cycle) {
    if (!f_) return;
    static const char* bursts[4] = {"FIXED", "INCR", "WRAP", "RESERVED"};
    fprintf(f_, "%llu node%u dma %s addr=0x%llx beats=%u size=%u burst=%s id=%u resp=%s start=%llu\n",
            (unsigned long long)cycle, node, write ? "wr" : "rd", (unsigned long long)addr, beats, beat_bytes,
            bursts[burst & 3], id, resp_name(resp), (unsigned long long)start_cycle);
}

void TxLog::note(uint64_t cycle, unsigned node, const char* what) {
    if (!f_) return;
    fprintf(f_, "%llu node%u note %s\n", (unsigned long long)cycle, node, what);
}

}  // namespace vianic

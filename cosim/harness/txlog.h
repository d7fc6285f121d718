// txlog.h: the transaction log (--txlog FILE): one line per MMIO bus
// transaction (each 32-bit AXI4-Lite access) and per DMA burst, with the
// cycle it completed and the node, as key=value fields for grep and awk.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace vianic {

class TxLog {
public:
    ~TxLog() { close(); }
    bool open(const std::string& path, std::string* why);
    bool enabled() const { return f_ != nullptr; }
    void close();
    void flush();

    void mmio(uint64_t cycle, unsigned node, bool write, uint32_t offset, uint32_t data, unsigned resp,
              uint32_t client);
    void dma(uint64_t cycle, unsigned node, bool write, uint64_t addr, unsigned beats, unsigned beat_bytes,
             unsigned id, unsigned burst, unsigned resp, uint64_t start_cycle);
    void note(uint64_t cycle, unsigned node, const char* what);

    static const char* resp_name(unsigned resp);

private:
    FILE* f_ = nullptr;
};

}  // namespace vianic

// trace.h: waveform control. Every node's model is traced into one file
// (scopes nodeK.*) with the switch (scope fabric.*); VCD in the vcd build, FST in the fst build (a Verilated
// model has one trace format, chosen when it is verilated). A dump happens
// only inside the --trace-start/--trace-end cycle window and while TRACE has
// not switched it off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

class Vvia_node;
class Vvia_fabric;
class VerilatedContext;

namespace vianic {

class Trace {
public:
    Trace() = default;
    ~Trace();
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;

    // Must be called before any model is built when tracing.
    static void enable_context(VerilatedContext* ctx);
    bool open(const std::string& path, const std::vector<Vvia_node*>& models, Vvia_fabric* fabric, uint64_t start, uint64_t end,
              std::string* why);
    bool enabled() const { return tfp_ != nullptr; }

    void dump(uint64_t time_ps, uint64_t cycle) {
        if (tfp_ && on_ && cycle >= start_ && cycle < end_) dump_now(time_ps);
    }
    void set_on(bool on) { on_ = on; }
    bool on() const { return on_; }
    void flush();
    void close();
    const std::string& path() const { return path_; }

private:
    void dump_now(uint64_t time_ps);
    void* tfp_ = nullptr;  // VerilatedVcdC or VerilatedFstC
    bool on_ = true;
    uint64_t start_ = 0, end_ = UINT64_MAX;
    std::string path_;
};

}  // namespace vianic

// host_memory.h: one node's host memory, a memfd received from the driver
// connection and mapped shared. Every access is bounds-checked by the caller
// and guarded against SIGBUS (a client that shrinks its memfd under the
// mapping makes the access fail instead of killing the simulator).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vianic {

class HostMemory {
public:
    HostMemory() = default;
    ~HostMemory() { detach(); }
    HostMemory(const HostMemory&) = delete;
    HostMemory& operator=(const HostMemory&) = delete;

    // Maps size bytes of fd (which stays owned by the caller). Returns 0 or a
    // protocol error code with a reason; on success any previous mapping is
    // replaced.
    uint16_t attach(int fd, uint64_t base, uint64_t size, std::string* why);
    void detach();

    bool attached() const { return base_ != nullptr; }
    uint64_t size() const { return size_; }
    // [addr, addr+len) lies inside the memory (false when none is attached)
    bool contains(uint64_t addr, uint64_t len) const {
        return base_ && len <= size_ && addr <= size_ - len;
    }

    // Copies; false when the access faulted (the memfd shrank). The caller
    // has checked contains().
    bool read(uint64_t addr, void* dst, size_t len);
    bool write(uint64_t addr, const void* src, size_t len);
    // Writes the bytes of src whose bit is set in strobe (bit i: byte i;
    // len <= 64).
    bool write_strobed(uint64_t addr, const uint8_t* src, uint64_t strobe, size_t len);

    // Installs the process-wide SIGBUS handler the guard needs (once).
    static void install_fault_handler();

private:
    uint8_t* base_ = nullptr;
    uint64_t size_ = 0;
};

}  // namespace vianic

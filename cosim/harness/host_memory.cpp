// host_memory.cpp: mapping of a node's memfd and fault-guarded copies (see
// host_memory.h). Writes end with a release fence so that a host reader that
// sees a later write (a status word) also sees the data written before it.
#include "host_memory.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "protocol.h"

namespace vianic {

namespace {

// One guard per thread (with --quantum, nodes copy on several threads; a
// SIGBUS goes to the thread that faulted).
thread_local sigjmp_buf* volatile g_guard = nullptr;

void on_sigbus(int sig, siginfo_t*, void*) {
    if (g_guard) siglongjmp(*g_guard, 1);
    // not inside a guarded copy: a real bug, die as the default would
    signal(sig, SIG_DFL);
    raise(sig);
}

// Maximum host memory per node: the NIC's DMA address space is 48 bits.
constexpr uint64_t kMaxSize = uint64_t(1) << 48;

}  // namespace

void HostMemory::install_fault_handler() {
    static bool done = false;
    if (done) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    // SA_NODEFER: the handler leaves by siglongjmp without restoring the
    // signal mask, so SIGBUS must not be blocked while it runs
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, nullptr);
    done = true;
}

uint16_t HostMemory::attach(int fd, uint64_t base, uint64_t size, std::string* why) {
    if (base != 0) {
        *why = "ATTACH_MEM: base must be 0 in protocol version 1";
        return proto::kCodeNoMemory;
    }
    if (size == 0 || size > kMaxSize) {
        *why = "ATTACH_MEM: size must be 1 .. 2^48 bytes";
        return proto::kCodeNoMemory;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *why = std::string("ATTACH_MEM: fstat of the descriptor failed: ") + strerror(errno);
        return proto::kCodeNoMemory;
    }
    if (!S_ISREG(st.st_mode)) {
        *why = "ATTACH_MEM: the descriptor is not a memfd (not a regular file)";
        return proto::kCodeNoMemory;
    }
    if (uint64_t(st.st_size) < size) {
        *why = "ATTACH_MEM: the memfd is " + std::to_string(st.st_size) + " bytes, smaller than the size " +
               std::to_string(size);
        return proto::kCodeNoMemory;
    }
    void* p = mmap(nullptr, size_t(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        *why = std::string("ATTACH_MEM: mmap failed: ") + strerror(errno);
        return proto::kCodeNoMemory;
    }
    detach();
    base_ = static_cast<uint8_t*>(p);
    size_ = size;
    return 0;
}

void HostMemory::detach() {
    if (base_) munmap(base_, size_t(size_));
    base_ = nullptr;
    size_ = 0;
}

bool HostMemory::read(uint64_t addr, void* dst, size_t len) {
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        g_guard = nullptr;
        return false;
    }
    g_guard = &env;
    memcpy(dst, base_ + addr, len);
    g_guard = nullptr;
    return true;
}

bool HostMemory::write(uint64_t addr, const void* src, size_t len) {
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        g_guard = nullptr;
        return false;
    }
    g_guard = &env;
    memcpy(base_ + addr, src, len);
    std::atomic_thread_fence(std::memory_order_release);
    g_guard = nullptr;
    return true;
}

bool HostMemory::write_strobed(uint64_t addr, const uint8_t* src, uint64_t strobe, size_t len) {
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        g_guard = nullptr;
        return false;
    }
    g_guard = &env;
    uint8_t* d = base_ + addr;
    for (size_t i = 0; i < len; i++) {
        if ((strobe >> i) & 1) d[i] = src[i];
    }
    std::atomic_thread_fence(std::memory_order_release);
    g_guard = nullptr;
    return true;
}

}  // namespace vianic

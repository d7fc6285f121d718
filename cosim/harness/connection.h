// connection.h: one client connection: its non-blocking socket with bounded
// input and output buffers, descriptors received with SCM_RIGHTS, its
// identity after HELLO, the tags of its requests awaiting an answer, and the
// requests it sent while lockstep time was frozen (applied later, in order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "fabric.h"
#include "mmio_master.h"
#include "protocol.h"

namespace vianic {

// A validated request whose effect depends on simulated time; in lockstep
// mode it waits in the connection's queue until time next advances.
struct Action {
    enum Kind : uint8_t { kMmio, kWait, kFabric };
    Kind kind;
    MmioOp op;            // kMmio (reads, writes and RESET)
    proto::WaitReq wait;  // kWait
    Fabric::Op fabric;    // kFabric
    uint32_t tag;
};

class Conn {
public:
    // the input buffer starts small and doubles up to kInCapacity as
    // messages need it, so that idle or hostile connections cost little
    static constexpr size_t kInInitial = 4 * 1024;
    static constexpr size_t kInCapacity = 256 * 1024;
    static constexpr size_t kMaxOutput = 16 * 1024 * 1024;
    static constexpr size_t kMaxFds = 4;

    Conn(int fd, uint32_t id, bool is_unix, std::string peer);
    ~Conn();
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;

    const int fd;
    const uint32_t id;
    const bool is_unix;
    const std::string peer;

    // identity, valid once hello_done
    bool hello_done = false;
    uint8_t role = 0;
    uint8_t node = 0;
    bool want_irq = false;
    uint64_t token = 0;
    std::string name;

    // lifecycle: closing is set with a reason; the server closes it between
    // cycles (never from inside a bus model callback)
    bool closing = false;
    bool broken = false;  // nothing more can be sent
    bool closed = false;  // the server has detached it; destroyed next
    std::string close_reason;
    void close_later(const std::string& reason) {
        if (!closing) {
            closing = true;
            close_reason = reason;
        }
    }

    // requests awaiting an answer
    std::vector<uint32_t> outstanding;
    bool has_tag(uint32_t tag) const;
    bool remove_tag(uint32_t tag);

    // requests queued while lockstep time is frozen
    std::vector<Action> deferred;
    // flow control (lockstep): the server stopped taking messages from this
    // connection because its queue (or its node's MMIO queue) is full; it
    // then counts as blocked, so that time advances and the queue drains
    bool flow = false;
    // parsing stopped on a full queue with whole messages still buffered
    bool stalled = false;

    // descriptors received (ATTACH_MEM takes the oldest)
    std::deque<int> fds;
    int take_fd();

    // input: read_some appends to the buffer; the caller parses
    // [in_data(), in_data()+in_size()) and consumes what it used
    enum ReadResult { kData, kAgain, kEof, kError };
    ReadResult read_some(size_t* got, std::string* err);
    const uint8_t* in_data() const { return in_.data() + in_start_; }
    size_t in_size() const { return in_end_ - in_start_; }
    void consume(size_t n);

    // output: sent at once when possible, else buffered (bounded); false
    // when the connection is broken or its buffer overflowed (then it is
    // marked closing). While cork is set (the server is running cycles),
    // everything is buffered; the server flushes when the cycles stop.
    static bool cork;
    static unsigned corked;  // sends buffered because of cork
    bool send(const void* p, size_t n);
    bool flush();
    bool out_pending() const { return out_pos_ < out_.size(); }

    uint64_t refused = 0;

private:
    std::vector<uint8_t> in_;
    size_t in_start_ = 0, in_end_ = 0;
    std::vector<uint8_t> out_;
    size_t out_pos_ = 0;
};

}  // namespace vianic

// protocol.h: the co-simulation wire protocol of docs/cosim-protocol.md as
// C++: the generated message types and codes, little-endian field access, the validating
// parser of client messages and the encoders of the simulator's messages.
// Pure C++17 without Verilator, so the parser can be fuzzed on its own
// (cosim/harness/fuzz/) and reused by tools.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "protocol_gen.h"

namespace vianic {
namespace proto {

// The protocol's constants (sizes, versions, message types, roles, modes,
// codes and statuses) are generated from cosim/protocol.layout into
// protocol_gen.h, which the Go client's proto_gen.go shares.

// ---------------------------------------------------------------- LE access
inline uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t get32(const uint8_t* p) {
    return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
inline uint64_t get64(const uint8_t* p) { return uint64_t(get32(p)) | (uint64_t(get32(p + 4)) << 32); }
inline void put16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v);
    p[1] = uint8_t(v >> 8);
}
inline void put32(uint8_t* p, uint32_t v) {
    p[0] = uint8_t(v);
    p[1] = uint8_t(v >> 8);
    p[2] = uint8_t(v >> 16);
    p[3] = uint8_t(v >> 24);
}
inline void put64(uint8_t* p, uint64_t v) {
    put32(p, uint32_t(v));
    put32(p + 4, uint32_t(v >> 32));
}

// ------------------------------------------------------------------ parsing
struct Header {
    uint32_t len = 0;
    uint16_t type = 0;
    uint16_t flags = 0;
    uint32_t tag = 0;
};

// Decodes the 12 header bytes at p. Returns false, with a reason, when the
// header alone makes the message unacceptable (len too large, flags set).
bool parse_header(const uint8_t* p, Header* h, std::string* why);

struct Hello {
    uint16_t major, minor;
    uint8_t role, node;
    uint16_t flags;
    uint64_t token;
    char name[kNameSize + 1];  // NUL terminated, non-printable bytes replaced
};
struct AttachMem {
    uint64_t base, size;
};
struct MmioRead {
    uint32_t offset;
    uint8_t size;
};
struct WriteEntry {
    uint32_t offset;
    uint8_t size;
    uint64_t value;
};
struct WaitReq {
    uint8_t kind, size;
    uint64_t timeout;
    uint32_t irq_mask;                 // irq
    uint64_t addr, mask, value;        // mem
    uint64_t cycles;                   // cycles
};
struct Grant {
    uint64_t token;
    uint32_t first, count;
};

// FABRIC_READ / FABRIC_WRITE: a register of the switch (a word index).
struct FabricReg {
    uint32_t addr;
    uint32_t value;  // FABRIC_WRITE
};

// One validated client message. For MMIO_WRITE the entries are read in place
// with write_entry() (count of them, each already checked for size 4 or 8).
struct Message {
    Header h;
    const uint8_t* payload = nullptr;
    union {
        Hello hello;
        AttachMem attach;
        MmioRead read;
        uint32_t write_count;
        WaitReq wait;
        uint8_t trace_on;
        Grant grant;
        uint64_t revoke_token;
        uint32_t cancel_tag;
        FabricReg fabric;
    };
    Message() : write_count(0) {}
};

inline WriteEntry write_entry(const Message& m, uint32_t i) {
    const uint8_t* e = m.payload + 4 + size_t(i) * kWriteEntrySize;
    return WriteEntry{get32(e), e[4], get64(e + 8)};
}

// Validates the payload of a client message whose header h was accepted by
// parse_header and fills *m. Returns 0, or an error code (kCodeMalformed,
// kCodeVersion) with a reason. Checks only what the message itself says
// (lengths, types, field values); state and role are the caller's business.
uint16_t parse_client_message(const Header& h, const uint8_t* payload, Message* m, std::string* why);

// Whether a client message type expects an answer (and so needs a tag).
bool expects_answer(uint16_t type);

const char* type_name(uint16_t type);
const char* role_name(uint8_t role);

// ----------------------------------------------------------------- encoding
// Fixed-size messages are built in caller-provided buffers of these sizes.
constexpr size_t kAckBytes = kHeaderSize + kAckSize;
constexpr size_t kReadDataBytes = kHeaderSize + kReadDataSize;
constexpr size_t kIrqBytes = kHeaderSize + kIrqSize;
constexpr size_t kHelloOkBytes = kHeaderSize + kHelloOkSize;

inline void put_header(uint8_t* p, uint32_t len, uint16_t type, uint32_t tag) {
    put32(p, len);
    put16(p + 4, type);
    put16(p + 6, 0);
    put32(p + 8, tag);
}

void encode_ack(uint8_t* out, uint32_t tag, uint16_t status);
void encode_read_data(uint8_t* out, uint32_t tag, uint16_t status, uint64_t value, uint64_t cycle);
void encode_irq(uint8_t* out, uint32_t vector, uint64_t cycle);

struct HelloOk {
    uint16_t nodes, irqs;
    uint32_t bar_bytes, clock_ps;
    uint64_t map_hash, cycle;
    uint8_t mode;
    uint32_t client_id, data_width;
};
void encode_hello_ok(uint8_t* out, uint32_t tag, const HelloOk& v);

// Variable-size messages (text is cut to fit the 64 KiB payload limit).
void encode_wait_done(std::vector<uint8_t>* out, uint32_t tag, uint16_t status, uint64_t cycle,
                      uint64_t value, const std::string& text);
void encode_error(std::vector<uint8_t>* out, uint32_t tag, uint16_t code, bool fatal, uint16_t ref_type,
                  uint64_t ref_offset, const std::string& text);
void encode_stats(std::vector<uint8_t>* out, uint32_t tag, const std::string& text);

}  // namespace proto
}  // namespace vianic

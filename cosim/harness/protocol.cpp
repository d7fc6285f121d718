// protocol.cpp: validating parser of client messages and encoders of the
// simulator's messages (see protocol.h and docs/cosim-protocol.md). Every
// length and field is checked here before anything else looks at a message.
#include "protocol.h"

#include <cstdio>

namespace vianic {
namespace proto {

namespace {

constexpr uint32_t kHelloBytes = 52;
constexpr uint32_t kAttachBytes = 16;
constexpr uint32_t kReadBytes = 8;
constexpr uint32_t kWaitFixedBytes = 12;
constexpr uint32_t kTraceBytes = 8;
constexpr uint32_t kGrantBytes = 16;
constexpr uint32_t kRevokeBytes = 8;
constexpr uint32_t kCancelBytes = 8;

std::string fmt(const char* f, unsigned long long a, unsigned long long b = 0) {
    char buf[160];
    snprintf(buf, sizeof buf, f, a, b);
    return buf;
}

bool need_len(const Header& h, uint32_t want, std::string* why) {
    if (h.len == want) return true;
    *why = std::string(type_name(h.type)) + fmt(": payload is %llu bytes, must be %llu", h.len, want);
    return false;
}

}  // namespace

bool parse_header(const uint8_t* p, Header* h, std::string* why) {
    h->len = get32(p);
    h->type = get16(p + 4);
    h->flags = get16(p + 6);
    h->tag = get32(p + 8);
    if (h->len > kMaxPayload) {
        *why = fmt("payload length %llu exceeds %llu", h->len, kMaxPayload);
        return false;
    }
    if (h->flags != 0) {
        *why = fmt("header flags 0x%llx are reserved and must be 0", h->flags);
        return false;
    }
    return true;
}

bool expects_answer(uint16_t type) {
    switch (type) {
        case kAttachMem:
        case kMmioRead:
        case kWait:
        case kTrace:
        case kReset:
        case kGrant:
        case kRevoke:
        case kTerminate:
        case kStats:
            return true;
        default:
            return false;  // HELLO is answered but precedes any tag bookkeeping
    }
}

uint16_t parse_client_message(const Header& h, const uint8_t* p, Message* m, std::string* why) {
    m->h = h;
    m->payload = p;
    switch (h.type) {
        case kHello: {
            if (!need_len(h, kHelloBytes, why)) return kErrMalformed;
            if (get32(p) != kHelloMagic) {
                *why = fmt("HELLO: bad magic 0x%08llx", get32(p));
                return kErrMalformed;
            }
            Hello& x = m->hello;
            x.major = get16(p + 4);
            x.minor = get16(p + 6);
            x.role = p[8];
            x.node = p[9];
            x.flags = get16(p + 10);
            x.token = get64(p + 12);
            size_t n = 0;
            for (; n < kNameBytes && p[20 + n] != 0; n++) {
                uint8_t c = p[20 + n];
                x.name[n] = (c >= 0x20 && c < 0x7f) ? char(c) : '?';
            }
            x.name[n] = 0;
            if (x.major != kMajor) {
                *why = fmt("protocol version %llu.%llu not supported (simulator speaks 1.x)", x.major, x.minor);
                return kErrVersion;
            }
            return 0;
        }
        case kAttachMem:
            if (!need_len(h, kAttachBytes, why)) return kErrMalformed;
            m->attach.base = get64(p);
            m->attach.size = get64(p + 8);
            return 0;
        case kMmioRead:
            if (!need_len(h, kReadBytes, why)) return kErrMalformed;
            m->read.offset = get32(p);
            m->read.size = p[4];
            if (m->read.size != 4 && m->read.size != 8) {
                *why = fmt("MMIO_READ: size %llu, must be 4 or 8", m->read.size);
                return kErrMalformed;
            }
            return 0;
        case kMmioWrite: {
            if (h.len < 4) {
                *why = fmt("MMIO_WRITE: payload is %llu bytes, too short for the count", h.len);
                return kErrMalformed;
            }
            uint32_t count = get32(p);
            if (count < 1 || count > kMaxWriteEntries) {
                *why = fmt("MMIO_WRITE: count %llu, must be 1..%llu", count, kMaxWriteEntries);
                return kErrMalformed;
            }
            if (h.len != 4 + count * kWriteEntryBytes) {
                *why = fmt("MMIO_WRITE: payload is %llu bytes, %llu entries need ", h.len, count) +
                       std::to_string(4 + count * kWriteEntryBytes);
                return kErrMalformed;
            }
            for (uint32_t i = 0; i < count; i++) {
                uint8_t sz = p[4 + i * kWriteEntryBytes + 4];
                if (sz != 4 && sz != 8) {
                    *why = fmt("MMIO_WRITE: entry %llu has size %llu, must be 4 or 8", i, sz);
                    return kErrMalformed;
                }
            }
            m->write_count = count;
            return 0;
        }
        case kWait: {
            if (h.len < kWaitFixedBytes) {
                *why = fmt("WAIT: payload is %llu bytes, too short", h.len);
                return kErrMalformed;
            }
            WaitReq& w = m->wait;
            w = WaitReq{};
            w.kind = p[0];
            w.size = p[1];
            w.timeout = get64(p + 4);
            const uint8_t* q = p + kWaitFixedBytes;
            switch (w.kind) {
                case kWaitIrq:
                    if (!need_len(h, kWaitFixedBytes + 8, why)) return kErrMalformed;
                    w.irq_mask = get32(q);
                    return 0;
                case kWaitMem:
                    if (!need_len(h, kWaitFixedBytes + 24, why)) return kErrMalformed;
                    w.addr = get64(q);
                    w.mask = get64(q + 8);
                    w.value = get64(q + 16);
                    if (w.size != 1 && w.size != 2 && w.size != 4 && w.size != 8) {
                        *why = fmt("WAIT mem: size %llu, must be 1, 2, 4 or 8", w.size);
                        return kErrMalformed;
                    }
                    return 0;
                case kWaitCycles:
                    if (!need_len(h, kWaitFixedBytes + 8, why)) return kErrMalformed;
                    w.cycles = get64(q);
                    return 0;
                default:
                    *why = fmt("WAIT: unknown kind %llu", w.kind);
                    return kErrMalformed;
            }
        }
        case kTrace:
            if (!need_len(h, kTraceBytes, why)) return kErrMalformed;
            if (p[0] > 1) {
                *why = fmt("TRACE: on is %llu, must be 0 or 1", p[0]);
                return kErrMalformed;
            }
            m->trace_on = p[0];
            return 0;
        case kReset:
        case kTerminate:
        case kStats:
            if (!need_len(h, 0, why)) return kErrMalformed;
            return 0;
        case kGrant:
            if (!need_len(h, kGrantBytes, why)) return kErrMalformed;
            m->grant.token = get64(p);
            m->grant.first = get32(p + 8);
            m->grant.count = get32(p + 12);
            return 0;
        case kRevoke:
            if (!need_len(h, kRevokeBytes, why)) return kErrMalformed;
            m->revoke_token = get64(p);
            return 0;
        case kCancel:
            if (!need_len(h, kCancelBytes, why)) return kErrMalformed;
            m->cancel_tag = get32(p);
            return 0;
        default:
            *why = fmt("unknown message type 0x%02llx", h.type);
            return kErrMalformed;
    }
}

const char* type_name(uint16_t type) {
    switch (type) {
        case kHello: return "HELLO";
        case kAttachMem: return "ATTACH_MEM";
        case kMmioRead: return "MMIO_READ";
        case kMmioWrite: return "MMIO_WRITE";
        case kWait: return "WAIT";
        case kTrace: return "TRACE";
        case kReset: return "RESET";
        case kGrant: return "GRANT";
        case kRevoke: return "REVOKE";
        case kTerminate: return "TERMINATE";
        case kStats: return "STATS";
        case kCancel: return "CANCEL";
        case kHelloOk: return "HELLO_OK";
        case kAck: return "ACK";
        case kReadData: return "READ_DATA";
        case kWaitDone: return "WAIT_DONE";
        case kStatsData: return "STATS_DATA";
        case kIrq: return "IRQ";
        case kError: return "ERROR";
        default: return "unknown";
    }
}

const char* role_name(uint8_t role) {
    switch (role) {
        case kRoleDriver: return "driver";
        case kRoleUser: return "user";
        case kRoleMonitor: return "monitor";
        default: return "none";
    }
}

// ----------------------------------------------------------------- encoding

void encode_ack(uint8_t* out, uint32_t tag, uint16_t status) {
    put_header(out, 8, kAck, tag);
    memset(out + kHeaderBytes, 0, 8);
    put16(out + kHeaderBytes, status);
}

void encode_read_data(uint8_t* out, uint32_t tag, uint16_t status, uint64_t value, uint64_t cycle) {
    put_header(out, 24, kReadData, tag);
    uint8_t* p = out + kHeaderBytes;
    memset(p, 0, 8);
    put16(p, status);
    put64(p + 8, value);
    put64(p + 16, cycle);
}

void encode_irq(uint8_t* out, uint32_t vector, uint64_t cycle) {
    put_header(out, 16, kIrq, 0);
    uint8_t* p = out + kHeaderBytes;
    put32(p, vector);
    put32(p + 4, 0);
    put64(p + 8, cycle);
}

void encode_hello_ok(uint8_t* out, uint32_t tag, const HelloOk& v) {
    put_header(out, 48, kHelloOk, tag);
    uint8_t* p = out + kHeaderBytes;
    memset(p, 0, 48);
    put16(p + 0, kMajor);
    put16(p + 2, kMinor);
    put16(p + 4, v.nodes);
    put16(p + 6, v.irqs);
    put32(p + 8, v.bar_bytes);
    put32(p + 12, v.clock_ps);
    put64(p + 16, v.map_hash);
    put64(p + 24, v.cycle);
    p[32] = v.mode;
    put32(p + 36, v.client_id);
    put32(p + 40, v.data_width);
}

namespace {
void append_var(std::vector<uint8_t>* out, uint16_t type, uint32_t tag, const uint8_t* fixed, size_t nfixed,
                const std::string& text) {
    size_t ntext = text.size();
    if (nfixed + ntext > kMaxPayload) ntext = kMaxPayload - nfixed;
    size_t at = out->size();
    out->resize(at + kHeaderBytes + nfixed + ntext);
    uint8_t* p = out->data() + at;
    put_header(p, uint32_t(nfixed + ntext), type, tag);
    if (nfixed) memcpy(p + kHeaderBytes, fixed, nfixed);
    if (ntext) memcpy(p + kHeaderBytes + nfixed, text.data(), ntext);
}
}  // namespace

void encode_wait_done(std::vector<uint8_t>* out, uint32_t tag, uint16_t status, uint64_t cycle, uint64_t value,
                      const std::string& text) {
    uint8_t f[24] = {};
    put16(f, status);
    put64(f + 8, cycle);
    put64(f + 16, value);
    append_var(out, kWaitDone, tag, f, sizeof f, text);
}

void encode_error(std::vector<uint8_t>* out, uint32_t tag, uint16_t code, bool fatal, uint16_t ref_type,
                  uint64_t ref_offset, const std::string& text) {
    uint8_t f[16] = {};
    put16(f, code);
    f[2] = fatal ? 1 : 0;
    put16(f + 4, ref_type);
    put64(f + 8, ref_offset);
    append_var(out, kError, tag, f, sizeof f, text);
}

void encode_stats(std::vector<uint8_t>* out, uint32_t tag, const std::string& text) {
    append_var(out, kStatsData, tag, nullptr, 0, text);
}

}  // namespace proto
}  // namespace vianic

// protocol.cpp: validating parser of client messages and encoders of the
// simulator's messages (see protocol.h and docs/cosim-protocol.md). Every
// length and field is checked here before anything else looks at a message.
#include "protocol.h"

#include <cstdio>

namespace vianic {
namespace proto {

namespace {

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
        case kMsgAttachMem:
        case kMsgMmioRead:
        case kMsgWait:
        case kMsgTrace:
        case kMsgReset:
        case kMsgGrant:
        case kMsgRevoke:
        case kMsgTerminate:
        case kMsgStats:
        case kMsgFabricRead:
        case kMsgFabricWrite:
            return true;
        default:
            return false;  // HELLO is answered but precedes any tag bookkeeping
    }
}

uint16_t parse_client_message(const Header& h, const uint8_t* p, Message* m, std::string* why) {
    m->h = h;
    m->payload = p;
    switch (h.type) {
        case kMsgHello: {
            if (!need_len(h, kHelloSize, why)) return kCodeMalformed;
            if (get32(p) != kHelloMagic) {
                *why = fmt("HELLO: bad magic 0x%08llx", get32(p));
                return kCodeMalformed;
            }
            Hello& x = m->hello;
            x.major = get16(p + 4);
            x.minor = get16(p + 6);
            x.role = p[8];
            x.node = p[9];
            x.flags = get16(p + 10);
            x.token = get64(p + 12);
            size_t n = 0;
            for (; n < kNameSize && p[20 + n] != 0; n++) {
                uint8_t c = p[20 + n];
                x.name[n] = (c >= 0x20 && c < 0x7f) ? char(c) : '?';
            }
            x.name[n] = 0;
            if (x.major != kProtocolMajor) {
                *why = fmt("protocol version %llu.%llu not supported (simulator speaks 1.x)", x.major, x.minor);
                return kCodeVersion;
            }
            return 0;
        }
        case kMsgAttachMem:
            if (!need_len(h, kAttachMemSize, why)) return kCodeMalformed;
            m->attach.base = get64(p);
            m->attach.size = get64(p + 8);
            return 0;
        case kMsgMmioRead:
            if (!need_len(h, kMmioReadSize, why)) return kCodeMalformed;
            m->read.offset = get32(p);
            m->read.size = p[4];
            if (m->read.size != 4 && m->read.size != 8) {
                *why = fmt("MMIO_READ: size %llu, must be 4 or 8", m->read.size);
                return kCodeMalformed;
            }
            return 0;
        case kMsgMmioWrite: {
            if (h.len < 4) {
                *why = fmt("MMIO_WRITE: payload is %llu bytes, too short for the count", h.len);
                return kCodeMalformed;
            }
            uint32_t count = get32(p);
            if (count < 1 || count > kMaxWriteEntries) {
                *why = fmt("MMIO_WRITE: count %llu, must be 1..%llu", count, kMaxWriteEntries);
                return kCodeMalformed;
            }
            if (h.len != 4 + count * kWriteEntrySize) {
                *why = fmt("MMIO_WRITE: payload is %llu bytes, %llu entries need ", h.len, count) +
                       std::to_string(4 + count * kWriteEntrySize);
                return kCodeMalformed;
            }
            for (uint32_t i = 0; i < count; i++) {
                uint8_t sz = p[4 + i * kWriteEntrySize + 4];
                if (sz != 4 && sz != 8) {
                    *why = fmt("MMIO_WRITE: entry %llu has size %llu, must be 4 or 8", i, sz);
                    return kCodeMalformed;
                }
            }
            m->write_count = count;
            return 0;
        }
        case kMsgWait: {
            if (h.len < kWaitBaseSize) {
                *why = fmt("WAIT: payload is %llu bytes, too short", h.len);
                return kCodeMalformed;
            }
            WaitReq& w = m->wait;
            w = WaitReq{};
            w.kind = p[0];
            w.size = p[1];
            w.timeout = get64(p + 4);
            const uint8_t* q = p + kWaitBaseSize;
            switch (w.kind) {
                case kWaitKindIrq:
                    if (!need_len(h, kWaitBaseSize + 8, why)) return kCodeMalformed;
                    w.irq_mask = get32(q);
                    return 0;
                case kWaitKindMem:
                    if (!need_len(h, kWaitBaseSize + 24, why)) return kCodeMalformed;
                    w.addr = get64(q);
                    w.mask = get64(q + 8);
                    w.value = get64(q + 16);
                    if (w.size != 1 && w.size != 2 && w.size != 4 && w.size != 8) {
                        *why = fmt("WAIT mem: size %llu, must be 1, 2, 4 or 8", w.size);
                        return kCodeMalformed;
                    }
                    return 0;
                case kWaitKindCycles:
                    if (!need_len(h, kWaitBaseSize + 8, why)) return kCodeMalformed;
                    w.cycles = get64(q);
                    return 0;
                default:
                    *why = fmt("WAIT: unknown kind %llu", w.kind);
                    return kCodeMalformed;
            }
        }
        case kMsgTrace:
            if (!need_len(h, kTraceSize, why)) return kCodeMalformed;
            if (p[0] > 1) {
                *why = fmt("TRACE: on is %llu, must be 0 or 1", p[0]);
                return kCodeMalformed;
            }
            m->trace_on = p[0];
            return 0;
        case kMsgReset:
        case kMsgTerminate:
        case kMsgStats:
            if (!need_len(h, 0, why)) return kCodeMalformed;
            return 0;
        case kMsgGrant:
            if (!need_len(h, kGrantSize, why)) return kCodeMalformed;
            m->grant.token = get64(p);
            m->grant.first = get32(p + 8);
            m->grant.count = get32(p + 12);
            return 0;
        case kMsgRevoke:
            if (!need_len(h, kRevokeSize, why)) return kCodeMalformed;
            m->revoke_token = get64(p);
            return 0;
        case kMsgFabricRead:
        case kMsgFabricWrite:
            if (!need_len(h, h.type == kMsgFabricRead ? kFabricReadSize : kFabricWriteSize, why)) return kCodeMalformed;
            m->fabric.addr = get32(p);
            m->fabric.value = get32(p + 4);
            if (m->fabric.addr > 255) {
                *why = std::string(type_name(h.type)) + fmt(": register %llu, the switch has 256 (0..255)", m->fabric.addr);
                return kCodeMalformed;
            }
            if (h.type == kMsgFabricRead && m->fabric.value != 0) {
                *why = fmt("FABRIC_READ: reserved word is 0x%llx, must be 0", m->fabric.value);
                return kCodeMalformed;
            }
            return 0;
        case kMsgCancel:
            if (!need_len(h, kCancelSize, why)) return kCodeMalformed;
            m->cancel_tag = get32(p);
            return 0;
        default:
            *why = fmt("unknown message type 0x%02llx", h.type);
            return kCodeMalformed;
    }
}

const char* type_name(uint16_t type) {
    const char* name = msg_value_name(type);
    return name ? name : "unknown";
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
    put_header(out, 8, kMsgAck, tag);
    memset(out + kHeaderSize, 0, 8);
    put16(out + kHeaderSize, status);
}

void encode_read_data(uint8_t* out, uint32_t tag, uint16_t status, uint64_t value, uint64_t cycle) {
    put_header(out, 24, kMsgReadData, tag);
    uint8_t* p = out + kHeaderSize;
    memset(p, 0, 8);
    put16(p, status);
    put64(p + 8, value);
    put64(p + 16, cycle);
}

void encode_irq(uint8_t* out, uint32_t vector, uint64_t cycle) {
    put_header(out, 16, kMsgIrq, 0);
    uint8_t* p = out + kHeaderSize;
    put32(p, vector);
    put32(p + 4, 0);
    put64(p + 8, cycle);
}

void encode_hello_ok(uint8_t* out, uint32_t tag, const HelloOk& v) {
    put_header(out, 48, kMsgHelloOk, tag);
    uint8_t* p = out + kHeaderSize;
    memset(p, 0, 48);
    put16(p + 0, kProtocolMajor);
    put16(p + 2, kProtocolMinor);
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
    out->resize(at + kHeaderSize + nfixed + ntext);
    uint8_t* p = out->data() + at;
    put_header(p, uint32_t(nfixed + ntext), type, tag);
    if (nfixed) memcpy(p + kHeaderSize, fixed, nfixed);
    if (ntext) memcpy(p + kHeaderSize + nfixed, text.data(), ntext);
}
}  // namespace

void encode_wait_done(std::vector<uint8_t>* out, uint32_t tag, uint16_t status, uint64_t cycle, uint64_t value,
                      const std::string& text) {
    uint8_t f[24] = {};
    put16(f, status);
    put64(f + 8, cycle);
    put64(f + 16, value);
    append_var(out, kMsgWaitDone, tag, f, sizeof f, text);
}

void encode_error(std::vector<uint8_t>* out, uint32_t tag, uint16_t code, bool fatal, uint16_t ref_type,
                  uint64_t ref_offset, const std::string& text) {
    uint8_t f[16] = {};
    put16(f, code);
    f[2] = fatal ? 1 : 0;
    put16(f + 4, ref_type);
    put64(f + 8, ref_offset);
    append_var(out, kMsgError, tag, f, sizeof f, text);
}

void encode_stats(std::vector<uint8_t>* out, uint32_t tag, const std::string& text) {
    append_var(out, kMsgStatsData, tag, nullptr, 0, text);
}

}  // namespace proto
}  // namespace vianic

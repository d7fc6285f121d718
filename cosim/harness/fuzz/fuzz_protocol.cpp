// fuzz_protocol.cpp: libFuzzer target for the simulator's message parser
// (cosim/harness/protocol.cpp). The input is a byte stream as a client would
// send it; it is split into frames exactly as the server does (header check,
// then the payload when complete) and every frame goes through
// parse_client_message. Checked: no crash or sanitizer report, and the
// parser's promises: an accepted message has the exact payload length of
// its type, MMIO_WRITE entries all have size 4 or 8, HELLO names are
// NUL-terminated printable ASCII. The encoders are run on the fields found,
// and their output must parse back as a frame of the stated length.
//
// Build and run: cosim/harness/fuzz/run.sh [seconds]
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "protocol.h"

using namespace vianic::proto;

namespace {

void check(bool ok) {
    if (!ok) abort();
}

void check_frame(const std::vector<uint8_t>& out) {
    check(out.size() >= kHeaderSize);
    Header h;
    std::string why;
    check(parse_header(out.data(), &h, &why));
    check(out.size() == kHeaderSize + h.len);
}

void check_message(const Header& h, const Message& m) {
    switch (h.type) {
        case kMsgHello: {
            check(h.len == 52);
            size_t n = strlen(m.hello.name);
            check(n <= kNameSize);
            for (size_t i = 0; i < n; i++) check(m.hello.name[i] >= 0x20 && m.hello.name[i] < 0x7f);
            break;
        }
        case kMsgMmioRead:
            check(h.len == 8 && (m.read.size == 4 || m.read.size == 8));
            break;
        case kMsgMmioWrite:
            check(m.write_count >= 1 && m.write_count <= kMaxWriteEntries);
            check(h.len == 4 + m.write_count * kWriteEntrySize);
            for (uint32_t i = 0; i < m.write_count; i++) {
                WriteEntry e = write_entry(m, i);
                check(e.size == 4 || e.size == 8);
            }
            break;
        case kMsgWait:
            check(m.wait.kind >= kWaitKindIrq && m.wait.kind <= kWaitKindCycles);
            check(h.len == (m.wait.kind == kWaitKindMem ? 36u : 20u));
            break;
        case kMsgReset:
        case kMsgTerminate:
        case kMsgStats:
            check(h.len == 0);
            break;
        case kMsgCancel:
            check(h.len == 8 && m.cancel_tag == get32(m.payload));
            break;
        default:
            break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    size_t pos = 0;
    std::vector<uint8_t> out;
    while (size - pos >= kHeaderSize) {
        Header h;
        std::string why;
        if (!parse_header(data + pos, &h, &why)) {
            check(!why.empty());
            // as the server: an ERROR naming the reason, then the end
            out.clear();
            encode_error(&out, h.tag, kCodeMalformed, true, h.type, 0, why);
            check_frame(out);
            break;
        }
        if (size - pos - kHeaderSize < h.len) break;  // incomplete: wait for more
        const uint8_t* payload = data + pos + kHeaderSize;
        Message m;
        uint16_t code = parse_client_message(h, payload, &m, &why);
        if (code) {
            check(!why.empty());
            check(code == kCodeMalformed || code == kCodeVersion);
            out.clear();
            encode_error(&out, h.tag, code, true, h.type, 0, why);
            check_frame(out);
        } else {
            check_message(h, m);
            // encoders, with values taken from the message
            uint8_t fixed[kHelloOkBytes];
            encode_read_data(fixed, h.tag, uint16_t(h.len), h.len, h.tag);
            encode_ack(fixed, h.tag, uint16_t(h.type));
            encode_irq(fixed, h.tag, h.len);
            out.clear();
            encode_wait_done(&out, h.tag, 0, h.len, h.tag, std::string(reinterpret_cast<const char*>(payload), h.len));
            check_frame(out);
            out.clear();
            encode_stats(&out, h.tag, std::string(reinterpret_cast<const char*>(payload), h.len));
            check_frame(out);
        }
        pos += kHeaderSize + h.len;
    }
    return 0;
}

/* test_admin.c: host-native unit tests of the firmware's pure logic: the
 * admin commands (admin.c) and the log formatter and word packing (log.c).
 * The memory commands have their own tests (test_mem.c); here they only
 * take part in the random commands, against the TPT model (fake_tpt.c).
 * Built with the host gcc and AddressSanitizer/UBSan (make -C firmware test);
 * the commands live in heap blocks of exactly their size, so any read or
 * write past a CMD or RSP is caught. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "fake_ctx.h"
#include "fake_tpt.h"
#include "log.h"
#include "mem.h"
#include "vi.h"
#include "version.h"
#include "harness.h"

/* ---------------------------------------------------------------- helpers */

static const admin_caps_t test_caps = {
    .hw_version = 0x00000100u, /* 0.1.0 */
    .num_vi = 16,
    .data_width = 64,
    .regions = 1024,
    .max_desc = 1024,
    .max_segs = 16,
    .node_id = 7,
    .num_cq = 16,
    .cq_entries = 4096,
};

static via_admin_cmd_t *new_cmd(uint16_t opcode, uint16_t flags, uint32_t seq, uint32_t len)
{
    via_admin_cmd_t *c = malloc(sizeof *c);
    memset(c, 0, sizeof *c);
    c->opcode = opcode;
    c->flags = flags;
    c->seq = seq;
    c->len = len;
    return c;
}

/* Runs cmd into a response pre-filled with garbage, so that "every byte is
 * written" is checked too. The caller frees the result. */
static via_admin_rsp_t *run(const via_admin_cmd_t *cmd)
{
    via_admin_rsp_t *r = malloc(sizeof *r);
    memset(r, 0xA5, sizeof *r);
    admin_execute(cmd, r, &test_caps);
    return r;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

/* The invariants every response has: echoed header, reserved bytes zero,
 * payload zero after LEN, and on an error LEN 0. */
static void check_rsp_common(const via_admin_cmd_t *c, const via_admin_rsp_t *r)
{
    CHECK_EQ_U(r->opcode, c->opcode);
    CHECK_EQ_U(r->seq, c->seq);
    CHECK(r->len <= VIA_ADMIN_PAYLOAD_MAX);
    CHECK(all_zero(r->reserved0, sizeof r->reserved0));
    if (r->len <= VIA_ADMIN_PAYLOAD_MAX)
        CHECK(all_zero(r->payload + r->len, VIA_ADMIN_PAYLOAD_MAX - r->len));
    if (r->status != VIA_ADMIN_ST_OK)
        CHECK_EQ_U(r->len, 0);
}

static uint32_t rng = 0x2545F491u;
static uint32_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* ---------------------------------------------------------------- layout */

static void test_layout(void)
{
    CHECK_EQ_U(sizeof(via_admin_cmd_t), VIA_ADMIN_CMD_BYTES);
    CHECK_EQ_U(sizeof(via_admin_rsp_t), VIA_ADMIN_RSP_BYTES);
    CHECK_EQ_U(sizeof(via_admin_nic_attrs_t), VIA_ADMIN_NIC_ATTRS_BYTES);
    CHECK_EQ_U(VIA_ADMIN_NIC_ATTRS_BYTES, VIA_ADMIN_PAYLOAD_MAX);

    /* The response as the host reads it: little-endian bytes at the
     * documented offsets (docs/admin.md). */
    via_admin_cmd_t *c = new_cmd(VIA_ADMIN_OP_ECHO, 0, 0x11223344u, 4);
    memcpy(c->payload, "wxyz", 4);
    via_admin_rsp_t *r = run(c);
    const uint8_t *b = (const uint8_t *)r;
    CHECK_EQ_U(b[VIA_ADMIN_RSP_OPCODE_OFFSET], VIA_ADMIN_OP_ECHO);
    CHECK_EQ_U(b[VIA_ADMIN_RSP_OPCODE_OFFSET + 1], 0);
    CHECK_EQ_U(b[VIA_ADMIN_RSP_STATUS_OFFSET], VIA_ADMIN_ST_OK);
    CHECK_EQ_U(le32(b + VIA_ADMIN_RSP_SEQ_OFFSET), 0x11223344u);
    CHECK_EQ_U(le32(b + VIA_ADMIN_RSP_LEN_OFFSET), 4);
    CHECK_EQ_U(le32(b + 12), 0); /* reserved */
    CHECK(memcmp(b + VIA_ADMIN_RSP_PAYLOAD_OFFSET, "wxyz", 4) == 0);
    free(r);
    free(c);
}

/* ---------------------------------------------------------------- opcodes */

static void test_nop(void)
{
    uint32_t lens[] = {0, 1, 239, 240};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        via_admin_cmd_t *c = new_cmd(VIA_ADMIN_OP_NOP, 0, 7 + (uint32_t)i, lens[i]);
        memset(c->payload, 0x5A, sizeof c->payload); /* ignored */
        via_admin_rsp_t *r = run(c);
        CHECK_EQ_U(r->status, VIA_ADMIN_ST_OK);
        CHECK_EQ_U(r->len, 0);
        check_rsp_common(c, r);
        free(r);
        free(c);
    }
}

static void test_query_nic(void)
{
    via_admin_cmd_t *c = new_cmd(VIA_ADMIN_OP_QUERY_NIC, 0, 0xCAFEF00Du, 0);
    via_admin_rsp_t *r = run(c);
    CHECK_EQ_U(r->status, VIA_ADMIN_ST_OK);
    CHECK_EQ_U(r->len, VIA_ADMIN_NIC_ATTRS_BYTES);
    check_rsp_common(c, r);

    via_admin_nic_attrs_t a;
    memcpy(&a, r->payload, sizeof a);
    CHECK_STR((const char *)a.name, "vianic");
    CHECK(all_zero(a.name + 6, sizeof a.name - 6));
    CHECK_EQ_U(a.hardware_version, test_caps.hw_version);
    CHECK_EQ_U(a.provider_version, (FW_VERSION_MAJOR << 8) | FW_VERSION_MINOR);
    CHECK_EQ_U(a.provider_version, FW_VERSION);
    CHECK_EQ_U(a.max_vi, test_caps.num_vi);
    CHECK_EQ_U(a.max_cq, test_caps.num_cq);
    CHECK(a.max_transfer_size >= 32768);
    /* the address is the node number, one byte */
    CHECK_EQ_U(a.nic_address_len, 1);
    CHECK_EQ_U(a.local_nic_address[0], test_caps.node_id);
    CHECK(all_zero(a.local_nic_address + 1, sizeof a.local_nic_address - 1));
    CHECK(a.thread_safe == 0 || a.thread_safe == 1);
    CHECK(a.max_discriminator_len > 0);
    CHECK_EQ_U(a.max_register_regions, test_caps.regions);
    CHECK_EQ_U(a.max_register_bytes, VIA_ADMIN_MAX_REGISTER_BYTES);
    CHECK_EQ_U(a.max_register_block_bytes, VIA_ADMIN_MAX_REGISTER_BLOCK_BYTES);
    CHECK(a.max_register_block_bytes > 0 && a.max_register_block_bytes <= a.max_register_bytes);
    CHECK_EQ_U(a.max_descriptors_per_queue, test_caps.max_desc);
    CHECK_EQ_U(a.max_segments_per_desc, test_caps.max_segs);
    CHECK_EQ_U(a.max_cq_entries, test_caps.cq_entries);
    CHECK(a.native_mtu > 0 && a.native_mtu <= a.max_transfer_size);
    CHECK_EQ_U(a.max_ptags, VIA_ADMIN_MAX_PTAGS);
    CHECK(a.reliability_level_support & 1u); /* unreliable is always there */
    CHECK_EQ_U(a.reliability_level_support & ~7u, 0);
    CHECK_EQ_U(a.rdma_read_support & ~a.reliability_level_support, 0);
    CHECK(all_zero(a.reserved0, sizeof a.reserved0));

    /* The same values at the documented byte offsets of the payload. */
    const uint8_t *p = r->payload;
    CHECK(memcmp(p + VIA_ADMIN_NIC_ATTRS_NAME_OFFSET, "vianic", 7) == 0);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_HARDWARE_VERSION_OFFSET), 0x100);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_PROVIDER_VERSION_OFFSET), FW_VERSION);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_MAX_VI_OFFSET), 16);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_MAX_TRANSFER_SIZE_OFFSET), a.max_transfer_size);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_RDMA_READ_SUPPORT_OFFSET), a.rdma_read_support);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_NATIVE_MTU_OFFSET), a.native_mtu);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_MAX_REGISTER_REGIONS_OFFSET), 1024);
    CHECK_EQ_U(le32(p + VIA_ADMIN_NIC_ATTRS_MAX_PTAGS_OFFSET), VIA_ADMIN_MAX_PTAGS);
    free(r);

    /* Another NIC configuration, and a payload (ignored). */
    admin_caps_t caps2 = {.hw_version = 0x00020304u, .num_vi = 1024, .data_width = 512, .regions = 16};
    c->len = VIA_ADMIN_PAYLOAD_MAX;
    memset(c->payload, 0xFF, sizeof c->payload);
    r = malloc(sizeof *r);
    admin_execute(c, r, &caps2);
    memcpy(&a, r->payload, sizeof a);
    CHECK_EQ_U(r->status, VIA_ADMIN_ST_OK);
    CHECK_EQ_U(a.hardware_version, 0x00020304u);
    CHECK_EQ_U(a.max_vi, 1024);
    CHECK_EQ_U(a.max_register_regions, 16);
    free(r);
    free(c);

    /* admin_fill_nic_attrs on its own clears everything it does not set. */
    memset(&a, 0xEE, sizeof a);
    admin_fill_nic_attrs(&a, &test_caps);
    CHECK(all_zero(a.reserved0, sizeof a.reserved0));
    CHECK(all_zero(a.name + 6, sizeof a.name - 6));
}

static void test_echo(void)
{
    uint32_t lens[] = {0, 1, 2, 3, 4, 5, 100, 236, 239, 240};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint32_t len = lens[i];
        via_admin_cmd_t *c = new_cmd(VIA_ADMIN_OP_ECHO, 0, 1000 + len, len);
        for (size_t k = 0; k < sizeof c->payload; k++)
            c->payload[k] = (uint8_t)(k * 7 + 1 + len);
        via_admin_rsp_t *r = run(c);
        CHECK_EQ_U(r->status, VIA_ADMIN_ST_OK);
        CHECK_EQ_U(r->len, len);
        CHECK(memcmp(r->payload, c->payload, len) == 0);
        check_rsp_common(c, r); /* bytes after LEN are zero, not copied */
        free(r);
        free(c);
    }
}

/* ---------------------------------------------------------------- statuses */

static void test_bad_len(void)
{
    uint16_t ops[] = {VIA_ADMIN_OP_NOP, VIA_ADMIN_OP_QUERY_NIC, VIA_ADMIN_OP_ECHO};
    uint32_t lens[] = {241, 242, 255, 256, 0x10000, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            via_admin_cmd_t *c = new_cmd(ops[o], 0, (uint32_t)(o * 100 + i), lens[i]);
            via_admin_rsp_t *r = run(c);
            CHECK_EQ_U(r->status, VIA_ADMIN_ST_BAD_PARAM);
            check_rsp_common(c, r);
            free(r);
            free(c);
        }
}

static void test_bad_flags(void)
{
    uint16_t ops[] = {VIA_ADMIN_OP_NOP, VIA_ADMIN_OP_QUERY_NIC, VIA_ADMIN_OP_ECHO};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int bit = 0; bit < 16; bit++) {
            via_admin_cmd_t *c = new_cmd(ops[o], (uint16_t)(1u << bit), 42, 8);
            via_admin_rsp_t *r = run(c);
            CHECK_EQ_U(r->status, VIA_ADMIN_ST_BAD_PARAM);
            check_rsp_common(c, r);
            free(r);
            free(c);
        }
    /* Flags and a bad length together: still BAD_PARAM. */
    via_admin_cmd_t *c = new_cmd(VIA_ADMIN_OP_ECHO, 0xFFFF, 43, 241);
    via_admin_rsp_t *r = run(c);
    CHECK_EQ_U(r->status, VIA_ADMIN_ST_BAD_PARAM);
    free(r);
    free(c);
}

static void test_unknown_cmd(void)
{
    uint16_t ops[] = {3, 4, 0x00FF, 0x0100, 0x7FFF, 0x8000, 0xFFFF};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        via_admin_cmd_t *c = new_cmd(ops[i], 0, 0xFFFFFFF0u + (uint32_t)i, 16);
        via_admin_rsp_t *r = run(c);
        CHECK_EQ_U(r->status, VIA_ADMIN_ST_UNKNOWN_CMD);
        CHECK_EQ_U(r->opcode, ops[i]);
        check_rsp_common(c, r);
        free(r);
        /* The opcode is judged first: with bad flags and a bad length too,
         * the answer is still UNKNOWN_CMD. */
        c->flags = 1;
        c->len = 0xFFFFFFFFu;
        r = run(c);
        CHECK_EQ_U(r->status, VIA_ADMIN_ST_UNKNOWN_CMD);
        check_rsp_common(c, r);
        free(r);
        free(c);
    }
}

static void test_statuses(void)
{
    /* Only the memory commands can say BUSY (a TPT that does not finish,
     * test_mem.c); make sure the four codes stay distinct. */
    CHECK(VIA_ADMIN_ST_OK != VIA_ADMIN_ST_UNKNOWN_CMD);
    CHECK(VIA_ADMIN_ST_OK != VIA_ADMIN_ST_BAD_PARAM);
    CHECK(VIA_ADMIN_ST_OK != VIA_ADMIN_ST_BUSY);
    CHECK(VIA_ADMIN_ST_UNKNOWN_CMD != VIA_ADMIN_ST_BAD_PARAM);
    CHECK(VIA_ADMIN_ST_UNKNOWN_CMD != VIA_ADMIN_ST_BUSY);
    CHECK(VIA_ADMIN_ST_BAD_PARAM != VIA_ADMIN_ST_BUSY);
    CHECK_EQ_U(VIA_ADMIN_ST_OK, 0);
}

static void test_seq_echo(void)
{
    uint32_t seqs[] = {0, 1, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xDEADBEEFu};
    uint16_t ops[] = {VIA_ADMIN_OP_NOP, VIA_ADMIN_OP_QUERY_NIC, VIA_ADMIN_OP_ECHO, 0x1234};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
            via_admin_cmd_t *c = new_cmd(ops[o], 0, seqs[i], 0);
            via_admin_rsp_t *r = run(c);
            CHECK_EQ_U(r->seq, seqs[i]);
            CHECK_EQ_U(r->opcode, ops[o]);
            free(r);
            free(c);
        }
}

/* Random commands: whatever the bytes, an answer that keeps the invariants
 * and no access outside the two blocks (ASan). The command is not written,
 * and the firmware never misuses the TPT (the model counts violations). */
static void test_random_commands(void)
{
    fake_tpt_reset(1024, 0);
    mem_init(1024);
    fake_ctx_reset(16);
    vi_init(16);
    via_admin_cmd_t *c = malloc(sizeof *c);
    via_admin_cmd_t *copy = malloc(sizeof *copy);
    for (int n = 0; n < 20000; n++) {
        uint32_t *w = (uint32_t *)(void *)c;
        for (size_t k = 0; k < sizeof *c / 4; k++)
            w[k] = xorshift();
        /* Bias towards the interesting cases. */
        if (n & 1)
            c->opcode &= 3;
        else if (n & 8)
            c->opcode = 0x10 | (c->opcode & 7);
        else if (n & 16)
            c->opcode = 0x20 | (c->opcode & 7); /* 0x20..0x25 and two unknown */
        if (n & 2)
            c->flags = 0;
        if (n & 4)
            c->len %= 300;
        memcpy(copy, c, sizeof *c);
        via_admin_rsp_t *r = run(c);
        CHECK(memcmp(copy, c, sizeof *c) == 0);
        check_rsp_common(c, r);
        CHECK(r->status <= VIA_ADMIN_ST_INVALID_RDMAREAD);
        CHECK(r->status != VIA_ADMIN_ST_BUSY); /* the model's TPT always finishes */
        /* (and so does the context model: never ST_INTERNAL) */
        if (c->opcode < VIA_ADMIN_OP_CREATE_PTAG)
            CHECK(r->status == VIA_ADMIN_ST_OK || r->status == VIA_ADMIN_ST_UNKNOWN_CMD ||
                  r->status == VIA_ADMIN_ST_BAD_PARAM);
        if (c->opcode == VIA_ADMIN_OP_ECHO && r->status == VIA_ADMIN_ST_OK)
            CHECK(memcmp(r->payload, c->payload, c->len) == 0);
        free(r);
    }
    CHECK_EQ_U(fake.violations, 0);
    CHECK_EQ_U(fake_ctx.violations, 0);
    free(copy);
    free(c);
}

/* ---------------------------------------------------------------- log */

static char fmt_buf[256];

#define CHECK_FMT(want, ...)                                                                       \
    do {                                                                                           \
        size_t n_ = fw_format(fmt_buf, sizeof fmt_buf, __VA_ARGS__);                               \
        CHECK_STR(fmt_buf, want);                                                                  \
        CHECK_EQ_U(n_, strlen(want));                                                              \
    } while (0)

static void test_format(void)
{
    CHECK_FMT("plain text", "plain text");
    CHECK_FMT("", "%s", "");
    CHECK_FMT("abc", "%s", "abc");
    /* Deliberately bad calls below: silence the format checker for them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-overflow"
    CHECK_FMT("(null)", "%s", (const char *)NULL);
#pragma GCC diagnostic pop
    CHECK_FMT("[   ab]", "[%5s]", "ab");
    CHECK_FMT("[ab   ]", "[%-5s]", "ab");
    CHECK_FMT("[abcdef]", "[%3s]", "abcdef");
    CHECK_FMT("0", "%d", 0);
    CHECK_FMT("42", "%d", 42);
    CHECK_FMT("-1", "%d", -1);
    CHECK_FMT("2147483647", "%d", 2147483647);
    CHECK_FMT("-2147483648", "%d", (int)(-2147483647 - 1));
    CHECK_FMT("-0042", "%05d", -42);
    CHECK_FMT("  -42", "%5d", -42);
    CHECK_FMT("-42  |", "%-5d|", -42);
    CHECK_FMT("0", "%u", 0u);
    CHECK_FMT("7", "%u", 7u);
    CHECK_FMT("10", "%u", 10u);
    CHECK_FMT("100", "%u", 100u);
    CHECK_FMT("1000000000", "%u", 1000000000u);
    CHECK_FMT("4294967295", "%u", 4294967295u);
    CHECK_FMT("   42", "%5u", 42u);
    CHECK_FMT("00042", "%05u", 42u);
    CHECK_FMT("0", "%x", 0u);
    CHECK_FMT("a", "%x", 10u);
    CHECK_FMT("deadbeef", "%x", 0xDEADBEEFu);
    CHECK_FMT("10000", "%x", 0x10000u);
    CHECK_FMT("00000000", "%08x", 0u);
    CHECK_FMT("00001234", "%08x", 0x1234u);
    CHECK_FMT("ffffffff", "%08x", 0xFFFFFFFFu);
    CHECK_FMT("0x0000abcd", "0x%08x", 0xABCDu);
    CHECK_FMT("  1f", "%4x", 0x1Fu);
    CHECK_FMT("A", "%c", 'A');
    CHECK_FMT("[  z]", "[%3c]", 'z');
    CHECK_FMT("100%", "%u%%", 100u);
    CHECK_FMT("vianic fw 0.1: 16 VIs, imem 2928/16384 B, dmem 528/8192 B\n",
              "vianic fw %u.%u: %u VIs, imem %u/%u B, dmem %u/%u B\n", 0u, 1u, 16u, 2928u, 16384u, 528u,
              8192u);
    /* Bad formats print themselves instead of reading arguments. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-overflow"
    CHECK_FMT("%q", "%q");
    CHECK_FMT("a%", "a%");
    CHECK_FMT("a%08", "a%08");
    CHECK_FMT("x%-y", "x%-y");
    /* Widths are clamped. */
    fw_format(fmt_buf, sizeof fmt_buf, "%999999999u", 1u);
#pragma GCC diagnostic pop
    CHECK_EQ_U(strlen(fmt_buf), 100);

    /* Truncation: the return value is the full length, the buffer ends in NUL. */
    char small[5];
    CHECK_EQ_U(fw_format(small, sizeof small, "%s", "abcdefgh"), 8);
    CHECK_STR(small, "abcd");
    CHECK_EQ_U(fw_format(small, 1, "%u", 12345u), 5);
    CHECK_STR(small, "");
}

/* Words the "hardware" got from fw_log. */
static uint32_t log_words[64];
static size_t log_count;

void log_write_word(uint32_t w)
{
    if (log_count < sizeof log_words / sizeof log_words[0])
        log_words[log_count] = w;
    log_count++;
}

/* Unpacks the captured words the way the driver does: bytes in order, zero
 * bytes skipped. */
static const char *log_text(void)
{
    static char text[sizeof log_words + 1];
    size_t n = 0;
    for (size_t i = 0; i < log_count && i < sizeof log_words / sizeof log_words[0]; i++)
        for (int b = 0; b < 4; b++) {
            char ch = (char)(log_words[i] >> (8 * b));
            if (ch)
                text[n++] = ch;
        }
    text[n] = '\0';
    return text;
}

static void test_log_packing(void)
{
    log_count = 0;
    fw_log("ab\n");
    CHECK_EQ_U(log_count, 1);
    CHECK_EQ_U(log_words[0], 0x000A6261u); /* first byte in bits 7:0 */

    log_count = 0;
    fw_log("abcd\n");
    CHECK_EQ_U(log_count, 2);
    CHECK_EQ_U(log_words[0], 0x64636261u);
    CHECK_EQ_U(log_words[1], 0x0000000Au);

    log_count = 0;
    fw_log("abc\n");
    CHECK_EQ_U(log_count, 1);
    CHECK_EQ_U(log_words[0], 0x0A636261u);

    /* A line ends its word; the next line starts a new one. */
    log_count = 0;
    fw_log("a\nbc\n");
    CHECK_EQ_U(log_count, 2);
    CHECK_EQ_U(log_words[0], 0x00000A61u);
    CHECK_EQ_U(log_words[1], 0x000A6362u);

    /* Without a newline the last word is flushed anyway. */
    log_count = 0;
    fw_log("abcdefg");
    CHECK_EQ_U(log_count, 2);
    CHECK_EQ_U(log_words[1], 0x00676665u);

    log_count = 0;
    fw_log("%s", "");
    CHECK_EQ_U(log_count, 0);

    log_count = 0;
    fw_log("admin: op %u seq %u status %u\n", 9u, 77u, 1u);
    CHECK_STR(log_text(), "admin: op 9 seq 77 status 1\n");
    CHECK_EQ_U(log_count, (strlen("admin: op 9 seq 77 status 1\n") + 3) / 4);

    log_count = 0;
    fw_log("%c%d%x%08x%s\n", 'q', -5, 0xABu, 0x12u, "end");
    CHECK_STR(log_text(), "q-5ab00000012end\n");
}

int main(void)
{
    TEST_RUN(test_layout);
    TEST_RUN(test_nop);
    TEST_RUN(test_query_nic);
    TEST_RUN(test_echo);
    TEST_RUN(test_bad_len);
    TEST_RUN(test_bad_flags);
    TEST_RUN(test_unknown_cmd);
    TEST_RUN(test_statuses);
    TEST_RUN(test_seq_echo);
    TEST_RUN(test_random_commands);
    TEST_RUN(test_format);
    TEST_RUN(test_log_packing);
    return test_main_end();
}

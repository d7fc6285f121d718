/* test_mem.c: host-native tests of protection tags and memory registration
 * (mem.c), run through admin_execute (admin.c) against the TPT model of
 * fake_tpt.c: every status of every command, the limits, the fence, and a
 * random run checked against the model after every command. Built with
 * AddressSanitizer/UBSan (make -C firmware test). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "fake_tpt.h"
#include "log.h"
#include "mem.h"
#include "via_fw.h"
#include "harness.h"
#include "admin_exec.h"

#define PAGE 4096u
#define ST_OK VIA_ADMIN_ST_OK
#define ST_BAD_PARAM VIA_ADMIN_ST_BAD_PARAM
#define ST_BUSY VIA_ADMIN_ST_BUSY
#define ST_INVALID_PTAG VIA_ADMIN_ST_INVALID_PTAG
#define ST_INVALID_HANDLE VIA_ADMIN_ST_INVALID_HANDLE
#define ST_NO_RESOURCE VIA_ADMIN_ST_NO_RESOURCE
#define ST_IN_USE VIA_ADMIN_ST_IN_USE
#define RW VIA_ADMIN_MEM_RDMA_WRITE
#define RR VIA_ADMIN_MEM_RDMA_READ

/* ------------------------------------------------------------------ log */

static char log_buf[4096];
static size_t log_len;

void log_write_word(uint32_t w)
{
    for (int b = 0; b < 4; b++) {
        char c = (char)(w >> (8 * b));
        if (c && log_len + 1 < sizeof log_buf)
            log_buf[log_len++] = c;
    }
    log_buf[log_len] = '\0';
}

/* -------------------------------------------------------------- helpers */

static admin_caps_t caps = {.hw_version = 0x100, .num_vi = 16, .data_width = 64};

/* A NIC reset and boot with a TPT of `regions` regions. */
static void boot(uint32_t regions)
{
    fake_tpt_reset(regions, 7);
    caps.regions = mem_init(regions);
    CHECK_EQ_U(fake.busy, 0); /* waited for the clear */
    fake_tpt_clear_record();
    log_len = 0;
    log_buf[0] = '\0';
}

static via_admin_rsp_t last; /* the last response */

static uint32_t exec_flags(uint16_t op, uint16_t flags, const void *payload, uint32_t len)
{
    return admin_exec_checked(&caps, 0x5EC00000u + op, op, flags, payload, len, &last);
}

static uint32_t exec(uint16_t op, const void *payload, uint32_t len)
{
    return exec_flags(op, 0, payload, len);
}

static uint32_t create_ptag(uint32_t *ptag)
{
    uint32_t st = exec(VIA_ADMIN_OP_CREATE_PTAG, NULL, 0);
    if (st == ST_OK) {
        CHECK_EQ_U(last.len, 4);
        memcpy(ptag, last.payload, 4);
    }
    return st;
}

static uint32_t new_ptag(void)
{
    uint32_t p = 0;
    CHECK_EQ_U(create_ptag(&p), ST_OK);
    return p;
}

static uint32_t destroy_ptag(uint32_t ptag)
{
    return exec(VIA_ADMIN_OP_DESTROY_PTAG, &ptag, 4);
}

static via_admin_reg_mem_t reg_args(uint64_t va, uint32_t len, uint32_t ptag, uint32_t flags, uint64_t pl)
{
    via_admin_reg_mem_t r = {.va = va, .len = len, .ptag = ptag, .flags = flags, .page_list = pl};
    r.pages = len ? (uint32_t)(((va & 0xFFF) + len + 0xFFF) >> 12) : 0;
    return r;
}

static uint32_t reg_raw(const via_admin_reg_mem_t *r, uint32_t *handle)
{
    uint32_t st = exec(VIA_ADMIN_OP_REGISTER_MEM, r, sizeof *r);
    if (st == ST_OK) {
        CHECK_EQ_U(last.len, 4);
        memcpy(handle, last.payload, 4);
    }
    return st;
}

static uint32_t reg(uint64_t va, uint32_t len, uint32_t ptag, uint32_t flags, uint64_t pl, uint32_t *handle)
{
    via_admin_reg_mem_t r = reg_args(va, len, ptag, flags, pl);
    return reg_raw(&r, handle);
}

static uint32_t dereg(uint32_t handle)
{
    return exec(VIA_ADMIN_OP_DEREGISTER_MEM, &handle, 4);
}

static uint32_t query(uint32_t handle, via_admin_mem_attrs_t *a)
{
    uint32_t st = exec(VIA_ADMIN_OP_QUERY_MEM, &handle, 4);
    if (st == ST_OK) {
        CHECK_EQ_U(last.len, sizeof *a);
        memcpy(a, last.payload, sizeof *a);
    }
    return st;
}

static uint32_t set_attrs(uint32_t handle, uint32_t ptag, uint32_t flags)
{
    via_admin_set_mem_t s = {.handle = handle, .ptag = ptag, .flags = flags};
    return exec(VIA_ADMIN_OP_SET_MEM_ATTRS, &s, sizeof s);
}

/* The firmware's bookkeeping agrees with the TPT model: the same regions in
 * use, the byte total, and each ptag's use count. */
static void check_consistent(void)
{
    uint32_t total = 0, uses[VIA_ADMIN_MAX_PTAGS] = {0};
    int bad_map = 0;
    for (uint32_t i = 0; i < caps.regions; i++) {
        const fake_entry_t *e = &fake.e[i];
        if (mem_region_used(i) != e->valid)
            bad_map++;
        if (e->valid) {
            total += e->len;
            uint32_t p = e->attr & 0xFF;
            CHECK(p < VIA_ADMIN_MAX_PTAGS);
            if (p < VIA_ADMIN_MAX_PTAGS)
                uses[p]++;
        }
    }
    CHECK_EQ_U(bad_map, 0);
    CHECK_EQ_U(mem_total_bytes(), total);
    for (uint32_t p = 0; p < VIA_ADMIN_MAX_PTAGS; p++)
        CHECK_EQ_U(mem_ptag_uses(p), uses[p]);
}

/* The last TPT command the fake ran: op and index. */
static uint32_t last_op(void)
{
    return fake.log_n ? fake.log_op[(fake.log_n - 1) % FAKE_LOG_MAX] : 0xFFFFFFFFu;
}

static uint32_t rng = 0x9E3779B9u;
static uint32_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* ----------------------------------------------------------------- tests */

static void test_layouts(void)
{
    CHECK_EQ_U(sizeof(via_admin_ptag_args_t), 4);
    CHECK_EQ_U(sizeof(via_admin_reg_mem_t), 32);
    CHECK_EQ_U(sizeof(via_admin_mem_handle_t), 4);
    CHECK_EQ_U(sizeof(via_admin_mem_attrs_t), 32);
    CHECK_EQ_U(sizeof(via_admin_set_mem_t), 12);
    CHECK_EQ_U(offsetof(via_admin_reg_mem_t, page_list), 24);
}

static void test_boot(void)
{
    /* mem_init waits for the TPT's clear and reports the regions it uses. */
    fake_tpt_reset(1024, 300);
    CHECK_EQ_U(mem_init(1024), 1024);
    CHECK_EQ_U(fake.busy, 0);
    CHECK_EQ_U(fake.status_reads, 301);
    CHECK_EQ_U(fake.log_n, 0); /* no command at boot */
    fake_tpt_reset(16, 0);
    CHECK_EQ_U(mem_init(16), 16);
    /* A TPT larger than the firmware's bitmap is used up to MEM_MAX_REGIONS. */
    fake_tpt_reset(8192, 0);
    CHECK_EQ_U(mem_init(65536), MEM_MAX_REGIONS);

    /* No TPT (CAP_TPT 0): no register is touched, nothing registers. */
    fake_tpt_reset(16, FAKE_BUSY_FOREVER);
    caps.regions = mem_init(0);
    CHECK_EQ_U(caps.regions, 0);
    CHECK_EQ_U(fake.status_reads, 0);
    uint32_t p0 = new_ptag(), h0 = 0;
    CHECK_EQ_U(reg(0x10000, 100, p0, 0, 0x8000, &h0), ST_NO_RESOURCE);
    CHECK_EQ_U(dereg(1u << 16), ST_INVALID_HANDLE);
    CHECK_EQ_U(query(1u << 16, &(via_admin_mem_attrs_t){0}), ST_INVALID_HANDLE);
    CHECK_EQ_U(set_attrs(1u << 16, p0, 0), ST_INVALID_HANDLE);
    CHECK_EQ_U(fake.status_reads, 0);
    CHECK_EQ_U(fake.log_n, 0);

    /* A TPT that never finishes clearing: a bounded wait, a log line, and
     * commands answer BUSY until it is idle. */
    fake_tpt_reset(64, FAKE_BUSY_FOREVER);
    log_len = 0;
    caps.regions = mem_init(64);
    CHECK_EQ_U(caps.regions, 64);
    CHECK_EQ_U(fake.status_reads, MEM_POLL_LIMIT);
    CHECK(strstr(log_buf, "TPT still busy") != NULL);
    uint32_t p = new_ptag(), h = 0;
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x8000, &h), ST_BUSY);
    CHECK_EQ_U(query(0x10000, &(via_admin_mem_attrs_t){0}), ST_BUSY);
    CHECK_EQ_U(fake.log_n, 0);
    fake.busy = 0;
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x8000, &h), ST_OK);
    check_consistent();
}

static void test_query_nic_limits(void)
{
    boot(1024);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_QUERY_NIC, NULL, 0), ST_OK);
    via_admin_nic_attrs_t a;
    memcpy(&a, last.payload, sizeof a);
    CHECK_EQ_U(a.max_register_regions, 1024);
    CHECK_EQ_U(a.max_register_bytes, VIA_ADMIN_MAX_REGISTER_BYTES);
    CHECK_EQ_U(a.max_register_block_bytes, VIA_ADMIN_MAX_REGISTER_BLOCK_BYTES);
    CHECK_EQ_U(a.max_ptags, VIA_ADMIN_MAX_PTAGS);
    boot(16);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_QUERY_NIC, NULL, 0), ST_OK);
    memcpy(&a, last.payload, sizeof a);
    CHECK_EQ_U(a.max_register_regions, 16);
}

static void test_ptags(void)
{
    boot(64);
    /* Index i, generation 1, in order; then NO_RESOURCE. */
    for (uint32_t i = 0; i < VIA_ADMIN_MAX_PTAGS; i++) {
        uint32_t p = 0;
        CHECK_EQ_U(create_ptag(&p), ST_OK);
        CHECK_EQ_U(p, 1u << 8 | i);
    }
    uint32_t p = 0;
    CHECK_EQ_U(create_ptag(&p), ST_NO_RESOURCE);
    CHECK_EQ_U(fake.log_n, 0); /* ptags never touch the TPT */

    /* Destroy frees the index; its next ptag has the next generation, and
     * the old value is dead. */
    uint32_t old = 1u << 8 | 5;
    CHECK_EQ_U(destroy_ptag(old), ST_OK);
    CHECK_EQ_U(destroy_ptag(old), ST_INVALID_PTAG);
    CHECK_EQ_U(create_ptag(&p), ST_OK);
    CHECK_EQ_U(p, 2u << 8 | 5);
    CHECK_EQ_U(destroy_ptag(old), ST_INVALID_PTAG);
    CHECK_EQ_U(create_ptag(&p), ST_NO_RESOURCE);

    /* Generations wrap skipping 0. */
    uint32_t cur = 2u << 8 | 5;
    for (int n = 0; n < 300; n++) {
        CHECK_EQ_U(destroy_ptag(cur), ST_OK);
        CHECK_EQ_U(create_ptag(&p), ST_OK);
        CHECK_EQ_U(p & 0xFF, 5);
        CHECK(((p >> 8) & 0xFF) != 0);
        CHECK_EQ_U((p >> 8) & 0xFF, ((cur >> 8) & 0xFF) == 255 ? 1 : ((cur >> 8) & 0xFF) + 1);
        cur = p;
    }

    /* Values that are no ptag. */
    uint32_t bad[] = {0, 0x100 | 64, 0x100 | 255, 0xFF00 | 1, 0x10000 | 0x100 | 1, 0x80000101u, cur ^ 0x100};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_U(destroy_ptag(bad[i]), ST_INVALID_PTAG);

    /* Command lengths and flags. */
    uint32_t buf[60] = {cur};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CREATE_PTAG, buf, 4), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_CREATE_PTAG, 1, NULL, 0), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DESTROY_PTAG, buf, 0), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DESTROY_PTAG, buf, 3), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DESTROY_PTAG, buf, 8), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DESTROY_PTAG, buf, 241), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_DESTROY_PTAG, 0x8000, buf, 4), ST_BAD_PARAM);
    CHECK_EQ_U(destroy_ptag(cur), ST_OK); /* none of those destroyed it */
}

static void test_register(void)
{
    boot(1024);
    uint32_t p = new_ptag(), h = 0;

    /* One region: the TPT gets exactly the entry, the handle is GEN << 16 |
     * index from the TPT. */
    CHECK_EQ_U(reg(0x00007F0012345678ull, 10000, p, RW, 0x0000000123456000ull, &h), ST_OK);
    CHECK_EQ_U(h, 1u << 16 | 0);
    CHECK_EQ_U(fake.ops[VIA_FW_TPT_OP_WRITE], 1);
    CHECK_EQ_U(last_op(), VIA_FW_TPT_OP_WRITE << 16 | 0);
    CHECK(fake.e[0].valid);
    CHECK_EQ_U(fake.e[0].va, 0x00007F0012345678ull);
    CHECK_EQ_U(fake.e[0].len, 10000);
    CHECK_EQ_U(fake.e[0].attr, p | VIA_FW_TPT_ATTR_RDMA_WRITE_MASK);
    CHECK_EQ_U(fake.e[0].pl, 0x0000000123456000ull);
    check_consistent();

    /* QUERY_MEM answers it back, PAGES computed: 0x678 + 10000 spans 3. */
    via_admin_mem_attrs_t a;
    CHECK_EQ_U(query(h, &a), ST_OK);
    CHECK_EQ_U(a.va, 0x00007F0012345678ull);
    CHECK_EQ_U(a.len, 10000);
    CHECK_EQ_U(a.ptag, p);
    CHECK_EQ_U(a.flags, RW);
    CHECK_EQ_U(a.pages, 3);
    CHECK_EQ_U(a.page_list, 0x0000000123456000ull);
    CHECK_EQ_U(last_op(), VIA_FW_TPT_OP_READ << 16 | 0);

    /* More regions: next free index, every flag combination, edge shapes. */
    struct {
        uint64_t va;
        uint32_t len, flags, pages;
    } cases[] = {
        {0x1000, 1, 0, 1},
        {0x1FFF, 1, RR, 1},
        {0x1FFF, 2, RW | RR, 2},
        {0x2000, PAGE, RW, 1},
        {0x2001, PAGE, RR, 2},
        {0xFFFFFFFFFFFFF000ull, PAGE - 1, 0, 1}, /* ends at 2**64 - 1 */
        {0xFFFFFFFF00000000ull, VIA_ADMIN_MAX_REGISTER_BLOCK_BYTES, 0, 0x80000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t hi = 0;
        via_admin_reg_mem_t r = reg_args(cases[i].va, cases[i].len, p, cases[i].flags, 0x40000 + 8 * i);
        CHECK_EQ_U(r.pages, cases[i].pages);
        CHECK_EQ_U(reg_raw(&r, &hi), ST_OK);
        CHECK_EQ_U(hi, 1u << 16 | (1 + i));
        CHECK_EQ_U(query(hi, &a), ST_OK);
        CHECK_EQ_U(a.va, cases[i].va);
        CHECK_EQ_U(a.len, cases[i].len);
        CHECK_EQ_U(a.flags, cases[i].flags);
        CHECK_EQ_U(a.pages, cases[i].pages);
        CHECK_EQ_U(a.page_list, 0x40000 + 8 * i);
        CHECK_EQ_U(fake.e[1 + i].attr, p | cases[i].flags << 16);
    }
    check_consistent();
}

static void test_register_bad_param(void)
{
    boot(64);
    uint32_t p = new_ptag(), h = 0x12345678u;
    const via_admin_reg_mem_t good = reg_args(0x10000, 3 * PAGE, p, 0, 0x9000);
    via_admin_reg_mem_t r;

#define BAD(mutation)                                                                              \
    do {                                                                                           \
        r = good;                                                                                  \
        mutation;                                                                                  \
        CHECK_EQ_U(reg_raw(&r, &h), ST_BAD_PARAM);                                                 \
    } while (0)

    BAD(r.len = 0; r.pages = 0);
    BAD(r.len = 0);
    /* past MAX_REGISTER_BLOCK_BYTES: a limit (NO_RESOURCE), checked after
     * the parameters and the ptag */
    r = good;
    r.len = VIA_ADMIN_MAX_REGISTER_BLOCK_BYTES + 1;
    r.pages = 0x80001;
    CHECK_EQ_U(reg_raw(&r, &h), ST_NO_RESOURCE);
    r.pages = 0x80000;
    CHECK_EQ_U(reg_raw(&r, &h), ST_BAD_PARAM);
    r.len = 0xFFFFFFFFu;
    r.pages = 0x100000;
    r.ptag = 0;
    CHECK_EQ_U(reg_raw(&r, &h), ST_INVALID_PTAG);
    BAD(r.va = 0xFFFFFFFFFFFFF000ull; r.len = PAGE; r.pages = 1);        /* ends at 2**64 */
    BAD(r.va = 0xFFFFFFFFFFFFFFF0ull; r.len = 0x100; r.pages = 2);       /* wraps */
    BAD(r.va = 0xFFFFFFFFFFFFFFFFull; r.len = 1; r.pages = 1);          /* wraps by 1 */
    BAD(r.flags = 4);
    BAD(r.flags = RW | RR | 0x80000000u);
    BAD(r.flags = 0xFFFFFFFFu);
    BAD(r.pages = 2);
    BAD(r.pages = 4);
    BAD(r.pages = 0);
    BAD(r.pages = 0xFFFFFFFFu);
    BAD(r.va = 0x10001);                          /* now spans 4 pages */
    BAD(r.page_list = 0x9001);
    BAD(r.page_list = 0x9004);
    BAD(r.page_list = 0xFFFFFFFFFFFFFFF8ull);     /* 3 entries wrap */
    BAD(r.page_list = 0xFFFFFFFFFFFFFFE8ull);     /* ends exactly at 2**64 */
    /* Bad parameters win over a bad ptag. */
    BAD(r.len = 0; r.ptag = 0);
#undef BAD

    /* The command's LEN must be the struct's. */
    uint8_t buf[VIA_ADMIN_PAYLOAD_MAX] = {0};
    memcpy(buf, &good, sizeof good);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_REGISTER_MEM, buf, 0), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_REGISTER_MEM, buf, 28), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_REGISTER_MEM, buf, 31), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_REGISTER_MEM, buf, 33), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_REGISTER_MEM, buf, 240), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_REGISTER_MEM, 2, &good, 32), ST_BAD_PARAM);

    /* Nothing reached the TPT or the tables; the good one still works. */
    CHECK_EQ_U(fake.log_n, 0);
    check_consistent();
    CHECK_EQ_U(reg_raw(&good, &h), ST_OK);
    /* The highest page list that does not wrap. */
    r = good;
    r.page_list = 0xFFFFFFFFFFFFFFE0ull;
    CHECK_EQ_U(reg_raw(&r, &h), ST_OK);
    check_consistent();
}

static void test_register_invalid_ptag(void)
{
    boot(64);
    uint32_t p = new_ptag(), q = new_ptag(), h = 0;
    CHECK_EQ_U(destroy_ptag(q), ST_OK);
    uint32_t bad[] = {0, q, p + 0x100, p | 0x10000, 0x100 | 7, 0x100 | 200};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_U(reg(0x10000, 100, bad[i], 0, 0x9000, &h), ST_INVALID_PTAG);
    CHECK_EQ_U(fake.log_n, 0);
    check_consistent();
}

static void test_no_free_region(void)
{
    boot(16);
    uint32_t p = new_ptag(), h[17] = {0};
    for (uint32_t i = 0; i < 16; i++) {
        CHECK_EQ_U(reg(0x100000 + i * PAGE, PAGE, p, 0, 0x9000, &h[i]), ST_OK);
        CHECK_EQ_U(h[i], 1u << 16 | i);
    }
    uint32_t writes = fake.ops[VIA_FW_TPT_OP_WRITE];
    CHECK_EQ_U(reg(0x200000, PAGE, p, 0, 0x9000, &h[16]), ST_NO_RESOURCE);
    CHECK_EQ_U(fake.ops[VIA_FW_TPT_OP_WRITE], writes);
    check_consistent();

    /* Freeing one makes exactly that index available, with a new generation. */
    CHECK_EQ_U(dereg(h[9]), ST_OK);
    CHECK_EQ_U(reg(0x200000, PAGE, p, 0, 0x9000, &h[16]), ST_OK);
    CHECK_EQ_U(h[16], 2u << 16 | 9);
    CHECK_EQ_U(reg(0x200000, PAGE, p, 0, 0x9000, &h[16]), ST_NO_RESOURCE);
    check_consistent();

    /* A larger TPT, filled to the last index (the bitmap's word skip). */
    boot(1024);
    p = new_ptag();
    uint32_t hh = 0;
    for (uint32_t i = 0; i < 1024; i++) {
        CHECK_EQ_U(reg(0x100000, 1, p, 0, 0x9000, &hh), ST_OK);
        if (hh != (1u << 16 | i)) {
            CHECK_EQ_U(hh, 1u << 16 | i);
            break;
        }
    }
    CHECK_EQ_U(reg(0x100000, 1, p, 0, 0x9000, &hh), ST_NO_RESOURCE);
    CHECK_EQ_U(dereg(1u << 16 | 1000), ST_OK);
    CHECK_EQ_U(reg(0x100000, 1, p, 0, 0x9000, &hh), ST_OK);
    CHECK_EQ_U(hh, 2u << 16 | 1000);
    check_consistent();
}

static void test_byte_total(void)
{
    boot(64);
    uint32_t p = new_ptag(), h1 = 0, h2 = 0, h3 = 0;
    const uint32_t block = VIA_ADMIN_MAX_REGISTER_BLOCK_BYTES;
    const uint32_t rest = VIA_ADMIN_MAX_REGISTER_BYTES - block;
    CHECK_EQ_U(reg(0, block, p, 0, 0x9000, &h1), ST_OK);
    CHECK_EQ_U(reg(0, rest + 1, p, 0, 0x9000, &h2), ST_NO_RESOURCE);
    CHECK_EQ_U(reg(0, rest, p, 0, 0x9000, &h2), ST_OK); /* exactly the limit */
    CHECK_EQ_U(mem_total_bytes(), VIA_ADMIN_MAX_REGISTER_BYTES);
    CHECK_EQ_U(reg(0, 1, p, 0, 0x9000, &h3), ST_NO_RESOURCE);
    check_consistent();
    /* Deregistering gives the bytes back. */
    CHECK_EQ_U(dereg(h1), ST_OK);
    CHECK_EQ_U(mem_total_bytes(), rest);
    CHECK_EQ_U(reg(0, block, p, 0, 0x9000, &h1), ST_OK);
    CHECK_EQ_U(reg(0, 1, p, 0, 0x9000, &h3), ST_NO_RESOURCE);
    CHECK_EQ_U(dereg(h2), ST_OK);
    CHECK_EQ_U(reg(0, 1, p, 0, 0x9000, &h3), ST_OK);
    check_consistent();
}

static void test_deregister(void)
{
    boot(64);
    uint32_t p = new_ptag(), h = 0;
    CHECK_EQ_U(reg(0x10000, 5000, p, RR, 0x9000, &h), ST_OK);
    fake_tpt_clear_record();
    CHECK_EQ_U(dereg(h), ST_OK);
    /* READ (handle check, LEN and ptag), then INVALIDATE. */
    CHECK_EQ_U(fake.log_n, 2);
    CHECK_EQ_U(fake.log_op[0], VIA_FW_TPT_OP_READ << 16 | 0);
    CHECK_EQ_U(fake.log_op[1], VIA_FW_TPT_OP_INVALIDATE << 16 | 0);
    CHECK(!fake.e[0].valid);
    CHECK_EQ_U(mem_total_bytes(), 0);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 0);
    check_consistent();

    /* Twice: the handle is gone. */
    fake_tpt_clear_record();
    CHECK_EQ_U(dereg(h), ST_INVALID_HANDLE);
    CHECK_EQ_U(fake.ops[VIA_FW_TPT_OP_INVALIDATE], 0);

    /* Never issued, generation 0, index beyond the TPT. */
    uint32_t bad[] = {0, 1u << 16 | 5, 0x0000000Au, 1u << 16 | 64, 1u << 16 | 0xFFFF, 3u << 16 | 0, 0xFFFF0000u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_U(dereg(bad[i]), ST_INVALID_HANDLE);
    CHECK_EQ_U(fake.ops[VIA_FW_TPT_OP_INVALIDATE], 0);
    uint32_t buf[2] = {h, 0};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DEREGISTER_MEM, buf, 0), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DEREGISTER_MEM, buf, 8), ST_BAD_PARAM);
    check_consistent();

    /* The ptag is free to go now. */
    CHECK_EQ_U(destroy_ptag(p), ST_OK);
}

static void test_stale_handle(void)
{
    boot(64);
    uint32_t p = new_ptag(), h1 = 0, h2 = 0;
    via_admin_mem_attrs_t a;
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h1), ST_OK);
    CHECK_EQ_U(dereg(h1), ST_OK);
    /* The same index again: a new generation; the old handle names nothing. */
    CHECK_EQ_U(reg(0x20000, 200, p, RW, 0xA000, &h2), ST_OK);
    CHECK_EQ_U(h2 & 0xFFFF, h1 & 0xFFFF);
    CHECK_EQ_U(h2 >> 16, (h1 >> 16) + 1);
    CHECK_EQ_U(query(h1, &a), ST_INVALID_HANDLE);
    CHECK_EQ_U(set_attrs(h1, p, RR), ST_INVALID_HANDLE);
    CHECK_EQ_U(dereg(h1), ST_INVALID_HANDLE);
    CHECK_EQ_U(query(h2, &a), ST_OK);
    CHECK_EQ_U(a.va, 0x20000);
    CHECK_EQ_U(a.flags, RW);
    check_consistent();

    /* Generations wrap in the TPT skipping 0; handles follow. */
    fake.e[1].gen = 0xFFFF;
    uint32_t h3 = 0;
    CHECK_EQ_U(reg(0x30000, 1, p, 0, 0x9000, &h3), ST_OK);
    CHECK_EQ_U(h3, 0xFFFFu << 16 | 1);
    CHECK_EQ_U(dereg(h3), ST_OK);
    CHECK_EQ_U(reg(0x30000, 1, p, 0, 0x9000, &h3), ST_OK);
    CHECK_EQ_U(h3, 1u << 16 | 1);
    check_consistent();
}

static void test_destroy_in_use(void)
{
    boot(64);
    uint32_t p = new_ptag(), h1 = 0, h2 = 0;
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h1), ST_OK);
    CHECK_EQ_U(reg(0x20000, 100, p, 0, 0x9000, &h2), ST_OK);
    CHECK_EQ_U(destroy_ptag(p), ST_IN_USE);
    CHECK_EQ_U(dereg(h1), ST_OK);
    CHECK_EQ_U(destroy_ptag(p), ST_IN_USE);
    CHECK_EQ_U(dereg(h2), ST_OK);
    CHECK_EQ_U(destroy_ptag(p), ST_OK);
    CHECK_EQ_U(destroy_ptag(p), ST_INVALID_PTAG);
    /* A failed register does not count as a use. */
    uint32_t q = new_ptag(), h = 0;
    CHECK_EQ_U(reg(0x10000, 0, q, 0, 0x9000, &h), ST_BAD_PARAM);
    CHECK_EQ_U(destroy_ptag(q), ST_OK);
    check_consistent();
}

static void test_query_mem(void)
{
    boot(64);
    uint32_t p = new_ptag(), h = 0;
    via_admin_mem_attrs_t a;
    CHECK_EQ_U(query(1u << 16, &a), ST_INVALID_HANDLE);
    CHECK_EQ_U(query(0, &a), ST_INVALID_HANDLE);
    CHECK_EQ_U(reg(0x123456789ABCull, 0x10000, p, RW | RR, 0xFEDCBA9870ull, &h), ST_OK);
    CHECK_EQ_U(query(h, &a), ST_OK);
    CHECK_EQ_U(a.va, 0x123456789ABCull);
    CHECK_EQ_U(a.len, 0x10000);
    CHECK_EQ_U(a.ptag, p);
    CHECK_EQ_U(a.flags, RW | RR);
    CHECK_EQ_U(a.pages, 17);
    CHECK_EQ_U(a.page_list, 0xFEDCBA9870ull);
    CHECK_EQ_U(query(h + 0x10000, &a), ST_INVALID_HANDLE);
    CHECK_EQ_U(query(h + 1, &a), ST_INVALID_HANDLE);
    uint32_t buf[2] = {h, 0};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_QUERY_MEM, buf, 0), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_QUERY_MEM, buf, 5), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_QUERY_MEM, 1, &h, 4), ST_BAD_PARAM);
    CHECK_EQ_U(fake.ops[VIA_FW_TPT_OP_WRITE] + fake.ops[VIA_FW_TPT_OP_SET_ATTR] + fake.ops[VIA_FW_TPT_OP_INVALIDATE], 1);
}

static void test_set_attrs(void)
{
    boot(64);
    uint32_t a = new_ptag(), b = new_ptag(), h = 0, h2 = 0;
    via_admin_mem_attrs_t m;
    CHECK_EQ_U(reg(0x10000, 100, a, 0, 0x9000, &h), ST_OK);
    CHECK_EQ_U(reg(0x20000, 100, a, RW, 0x9000, &h2), ST_OK);

    /* Moves the use from a to b; the handle stays valid. */
    fake_tpt_clear_record();
    CHECK_EQ_U(set_attrs(h, b, RW | RR), ST_OK);
    CHECK_EQ_U(last_op(), VIA_FW_TPT_OP_SET_ATTR << 16 | 0);
    CHECK_EQ_U(fake.e[0].attr, b | (uint32_t)(RW | RR) << 16);
    CHECK_EQ_U(mem_ptag_uses(a & 0xFF), 1);
    CHECK_EQ_U(mem_ptag_uses(b & 0xFF), 1);
    CHECK_EQ_U(query(h, &m), ST_OK);
    CHECK_EQ_U(m.ptag, b);
    CHECK_EQ_U(m.flags, RW | RR);
    CHECK_EQ_U(m.va, 0x10000);
    check_consistent();
    CHECK_EQ_U(set_attrs(h2, b, 0), ST_OK);
    CHECK_EQ_U(destroy_ptag(a), ST_OK);
    CHECK_EQ_U(destroy_ptag(b), ST_IN_USE);

    /* The same ptag again: only the flags change, the count stays. */
    CHECK_EQ_U(set_attrs(h, b, 0), ST_OK);
    CHECK_EQ_U(mem_ptag_uses(b & 0xFF), 2);
    check_consistent();

    /* Errors change nothing. */
    uint32_t before = fake.ops[VIA_FW_TPT_OP_SET_ATTR];
    CHECK_EQ_U(set_attrs(h, b, 4), ST_BAD_PARAM);
    CHECK_EQ_U(set_attrs(h, b, 0x80000000u), ST_BAD_PARAM);
    CHECK_EQ_U(set_attrs(h, a, 0), ST_INVALID_PTAG); /* destroyed */
    CHECK_EQ_U(set_attrs(h, 0, 0), ST_INVALID_PTAG);
    CHECK_EQ_U(set_attrs(h, b | 0x10000, 0), ST_INVALID_PTAG);
    CHECK_EQ_U(set_attrs(0, b, 0), ST_INVALID_HANDLE);
    CHECK_EQ_U(set_attrs(h + 2, b, 0), ST_INVALID_HANDLE);
    CHECK_EQ_U(set_attrs(1u << 16 | 63, b, 0), ST_INVALID_HANDLE);
    uint32_t s[4] = {h, b, RW, 0};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_SET_MEM_ATTRS, s, 8), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_SET_MEM_ATTRS, s, 16), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_SET_MEM_ATTRS, 4, s, 12), ST_BAD_PARAM);
    CHECK_EQ_U(fake.ops[VIA_FW_TPT_OP_SET_ATTR], before);
    CHECK_EQ_U(query(h, &m), ST_OK);
    CHECK_EQ_U(m.flags, 0);
    check_consistent();

    /* Deregistering drops the use from the ptag the region has now. */
    CHECK_EQ_U(dereg(h), ST_OK);
    CHECK_EQ_U(dereg(h2), ST_OK);
    CHECK_EQ_U(destroy_ptag(b), ST_OK);
    check_consistent();
}

static void test_fence(void)
{
    boot(64);
    uint32_t p = new_ptag(), h = 0, h2 = 0;
    via_admin_mem_attrs_t a;

    /* A fence that takes a while: DEREGISTER answers once BUSY clears. */
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h), ST_OK);
    fake.fence_busy = 5000;
    fake.status_reads = 0;
    CHECK_EQ_U(dereg(h), ST_OK);
    CHECK(fake.status_reads > 5000);
    CHECK_EQ_U(fake.busy, 0);
    check_consistent();

    /* Longer than the bound: ST_BUSY after exactly MEM_POLL_LIMIT polls, a
     * log line; the region is already gone (the TPT and the tables agree). */
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h), ST_OK);
    fake.fence_busy = MEM_POLL_LIMIT + 100;
    fake_tpt_clear_record();
    log_len = 0;
    CHECK_EQ_U(dereg(h), ST_BUSY);
    CHECK_EQ_U(fake.busy, 100);
    CHECK(strstr(log_buf, "fence not drained") != NULL);
    CHECK(!fake.e[0].valid);
    check_consistent();
    CHECK_EQ_U(destroy_ptag(p), ST_OK); /* no region uses it any more */
    p = new_ptag();
    /* The retry waits for the rest of the fence and answers OK, once. */
    CHECK_EQ_U(dereg(h), ST_OK);
    CHECK_EQ_U(fake.busy, 0);
    CHECK_EQ_U(dereg(h), ST_INVALID_HANDLE);
    check_consistent();

    /* A fence that never drains: every command that needs the TPT answers
     * ST_BUSY after a bounded wait (never hangs); the ptag commands still
     * work; when it drains, all is well. */
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h), ST_OK);
    CHECK_EQ_U(reg(0x20000, 100, p, 0, 0x9000, &h2), ST_OK);
    fake.fence_busy = FAKE_BUSY_FOREVER;
    fake.status_reads = 0;
    CHECK_EQ_U(dereg(h), ST_BUSY);
    /* The idle check, READ (2 BUSY reads), then the bounded fence. */
    CHECK_EQ_U(fake.status_reads, 1 + 3 + MEM_POLL_LIMIT);
    fake.status_reads = 0;
    CHECK_EQ_U(dereg(h), ST_BUSY); /* the retry */
    CHECK_EQ_U(fake.status_reads, MEM_POLL_LIMIT);
    CHECK_EQ_U(dereg(h2), ST_BUSY);
    CHECK_EQ_U(query(h2, &a), ST_BUSY);
    CHECK_EQ_U(set_attrs(h2, p, 0), ST_BUSY);
    uint32_t h3 = 0;
    CHECK_EQ_U(reg(0x30000, 100, p, 0, 0x9000, &h3), ST_BUSY);
    uint32_t q = 0;
    CHECK_EQ_U(create_ptag(&q), ST_OK);
    CHECK_EQ_U(destroy_ptag(q), ST_OK);
    check_consistent();
    fake.busy = 0;
    fake.fence_busy = 3;
    CHECK_EQ_U(dereg(h), ST_OK);
    CHECK_EQ_U(query(h2, &a), ST_OK);
    CHECK_EQ_U(reg(0x30000, 100, p, 0, 0x9000, &h3), ST_OK);
    CHECK_EQ_U(h3, ((h >> 16) + 1) << 16 | 0); /* index 0 again, a new generation */
    CHECK_EQ_U(dereg(h2), ST_OK);
    CHECK_EQ_U(dereg(h3), ST_OK);
    CHECK_EQ_U(destroy_ptag(p), ST_OK);
    check_consistent();
}

static void test_write_failure(void)
{
    /* A WRITE the TPT does not take: ST_BUSY, logged, and the index is kept
     * out of use (it may still become valid), nothing counted. */
    boot(64);
    uint32_t p = new_ptag(), h = 0;
    fake.fail_write = 1;
    log_len = 0;
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h), ST_BUSY);
    CHECK(strstr(log_buf, "WRITE of region 0 failed") != NULL);
    CHECK_EQ_U(mem_total_bytes(), 0);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 0);
    CHECK(mem_region_used(0));
    fake.fail_write = 0;
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h), ST_OK);
    CHECK_EQ_U(h, 1u << 16 | 1);
    /* A WRITE that never finishes: bounded as well. */
    fake.cmd_busy = FAKE_BUSY_FOREVER;
    CHECK_EQ_U(reg(0x10000, 100, p, 0, 0x9000, &h), ST_BUSY);
    fake.busy = 0;
    fake.cmd_busy = 2;
    CHECK_EQ_U(destroy_ptag(p), ST_IN_USE);
}

/* Random commands against the model: every answer is one the command may
 * give, OK answers are checked against the model's state, and the firmware
 * stays consistent with the TPT throughout. */
static void test_random(void)
{
    boot(32);
    uint32_t handles[64] = {0}, nh = 0, ptag_list[VIA_ADMIN_MAX_PTAGS + 8] = {0}, np = 0;
    uint32_t counts[8] = {0};
    for (int n = 0; n < 30000; n++) {
        uint32_t x = xorshift(), st;
        uint32_t any_h = nh && (x & 1) ? handles[xorshift() % nh] : (xorshift() & 0x0003001F);
        uint32_t any_p = np && (x & 2) ? ptag_list[xorshift() % np] : (xorshift() & 0x3FF);
        switch ((x >> 8) % 6) {
        case 0: {
            uint32_t p = 0;
            st = create_ptag(&p);
            CHECK(st == ST_OK || st == ST_NO_RESOURCE);
            if (st == ST_OK && np < sizeof ptag_list / sizeof ptag_list[0])
                ptag_list[np++] = p;
            break;
        }
        case 1:
            st = destroy_ptag(any_p);
            CHECK(st == ST_OK || st == ST_INVALID_PTAG || st == ST_IN_USE);
            break;
        case 2: {
            uint32_t h = 0, len = (xorshift() & 3) == 0 ? 0 : xorshift() % (1u << (xorshift() % 28));
            uint64_t va = (uint64_t)(xorshift() & 0xFFFF) << 12 | (xorshift() & 0xFFF);
            via_admin_reg_mem_t r = reg_args(va, len, any_p, xorshift() % 5, (uint64_t)(xorshift() & 0xFFFF) << 3);
            if ((xorshift() & 7) == 0)
                r.pages++;
            st = reg_raw(&r, &h);
            CHECK(st == ST_OK || st == ST_BAD_PARAM || st == ST_INVALID_PTAG || st == ST_NO_RESOURCE);
            if (st == ST_OK) {
                CHECK((h & 0xFFFF) < 32 && (h >> 16) != 0);
                CHECK(fake.e[h & 0xFFFF].valid && fake.e[h & 0xFFFF].gen == h >> 16);
                if (nh < 64)
                    handles[nh++] = h;
            }
            break;
        }
        case 3:
            st = dereg(any_h);
            CHECK(st == ST_OK || st == ST_INVALID_HANDLE);
            break;
        case 4: {
            via_admin_mem_attrs_t a;
            st = query(any_h, &a);
            CHECK(st == ST_OK || st == ST_INVALID_HANDLE);
            if (st == ST_OK) {
                const fake_entry_t *e = &fake.e[any_h & 0xFFFF];
                CHECK(e->va == a.va && e->len == a.len && e->pl == a.page_list);
            }
            break;
        }
        default:
            st = set_attrs(any_h, any_p, xorshift() % 5);
            CHECK(st == ST_OK || st == ST_BAD_PARAM || st == ST_INVALID_HANDLE || st == ST_INVALID_PTAG);
            break;
        }
        if (st < 8)
            counts[st]++;
        /* Forget handles and ptags that are gone, now and then. */
        if ((n & 255) == 255) {
            nh = 0;
            np = 0;
        }
        if ((n & 63) == 0)
            check_consistent();
        if (fake.violations)
            break;
    }
    check_consistent();
    /* The run reached every status but BUSY. */
    for (uint32_t s = 0; s < 8; s++)
        if (s != ST_BUSY && s != VIA_ADMIN_ST_UNKNOWN_CMD)
            CHECK(counts[s] > 0);
}

int main(void)
{
    TEST_RUN(test_layouts);
    TEST_RUN(test_boot);
    TEST_RUN(test_query_nic_limits);
    TEST_RUN(test_ptags);
    TEST_RUN(test_register);
    TEST_RUN(test_register_bad_param);
    TEST_RUN(test_register_invalid_ptag);
    TEST_RUN(test_no_free_region);
    TEST_RUN(test_byte_total);
    TEST_RUN(test_deregister);
    TEST_RUN(test_stale_handle);
    TEST_RUN(test_destroy_in_use);
    TEST_RUN(test_query_mem);
    TEST_RUN(test_set_attrs);
    TEST_RUN(test_fence);
    TEST_RUN(test_write_failure);
    TEST_RUN(test_random);
    return test_main_end();
}

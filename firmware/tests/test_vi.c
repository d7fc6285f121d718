/* test_vi.c: host-native tests of the VI table (vi.c), run through
 * admin_execute (admin.c) with mem.c's ptags and the TPT model of
 * fake_tpt.c: every status of every VI command in the order vi.h gives,
 * every state rule, the limits, the ptag uses a VI holds, and a random run
 * checked against a model after every command. Built with
 * AddressSanitizer/UBSan (make -C firmware test). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "fake_tpt.h"
#include "log.h"
#include "mem.h"
#include "vi.h"
#include "via_vip.h"
#include "harness.h"
#include "admin_exec.h"

#define ST_OK VIA_ADMIN_ST_OK
#define ST_BAD_PARAM VIA_ADMIN_ST_BAD_PARAM
#define ST_INVALID_PTAG VIA_ADMIN_ST_INVALID_PTAG
#define ST_NO_RESOURCE VIA_ADMIN_ST_NO_RESOURCE
#define ST_IN_USE VIA_ADMIN_ST_IN_USE
#define ST_INVALID_VI VIA_ADMIN_ST_INVALID_VI
#define ST_INVALID_STATE VIA_ADMIN_ST_INVALID_STATE
#define ST_INVALID_REL VIA_ADMIN_ST_INVALID_RELIABILITY_LEVEL
#define ST_INVALID_MTU VIA_ADMIN_ST_INVALID_MTU
#define ST_INVALID_RDMAREAD VIA_ADMIN_ST_INVALID_RDMAREAD
#define RW VIA_ADMIN_VI_RDMA_WRITE
#define RR VIA_ADMIN_VI_RDMA_READ
#define UNREL VIA_VIP_RELIABILITY_UNRELIABLE
#define MTS VIA_ADMIN_MAX_TRANSFER_SIZE
#define IDLE VIA_VIP_VI_STATE_IDLE
#define CONNECTED VIA_VIP_VI_STATE_CONNECTED
#define PENDING VIA_VIP_VI_STATE_CONNECT_PENDING
#define ERROR VIA_VIP_VI_STATE_ERROR

/* ------------------------------------------------------------------ log */

void log_write_word(uint32_t w)
{
    (void)w;
}

/* -------------------------------------------------------------- helpers */

static admin_caps_t caps = {.hw_version = 0x100, .data_width = 64};

/* A NIC reset and boot with num_vi doorbell pages. */
static void boot(uint32_t num_vi)
{
    fake_tpt_reset(64, 0);
    caps.regions = mem_init(64);
    caps.num_vi = vi_init(num_vi);
}

static via_admin_rsp_t last;

static uint32_t exec_flags(uint16_t op, uint16_t flags, const void *payload, uint32_t len)
{
    return admin_exec_checked(&caps, 0x71000000u + op, op, flags, payload, len, &last);
}

static uint32_t exec(uint16_t op, const void *payload, uint32_t len)
{
    return exec_flags(op, 0, payload, len);
}

static uint32_t new_ptag(void)
{
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CREATE_PTAG, NULL, 0), ST_OK);
    uint32_t p;
    memcpy(&p, last.payload, 4);
    return p;
}

static uint32_t destroy_ptag(uint32_t ptag)
{
    return exec(VIA_ADMIN_OP_DESTROY_PTAG, &ptag, 4);
}

static via_admin_create_vi_t attrs(uint32_t rel, uint32_t mts, uint32_t ptag, uint32_t flags)
{
    return (via_admin_create_vi_t){.reliability_level = rel, .max_transfer_size = mts, .ptag = ptag, .flags = flags};
}

static uint32_t create_raw(const via_admin_create_vi_t *a, uint32_t *vi)
{
    uint32_t st = exec(VIA_ADMIN_OP_CREATE_VI, a, sizeof *a);
    if (st == ST_OK) {
        CHECK_EQ_U(last.len, 4);
        memcpy(vi, last.payload, 4);
    }
    return st;
}

static uint32_t create(uint32_t rel, uint32_t mts, uint32_t ptag, uint32_t flags, uint32_t *vi)
{
    via_admin_create_vi_t a = attrs(rel, mts, ptag, flags);
    return create_raw(&a, vi);
}

static uint32_t new_vi(uint32_t ptag)
{
    uint32_t vi = 0xFFFFFFFFu;
    CHECK_EQ_U(create(UNREL, 4096, ptag, 0, &vi), ST_OK);
    return vi;
}

static uint32_t destroy(uint32_t vi)
{
    return exec(VIA_ADMIN_OP_DESTROY_VI, &vi, 4);
}

static uint32_t query(uint32_t vi, via_admin_vi_info_t *info)
{
    uint32_t st = exec(VIA_ADMIN_OP_QUERY_VI, &vi, 4);
    if (st == ST_OK) {
        CHECK_EQ_U(last.len, sizeof *info);
        memcpy(info, last.payload, sizeof *info);
    }
    return st;
}

static via_admin_modify_vi_t mod_args(uint32_t vi, uint32_t rel, uint32_t mts, uint32_t ptag, uint32_t flags)
{
    return (via_admin_modify_vi_t){.vi = vi, .reliability_level = rel, .max_transfer_size = mts, .ptag = ptag, .flags = flags};
}

static uint32_t modify_raw(const via_admin_modify_vi_t *m)
{
    return exec(VIA_ADMIN_OP_MODIFY_VI, m, sizeof *m);
}

static uint32_t modify(uint32_t vi, uint32_t rel, uint32_t mts, uint32_t ptag, uint32_t flags)
{
    via_admin_modify_vi_t m = mod_args(vi, rel, mts, ptag, flags);
    return modify_raw(&m);
}

/* The VI's attributes as QUERY_VI answers them. */
static void check_vi(uint32_t vi, uint32_t state, uint32_t rel, uint32_t mts, uint32_t ptag, uint32_t flags)
{
    via_admin_vi_info_t i;
    memset(&i, 0xEE, sizeof i);
    CHECK_EQ_U(query(vi, &i), ST_OK);
    CHECK_EQ_U(i.vi, vi);
    CHECK_EQ_U(i.state, state);
    CHECK_EQ_U(i.reliability_level, rel);
    CHECK_EQ_U(i.max_transfer_size, mts);
    CHECK_EQ_U(i.ptag, ptag);
    CHECK_EQ_U(i.flags, flags);
    CHECK_EQ_U(i.qos, 0);
    CHECK_EQ_U(i.send_cq, 0);
    CHECK_EQ_U(i.recv_cq, 0);
    CHECK_EQ_U(i.queues, VIA_ADMIN_VI_SEND_QUEUE_EMPTY | VIA_ADMIN_VI_RECV_QUEUE_EMPTY);
}

static uint32_t rng = 0x1234ABCDu;
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
    CHECK_EQ_U(sizeof(via_admin_create_vi_t), 28);
    CHECK_EQ_U(sizeof(via_admin_vi_args_t), 4);
    CHECK_EQ_U(sizeof(via_admin_modify_vi_t), 24);
    CHECK_EQ_U(sizeof(via_admin_vi_info_t), 40);
    CHECK_EQ_U(VIA_ADMIN_VI_RDMA_WRITE, VIA_ADMIN_MEM_RDMA_WRITE);
    CHECK_EQ_U(VIA_ADMIN_VI_RDMA_READ, VIA_ADMIN_MEM_RDMA_READ);
    CHECK(VIA_ADMIN_MAX_TRANSFER_SIZE >= 32768);
}

/* QUERY_NIC's MAX_VI is what CREATE_VI really gives: min(NUM_VI, MAX_VI). */
static void test_max_vi(void)
{
    uint32_t counts[] = {16, 1, 64, VIA_ADMIN_MAX_VI, VIA_ADMIN_MAX_VI + 1, 1024, 65535};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        boot(counts[k]);
        uint32_t want = counts[k] < VIA_ADMIN_MAX_VI ? counts[k] : VIA_ADMIN_MAX_VI;
        CHECK_EQ_U(caps.num_vi, want);
        CHECK_EQ_U(exec(VIA_ADMIN_OP_QUERY_NIC, NULL, 0), ST_OK);
        via_admin_nic_attrs_t a;
        memcpy(&a, last.payload, sizeof a);
        CHECK_EQ_U(a.max_vi, want);
        CHECK_EQ_U(a.max_transfer_size, MTS);
        CHECK_EQ_U(a.reliability_level_support, FW_RELIABILITY_LEVEL_SUPPORT);
        CHECK_EQ_U(a.rdma_read_support, FW_RDMA_READ_SUPPORT);
        uint32_t p = new_ptag(), vi = 0;
        for (uint32_t i = 0; i < want; i++) {
            CHECK_EQ_U(create(UNREL, 1, p, 0, &vi), ST_OK);
            CHECK_EQ_U(vi, i); /* the lowest free id: the doorbell page */
        }
        CHECK_EQ_U(create(UNREL, 1, p, 0, &vi), ST_NO_RESOURCE);
        CHECK_EQ_U(vi_count(), want);
        CHECK_EQ_U(mem_ptag_uses(p & 0xFF), want);
        /* Ids at and above MAX_VI never name a VI. */
        CHECK_EQ_U(destroy(want), ST_INVALID_VI);
        CHECK_EQ_U(query(want, &(via_admin_vi_info_t){0}), ST_INVALID_VI);
    }
    /* A NIC without doorbell pages has no VI. */
    boot(0);
    CHECK_EQ_U(caps.num_vi, 0);
    uint32_t p = new_ptag(), vi = 0;
    CHECK_EQ_U(create(UNREL, 1, p, 0, &vi), ST_NO_RESOURCE);
    CHECK_EQ_U(destroy(0), ST_INVALID_VI);
}

static void test_create_query_destroy(void)
{
    boot(16);
    uint32_t p = new_ptag(), p2 = new_ptag(), a = 0, b = 0, c = 0;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &a), ST_OK);
    CHECK_EQ_U(create(UNREL, MTS, p, RW, &b), ST_OK);
    CHECK_EQ_U(create(UNREL, 1, p2, RW, &c), ST_OK);
    CHECK_EQ_U(a, 0);
    CHECK_EQ_U(b, 1);
    CHECK_EQ_U(c, 2);
    check_vi(a, IDLE, UNREL, 4096, p, 0);
    check_vi(b, IDLE, UNREL, MTS, p, RW);
    check_vi(c, IDLE, UNREL, 1, p2, RW);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 2);
    CHECK_EQ_U(mem_ptag_uses(p2 & 0xFF), 1);
    CHECK_EQ_U(fake.log_n, 0); /* VIs never touch the TPT */

    /* A ptag a VI uses cannot be destroyed (IN_USE, as with regions). */
    CHECK_EQ_U(destroy_ptag(p2), ST_IN_USE);
    CHECK_EQ_U(destroy(c), ST_OK);
    CHECK_EQ_U(mem_ptag_uses(p2 & 0xFF), 0);
    CHECK_EQ_U(destroy_ptag(p2), ST_OK);

    /* Destroyed: gone for every command; the id is reused, lowest first. */
    CHECK_EQ_U(destroy(c), ST_INVALID_VI);
    CHECK_EQ_U(query(c, &(via_admin_vi_info_t){0}), ST_INVALID_VI);
    CHECK_EQ_U(modify(c, UNREL, 1, p, 0), ST_INVALID_VI);
    CHECK_EQ_U(destroy(a), ST_OK);
    uint32_t d = 0;
    CHECK_EQ_U(create(UNREL, 2, p, 0, &d), ST_OK);
    CHECK_EQ_U(d, 0);
    check_vi(d, IDLE, UNREL, 2, p, 0);
    CHECK_EQ_U(create(UNREL, 3, p, 0, &d), ST_OK);
    CHECK_EQ_U(d, 2);

    /* Ids never created, out of range. */
    uint32_t bad[] = {3, 15, 16, 255, 256, 0x10000, 0x80000000u, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_U(destroy(bad[i]), ST_INVALID_VI);
        CHECK_EQ_U(query(bad[i], &(via_admin_vi_info_t){0}), ST_INVALID_VI);
        CHECK_EQ_U(modify(bad[i], UNREL, 1, p, 0), ST_INVALID_VI);
    }
    CHECK_EQ_U(vi_count(), 3);
}

/* Every bad CREATE_VI, one field at a time, then several at once: the
 * first check of vi.h's order answers, and nothing changes. */
static void test_create_bad(void)
{
    boot(16);
    uint32_t p = new_ptag(), dead = new_ptag(), vi = 0x5A5A5A5Au;
    CHECK_EQ_U(destroy_ptag(dead), ST_OK);
    const via_admin_create_vi_t good = attrs(UNREL, 4096, p, RW);
    via_admin_create_vi_t c;

#define BAD(mutation, want)                                                                        \
    do {                                                                                           \
        c = good;                                                                                  \
        mutation;                                                                                  \
        CHECK_EQ_U(create_raw(&c, &vi), want);                                                     \
    } while (0)

    /* reserved fields */
    BAD(c.flags = 4, ST_BAD_PARAM);
    BAD(c.flags = RW | RR | 0x80000000u, ST_BAD_PARAM);
    BAD(c.flags = 0xFFFFFFFFu, ST_BAD_PARAM);
    BAD(c.qos = 1, ST_BAD_PARAM);
    BAD(c.qos = 0x80000000u, ST_BAD_PARAM);
    BAD(c.send_cq = 1, ST_BAD_PARAM);
    BAD(c.recv_cq = 0xFFFFFFFFu, ST_BAD_PARAM);
    /* the reliability level: one bit, supported */
    uint32_t rels[] = {0, 3, 5, 6, 7, 8, 0x80000000u, 0xFFFFFFFFu,
                       VIA_VIP_RELIABILITY_RELIABLE_DELIVERY, VIA_VIP_RELIABILITY_RELIABLE_RECEPTION};
    for (size_t i = 0; i < sizeof rels / sizeof rels[0]; i++)
        if (!(rels[i] && !(rels[i] & (rels[i] - 1)) && (rels[i] & FW_RELIABILITY_LEVEL_SUPPORT)))
            BAD(c.reliability_level = rels[i], ST_INVALID_REL);
    /* MaxTransferSize */
    BAD(c.max_transfer_size = 0, ST_INVALID_MTU);
    BAD(c.max_transfer_size = MTS + 1, ST_INVALID_MTU);
    BAD(c.max_transfer_size = 0xFFFFFFFFu, ST_INVALID_MTU);
    /* the ptag */
    BAD(c.ptag = 0, ST_INVALID_PTAG);
    BAD(c.ptag = dead, ST_INVALID_PTAG);         /* destroyed */
    BAD(c.ptag = p + 1, ST_INVALID_PTAG);        /* never created */
    BAD(c.ptag = p | 0x10000, ST_INVALID_PTAG);  /* bits 31:16 */
    BAD(c.ptag = p ^ 0x300, ST_INVALID_PTAG);    /* another generation */
    BAD(c.ptag = 0x100 | VIA_ADMIN_MAX_PTAGS, ST_INVALID_PTAG);
    /* RDMA read on a level without it */
    if (!(UNREL & FW_RDMA_READ_SUPPORT)) {
        BAD(c.flags = RR, ST_INVALID_RDMAREAD);
        BAD(c.flags = RR | RW, ST_INVALID_RDMAREAD);
    }

    /* The order: reserved > level > MTS > ptag > RDMA read. */
    BAD(c.qos = 1; c.reliability_level = 0; c.max_transfer_size = 0; c.ptag = 0; c.flags = RR, ST_BAD_PARAM);
    BAD(c.send_cq = 1; c.reliability_level = 0, ST_BAD_PARAM);
    BAD(c.reliability_level = 0; c.max_transfer_size = 0; c.ptag = 0; c.flags = RR, ST_INVALID_REL);
    BAD(c.max_transfer_size = 0; c.ptag = 0; c.flags = RR, ST_INVALID_MTU);
    BAD(c.ptag = dead; c.flags = RR, ST_INVALID_PTAG);
#undef BAD

    /* The command's LEN must be the struct's; FLAGS zero. */
    uint8_t buf[VIA_ADMIN_PAYLOAD_MAX] = {0};
    memcpy(buf, &good, sizeof good);
    uint32_t lens[] = {0, 4, 20, 24, 27, 29, 32, 240};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        CHECK_EQ_U(exec(VIA_ADMIN_OP_CREATE_VI, buf, lens[i]), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_CREATE_VI, 1, buf, 28), ST_BAD_PARAM);

    /* Nothing was created, no use taken; the good one works. */
    CHECK_EQ_U(vi_count(), 0);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 0);
    CHECK_EQ_U(vi, 0x5A5A5A5Au);
    CHECK_EQ_U(create_raw(&good, &vi), ST_OK);
    CHECK_EQ_U(vi, 0);
    /* A bad command when the table is full is still judged on its fields
     * first: NO_RESOURCE is the last check. */
    boot(1);
    p = new_ptag();
    CHECK_EQ_U(create(UNREL, 1, p, 0, &vi), ST_OK);
    CHECK_EQ_U(create(UNREL, 0, p, 0, &vi), ST_INVALID_MTU);
    CHECK_EQ_U(create(UNREL, 1, p, 0, &vi), ST_NO_RESOURCE);
}

/* DESTROY_VI and MODIFY_VI need IDLE; QUERY_VI answers in every state. */
static void test_states(void)
{
    boot(16);
    uint32_t p = new_ptag(), p2 = new_ptag();
    uint32_t states[] = {CONNECTED, PENDING, ERROR};
    for (size_t s = 0; s < 3; s++) {
        uint32_t vi = new_vi(p);
        CHECK_EQ_U(vi_state(vi), IDLE);
        CHECK_EQ_U(vi_set_state(vi, states[s]), ST_OK);
        check_vi(vi, states[s], UNREL, 4096, p, 0);
        CHECK_EQ_U(destroy(vi), ST_INVALID_STATE);
        CHECK_EQ_U(modify(vi, UNREL, 8192, p2, RW), ST_INVALID_STATE);
        /* The state is judged before the attributes. */
        CHECK_EQ_U(modify(vi, 0, 0, 0, 0xFF), ST_INVALID_STATE);
        check_vi(vi, states[s], UNREL, 4096, p, 0); /* unchanged */
        CHECK_EQ_U(destroy_ptag(p2), ST_OK);        /* modify took no use */
        p2 = new_ptag();
        /* Back to IDLE (a disconnect): both allowed again. */
        CHECK_EQ_U(vi_set_state(vi, IDLE), ST_OK);
        CHECK_EQ_U(modify(vi, UNREL, 8192, p2, RW), ST_OK);
        check_vi(vi, IDLE, UNREL, 8192, p2, RW);
        CHECK_EQ_U(destroy(vi), ST_OK);
        CHECK_EQ_U(mem_ptag_uses(p2 & 0xFF), 0);
    }
    /* vi_set_state refuses what is not a VI or a state. */
    CHECK_EQ_U(vi_set_state(3, IDLE), ST_INVALID_VI);
    uint32_t vi = new_vi(p);
    CHECK_EQ_U(vi_set_state(vi, 4), ST_INVALID_VI);
    CHECK_EQ_U(vi_state(vi), IDLE);
    CHECK_EQ_U(vi_state(vi + 1), 0xFFFFFFFFu);
    /* Many VIs in mixed states: the rules hold per VI. */
    uint32_t ids[8];
    for (int i = 0; i < 8; i++) {
        ids[i] = new_vi(p);
        CHECK_EQ_U(vi_set_state(ids[i], (uint32_t)i & 3), ST_OK);
    }
    for (int i = 0; i < 8; i++)
        CHECK_EQ_U(destroy(ids[i]), (i & 3) == IDLE ? ST_OK : ST_INVALID_STATE);
    CHECK_EQ_U(vi_count(), 1 + 6);
}

static void test_modify(void)
{
    boot(16);
    uint32_t p = new_ptag(), p2 = new_ptag(), dead = new_ptag();
    CHECK_EQ_U(destroy_ptag(dead), ST_OK);
    uint32_t vi = new_vi(p), other = new_vi(p);

    /* Every attribute changes at once; the ptag use moves. */
    CHECK_EQ_U(modify(vi, UNREL, MTS, p2, RW), ST_OK);
    check_vi(vi, IDLE, UNREL, MTS, p2, RW);
    check_vi(other, IDLE, UNREL, 4096, p, 0);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 1);
    CHECK_EQ_U(mem_ptag_uses(p2 & 0xFF), 1);
    /* The same ptag again: its count stays. */
    CHECK_EQ_U(modify(vi, UNREL, 1, p2, 0), ST_OK);
    check_vi(vi, IDLE, UNREL, 1, p2, 0);
    CHECK_EQ_U(mem_ptag_uses(p2 & 0xFF), 1);
    CHECK_EQ_U(destroy_ptag(p2), ST_IN_USE);
    /* Moved off: the old ptag can go. */
    CHECK_EQ_U(modify(vi, UNREL, 1, p, 0), ST_OK);
    CHECK_EQ_U(destroy_ptag(p2), ST_OK);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 2);

    /* Every bad field, as CREATE_VI's, and nothing changes. */
    const via_admin_modify_vi_t good = mod_args(vi, UNREL, 100, p, RW);
    via_admin_modify_vi_t m;
#define BAD(mutation, want)                                                                        \
    do {                                                                                           \
        m = good;                                                                                  \
        mutation;                                                                                  \
        CHECK_EQ_U(modify_raw(&m), want);                                                          \
    } while (0)
    BAD(m.flags = 4, ST_BAD_PARAM);
    BAD(m.qos = 7, ST_BAD_PARAM);
    BAD(m.reliability_level = 0, ST_INVALID_REL);
    BAD(m.reliability_level = 3, ST_INVALID_REL);
    BAD(m.reliability_level = VIA_VIP_RELIABILITY_RELIABLE_DELIVERY, ST_INVALID_REL);
    BAD(m.reliability_level = VIA_VIP_RELIABILITY_RELIABLE_RECEPTION, ST_INVALID_REL);
    BAD(m.max_transfer_size = 0, ST_INVALID_MTU);
    BAD(m.max_transfer_size = MTS + 1, ST_INVALID_MTU);
    BAD(m.ptag = 0, ST_INVALID_PTAG);
    BAD(m.ptag = dead, ST_INVALID_PTAG);
    BAD(m.ptag = p2, ST_INVALID_PTAG); /* destroyed above */
    BAD(m.flags = RR, ST_INVALID_RDMAREAD);
    /* order: VI > state > reserved > level > MTS > ptag > RDMA read */
    BAD(m.vi = 99; m.qos = 1, ST_INVALID_VI);
    BAD(m.qos = 1; m.reliability_level = 0, ST_BAD_PARAM);
    BAD(m.reliability_level = 0; m.max_transfer_size = 0, ST_INVALID_REL);
    BAD(m.max_transfer_size = 0; m.ptag = 0, ST_INVALID_MTU);
    BAD(m.ptag = 0; m.flags = RR, ST_INVALID_PTAG);
#undef BAD
    uint8_t buf[VIA_ADMIN_PAYLOAD_MAX] = {0};
    memcpy(buf, &good, sizeof good);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_MODIFY_VI, buf, 20), ST_BAD_PARAM);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_MODIFY_VI, buf, 28), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_MODIFY_VI, 0x100, buf, 24), ST_BAD_PARAM);
    check_vi(vi, IDLE, UNREL, 1, p, 0);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 2);
    CHECK_EQ_U(modify_raw(&good), ST_OK);
    check_vi(vi, IDLE, UNREL, 100, p, RW);
}

static void test_args_len(void)
{
    boot(16);
    uint32_t p = new_ptag();
    uint32_t vi = new_vi(p);
    uint8_t buf[VIA_ADMIN_PAYLOAD_MAX] = {0};
    memcpy(buf, &vi, 4);
    uint16_t ops[] = {VIA_ADMIN_OP_DESTROY_VI, VIA_ADMIN_OP_QUERY_VI};
    uint32_t lens[] = {0, 3, 5, 8, 240, 241, 0xFFFFFFFFu};
    for (size_t o = 0; o < 2; o++) {
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
            CHECK_EQ_U(exec(ops[o], buf, lens[i]), ST_BAD_PARAM);
        CHECK_EQ_U(exec_flags(ops[o], 1, buf, 4), ST_BAD_PARAM);
    }
    CHECK_EQ_U(vi_count(), 1);
    CHECK_EQ_U(destroy(vi), ST_OK);
}

/* A reboot empties the table (the ptags are gone too). */
static void test_reboot(void)
{
    boot(16);
    uint32_t p = new_ptag();
    new_vi(p);
    new_vi(p);
    boot(16);
    CHECK_EQ_U(vi_count(), 0);
    CHECK_EQ_U(query(0, &(via_admin_vi_info_t){0}), ST_INVALID_VI);
    CHECK_EQ_U(destroy_ptag(p), ST_INVALID_PTAG); /* the ptags went too */
    CHECK_EQ_U(new_ptag(), p);                    /* the same value again */
    CHECK_EQ_U(destroy_ptag(p), ST_OK);           /* no VI holds it */
}

/* Random commands against a model: after each, the table, the ptags' use
 * counts and every answer agree with it. */
static void test_random(void)
{
    enum { NV = 24, NP = 6 };
    boot(NV);
    struct {
        int live;
        uint32_t state, mts, ptag, flags;
    } model[NV] = {{0}};
    uint32_t ptags[NP];
    for (int i = 0; i < NP; i++)
        ptags[i] = new_ptag();
    for (int n = 0; n < 20000; n++) {
        uint32_t r = xorshift(), id = r % (NV + 2), pi = (r >> 8) % NP;
        uint32_t ptag = (r >> 12) % 16 == 0 ? ptags[pi] ^ 0x100 : ptags[pi];
        uint32_t mts = (r >> 16) % 8 == 0 ? MTS + 1 : 1 + (r >> 4) % MTS;
        uint32_t flags = (r >> 20) & 3, rel = (r >> 22) % 16 == 0 ? 2 : UNREL;
        int live = id < NV && model[id].live;
        uint32_t want, st;
        switch ((r >> 24) % 5) {
        case 0: { /* create */
            uint32_t vi = 0;
            st = create(rel, mts, ptag, flags, &vi);
            uint32_t free_id = 0;
            while (free_id < NV && model[free_id].live)
                free_id++;
            want = rel != UNREL ? ST_INVALID_REL
                   : mts > MTS ? ST_INVALID_MTU
                   : ptag != ptags[pi] ? ST_INVALID_PTAG
                   : (flags & RR) ? ST_INVALID_RDMAREAD
                   : free_id == NV ? ST_NO_RESOURCE
                                   : ST_OK;
            CHECK_EQ_U(st, want);
            if (st == ST_OK) {
                CHECK_EQ_U(vi, free_id);
                model[vi].live = 1;
                model[vi].state = IDLE;
                model[vi].mts = mts;
                model[vi].ptag = ptag;
                model[vi].flags = flags;
            }
            break;
        }
        case 1: /* destroy */
            st = destroy(id);
            want = !live ? ST_INVALID_VI : model[id].state != IDLE ? ST_INVALID_STATE : ST_OK;
            CHECK_EQ_U(st, want);
            if (st == ST_OK)
                model[id].live = 0;
            break;
        case 2: /* modify */
            st = modify(id, rel, mts, ptag, flags);
            want = !live                      ? ST_INVALID_VI
                   : model[id].state != IDLE  ? ST_INVALID_STATE
                   : rel != UNREL             ? ST_INVALID_REL
                   : mts > MTS                ? ST_INVALID_MTU
                   : ptag != ptags[pi]        ? ST_INVALID_PTAG
                   : (flags & RR)             ? ST_INVALID_RDMAREAD
                                              : ST_OK;
            CHECK_EQ_U(st, want);
            if (st == ST_OK) {
                model[id].mts = mts;
                model[id].ptag = ptag;
                model[id].flags = flags;
            }
            break;
        case 3: /* a state change from below */
            if (live) {
                model[id].state = (r >> 4) & 3;
                CHECK_EQ_U(vi_set_state(id, model[id].state), ST_OK);
            }
            break;
        default: /* query */
            if (live)
                check_vi(id, model[id].state, UNREL, model[id].mts, model[id].ptag, model[id].flags);
            else
                CHECK_EQ_U(query(id, &(via_admin_vi_info_t){0}), ST_INVALID_VI);
            break;
        }
        /* The use counts: one per live VI. */
        if ((n & 63) == 0 || n == 19999) {
            uint32_t count = 0;
            for (int i = 0; i < NP; i++) {
                uint32_t uses = 0;
                for (int v = 0; v < NV; v++)
                    uses += model[v].live && model[v].ptag == ptags[i];
                CHECK_EQ_U(mem_ptag_uses(ptags[i] & 0xFF), uses);
            }
            for (int v = 0; v < NV; v++)
                count += model[v].live;
            CHECK_EQ_U(vi_count(), count);
        }
    }
}

int main(void)
{
    TEST_RUN(test_layouts);
    TEST_RUN(test_max_vi);
    TEST_RUN(test_create_query_destroy);
    TEST_RUN(test_create_bad);
    TEST_RUN(test_states);
    TEST_RUN(test_modify);
    TEST_RUN(test_args_len);
    TEST_RUN(test_reboot);
    TEST_RUN(test_random);
    return test_main_end();
}

/* test_vi.c: host-native tests of the VI table (vi.c), run through
 * admin_execute (admin.c) with mem.c's ptags and the TPT model of
 * fake_tpt.c: every status of every VI command in the order vi.h gives,
 * every state rule, the limits, the ptag uses a VI holds, the context
 * commits each command makes (against the context model of fake_ctx.c),
 * CONNECT_LOOPBACK and DISCONNECT_VI, the commit timeouts (ST_INTERNAL,
 * never a hang), and a random run checked against a model after every
 * command. The reliability levels and RDMA read are judged by admin.h's
 * masks (FW_RELIABILITY_LEVEL_SUPPORT, FW_RDMA_READ_SUPPORT): the tests
 * compute what the firmware must answer from them (level_ok, rdma_read_ok,
 * attrs_want) and check that both sides of each rule were exercised.
 * Built with AddressSanitizer/UBSan (make -C firmware test); built a
 * second time as test_vi_levels with all three reliability levels
 * supported, where it runs only the reliability-level check of
 * CONNECT_LOOPBACK. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "fake_ctx.h"
#include "fake_cm.h"
#include "fake_tpt.h"
#include "log.h"
#include "mem.h"
#include "vi.h"
#include "via_fw.h"
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
#define ST_NO_MATCH VIA_ADMIN_ST_NO_MATCH
#define ST_INVALID_RDMAREAD VIA_ADMIN_ST_INVALID_RDMAREAD
#define TEST_NODE 6u /* this NIC's node in these tests (vi_set_node) */
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

/* The firmware's rules for the reliability level and RDMA read (vi.h,
 * checks 4 and 7), written again from admin.h's masks: a level is exactly
 * one of the bits 1, 2, 4 and one the NIC supports; RDMA read may be
 * enabled only on a level of FW_RDMA_READ_SUPPORT. */
static int level_ok(uint32_t rel)
{
    return rel != 0 && (rel & (rel - 1)) == 0 && (rel & FW_RELIABILITY_LEVEL_SUPPORT) != 0;
}

static int rdma_read_ok(uint32_t rel)
{
    return level_ok(rel) && (rel & FW_RDMA_READ_SUPPORT) != 0;
}

/* What CREATE_VI / MODIFY_VI answer for these attributes (reserved fields
 * zero; for MODIFY, of an IDLE VI): vi.h's order level > MTS > ptag > RDMA
 * read. */
static uint32_t attrs_want(uint32_t rel, uint32_t mts, int ptag_ok, uint32_t flags)
{
    if (!level_ok(rel))
        return VIA_ADMIN_ST_INVALID_RELIABILITY_LEVEL;
    if (mts == 0 || mts > VIA_ADMIN_MAX_TRANSFER_SIZE)
        return VIA_ADMIN_ST_INVALID_MTU;
    if (!ptag_ok)
        return VIA_ADMIN_ST_INVALID_PTAG;
    if ((flags & VIA_ADMIN_VI_RDMA_READ) && !rdma_read_ok(rel))
        return VIA_ADMIN_ST_INVALID_RDMAREAD;
    return VIA_ADMIN_ST_OK;
}

/* The lowest supported level with RDMA read, the lowest supported one
 * without it, the lowest single-bit level not supported; 0 if none. */
static uint32_t level_with_rdma_read(void)
{
    for (uint32_t l = 1; l <= 4; l <<= 1)
        if (rdma_read_ok(l))
            return l;
    return 0;
}

static uint32_t level_without_rdma_read(void)
{
    for (uint32_t l = 1; l <= 4; l <<= 1)
        if (level_ok(l) && !rdma_read_ok(l))
            return l;
    return 0;
}

static uint32_t level_unsupported(void)
{
    for (uint32_t l = 1; l <= 4; l <<= 1)
        if (!level_ok(l))
            return l;
    return 0;
}

static admin_caps_t caps = {.hw_version = 0x100, .data_width = 64};

/* A NIC reset and boot with num_vi doorbell pages. */
static void boot(uint32_t num_vi)
{
    fake_tpt_reset(64, 0);
    fake_ctx_reset(num_vi);
    caps.regions = mem_init(64);
    vi_set_node(TEST_NODE);
    cm_init(TEST_NODE);
    fake_cm_reset();
    caps.num_vi = vi_init(num_vi);
    CHECK_EQ_U(fake_ctx.commits, 0); /* the NIC reset disabled every VI */
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

static uint32_t connect(uint32_t a, uint32_t b)
{
    via_admin_connect_loopback_t c = {.vi_a = a, .vi_b = b};
    return exec(VIA_ADMIN_OP_CONNECT_LOOPBACK, &c, sizeof c);
}

static uint32_t disconnect(uint32_t vi)
{
    return exec(VIA_ADMIN_OP_DISCONNECT_VI, &vi, 4);
}

/* The context's ATTR.RELIABLE for a VI of level rel: set exactly when the
 * level is a reliable one (not UNRELIABLE), so that the data path breaks
 * the connection on an error. */
static uint32_t reliable_want(uint32_t rel)
{
    return rel != UNREL;
}

/* The ATTR word (RESET_Q aside) a commit of a live VI with this state,
 * level and flags writes: ENABLE, STATE, the RDMA enables (flags << 16),
 * RELIABLE for a reliable level. */
static uint32_t ctx_attr_want(uint32_t state, uint32_t rel, uint32_t flags)
{
    return VIA_FW_VI_CTX_ATTR_ENABLE_MASK | (state << VIA_FW_VI_CTX_ATTR_STATE_SHIFT) |
           ((flags & RW) ? VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK : 0) |
           ((flags & RR) ? VIA_FW_VI_CTX_ATTR_RDMA_READ_MASK : 0) |
           (reliable_want(rel) ? VIA_FW_VI_CTX_ATTR_RELIABLE_MASK : 0);
}

/* The data path's context of VI vi (the model's table) is the firmware's:
 * enabled with its state, attributes (RELIABLE as its level) and peer if
 * it exists, else disabled and zero. */
static void check_ctx(uint32_t vi)
{
    const fake_ctx_entry_t *e = &fake_ctx.e[vi];
    via_admin_vi_info_t i;
    if (query(vi, &i) != ST_OK) {
        CHECK_EQ_U(e->enable, 0);
        CHECK_EQ_U(e->state, 0);
        CHECK_EQ_U(e->ptag, 0);
        CHECK_EQ_U(e->mtu, 0);
        CHECK_EQ_U(e->peer, 0);
        CHECK_EQ_U(e->peer_node, 0);
        CHECK_EQ_U(e->rdma_write, 0);
        CHECK_EQ_U(e->rdma_read, 0);
        CHECK_EQ_U(e->reliable, 0);
        CHECK_EQ_U(e->attr & ~VIA_FW_VI_CTX_ATTR_RESET_Q_MASK, 0);
        return;
    }
    CHECK_EQ_U(e->enable, 1);
    CHECK_EQ_U(e->state, i.state);
    CHECK_EQ_U(e->ptag, i.ptag);
    CHECK_EQ_U(e->mtu, i.max_transfer_size);
    CHECK_EQ_U(e->rdma_write, (i.flags & RW) != 0);
    CHECK_EQ_U(e->rdma_read, (i.flags & RR) != 0);
    CHECK_EQ_U(e->reliable, reliable_want(i.reliability_level));
    CHECK_EQ_U(e->attr & ~VIA_FW_VI_CTX_ATTR_RESET_Q_MASK, ctx_attr_want(i.state, i.reliability_level, i.flags));
    CHECK_EQ_U(e->peer, vi_peer(vi));
    CHECK_EQ_U(e->peer_node, i.state == CONNECTED ? TEST_NODE : 0);
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
    /* The masks (admin.h): levels of the bits 1, 2, 4; unreliable always
     * there; RDMA read only on supported levels, and (VIA) never on the
     * unreliable one. */
    CHECK_EQ_U(FW_RELIABILITY_LEVEL_SUPPORT & ~7u, 0);
    CHECK(level_ok(UNREL));
    CHECK_EQ_U(FW_RDMA_READ_SUPPORT & ~FW_RELIABILITY_LEVEL_SUPPORT, 0);
    CHECK(!rdma_read_ok(UNREL));
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

    /* A VI of each supported level, with RDMA read where the level has it
     * (FW_RDMA_READ_SUPPORT): QUERY_VI and the context answer them as
     * created; a level not supported is refused whatever the flags. */
    for (uint32_t l = 1; l <= 4; l <<= 1) {
        uint32_t f = rdma_read_ok(l) ? RW | RR : RW, e = 0x5A5Au;
        if (!level_ok(l)) {
            CHECK_EQ_U(create(l, 512, p, 0, &e), ST_INVALID_REL);
            CHECK_EQ_U(create(l, 512, p, RR, &e), ST_INVALID_REL);
            CHECK_EQ_U(e, 0x5A5Au);
            continue;
        }
        uint32_t st = create(l, 512 * l, p, f, &e);
        CHECK_EQ_U(st, ST_OK);
        if (st != ST_OK)
            continue;
        CHECK_EQ_U(e, 3); /* 0, 1 and 2 are live */
        check_vi(e, IDLE, l, 512 * l, p, f);
        check_ctx(e);
        CHECK_EQ_U(fake_ctx.e[e].rdma_read, rdma_read_ok(l));
        CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 4);
        CHECK_EQ_U(destroy(e), ST_OK);
        check_ctx(e);
    }
    CHECK_EQ_U(vi_count(), 3);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 3);
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
    /* RDMA read on a level without it (INVALID_RDMAREAD), on a level not
     * supported (INVALID_RELIABILITY_LEVEL: the level is judged first) */
    for (uint32_t l = 1; l <= 4; l <<= 1) {
        if (rdma_read_ok(l))
            continue;
        uint32_t want = level_ok(l) ? ST_INVALID_RDMAREAD : ST_INVALID_REL;
        CHECK_EQ_U(attrs_want(l, 4096, 1, RR), want);
        BAD(c.reliability_level = l; c.flags = RR, want);
        BAD(c.reliability_level = l; c.flags = RR | RW, want);
    }

    /* The order: reserved > level > MTS > ptag > RDMA read. */
    BAD(c.qos = 1; c.reliability_level = 0; c.max_transfer_size = 0; c.ptag = 0; c.flags = RR, ST_BAD_PARAM);
    BAD(c.send_cq = 1; c.reliability_level = 0, ST_BAD_PARAM);
    BAD(c.reliability_level = 0; c.max_transfer_size = 0; c.ptag = 0; c.flags = RR, ST_INVALID_REL);
    BAD(c.max_transfer_size = 0; c.ptag = 0; c.flags = RR, ST_INVALID_MTU);
    BAD(c.ptag = dead; c.flags = RR, ST_INVALID_PTAG);
    /* on a level with RDMA read, the same order up to the ptag */
    uint32_t lr = level_with_rdma_read();
    if (lr) {
        BAD(c.reliability_level = lr; c.flags = RR; c.qos = 1, ST_BAD_PARAM);
        BAD(c.reliability_level = lr; c.flags = RR | RW; c.max_transfer_size = 0; c.ptag = 0, ST_INVALID_MTU);
        BAD(c.reliability_level = lr; c.flags = RR; c.ptag = dead, ST_INVALID_PTAG);
        BAD(c.reliability_level = lr; c.flags = RR | 4, ST_BAD_PARAM);
    }
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
        for (uint32_t l = 1; l <= 4; l <<= 1)
            CHECK_EQ_U(modify(vi, l, 4096, p, rdma_read_ok(l) ? RR : 0), ST_INVALID_STATE);
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
    BAD(m.reliability_level = 6, ST_INVALID_REL);
    BAD(m.reliability_level = 8, ST_INVALID_REL);
    BAD(m.reliability_level = 0xFFFFFFFFu, ST_INVALID_REL);
    for (uint32_t l = 1; l <= 4; l <<= 1)
        if (!level_ok(l)) {
            BAD(m.reliability_level = l, ST_INVALID_REL);
            BAD(m.reliability_level = l; m.flags = RR, ST_INVALID_REL); /* level before RDMA read */
        }
    BAD(m.max_transfer_size = 0, ST_INVALID_MTU);
    BAD(m.max_transfer_size = MTS + 1, ST_INVALID_MTU);
    BAD(m.ptag = 0, ST_INVALID_PTAG);
    BAD(m.ptag = dead, ST_INVALID_PTAG);
    BAD(m.ptag = p2, ST_INVALID_PTAG); /* destroyed above */
    for (uint32_t l = 1; l <= 4; l <<= 1)
        if (level_ok(l) && !rdma_read_ok(l)) {
            BAD(m.reliability_level = l; m.flags = RR, ST_INVALID_RDMAREAD);
            BAD(m.reliability_level = l; m.flags = RR | RW, ST_INVALID_RDMAREAD);
        }
    /* order: VI > state > reserved > level > MTS > ptag > RDMA read */
    BAD(m.vi = 99; m.qos = 1, ST_INVALID_VI);
    BAD(m.qos = 1; m.reliability_level = 0, ST_BAD_PARAM);
    BAD(m.reliability_level = 0; m.max_transfer_size = 0, ST_INVALID_REL);
    BAD(m.max_transfer_size = 0; m.ptag = 0, ST_INVALID_MTU);
    BAD(m.ptag = 0; m.flags = RR, ST_INVALID_PTAG);
    if (level_with_rdma_read())
        BAD(m.reliability_level = level_with_rdma_read(); m.ptag = 0; m.flags = RR, ST_INVALID_PTAG);
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

    /* The level changes like any attribute; RDMA read goes with it: on a
     * level with it, enabled (the context's RDMA_READ set); moving to a
     * level without it while keeping it is refused and changes nothing;
     * without it, the move works. */
    uint32_t lr = level_with_rdma_read(), ln = level_without_rdma_read(), lu = level_unsupported();
    if (lr) {
        CHECK_EQ_U(modify(vi, lr, 200, p, RW | RR), ST_OK);
        check_vi(vi, IDLE, lr, 200, p, RW | RR);
        check_ctx(vi);
        CHECK_EQ_U(fake_ctx.e[vi].rdma_read, 1);
        CHECK_EQ_U(modify(vi, lr, 300, p, RR), ST_OK); /* RDMA write off, read kept */
        check_vi(vi, IDLE, lr, 300, p, RR);
        CHECK_EQ_U(fake_ctx.e[vi].rdma_write, 0);
        CHECK_EQ_U(fake_ctx.e[vi].rdma_read, 1);
    }
    if (lr && ln) {
        uint32_t commits = fake_ctx.commits;
        CHECK_EQ_U(modify(vi, ln, 300, p, RR), ST_INVALID_RDMAREAD);
        CHECK_EQ_U(modify(vi, ln, 400, p, RW | RR), ST_INVALID_RDMAREAD);
        CHECK_EQ_U(fake_ctx.commits, commits);
        check_vi(vi, IDLE, lr, 300, p, RR);
        CHECK_EQ_U(modify(vi, ln, 400, p, RW), ST_OK);
        check_vi(vi, IDLE, ln, 400, p, RW);
        check_ctx(vi);
        CHECK_EQ_U(fake_ctx.e[vi].rdma_read, 0);
        /* and back, RDMA read on again */
        CHECK_EQ_U(modify(vi, lr, 400, p, RR), ST_OK);
        check_vi(vi, IDLE, lr, 400, p, RR);
        CHECK_EQ_U(fake_ctx.e[vi].rdma_read, 1);
    }
    if (lu) {
        via_admin_vi_info_t before, after;
        CHECK_EQ_U(query(vi, &before), ST_OK);
        CHECK_EQ_U(modify(vi, lu, 400, p, 0), ST_INVALID_REL);
        CHECK_EQ_U(modify(vi, lu, 400, p, RR), ST_INVALID_REL);
        CHECK_EQ_U(query(vi, &after), ST_OK);
        CHECK(memcmp(&before, &after, sizeof before) == 0);
    }
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 2);
    check_vi(other, IDLE, UNREL, 4096, p, 0);
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

/* The commits of CREATE, MODIFY and DESTROY: one each, all fields. */
static void test_commits(void)
{
    boot(16);
    uint32_t p = new_ptag(), p2 = new_ptag();
    uint32_t vi = new_vi(p);
    const fake_ctx_entry_t *e = &fake_ctx.e[vi];
    CHECK_EQ_U(fake_ctx.commits, 1);
    CHECK_EQ_U(e->commits, 1);
    CHECK_EQ_U(e->resets, 1); /* CREATE empties the queues */
    CHECK_EQ_U(e->enable, 1);
    CHECK_EQ_U(e->state, IDLE);
    CHECK_EQ_U(e->ptag, p);
    CHECK_EQ_U(e->mtu, 4096);
    CHECK_EQ_U(e->peer, 0);
    CHECK_EQ_U(e->rdma_write, 0);
    CHECK_EQ_U(e->rdma_read, 0);
    CHECK_EQ_U(e->reliable, 0); /* UNRELIABLE */
    CHECK_EQ_U(e->attr, VIA_FW_VI_CTX_ATTR_ENABLE_MASK | VIA_FW_VI_CTX_ATTR_RESET_Q_MASK);
    CHECK_EQ_U(modify(vi, UNREL, MTS, p2, RW), ST_OK);
    CHECK_EQ_U(e->commits, 2);
    CHECK_EQ_U(e->resets, 1); /* MODIFY keeps them */
    CHECK_EQ_U(e->enable, 1);
    CHECK_EQ_U(e->ptag, p2);
    CHECK_EQ_U(e->mtu, MTS);
    CHECK_EQ_U(e->rdma_write, 1);
    CHECK_EQ_U(e->reliable, 0);
    CHECK_EQ_U(e->attr, VIA_FW_VI_CTX_ATTR_ENABLE_MASK | VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK);
    check_ctx(vi);
    /* A failed command commits nothing. */
    CHECK_EQ_U(modify(vi, UNREL, 0, p2, RW), ST_INVALID_MTU);
    CHECK_EQ_U(destroy(vi + 1), ST_INVALID_VI);
    CHECK_EQ_U(create(3, 1, p, 0, &(uint32_t){0}), ST_INVALID_REL); /* two levels */
    for (uint32_t l = 1; l <= 4; l <<= 1) {
        if (rdma_read_ok(l))
            continue;
        uint32_t want = level_ok(l) ? ST_INVALID_RDMAREAD : ST_INVALID_REL;
        CHECK_EQ_U(create(l, 1, p, RR, &(uint32_t){0}), want);
        CHECK_EQ_U(modify(vi, l, MTS, p2, RW | RR), want);
        if (!level_ok(l))
            CHECK_EQ_U(create(l, 1, p, 0, &(uint32_t){0}), ST_INVALID_REL);
    }
    CHECK_EQ_U(fake_ctx.commits, 2);
    CHECK_EQ_U(destroy(vi), ST_OK);
    CHECK_EQ_U(e->commits, 3);
    CHECK_EQ_U(e->resets, 2); /* DESTROY empties them */
    CHECK_EQ_U(e->enable, 0);
    CHECK_EQ_U(e->attr, VIA_FW_VI_CTX_ATTR_RESET_Q_MASK);
    check_ctx(vi);
    /* A commit the data path takes slowly: the firmware waits. */
    fake_ctx.cmd_busy = 100;
    vi = new_vi(p);
    CHECK_EQ_U(fake_ctx.busy, 0);
    CHECK(fake_ctx.status_reads >= 100);
    check_ctx(vi);
    CHECK_EQ_U(fake_ctx.e[vi].commits, 4);
    /* RDMA read (on a level with it) is the context's RDMA_READ: CREATE
     * and MODIFY set and clear it, with the rest of the context. */
    uint32_t lr = level_with_rdma_read();
    if (lr) {
        fake_ctx.cmd_busy = 0;
        e = &fake_ctx.e[vi];
        uint32_t resets = e->resets;
        CHECK_EQ_U(modify(vi, lr, 77, p2, RR), ST_OK);
        CHECK_EQ_U(e->commits, 5);
        CHECK_EQ_U(e->resets, resets); /* MODIFY keeps the queues */
        CHECK_EQ_U(e->enable, 1);
        CHECK_EQ_U(e->state, IDLE);
        CHECK_EQ_U(e->ptag, p2);
        CHECK_EQ_U(e->mtu, 77);
        CHECK_EQ_U(e->rdma_write, 0);
        CHECK_EQ_U(e->rdma_read, 1);
        CHECK_EQ_U(e->reliable, reliable_want(lr));
        CHECK_EQ_U(e->attr, ctx_attr_want(IDLE, lr, RR));
        check_ctx(vi);
        CHECK_EQ_U(modify(vi, lr, 77, p2, RW), ST_OK);
        CHECK_EQ_U(e->commits, 6);
        CHECK_EQ_U(e->rdma_write, 1);
        CHECK_EQ_U(e->rdma_read, 0);
        CHECK_EQ_U(e->reliable, reliable_want(lr));
        uint32_t w = 0, commits = fake_ctx.commits;
        CHECK_EQ_U(create(lr, 9000, p, RW | RR, &w), ST_OK);
        CHECK_EQ_U(fake_ctx.commits, commits + 1);
        const fake_ctx_entry_t *f = &fake_ctx.e[w];
        CHECK_EQ_U(f->commits, 1);
        CHECK_EQ_U(f->resets, 1);
        CHECK_EQ_U(f->enable, 1);
        CHECK_EQ_U(f->ptag, p);
        CHECK_EQ_U(f->mtu, 9000);
        CHECK_EQ_U(f->rdma_write, 1);
        CHECK_EQ_U(f->rdma_read, 1);
        CHECK_EQ_U(f->reliable, reliable_want(lr));
        CHECK_EQ_U(f->attr, ctx_attr_want(IDLE, lr, RW | RR) | VIA_FW_VI_CTX_ATTR_RESET_Q_MASK);
        check_ctx(w);
        CHECK_EQ_U(destroy(w), ST_OK);
        CHECK_EQ_U(f->enable, 0);
        CHECK_EQ_U(f->rdma_read, 0);
        CHECK_EQ_U(f->reliable, 0);
        CHECK_EQ_U(f->attr, VIA_FW_VI_CTX_ATTR_RESET_Q_MASK);
        check_ctx(w);
    }
}

/* A commit that never finishes: ST_INTERNAL after VI_CTX_POLL_LIMIT status
 * reads (never a hang), the table unchanged; later commands see the window
 * busy and answer ST_INTERNAL at once (no register written). */
static void test_commit_timeout(void)
{
    boot(16);
    uint32_t p = new_ptag(), p2 = new_ptag();
    uint32_t a = new_vi(p), b = new_vi(p);
    /* CREATE */
    fake_ctx.stick_after = 1;
    uint32_t reads = fake_ctx.status_reads, vi = 77;
    CHECK_EQ_U(create(UNREL, 8, p, 0, &vi), VIA_ADMIN_ST_INTERNAL);
    CHECK_EQ_U(vi, 77);
    CHECK_EQ_U(fake_ctx.status_reads - reads, 1 + VI_CTX_POLL_LIMIT);
    CHECK_EQ_U(vi_count(), 2);
    CHECK_EQ_U(mem_ptag_uses(p & 0xFF), 2);
    /* Everything that commits now fails without writing. */
    uint32_t commits = fake_ctx.commits;
    CHECK_EQ_U(modify(a, UNREL, 8, p2, 0), VIA_ADMIN_ST_INTERNAL);
    check_vi(a, IDLE, UNREL, 4096, p, 0);
    CHECK_EQ_U(mem_ptag_uses(p2 & 0xFF), 0);
    CHECK_EQ_U(destroy(a), VIA_ADMIN_ST_INTERNAL);
    CHECK_EQ_U(connect(a, b), VIA_ADMIN_ST_INTERNAL);
    check_vi(a, IDLE, UNREL, 4096, p, 0);
    check_vi(b, IDLE, UNREL, 4096, p, 0);
    CHECK_EQ_U(fake_ctx.commits, commits);
    CHECK_EQ_U(vi_count(), 2);
    /* Commands that commit nothing still answer. */
    CHECK_EQ_U(exec(VIA_ADMIN_OP_NOP, NULL, 0), ST_OK);
    CHECK_EQ_U(destroy(9), ST_INVALID_VI);

    /* CONNECT whose second commit sticks: the first end is not put back
     * either (the window is stuck), so the table keeps it CONNECTED as the
     * data path has it; B stays IDLE. */
    boot(16);
    p = new_ptag();
    a = new_vi(p);
    b = new_vi(p);
    fake_ctx.stick_after = 2;
    CHECK_EQ_U(connect(a, b), VIA_ADMIN_ST_INTERNAL);
    CHECK_EQ_U(vi_state(a), CONNECTED);
    CHECK_EQ_U(vi_state(b), IDLE);
    check_ctx(a);
    /* CONNECT whose second commit is slow but finishes: both connected. */
    boot(16);
    p = new_ptag();
    a = new_vi(p);
    b = new_vi(p);
    fake_ctx.cmd_busy = VI_CTX_POLL_LIMIT - 1;
    CHECK_EQ_U(connect(a, b), ST_OK);
    check_ctx(a);
    check_ctx(b);
    /* DISCONNECT whose first commit sticks: nothing changes. */
    fake_ctx.cmd_busy = 0;
    fake_ctx.stick_after = 1;
    CHECK_EQ_U(disconnect(b), VIA_ADMIN_ST_INTERNAL);
    CHECK_EQ_U(vi_state(a), CONNECTED);
    CHECK_EQ_U(vi_state(b), CONNECTED);
    /* DISCONNECT whose second commit (the peer to ERROR) sticks: the VI is
     * in ERROR, its peer still CONNECTED (to it); once the window works, a
     * DISCONNECT of each takes it to IDLE. */
    boot(16);
    p = new_ptag();
    a = new_vi(p);
    b = new_vi(p);
    CHECK_EQ_U(connect(a, b), ST_OK);
    fake_ctx.stick_after = 2;
    CHECK_EQ_U(disconnect(a), VIA_ADMIN_ST_INTERNAL);
    CHECK_EQ_U(vi_state(a), ERROR);
    CHECK_EQ_U(vi_state(b), CONNECTED);
    check_ctx(a);
    fake_ctx.busy = 0; /* the data path comes back */
    fake_ctx.cmd_busy = 0;
    fake_ctx.pending = 0;
    CHECK_EQ_U(disconnect(b), ST_OK);
    CHECK_EQ_U(vi_state(b), IDLE);
    CHECK_EQ_U(vi_state(a), ERROR);
    CHECK_EQ_U(disconnect(a), ST_OK);
    CHECK_EQ_U(vi_state(a), IDLE);
    check_ctx(a);
    check_ctx(b);
    /* DISCONNECT whose flush never ends: INTERNAL after the poll limit,
     * both ends in ERROR; once the data path has flushed, DISCONNECT of
     * either finishes it. */
    CHECK_EQ_U(connect(a, b), ST_OK);
    fake_ctx.e[b].queued = 2;
    fake_ctx.flush_reads = FAKE_CTX_FLUSH_NEVER;
    reads = fake_ctx.status_reads;
    CHECK_EQ_U(disconnect(a), VIA_ADMIN_ST_INTERNAL);
    CHECK(fake_ctx.status_reads - reads >= VI_FLUSH_POLL_LIMIT);
    CHECK_EQ_U(vi_state(a), ERROR);
    CHECK_EQ_U(vi_state(b), ERROR);
    fake_ctx.flush_reads = 3;
    CHECK_EQ_U(disconnect(b), ST_OK);
    CHECK_EQ_U(fake_ctx.e[b].queued, 0);
    CHECK_EQ_U(vi_state(b), IDLE);
    CHECK_EQ_U(disconnect(a), ST_OK);
    CHECK_EQ_U(vi_state(a), IDLE);
    check_ctx(a);
    check_ctx(b);
}

/* CONNECT_LOOPBACK: every status in vi.h's order, the two commits, the
 * state rules of a CONNECTED VI, QUERY_VI; DISCONNECT_VI from either end. */
static void test_connect(void)
{
    boot(16);
    uint32_t p = new_ptag(), p2 = new_ptag();
    uint32_t a = new_vi(p), b = 0, c = 0, d = 0, f = 0xFFFFFFFFu;
    CHECK_EQ_U(create(UNREL, 4096, p2, RW, &b), ST_OK); /* other ptag, flags: still fine */
    CHECK_EQ_U(create(UNREL, 4097, p, 0, &c), ST_OK);    /* other MTS */
    d = new_vi(p);
    /* another supported level (if there is one): f, MTS as a's, RDMA read
     * if its level has it */
    uint32_t l2 = 0;
    for (uint32_t l = 2; l <= 4 && !l2; l <<= 1)
        if (level_ok(l))
            l2 = l;
    uint32_t f_flags = rdma_read_ok(l2) ? RW | RR : RW;
    if (l2) {
        uint32_t st = create(l2, 4096, p, f_flags, &f);
        CHECK_EQ_U(st, ST_OK);
        if (st != ST_OK)
            l2 = 0; /* reported; the rest needs f */
    }
    uint32_t commits = fake_ctx.commits;
    /* INVALID_VI: either end, never created or out of range */
    uint32_t bad[] = {9, 15, 16, 256, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_U(connect(a, bad[i]), ST_INVALID_VI);
        CHECK_EQ_U(connect(bad[i], a), ST_INVALID_VI);
        CHECK_EQ_U(connect(bad[i], bad[i]), ST_INVALID_VI);
    }
    /* BAD_PARAM: the same VI twice */
    CHECK_EQ_U(connect(a, a), ST_BAD_PARAM);
    /* INVALID_MTU */
    CHECK_EQ_U(connect(a, c), ST_INVALID_MTU);
    CHECK_EQ_U(connect(c, a), ST_INVALID_MTU);
    /* INVALID_RELIABILITY_LEVEL: another level, either end; before the
     * MTS; the RDMA enables play no part */
    if (l2) {
        CHECK_EQ_U(connect(a, f), ST_INVALID_REL);
        CHECK_EQ_U(connect(f, a), ST_INVALID_REL);
        CHECK_EQ_U(connect(b, f), ST_INVALID_REL);
        CHECK_EQ_U(connect(f, c), ST_INVALID_REL); /* level before MTS */
        CHECK_EQ_U(connect(c, f), ST_INVALID_REL);
        CHECK_EQ_U(vi_set_state(f, ERROR), ST_OK);
        CHECK_EQ_U(connect(a, f), ST_INVALID_STATE); /* state before level */
        CHECK_EQ_U(vi_set_state(f, IDLE), ST_OK);
        commits += 2;
    }
    /* INVALID_STATE: not IDLE (either end); before the level and MTS */
    CHECK_EQ_U(vi_set_state(c, PENDING), ST_OK);
    CHECK_EQ_U(connect(a, c), ST_INVALID_STATE);
    CHECK_EQ_U(connect(c, a), ST_INVALID_STATE);
    CHECK_EQ_U(vi_set_state(c, ERROR), ST_OK);
    CHECK_EQ_U(connect(c, a), ST_INVALID_STATE);
    CHECK_EQ_U(vi_set_state(c, IDLE), ST_OK);
    commits += 3;
    /* wrong payload length, flags */
    via_admin_connect_loopback_t args = {.vi_a = a, .vi_b = b};
    uint8_t buf[VIA_ADMIN_PAYLOAD_MAX] = {0};
    memcpy(buf, &args, sizeof args);
    uint32_t lens[] = {0, 4, 7, 9, 240, 241};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        CHECK_EQ_U(exec(VIA_ADMIN_OP_CONNECT_LOOPBACK, buf, lens[i]), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_CONNECT_LOOPBACK, 1, buf, 8), ST_BAD_PARAM);
    CHECK_EQ_U(fake_ctx.commits, commits); /* nothing committed */
    for (uint32_t v = 0; v < 16; v++)
        CHECK_EQ_U(vi_state(v) == 0xFFFFFFFFu || vi_state(v) == IDLE, 1);

    /* OK: two commits, A then B; both CONNECTED, each the other's peer;
     * attributes kept; no queue reset. */
    uint32_t resets_a = fake_ctx.e[a].resets, resets_b = fake_ctx.e[b].resets;
    CHECK_EQ_U(connect(a, b), ST_OK);
    CHECK_EQ_U(last.len, 0);
    CHECK_EQ_U(fake_ctx.commits, commits + 2);
    check_vi(a, CONNECTED, UNREL, 4096, p, 0);
    check_vi(b, CONNECTED, UNREL, 4096, p2, RW);
    CHECK_EQ_U(vi_peer(a), b);
    CHECK_EQ_U(vi_peer(b), a);
    check_ctx(a);
    check_ctx(b);
    CHECK_EQ_U(fake_ctx.e[a].peer, b);
    CHECK_EQ_U(fake_ctx.e[b].peer, a);
    /* a loopback peer is on this node (vi_set_node) */
    CHECK_EQ_U(fake_ctx.e[a].peer_node, TEST_NODE);
    CHECK_EQ_U(fake_ctx.e[b].peer_node, TEST_NODE);
    CHECK_EQ_U(fake_ctx.e[a].state, CONNECTED);
    CHECK_EQ_U(fake_ctx.e[a].resets, resets_a);
    CHECK_EQ_U(fake_ctx.e[b].resets, resets_b);

    /* A CONNECTED VI: no DESTROY, MODIFY, second CONNECT (either end). */
    commits = fake_ctx.commits;
    CHECK_EQ_U(destroy(a), ST_INVALID_STATE);
    CHECK_EQ_U(destroy(b), ST_INVALID_STATE);
    CHECK_EQ_U(modify(a, UNREL, 4096, p, 0), ST_INVALID_STATE);
    CHECK_EQ_U(connect(a, d), ST_INVALID_STATE);
    CHECK_EQ_U(connect(d, b), ST_INVALID_STATE);
    CHECK_EQ_U(connect(b, a), ST_INVALID_STATE);
    CHECK_EQ_U(connect(a, b), ST_INVALID_STATE);
    CHECK_EQ_U(destroy_ptag(p2), ST_IN_USE);
    /* DISCONNECT: not a VI, not CONNECTED */
    CHECK_EQ_U(disconnect(99), ST_INVALID_VI);
    CHECK_EQ_U(disconnect(9), ST_INVALID_VI);
    CHECK_EQ_U(disconnect(d), ST_INVALID_STATE);
    /* ERROR (from below, no peer): DISCONNECT waits for the flush of
     * what is queued, then IDLE */
    CHECK_EQ_U(vi_set_state(c, ERROR), ST_OK);
    fake_ctx.e[c].queued = 3;
    fake_ctx.flush_reads = 2;
    uint32_t flushes = fake_ctx.flushes;
    CHECK_EQ_U(disconnect(c), ST_OK);
    CHECK_EQ_U(fake_ctx.flushes, flushes + 1);
    CHECK_EQ_U(fake_ctx.e[c].queued, 0);
    CHECK_EQ_U(vi_state(c), IDLE);
    commits += 2;
    memcpy(buf, &a, 4);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DISCONNECT_VI, buf, 8), ST_BAD_PARAM);
    CHECK_EQ_U(exec_flags(VIA_ADMIN_OP_DISCONNECT_VI, 2, buf, 4), ST_BAD_PARAM);
    CHECK_EQ_U(fake_ctx.commits, commits);
    CHECK_EQ_U(vi_state(a), CONNECTED);

    /* QUERY_VI shows the queues' state */
    fake_ctx.e[a].queued = 2;
    via_admin_vi_info_t qi;
    CHECK_EQ_U(query(a, &qi), ST_OK);
    CHECK_EQ_U(qi.queues, VIA_ADMIN_VI_SEND_QUEUE_EMPTY);
    fake_ctx.e[b].queued = 1;
    CHECK_EQ_U(query(b, &qi), ST_OK);
    CHECK_EQ_U(qi.queues, VIA_ADMIN_VI_RECV_QUEUE_EMPTY);

    /* DISCONNECT from B: both to ERROR, flushed (the queues empty), then
     * both IDLE, peers 0, queues not reset. */
    flushes = fake_ctx.flushes;
    CHECK_EQ_U(disconnect(b), ST_OK);
    CHECK_EQ_U(fake_ctx.commits, commits + 4);
    CHECK_EQ_U(fake_ctx.flushes, flushes + 2);
    CHECK_EQ_U(fake_ctx.e[a].queued, 0);
    CHECK_EQ_U(fake_ctx.e[b].queued, 0);
    check_vi(a, IDLE, UNREL, 4096, p, 0);
    check_vi(b, IDLE, UNREL, 4096, p2, RW);
    CHECK_EQ_U(vi_peer(a), 0);
    CHECK_EQ_U(vi_peer(b), 0);
    check_ctx(a);
    check_ctx(b);
    CHECK_EQ_U(fake_ctx.e[a].resets, resets_a);
    CHECK_EQ_U(fake_ctx.e[b].resets, resets_b);
    CHECK_EQ_U(disconnect(a), ST_INVALID_STATE);
    CHECK_EQ_U(disconnect(b), ST_INVALID_STATE);

    /* Again, other pairs, and DISCONNECT from A; then DESTROY works. */
    CHECK_EQ_U(connect(b, a), ST_OK);
    CHECK_EQ_U(vi_peer(b), a);
    CHECK_EQ_U(connect(d, c), ST_INVALID_MTU);
    CHECK_EQ_U(modify(c, UNREL, 4096, p, 0), ST_OK);
    CHECK_EQ_U(connect(d, c), ST_OK);
    CHECK_EQ_U(vi_peer(c), d);
    CHECK_EQ_U(disconnect(a), ST_OK);
    CHECK_EQ_U(vi_state(b), IDLE);
    CHECK_EQ_U(vi_state(c), CONNECTED); /* the other pair is untouched */
    CHECK_EQ_U(destroy(a), ST_OK);
    CHECK_EQ_U(destroy(b), ST_OK);
    CHECK_EQ_U(destroy_ptag(p2), ST_OK);
    for (uint32_t v = 0; v < 16; v++)
        check_ctx(v);
    /* The VI id of a destroyed VI cannot be connected. */
    CHECK_EQ_U(connect(a, d), ST_INVALID_VI);
    /* A VI set CONNECTED from below with no real peer (the engines'
     * future path) disconnects alone. */
    uint32_t e = new_vi(p);
    CHECK_EQ_U(vi_set_state(e, CONNECTED), ST_OK);
    CHECK_EQ_U(disconnect(e), ST_OK);
    CHECK_EQ_U(vi_state(e), IDLE);
    CHECK_EQ_U(vi_state(c), CONNECTED);
    CHECK_EQ_U(vi_state(d), CONNECTED);

    /* Two VIs of the other level connect (RDMA read on one end only: the
     * enables need not match); the level, MTS and flags are kept, the
     * context's RDMA_READ too; DISCONNECT takes both back to IDLE. */
    if (l2) {
        uint32_t g = 0;
        CHECK_EQ_U(create(l2, 4096, p, 0, &g), ST_OK);
        CHECK_EQ_U(connect(e, g), ST_INVALID_REL);
        commits = fake_ctx.commits;
        CHECK_EQ_U(connect(g, f), ST_OK);
        CHECK_EQ_U(fake_ctx.commits, commits + 2);
        check_vi(f, CONNECTED, l2, 4096, p, f_flags);
        check_vi(g, CONNECTED, l2, 4096, p, 0);
        CHECK_EQ_U(vi_peer(f), g);
        CHECK_EQ_U(vi_peer(g), f);
        check_ctx(f);
        check_ctx(g);
        CHECK_EQ_U(fake_ctx.e[f].rdma_read, rdma_read_ok(l2));
        CHECK_EQ_U(fake_ctx.e[g].rdma_read, 0);
        CHECK_EQ_U(modify(f, l2, 4096, p, 0), ST_INVALID_STATE);
        CHECK_EQ_U(disconnect(f), ST_OK);
        check_vi(f, IDLE, l2, 4096, p, f_flags);
        check_vi(g, IDLE, l2, 4096, p, 0);
        check_ctx(f);
        check_ctx(g);
        CHECK_EQ_U(vi_state(c), CONNECTED); /* the other pair is untouched */
    }
}

/* Random commands against a model: after each, the table, the ptags' use
 * counts and every answer agree with it. The levels are drawn from the
 * supported ones (FW_RELIABILITY_LEVEL_SUPPORT), now and then from any
 * value; the model judges them and RDMA read by the masks. At the end,
 * every outcome the masks make possible must have happened. */
static void test_random(void)
{
    enum { NV = 24, NP = 6 };
    boot(NV);
    struct {
        int live;
        uint32_t state, rel, mts, ptag, flags, peer;
    } model[NV] = {{0}};
    uint32_t ptags[NP];
    for (int i = 0; i < NP; i++)
        ptags[i] = new_ptag();
    uint32_t levels[3], nlevels = 0;
    for (uint32_t l = 1; l <= 4; l <<= 1)
        if (level_ok(l))
            levels[nlevels++] = l;
    CHECK(nlevels > 0);
    static const uint32_t any_rel[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 0x80000000u, 0xFFFFFFFFu};
    /* outcomes seen: per level (index log2) VIs made or modified, with RDMA
     * read, connected; RDMA read refused; levels refused; CONNECT refused
     * for the level */
    uint32_t made[3] = {0}, made_rr[3] = {0}, connected[3] = {0};
    uint32_t rr_refused = 0, rel_refused = 0, connect_rel = 0;
    for (int n = 0; n < 20000; n++) {
        uint32_t r = xorshift(), id = r % (NV + 2), pi = (r >> 8) % NP;
        uint32_t ptag = (r >> 12) % 16 == 0 ? ptags[pi] ^ 0x100 : ptags[pi];
        uint32_t mts = (r >> 16) % 8 == 0 ? MTS + 1 : 1 + (r >> 4) % MTS;
        uint32_t flags = (r >> 20) & 3, r2 = xorshift();
        uint32_t rel = r2 % 16 == 0 ? any_rel[(r2 >> 4) % (sizeof any_rel / sizeof any_rel[0])]
                                    : levels[(r2 >> 8) % nlevels];
        int live = id < NV && model[id].live;
        uint32_t want, st;
        uint32_t id2 = (r >> 4) % (NV + 2);
        int live2 = id2 < NV && model[id2].live;
        if ((r >> 27) % 4 == 0) /* the same MTS often, so that CONNECT succeeds */
            mts = 4096;
        switch ((r >> 24) % 7) {
        case 0: { /* create */
            uint32_t vi = 0;
            st = create(rel, mts, ptag, flags, &vi);
            uint32_t free_id = 0;
            while (free_id < NV && model[free_id].live)
                free_id++;
            want = attrs_want(rel, mts, ptag == ptags[pi], flags);
            if (want == ST_OK && free_id == NV)
                want = ST_NO_RESOURCE;
            CHECK_EQ_U(st, want);
            rr_refused += st == ST_INVALID_RDMAREAD;
            rel_refused += st == ST_INVALID_REL;
            if (st == ST_OK) {
                CHECK_EQ_U(vi, free_id);
                made[rel >> 1]++;
                made_rr[rel >> 1] += (flags & RR) != 0;
                model[vi].live = 1;
                model[vi].state = IDLE;
                model[vi].rel = rel;
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
                                              : attrs_want(rel, mts, ptag == ptags[pi], flags);
            CHECK_EQ_U(st, want);
            rr_refused += st == ST_INVALID_RDMAREAD;
            rel_refused += st == ST_INVALID_REL;
            if (st == ST_OK) {
                made[rel >> 1]++;
                made_rr[rel >> 1] += (flags & RR) != 0;
                model[id].rel = rel;
                model[id].mts = mts;
                model[id].ptag = ptag;
                model[id].flags = flags;
            }
            break;
        case 3: /* a state change from below (not of a connected VI) */
            if (live && model[id].state != CONNECTED && (r & 15) == 0) {
                model[id].state = ((r >> 4) & 1) ? PENDING : ((r >> 5) & 1) ? ERROR : IDLE;
                CHECK_EQ_U(vi_set_state(id, model[id].state), ST_OK);
            }
            break;
        case 4: /* connect */
            st = connect(id, id2);
            want = !live || !live2                                         ? ST_INVALID_VI
                   : id == id2                                             ? ST_BAD_PARAM
                   : model[id].state != IDLE || model[id2].state != IDLE   ? ST_INVALID_STATE
                   : model[id].rel != model[id2].rel                       ? ST_INVALID_REL
                   : model[id].mts != model[id2].mts                       ? ST_INVALID_MTU
                                                                           : ST_OK;
            CHECK_EQ_U(st, want);
            connect_rel += st == ST_INVALID_REL;
            if (st == ST_OK) {
                connected[model[id].rel >> 1]++;
                model[id].state = model[id2].state = CONNECTED;
                model[id].peer = id2;
                model[id2].peer = id;
            }
            break;
        case 5: /* disconnect */
            st = disconnect(id);
            want = !live                                                            ? ST_INVALID_VI
                   : model[id].state != CONNECTED && model[id].state != ERROR ? ST_INVALID_STATE
                                                                              : ST_OK;
            CHECK_EQ_U(st, want);
            if (st == ST_OK) {
                uint32_t pr = model[id].peer;
                if (model[id].state == CONNECTED && model[pr].state == CONNECTED && model[pr].peer == id) {
                    model[pr].state = IDLE;
                    model[pr].peer = 0;
                }
                model[id].state = IDLE;
                model[id].peer = 0;
            }
            break;
        default: /* query */
            if (live) {
                check_vi(id, model[id].state, model[id].rel, model[id].mts, model[id].ptag, model[id].flags);
                CHECK_EQ_U(vi_peer(id), model[id].peer);
            }
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
            for (int v = 0; v < NV; v++) {
                count += model[v].live;
                check_ctx((uint32_t)v); /* the data path agrees */
                CHECK_EQ_U(fake_ctx.e[v].reliable, model[v].live && reliable_want(model[v].rel));
                if (model[v].live && model[v].state == CONNECTED) {
                    uint32_t pr = model[v].peer;
                    CHECK(model[pr].live && model[pr].state == CONNECTED && model[pr].peer == (uint32_t)v);
                }
            }
            CHECK_EQ_U(vi_count(), count);
        }
    }
    /* Every supported level was created (or modified to) and connected;
     * RDMA read was enabled on each level that has it and refused where
     * the level lacks it; bad levels were refused, and CONNECT refused
     * two different levels if there are two. */
    for (uint32_t k = 0; k < 3; k++) {
        uint32_t l = 1u << k;
        CHECK_EQ_U(made[k] != 0, level_ok(l));
        CHECK_EQ_U(connected[k] != 0, level_ok(l));
        CHECK_EQ_U(made_rr[k] != 0, rdma_read_ok(l));
    }
    CHECK_EQ_U(rr_refused != 0, level_without_rdma_read() != 0);
    CHECK(rel_refused != 0);
    CHECK_EQ_U(connect_rel != 0, nlevels > 1);
}

/* CONNECT_LOOPBACK's reliability-level check, in the build that supports
 * all three levels (test_vi_levels): after the state, before the MTS. */
static void test_connect_levels(void)
{
    boot(16);
    uint32_t p = new_ptag(), a = 0, b = 0, c = 0, d = 0;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &a), ST_OK);
    CHECK_EQ_U(create(VIA_VIP_RELIABILITY_RELIABLE_DELIVERY, 4096, p, 0, &b), ST_OK);
    CHECK_EQ_U(create(VIA_VIP_RELIABILITY_RELIABLE_RECEPTION, 8192, p, 0, &c), ST_OK);
    CHECK_EQ_U(create(VIA_VIP_RELIABILITY_RELIABLE_DELIVERY, 4096, p, 0, &d), ST_OK);
    uint32_t commits = fake_ctx.commits;
    CHECK_EQ_U(connect(a, b), ST_INVALID_REL);
    CHECK_EQ_U(connect(b, a), ST_INVALID_REL);
    CHECK_EQ_U(connect(a, c), ST_INVALID_REL); /* level before MTS */
    CHECK_EQ_U(connect(b, c), ST_INVALID_REL);
    CHECK_EQ_U(vi_set_state(c, ERROR), ST_OK);
    CHECK_EQ_U(connect(a, c), ST_INVALID_STATE); /* state before level */
    CHECK_EQ_U(fake_ctx.commits, commits + 1);
    CHECK_EQ_U(connect(b, d), ST_OK);
    check_vi(b, CONNECTED, VIA_VIP_RELIABILITY_RELIABLE_DELIVERY, 4096, p, 0);
    check_ctx(b);
    check_ctx(d);
    /* RELIABLE: both reliable levels have it, the unreliable one not */
    CHECK_EQ_U(fake_ctx.e[a].reliable, 0);
    CHECK_EQ_U(fake_ctx.e[b].reliable, 1);
    CHECK_EQ_U(fake_ctx.e[c].reliable, 1);
    CHECK_EQ_U(fake_ctx.e[d].reliable, 1);
    check_ctx(a);
    check_ctx(c);
}

static uint32_t connect_remote(uint32_t vi, uint32_t node, uint32_t peer)
{
    via_admin_connect_remote_t c = {.vi = vi, .peer_node = node, .peer_vi = peer};
    return exec(VIA_ADMIN_OP_CONNECT_REMOTE, &c, sizeof c);
}

static void test_connect_remote(void)
{
    boot(16);
    uint32_t p = new_ptag(), a = 0, b = 0;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &a), ST_OK);
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &b), ST_OK);
    uint32_t commits = fake_ctx.commits;
    /* bad arguments: no commit */
    CHECK_EQ_U(connect_remote(9, 1, 0), ST_INVALID_VI);
    CHECK_EQ_U(connect_remote(a, 256, 0), ST_BAD_PARAM);
    CHECK_EQ_U(connect_remote(a, TEST_NODE, 0), ST_BAD_PARAM); /* this node: CONNECT_LOOPBACK */
    CHECK_EQ_U(connect_remote(a, 1, 65536), ST_BAD_PARAM);
    uint8_t buf[16] = {0};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CONNECT_REMOTE, buf, 8), ST_BAD_PARAM); /* short payload */
    CHECK_EQ_U(fake_ctx.commits, commits);
    /* OK: one commit, the peer on node 3 */
    CHECK_EQ_U(connect_remote(a, 3, 77), ST_OK);
    CHECK_EQ_U(fake_ctx.commits, commits + 1);
    CHECK_EQ_U(vi_state(a), CONNECTED);
    CHECK_EQ_U(vi_peer(a), 77);
    CHECK_EQ_U(fake_ctx.e[a].peer, 77);
    CHECK_EQ_U(fake_ctx.e[a].peer_node, 3);
    CHECK_EQ_U(fake_ctx.e[a].state, CONNECTED);
    /* connected: no second connect */
    CHECK_EQ_U(connect_remote(a, 3, 78), ST_INVALID_STATE);
    /* b's peer is VI a of node 2: disconnecting this node's a leaves b
     * alone (its peer is another node's VI with the same id) */
    CHECK_EQ_U(connect_remote(b, 2, a), ST_OK);
    CHECK_EQ_U(disconnect(a), ST_OK);
    CHECK_EQ_U(vi_state(a), IDLE);
    CHECK_EQ_U(fake_ctx.e[a].peer_node, 0);
    CHECK_EQ_U(vi_state(b), CONNECTED);
    CHECK_EQ_U(disconnect(b), ST_OK);
    CHECK_EQ_U(vi_state(b), IDLE);
}

#define REL_DEL VIA_VIP_RELIABILITY_RELIABLE_DELIVERY
#define ATTR_EN VIA_FW_VI_CTX_ATTR_ENABLE_MASK
#define ATTR_RQ VIA_FW_VI_CTX_ATTR_RESET_Q_MASK
#define ATTR_REL VIA_FW_VI_CTX_ATTR_RELIABLE_MASK
#define ATTR_ST(s) ((uint32_t)(s) << VIA_FW_VI_CTX_ATTR_STATE_SHIFT)

/* VI vi's last commit left ATTR.RELIABLE as want, and was the n-th commit
 * to it. */
static void check_rel_bit(uint32_t vi, uint32_t want, uint32_t commits)
{
    const fake_ctx_entry_t *e = &fake_ctx.e[vi];
    CHECK_EQ_U(e->commits, commits);
    CHECK_EQ_U(e->reliable, want);
    CHECK_EQ_U((e->attr & ATTR_REL) != 0, want);
}

/* ATTR.RELIABLE (VI_CTX_ATTR bit 18): every commit of an UNRELIABLE VI has
 * it clear, every commit of a RELIABLE_DELIVERY VI has it set: CREATE,
 * MODIFY between the levels (and within one), the state changes
 * (CONNECT_LOOPBACK, CONNECT_REMOTE, the connection manager's, ERROR from
 * below or a break, DISCONNECT's ERROR and IDLE commits) keep it; DESTROY
 * clears it, and the id's next VI does not inherit it. */
static void test_ctx_reliable(void)
{
    CHECK(level_ok(REL_DEL));
    if (!level_ok(REL_DEL))
        return;
    uint32_t rf = rdma_read_ok(REL_DEL) ? RW | RR : RW; /* the reliable VIs' flags */
    uint32_t rfa = ((rf & RW) ? VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK : 0) | ((rf & RR) ? VIA_FW_VI_CTX_ATTR_RDMA_READ_MASK : 0);
    boot(16);
    uint32_t p = new_ptag(), u = 0, u2 = 0, r = 0, r2 = 0;

    /* CREATE: the exact ATTR words */
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &u), ST_OK);
    CHECK_EQ_U(fake_ctx.e[u].attr, ATTR_EN | ATTR_RQ | ATTR_ST(IDLE));
    check_rel_bit(u, 0, 1);
    CHECK_EQ_U(create(REL_DEL, 4096, p, rf, &r), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_RQ | ATTR_ST(IDLE) | rfa | ATTR_REL);
    check_rel_bit(r, 1, 1);
    CHECK_EQ_U(create(UNREL, 4096, p, RW, &u2), ST_OK);
    check_rel_bit(u2, 0, 1);
    CHECK_EQ_U(create(REL_DEL, 4096, p, 0, &r2), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r2].attr, ATTR_EN | ATTR_RQ | ATTR_ST(IDLE) | ATTR_REL);
    check_rel_bit(r2, 1, 1);
    check_rel_bit(u, 0, 1); /* the others untouched */

    /* MODIFY within a level keeps it; between the levels it follows */
    CHECK_EQ_U(modify(u, UNREL, 100, p, RW), ST_OK);
    CHECK_EQ_U(fake_ctx.e[u].attr, ATTR_EN | ATTR_ST(IDLE) | VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK);
    check_rel_bit(u, 0, 2);
    CHECK_EQ_U(modify(r, REL_DEL, 100, p, RW), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(IDLE) | VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK | ATTR_REL);
    check_rel_bit(r, 1, 2);
    CHECK_EQ_U(modify(u, REL_DEL, 4096, p, 0), ST_OK); /* UNRELIABLE -> RELIABLE_DELIVERY */
    CHECK_EQ_U(fake_ctx.e[u].attr, ATTR_EN | ATTR_ST(IDLE) | ATTR_REL);
    check_rel_bit(u, 1, 3);
    check_ctx(u);
    CHECK_EQ_U(modify(r, UNREL, 4096, p, RW), ST_OK); /* RELIABLE_DELIVERY -> UNRELIABLE */
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(IDLE) | VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK);
    check_rel_bit(r, 0, 3);
    check_ctx(r);
    /* a refused MODIFY commits nothing and leaves it */
    if (rdma_read_ok(REL_DEL) && !rdma_read_ok(UNREL)) {
        CHECK_EQ_U(modify(r, UNREL, 4096, p, RR), ST_INVALID_RDMAREAD);
        check_rel_bit(r, 0, 3);
    }
    CHECK_EQ_U(modify(u, UNREL, 0, p, 0), ST_INVALID_MTU);
    check_rel_bit(u, 1, 3);
    /* and back: u unreliable, r reliable again */
    CHECK_EQ_U(modify(u, UNREL, 4096, p, 0), ST_OK);
    check_rel_bit(u, 0, 4);
    CHECK_EQ_U(modify(r, REL_DEL, 4096, p, rf), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(IDLE) | rfa | ATTR_REL);
    check_rel_bit(r, 1, 4);

    /* CONNECT_LOOPBACK: each end keeps its level's bit */
    CHECK_EQ_U(connect(u, u2), ST_OK);
    CHECK_EQ_U(fake_ctx.e[u].attr, ATTR_EN | ATTR_ST(CONNECTED));
    check_rel_bit(u, 0, 5);
    check_rel_bit(u2, 0, 2);
    CHECK_EQ_U(connect(r, r2), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(CONNECTED) | rfa | ATTR_REL);
    CHECK_EQ_U(fake_ctx.e[r2].attr, ATTR_EN | ATTR_ST(CONNECTED) | ATTR_REL);
    check_rel_bit(r, 1, 5);
    check_rel_bit(r2, 1, 2);
    /* DISCONNECT: both ends to ERROR (stopped there: the flush never
     * ends), then, flushed, to IDLE; the bit in every commit */
    fake_ctx.e[r2].queued = 1;
    fake_ctx.e[u2].queued = 1;
    fake_ctx.flush_reads = FAKE_CTX_FLUSH_NEVER;
    CHECK_EQ_U(disconnect(r), VIA_ADMIN_ST_INTERNAL);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(ERROR) | rfa | ATTR_REL);
    CHECK_EQ_U(fake_ctx.e[r2].attr, ATTR_EN | ATTR_ST(ERROR) | ATTR_REL);
    check_rel_bit(r, 1, 6);
    check_rel_bit(r2, 1, 3);
    CHECK_EQ_U(disconnect(u), VIA_ADMIN_ST_INTERNAL);
    CHECK_EQ_U(fake_ctx.e[u].attr, ATTR_EN | ATTR_ST(ERROR));
    CHECK_EQ_U(fake_ctx.e[u2].attr, ATTR_EN | ATTR_ST(ERROR) | VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK);
    check_rel_bit(u, 0, 6);
    check_rel_bit(u2, 0, 3);
    fake_ctx.flush_reads = 1;
    CHECK_EQ_U(disconnect(r), ST_OK);
    CHECK_EQ_U(disconnect(r2), ST_OK);
    CHECK_EQ_U(disconnect(u), ST_OK);
    CHECK_EQ_U(disconnect(u2), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(IDLE) | rfa | ATTR_REL);
    check_rel_bit(r, 1, 7);
    check_rel_bit(r2, 1, 4);
    check_rel_bit(u, 0, 7);
    check_rel_bit(u2, 0, 4);

    /* a break of a connected pair (ERROR through cm_break) keeps it */
    CHECK_EQ_U(connect(r, r2), ST_OK);
    CHECK_EQ_U(connect(u, u2), ST_OK);
    cm_break(r);
    cm_break(u);
    CHECK_EQ_U(vi_state(r2), ERROR);
    CHECK_EQ_U(vi_state(u2), ERROR);
    check_rel_bit(r, 1, 9);
    check_rel_bit(r2, 1, 6);
    check_rel_bit(u, 0, 9);
    check_rel_bit(u2, 0, 6);
    CHECK_EQ_U(disconnect(r), ST_OK);
    CHECK_EQ_U(disconnect(r2), ST_OK);
    CHECK_EQ_U(disconnect(u), ST_OK);
    CHECK_EQ_U(disconnect(u2), ST_OK);
    check_rel_bit(r, 1, 10);
    check_rel_bit(u, 0, 10);

    /* CONNECT_REMOTE, the remote end's DISCONNECT (ERROR) */
    CHECK_EQ_U(connect_remote(r, 3, 7), ST_OK);
    CHECK_EQ_U(connect_remote(u, 3, 8), ST_OK);
    check_rel_bit(r, 1, 11);
    check_rel_bit(u, 0, 11);
    CHECK_EQ_U(vi_remote_disconnected(r), ST_OK);
    CHECK_EQ_U(vi_remote_disconnected(u), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(ERROR) | rfa | ATTR_REL);
    check_rel_bit(r, 1, 12);
    check_rel_bit(u, 0, 12);
    CHECK_EQ_U(disconnect(r), ST_OK);
    CHECK_EQ_U(disconnect(u), ST_OK);
    check_rel_bit(r, 1, 13);
    check_rel_bit(u, 0, 13);

    /* the connection manager's commits: PENDING, CONNECTED, back IDLE */
    CHECK_EQ_U(vi_cm_pending(r), ST_OK);
    CHECK_EQ_U(vi_cm_pending(u), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_EN | ATTR_ST(PENDING) | rfa | ATTR_REL);
    check_rel_bit(r, 1, 14);
    check_rel_bit(u, 0, 14);
    CHECK_EQ_U(vi_cm_idle(r), ST_OK);
    CHECK_EQ_U(vi_cm_idle(u), ST_OK);
    check_rel_bit(r, 1, 15);
    check_rel_bit(u, 0, 15);
    CHECK_EQ_U(vi_cm_connect(r, 4, 9), ST_OK);
    CHECK_EQ_U(vi_cm_connect(u, 4, 10), ST_OK);
    check_rel_bit(r, 1, 16);
    check_rel_bit(u, 0, 16);

    /* every state set from below */
    static const uint32_t states[] = {ERROR, IDLE, PENDING, CONNECTED, ERROR, IDLE};
    for (size_t k = 0; k < sizeof states / sizeof states[0]; k++) {
        CHECK_EQ_U(vi_set_state(r, states[k]), ST_OK);
        CHECK_EQ_U(vi_set_state(u, states[k]), ST_OK);
        CHECK_EQ_U(fake_ctx.e[r].state, states[k]);
        check_rel_bit(r, 1, 17 + (uint32_t)k);
        check_rel_bit(u, 0, 17 + (uint32_t)k);
    }
    check_ctx(r);
    check_ctx(u);

    /* DESTROY clears it (the whole ATTR word but RESET_Q); the id's next
     * VI, unreliable, does not inherit it, and a reliable one sets it */
    uint32_t cr = fake_ctx.e[r].commits, cu = fake_ctx.e[u].commits;
    CHECK_EQ_U(destroy(r), ST_OK);
    CHECK_EQ_U(fake_ctx.e[r].attr, ATTR_RQ);
    check_rel_bit(r, 0, cr + 1);
    CHECK_EQ_U(destroy(u), ST_OK);
    CHECK_EQ_U(fake_ctx.e[u].attr, ATTR_RQ);
    check_rel_bit(u, 0, cu + 1);
    check_ctx(r);
    uint32_t n = 0xFFFFu;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &n), ST_OK);
    CHECK_EQ_U(n, r < u ? r : u); /* the lowest free id */
    CHECK_EQ_U(fake_ctx.e[n].attr, ATTR_EN | ATTR_RQ | ATTR_ST(IDLE));
    check_rel_bit(n, 0, (n == r ? cr : cu) + 2);
    uint32_t n2 = 0xFFFFu;
    CHECK_EQ_U(create(REL_DEL, 4096, p, 0, &n2), ST_OK);
    CHECK_EQ_U(n2, r < u ? u : r);
    CHECK_EQ_U(fake_ctx.e[n2].attr, ATTR_EN | ATTR_RQ | ATTR_ST(IDLE) | ATTR_REL);
    check_rel_bit(n2, 1, (n2 == r ? cr : cu) + 2);
    for (uint32_t v = 0; v < 16; v++)
        check_ctx(v);
}

#undef ATTR_ST
#undef ATTR_REL
#undef ATTR_RQ
#undef ATTR_EN
#undef REL_DEL

/* ------------------------------------------------- connection manager */

static uint32_t cm_listen_disc(const char *d, uint32_t len, uint32_t *id)
{
    via_admin_cm_listen_t c = {.disc_len = len};
    memcpy(&c.discriminator, d, len > 8 ? 8 : len);
    uint32_t st = exec(VIA_ADMIN_OP_CM_LISTEN, &c, sizeof c);
    if (st == ST_OK)
        memcpy(id, last.payload, 4);
    return st;
}

static uint64_t disc8(const char *d)
{
    uint64_t v = 0;
    memcpy(&v, d, strlen(d));
    return v;
}

static cm_msg_t cm_msg(uint32_t node, uint32_t src_vi, uint32_t dst_vi, uint32_t op, uint32_t conn, const char *disc,
                       uint32_t rel, uint32_t mts)
{
    cm_msg_t m;
    memset(&m, 0, sizeof m);
    m.node = node;
    m.src_vi = src_vi;
    m.dst_vi = dst_vi;
    m.cm.op = (uint8_t)op;
    m.cm.conn_id = conn;
    m.cm.disc_len = disc ? (uint8_t)strlen(disc) : 0;
    m.cm.discriminator = disc ? disc8(disc) : 0;
    m.cm.reliability = (uint8_t)rel;
    m.cm.max_transfer = mts;
    return m;
}

static via_admin_cm_event_t cm_poll_ev(void)
{
    via_admin_cm_event_t e;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_POLL, NULL, 0), ST_OK);
    CHECK_EQ_U(last.len, sizeof e);
    memcpy(&e, last.payload, sizeof e);
    return e;
}

static const cm_msg_t *cm_last_sent(void)
{
    CHECK(fake_cm.nsent > 0);
    return fake_cm_sent(fake_cm.nsent - 1);
}

/* The server's side: listens, a request that comes in on one (an event),
 * one that matches none (REJECT NO_MATCH), an accept with another
 * MaxTransferSize (INVALID_MTU, the requester told), an accept (the VI
 * CONNECTED to the requester's, ACCEPT sent), a reject, an unlisten with a
 * request waiting. */
static void test_cm_server(void)
{
    boot(16);
    uint32_t p = new_ptag(), a = 0, c = 0, id = 0;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &a), ST_OK);
    CHECK_EQ_U(create(UNREL, 8192, p, 0, &c), ST_OK);
    CHECK_EQ_U(cm_listen_disc("abc", 3, &id), ST_OK);
    CHECK_EQ_U(id, 1);
    uint32_t id2 = 0;
    CHECK_EQ_U(cm_listen_disc("abc", 3, &id2), ST_IN_USE);
    CHECK_EQ_U(cm_listen_disc("abcdefghi", 9, &id2), ST_BAD_PARAM);
    via_admin_cm_listen_t junk = {.disc_len = 2, .discriminator = disc8("abc")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_LISTEN, &junk, sizeof junk), ST_BAD_PARAM); /* a byte past DISC_LEN */
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);

    /* a request on "abc" from node 2's VI 7 */
    cm_msg_t m = cm_msg(2, 7, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x02000011, "abc", UNREL, 4096);
    cm_rx(&m);
    CHECK_EQ_U(fake_cm.host_events, 1);
    CHECK_EQ_U(fake_cm.nsent, 0);
    via_admin_cm_event_t e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_REQUEST);
    CHECK_EQ_U(e.id, 1);
    CHECK_EQ_U(e.conn_id, 0x02000011);
    CHECK_EQ_U(e.node, 2);
    CHECK_EQ_U(e.remote_vi, 7);
    CHECK_EQ_U(e.reliability, UNREL);
    CHECK_EQ_U(e.max_transfer, 4096);
    CHECK_EQ_U(e.disc_len, 3);
    CHECK(e.discriminator == disc8("abc"));
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);
    cm_rx(&m); /* the same request again: nothing new */
    CHECK_EQ_U(fake_cm.host_events, 1);

    /* nobody listens on "xyz": REJECT NO_MATCH to the requester */
    m = cm_msg(3, 9, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x03000001, "xyz", UNREL, 4096);
    cm_rx(&m);
    const cm_msg_t *s = cm_last_sent();
    CHECK_EQ_U(s->node, 3);
    CHECK_EQ_U(s->dst_vi, 9);
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_REJECT);
    CHECK_EQ_U(s->cm.reason, VIA_WIRE_CM_REASON_NO_MATCH);
    CHECK_EQ_U(s->cm.conn_id, 0x03000001);

    /* accept with c (MTU 8192 against 4096): INVALID_MTU, the requester
     * gets REJECT MTU, the request is gone */
    via_admin_cm_accept_t acc = {.conn_id = 0x02000011, .vi = c};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_ACCEPT, &acc, sizeof acc), ST_INVALID_MTU);
    s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_REJECT);
    CHECK_EQ_U(s->cm.reason, VIA_WIRE_CM_REASON_MTU);
    CHECK_EQ_U(vi_state(c), IDLE);
    acc.vi = a;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_ACCEPT, &acc, sizeof acc), ST_NO_MATCH);

    /* the client asks again: accepted with a */
    m = cm_msg(2, 7, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x02000012, "abc", UNREL, 4096);
    cm_rx(&m);
    e = cm_poll_ev();
    CHECK_EQ_U(e.conn_id, 0x02000012);
    acc.conn_id = 0x02000012;
    acc.vi = 99;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_ACCEPT, &acc, sizeof acc), ST_INVALID_VI);
    acc.vi = a;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_ACCEPT, &acc, sizeof acc), ST_OK);
    CHECK_EQ_U(vi_state(a), CONNECTED);
    CHECK_EQ_U(fake_ctx.e[a].peer, 7);
    CHECK_EQ_U(fake_ctx.e[a].peer_node, 2);
    s = cm_last_sent();
    CHECK_EQ_U(s->node, 2);
    CHECK_EQ_U(s->src_vi, a);
    CHECK_EQ_U(s->dst_vi, 7);
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_ACCEPT);
    CHECK_EQ_U(s->cm.conn_id, 0x02000012);
    CHECK_EQ_U(s->cm.reliability, UNREL);
    CHECK_EQ_U(s->cm.max_transfer, 4096);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_ACCEPT, &acc, sizeof acc), ST_NO_MATCH);

    /* a reject */
    m = cm_msg(5, 1, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x05000001, "abc", UNREL, 4096);
    cm_rx(&m);
    (void)cm_poll_ev();
    via_admin_cm_id_t rid = {.id = 0x05000001};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REJECT, &rid, sizeof rid), ST_OK);
    s = cm_last_sent();
    CHECK_EQ_U(s->node, 5);
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_REJECT);
    CHECK_EQ_U(s->cm.reason, VIA_WIRE_CM_REASON_REJECTED);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REJECT, &rid, sizeof rid), ST_NO_MATCH);

    /* unlisten with a request waiting: the request stays for its answer;
     * a new request on the discriminator finds nobody */
    m = cm_msg(6, 2, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x06000001, "abc", UNREL, 4096);
    cm_rx(&m);
    uint32_t sent = fake_cm.nsent;
    via_admin_cm_id_t lid = {.id = id};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_UNLISTEN, &lid, sizeof lid), ST_OK);
    CHECK_EQ_U(fake_cm.nsent, sent);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_UNLISTEN, &lid, sizeof lid), ST_NO_MATCH);
    m = cm_msg(6, 3, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x06000002, "abc", UNREL, 4096);
    cm_rx(&m);
    CHECK_EQ_U(cm_last_sent()->cm.reason, VIA_WIRE_CM_REASON_NO_MATCH);
    rid.id = 0x06000001;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REJECT, &rid, sizeof rid), ST_OK);
    CHECK_EQ_U(cm_last_sent()->node, 6);
    CHECK_EQ_U(cm_last_sent()->cm.reason, VIA_WIRE_CM_REASON_REJECTED);
}

/* The client's side: a request (CONNECT_PENDING, REQUEST sent), accepted
 * (CONNECTED to the server's VI, an event), rejected (IDLE, the reason),
 * canceled (IDLE; the late answer is dropped). */
static void test_cm_client(void)
{
    boot(16);
    uint32_t p = new_ptag(), b = 0, d = 0, f = 0;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &b), ST_OK);
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &d), ST_OK);
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &f), ST_OK);
    via_admin_cm_request_t rq = {.vi = b, .node = 4, .disc_len = 3, .discriminator = disc8("srv")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &rq, sizeof rq), ST_OK);
    uint32_t conn = 0;
    memcpy(&conn, last.payload, 4);
    CHECK_EQ_U(conn >> 24, TEST_NODE);
    CHECK_EQ_U(vi_state(b), VIA_VIP_VI_STATE_CONNECT_PENDING);
    const cm_msg_t *s = cm_last_sent();
    CHECK_EQ_U(s->node, 4);
    CHECK_EQ_U(s->src_vi, b);
    CHECK_EQ_U(s->dst_vi, 0xFFFF);
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_REQUEST);
    CHECK_EQ_U(s->cm.conn_id, conn);
    CHECK_EQ_U(s->cm.disc_len, 3);
    CHECK(s->cm.discriminator == disc8("srv"));
    CHECK_EQ_U(s->cm.max_transfer, 4096);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &rq, sizeof rq), ST_INVALID_STATE);
    via_admin_cm_request_t bad = rq;
    bad.vi = d;
    bad.node = 256;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &bad, sizeof bad), ST_BAD_PARAM);
    CHECK_EQ_U(vi_state(d), IDLE);

    /* an ACCEPT from another node or for another VI is not the answer */
    cm_msg_t m = cm_msg(5, 9, b, VIA_WIRE_CM_OP_ACCEPT, conn, NULL, UNREL, 4096);
    uint32_t dropped = cm_dropped();
    cm_rx(&m);
    CHECK_EQ_U(cm_dropped(), dropped + 1);
    CHECK_EQ_U(vi_state(b), VIA_VIP_VI_STATE_CONNECT_PENDING);
    /* the answer: CONNECTED to node 4's VI 9 */
    m = cm_msg(4, 9, b, VIA_WIRE_CM_OP_ACCEPT, conn, NULL, UNREL, 4096);
    cm_rx(&m);
    CHECK_EQ_U(vi_state(b), CONNECTED);
    CHECK_EQ_U(fake_ctx.e[b].peer, 9);
    CHECK_EQ_U(fake_ctx.e[b].peer_node, 4);
    via_admin_cm_event_t e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_CONNECTED);
    CHECK_EQ_U(e.id, b);
    CHECK_EQ_U(e.node, 4);
    CHECK_EQ_U(e.remote_vi, 9);
    CHECK_EQ_U(e.max_transfer, 4096);

    /* a DISCONNECT from another VI of node 4 is not for it: still
     * CONNECTED (DISCONNECT_ACK answers either way), no error */
    m = cm_msg(4, 10, b, VIA_WIRE_CM_OP_DISCONNECT, 0, NULL, 0, 0);
    dropped = cm_dropped();
    uint32_t aerrs = fake_cm.async_errors;
    cm_rx(&m);
    CHECK_EQ_U(cm_dropped(), dropped + 1);
    CHECK_EQ_U(fake_cm.async_errors, aerrs);
    CHECK_EQ_U(vi_state(b), CONNECTED);
    CHECK_EQ_U(cm_last_sent()->cm.op, VIA_WIRE_CM_OP_DISCONNECT_ACK);
    /* the peer disconnects: ERROR (the data path flushes), an event */
    m = cm_msg(4, 9, b, VIA_WIRE_CM_OP_DISCONNECT, 0, NULL, 0, 0);
    cm_rx(&m);
    CHECK_EQ_U(vi_state(b), ERROR);
    CHECK_EQ_U(cm_last_sent()->cm.op, VIA_WIRE_CM_OP_DISCONNECT_ACK);
    e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_DISCONNECTED);
    CHECK_EQ_U(e.id, b);
    CHECK_EQ_U(e.node, 4);
    CHECK_EQ_U(e.remote_vi, 9);
    /* and the owner's asynchronous error CONN_LOST */
    CHECK_EQ_U(fake_cm.async_errors, aerrs + 1);
    CHECK_EQ_U(fake_cm.last_async_code, VIA_VIP_ERROR_CONN_LOST);
    CHECK_EQ_U(fake_cm.last_async_vi, b);
    /* the owner's DISCONNECT takes it to IDLE, sending nothing (the peer
     * is gone) */
    via_admin_vi_args_t dv0 = {.vi = b};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DISCONNECT_VI, &dv0, sizeof dv0), ST_OK);
    CHECK_EQ_U(vi_state(b), IDLE);
    CHECK_EQ_U(cm_last_sent()->cm.op, VIA_WIRE_CM_OP_DISCONNECT_ACK);
    /* this side disconnects a remote connection: DISCONNECT to the peer */
    via_admin_connect_remote_t cr = {.vi = b, .peer_node = 4, .peer_vi = 11};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CONNECT_REMOTE, &cr, sizeof cr), ST_OK);
    via_admin_vi_args_t dv = {.vi = b};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_DISCONNECT_VI, &dv, sizeof dv), ST_OK);
    CHECK_EQ_U(vi_state(b), IDLE);
    s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_DISCONNECT);
    CHECK_EQ_U(s->node, 4);
    CHECK_EQ_U(s->src_vi, b);
    CHECK_EQ_U(s->dst_vi, 11);

    /* rejected: IDLE, the reason */
    rq.vi = d;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &rq, sizeof rq), ST_OK);
    memcpy(&conn, last.payload, 4);
    m = cm_msg(4, 0xFFFF, d, VIA_WIRE_CM_OP_REJECT, conn, NULL, 0, 0);
    m.cm.reason = VIA_WIRE_CM_REASON_RELIABILITY;
    cm_rx(&m);
    CHECK_EQ_U(vi_state(d), IDLE);
    e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_REJECTED);
    CHECK_EQ_U(e.id, d);
    CHECK_EQ_U(e.reason, VIA_WIRE_CM_REASON_RELIABILITY);

    /* canceled: IDLE, the late answer dropped */
    rq.vi = f;
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &rq, sizeof rq), ST_OK);
    memcpy(&conn, last.payload, 4);
    via_admin_vi_args_t va = {.vi = f};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_CANCEL, &va, sizeof va), ST_OK);
    CHECK_EQ_U(vi_state(f), IDLE);
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_CANCEL, &va, sizeof va), ST_NO_MATCH);
    dropped = cm_dropped();
    m = cm_msg(4, 9, f, VIA_WIRE_CM_OP_ACCEPT, conn, NULL, UNREL, 4096);
    cm_rx(&m);
    CHECK_EQ_U(cm_dropped(), dropped + 1);
    CHECK_EQ_U(vi_state(f), IDLE);
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);
}

/* Peer to peer: this side first (the other's PEER_REQUEST then connects,
 * PEER_ACCEPT goes back, the other's PEER_ACCEPT finds nothing); the other
 * side first (kept, then the local request connects at once); different
 * MaxTransferSizes (REJECT MTU to the peer, REJECTED here, IDLE). */
static void test_cm_peer(void)
{
    boot(16);
    uint32_t p = new_ptag(), v = 0, w = 0, x = 0;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &v), ST_OK);
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &w), ST_OK);
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &x), ST_OK);

    via_admin_cm_request_t rq = {.vi = v, .node = 4, .disc_len = 2, .discriminator = disc8("pp")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_PEER_REQUEST, &rq, sizeof rq), ST_OK);
    uint32_t conn = 0;
    memcpy(&conn, last.payload, 4);
    CHECK_EQ_U(vi_state(v), VIA_VIP_VI_STATE_CONNECT_PENDING);
    const cm_msg_t *s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_PEER_REQUEST);
    CHECK_EQ_U(s->node, 4);
    CHECK_EQ_U(s->src_vi, v);
    cm_msg_t m = cm_msg(4, 9, 0xFFFF, VIA_WIRE_CM_OP_PEER_REQUEST, 0x04000007, "pp", UNREL, 4096);
    cm_rx(&m);
    CHECK_EQ_U(vi_state(v), CONNECTED);
    CHECK_EQ_U(fake_ctx.e[v].peer, 9);
    CHECK_EQ_U(fake_ctx.e[v].peer_node, 4);
    s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_PEER_ACCEPT);
    CHECK_EQ_U(s->dst_vi, 9);
    CHECK_EQ_U(s->cm.conn_id, 0x04000007);
    via_admin_cm_event_t e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_CONNECTED);
    CHECK_EQ_U(e.id, v);
    CHECK_EQ_U(e.remote_vi, 9);
    uint32_t dropped = cm_dropped();
    m = cm_msg(4, 9, v, VIA_WIRE_CM_OP_PEER_ACCEPT, conn, NULL, UNREL, 4096);
    cm_rx(&m);
    CHECK_EQ_U(cm_dropped(), dropped + 1);
    CHECK_EQ_U(vi_state(v), CONNECTED);
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);

    /* the other side first */
    m = cm_msg(5, 3, 0xFFFF, VIA_WIRE_CM_OP_PEER_REQUEST, 0x05000001, "qq", UNREL, 4096);
    uint32_t sent = fake_cm.nsent;
    cm_rx(&m);
    CHECK_EQ_U(fake_cm.nsent, sent);
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);
    rq = (via_admin_cm_request_t){.vi = w, .node = 5, .disc_len = 2, .discriminator = disc8("qq")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_PEER_REQUEST, &rq, sizeof rq), ST_OK);
    CHECK_EQ_U(vi_state(w), CONNECTED);
    CHECK_EQ_U(fake_ctx.e[w].peer, 3);
    CHECK_EQ_U(fake_cm.nsent, sent + 1);
    CHECK_EQ_U(cm_last_sent()->cm.op, VIA_WIRE_CM_OP_PEER_ACCEPT);
    CHECK_EQ_U(cm_last_sent()->cm.conn_id, 0x05000001);
    e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_CONNECTED);
    CHECK_EQ_U(e.id, w);

    /* different MaxTransferSizes */
    m = cm_msg(6, 2, 0xFFFF, VIA_WIRE_CM_OP_PEER_REQUEST, 0x06000001, "rr", UNREL, 8192);
    cm_rx(&m);
    rq = (via_admin_cm_request_t){.vi = x, .node = 6, .disc_len = 2, .discriminator = disc8("rr")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_PEER_REQUEST, &rq, sizeof rq), ST_OK);
    CHECK_EQ_U(vi_state(x), IDLE);
    s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_REJECT);
    CHECK_EQ_U(s->cm.reason, VIA_WIRE_CM_REASON_MTU);
    CHECK_EQ_U(s->dst_vi, 2);
    e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_REJECTED);
    CHECK_EQ_U(e.reason, VIA_WIRE_CM_REASON_MTU);
}

/* The connection manager and the levels: a request carries its VI's level
 * and RDMA enables; CM_ACCEPT with a VI of another level answers
 * INVALID_RELIABILITY_LEVEL (REJECT RELIABILITY to the requester, before
 * the MTS); with a VI of the same level (RDMA read on it where the level
 * has it) the VI connects and ACCEPT carries its level and flags. */
static void test_cm_levels(void)
{
    boot(16);
    uint32_t l2 = 0;
    for (uint32_t l = 2; l <= 4 && !l2; l <<= 1)
        if (level_ok(l))
            l2 = l;
    if (!l2)
        return; /* one level: test_cm_server covers it */
    uint32_t fl = rdma_read_ok(l2) ? RW | RR : RW;
    uint32_t p = new_ptag(), u = 0, v = 0, w = 0, id = 0;
    CHECK_EQ_U(create(UNREL, 4096, p, 0, &u), ST_OK);
    CHECK_EQ_U(create(l2, 4096, p, fl, &v), ST_OK);
    CHECK_EQ_U(create(l2, 4096, p, fl, &w), ST_OK);
    CHECK_EQ_U(cm_listen_disc("lvl", 3, &id), ST_OK);

    /* a request at l2 (MTS 8192 too): accepting it with the unreliable u
     * is the level's refusal, not the MTS's */
    cm_msg_t m = cm_msg(2, 7, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x02000021, "lvl", l2, 8192);
    m.cm.attrs = fl;
    cm_rx(&m);
    via_admin_cm_event_t e = cm_poll_ev();
    CHECK_EQ_U(e.type, VIA_ADMIN_CM_EV_REQUEST);
    CHECK_EQ_U(e.reliability, l2);
    CHECK_EQ_U(e.flags, fl);
    via_admin_cm_accept_t acc = {.conn_id = 0x02000021, .vi = u};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_ACCEPT, &acc, sizeof acc), ST_INVALID_REL);
    const cm_msg_t *s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_REJECT);
    CHECK_EQ_U(s->cm.reason, VIA_WIRE_CM_REASON_RELIABILITY);
    CHECK_EQ_U(vi_state(u), IDLE);

    /* again at l2 and MTS 4096: accepted with v */
    m = cm_msg(2, 7, 0xFFFF, VIA_WIRE_CM_OP_REQUEST, 0x02000022, "lvl", l2, 4096);
    cm_rx(&m);
    (void)cm_poll_ev();
    acc = (via_admin_cm_accept_t){.conn_id = 0x02000022, .vi = v};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_ACCEPT, &acc, sizeof acc), ST_OK);
    check_vi(v, CONNECTED, l2, 4096, p, fl);
    CHECK_EQ_U(fake_ctx.e[v].state, CONNECTED);
    CHECK_EQ_U(fake_ctx.e[v].peer, 7);
    CHECK_EQ_U(fake_ctx.e[v].peer_node, 2);
    CHECK_EQ_U(fake_ctx.e[v].rdma_write, 1);
    CHECK_EQ_U(fake_ctx.e[v].rdma_read, rdma_read_ok(l2));
    s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_ACCEPT);
    CHECK_EQ_U(s->cm.reliability, l2);
    CHECK_EQ_U(s->cm.attrs, fl);

    /* the client side: w's request carries l2 and its flags */
    via_admin_cm_request_t rq = {.vi = w, .node = 4, .disc_len = 3, .discriminator = disc8("srv")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &rq, sizeof rq), ST_OK);
    s = cm_last_sent();
    CHECK_EQ_U(s->cm.op, VIA_WIRE_CM_OP_REQUEST);
    CHECK_EQ_U(s->cm.reliability, l2);
    CHECK_EQ_U(s->cm.attrs, fl);
    CHECK_EQ_U(vi_state(w), PENDING);
}

/* ------------------------------------------------- broken connections */

/* What cm_break may change, seen from outside: context commits, the
 * asynchronous errors, CM messages, host events (CM events), drops, the
 * context model's violations. */
typedef struct {
    uint32_t commits, aerrs, sent, host_events, dropped, violations;
} brk_snap_t;

static brk_snap_t brk_snap(void)
{
    return (brk_snap_t){.commits = fake_ctx.commits,
                        .aerrs = fake_cm.async_errors,
                        .sent = fake_cm.nsent,
                        .host_events = fake_cm.host_events,
                        .dropped = cm_dropped(),
                        .violations = fake_ctx.violations};
}

/* Since s: `commits` commits, `aerrs` asynchronous errors, `sent`
 * messages; never a CM event, a drop or a violation. */
static void brk_check(const brk_snap_t *s, uint32_t commits, uint32_t aerrs, uint32_t sent)
{
    CHECK_EQ_U(fake_ctx.commits - s->commits, commits);
    CHECK_EQ_U(fake_cm.async_errors - s->aerrs, aerrs);
    CHECK_EQ_U(fake_cm.nsent - s->sent, sent);
    CHECK_EQ_U(fake_cm.host_events, s->host_events);
    CHECK_EQ_U(cm_dropped(), s->dropped);
    CHECK_EQ_U(fake_ctx.violations, s->violations);
}

/* The i-th asynchronous error since s is CONN_LOST for vi. */
static void brk_check_aerr(const brk_snap_t *s, uint32_t i, uint32_t vi)
{
    CHECK_EQ_U(fake_cm_aerr_code(s->aerrs + i), VIA_VIP_ERROR_CONN_LOST);
    CHECK_EQ_U(fake_cm_aerr_vi(s->aerrs + i), vi);
}

/* QUERY_VI's state of vi (0xFFFFFFFF: QUERY_VI refused it). */
static uint32_t query_state(uint32_t vi)
{
    via_admin_vi_info_t i;
    return query(vi, &i) == ST_OK ? i.state : 0xFFFFFFFFu;
}

/* vi went to ERROR through one commit: the table, QUERY_VI and the data
 * path's context agree; no peer; the queues kept (no RESET_Q: the data
 * path flushes them); the other attributes unchanged. */
static void brk_check_error(uint32_t vi, uint32_t commits_before, uint32_t resets_before, uint32_t ptag,
                            uint32_t flags)
{
    const fake_ctx_entry_t *e = &fake_ctx.e[vi];
    CHECK_EQ_U(vi_state(vi), ERROR);
    CHECK_EQ_U(query_state(vi), ERROR);
    CHECK_EQ_U(vi_peer(vi), 0);
    CHECK_EQ_U(e->commits, commits_before + 1);
    CHECK_EQ_U(e->resets, resets_before);
    CHECK_EQ_U(e->enable, 1);
    CHECK_EQ_U(e->state, ERROR);
    CHECK_EQ_U(e->peer, 0);
    CHECK_EQ_U(e->peer_node, 0);
    CHECK_EQ_U(e->ptag, ptag);
    CHECK_EQ_U(e->mtu, 4096);
    CHECK_EQ_U(e->rdma_write, (flags & RW) != 0);
    CHECK_EQ_U(e->rdma_read, (flags & RR) != 0);
    /* RELIABLE kept as the level: ERROR does not change it */
    uint32_t rel = 0, mts = 0, fl = 0;
    CHECK_EQ_U(vi_cm_attrs(vi, &rel, &mts, &fl), ST_OK);
    CHECK_EQ_U(e->reliable, reliable_want(rel));
    CHECK_EQ_U(e->attr, ctx_attr_want(ERROR, rel, flags));
}

/* The level the data path breaks connections on (RDMA read's), with its
 * RDMA enables; the unreliable level if none has RDMA read (cm_break does
 * not look at the level). */
static uint32_t brk_level(uint32_t *flags)
{
    uint32_t l = level_with_rdma_read();
    *flags = l ? RW | RR : 0;
    return l ? l : UNREL;
}

/* A loopback pair (CONNECT_LOOPBACK, and one the connection manager made
 * between two VIs of this node): cm_break of either end takes both to
 * ERROR (one commit each, queues kept for the flush) and queues CONN_LOST
 * for the broken VI then its peer; no CM message (the peer is here), no CM
 * event. A second break of either end does nothing; the owners'
 * Disconnects then flush and idle both, sending nothing. */
static void test_cm_break_loopback(void)
{
    boot(16);
    uint32_t fl = 0, rel = brk_level(&fl);
    uint32_t p = new_ptag(), a = 0, b = 0, c = 0;
    CHECK_EQ_U(create(rel, 4096, p, fl, &a), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &b), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &c), ST_OK);
    CHECK_EQ_U(connect(a, b), ST_OK);
    /* descriptors queued on both: the break must not reset the queues */
    fake_ctx.e[a].queued = 1;
    fake_ctx.e[b].queued = 3;
    fake_ctx.flush_reads = FAKE_CTX_FLUSH_NEVER;
    uint32_t ca = fake_ctx.e[a].commits, cb = fake_ctx.e[b].commits, cc = fake_ctx.e[c].commits;
    uint32_t ra = fake_ctx.e[a].resets, rb = fake_ctx.e[b].resets;

    brk_snap_t s = brk_snap();
    cm_break(a);
    brk_check(&s, 2, 2, 0);
    brk_check_aerr(&s, 0, a);
    brk_check_aerr(&s, 1, b);
    brk_check_error(a, ca, ra, p, fl);
    brk_check_error(b, cb, rb, p, fl);
    CHECK_EQ_U(fake_ctx.e[a].queued, 1);
    CHECK_EQ_U(fake_ctx.e[b].queued, 3);
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);
    /* the bystander */
    CHECK_EQ_U(vi_state(c), IDLE);
    CHECK_EQ_U(fake_ctx.e[c].commits, cc);

    /* twice, and the peer's own report of the same break: nothing */
    s = brk_snap();
    cm_break(a);
    cm_break(b);
    brk_check(&s, 0, 0, 0);
    CHECK_EQ_U(vi_state(a), ERROR);
    CHECK_EQ_U(vi_state(b), ERROR);

    /* the owners' Disconnects: flushed, IDLE, nothing sent */
    fake_ctx.flush_reads = 2;
    s = brk_snap();
    CHECK_EQ_U(disconnect(a), ST_OK);
    CHECK_EQ_U(disconnect(b), ST_OK);
    CHECK_EQ_U(fake_cm.nsent, s.sent);
    CHECK_EQ_U(fake_cm.async_errors, s.aerrs);
    CHECK_EQ_U(vi_state(a), IDLE);
    CHECK_EQ_U(vi_state(b), IDLE);
    CHECK_EQ_U(fake_ctx.e[a].queued, 0);
    CHECK_EQ_U(fake_ctx.e[b].queued, 0);
    CHECK_EQ_U(fake_ctx.e[a].resets, ra);
    CHECK_EQ_U(fake_ctx.e[b].resets, rb);
    check_ctx(a);
    check_ctx(b);

    /* connected again, broken from the other end: b first, then a */
    CHECK_EQ_U(connect(a, b), ST_OK);
    ca = fake_ctx.e[a].commits;
    cb = fake_ctx.e[b].commits;
    s = brk_snap();
    cm_break(b);
    brk_check(&s, 2, 2, 0);
    brk_check_aerr(&s, 0, b);
    brk_check_aerr(&s, 1, a);
    brk_check_error(a, ca, ra, p, fl);
    brk_check_error(b, cb, rb, p, fl);
    CHECK_EQ_U(disconnect(a), ST_OK);
    CHECK_EQ_U(disconnect(b), ST_OK);

    /* a pair the connection manager connected on this node (its peer's
     * node is this one): the same, no DISCONNECT to this node */
    CHECK_EQ_U(vi_cm_connect(b, TEST_NODE, c), ST_OK);
    CHECK_EQ_U(vi_cm_connect(c, TEST_NODE, b), ST_OK);
    cb = fake_ctx.e[b].commits;
    cc = fake_ctx.e[c].commits;
    uint32_t rc = fake_ctx.e[c].resets;
    s = brk_snap();
    cm_break(c);
    brk_check(&s, 2, 2, 0);
    brk_check_aerr(&s, 0, c);
    brk_check_aerr(&s, 1, b);
    brk_check_error(b, cb, rb, p, fl);
    brk_check_error(c, cc, rc, p, fl);
    CHECK_EQ_U(vi_state(a), IDLE);
    s = brk_snap();
    cm_break(c);
    cm_break(b);
    brk_check(&s, 0, 0, 0);
}

/* A peer on another node (CONNECT_REMOTE, and a connection the CM made):
 * the VI goes to ERROR (one commit), CONN_LOST for it, and DISCONNECT goes
 * to the peer's node and VI (from this VI); a local VI with the peer's id
 * is left alone. A second break does nothing; the owner's Disconnect then
 * idles the VI without a second DISCONNECT. */
static void test_cm_break_remote(void)
{
    boot(16);
    uint32_t fl = 0, rel = brk_level(&fl);
    uint32_t p = new_ptag(), a = 0, b = 0, c = 0;
    CHECK_EQ_U(create(rel, 4096, p, fl, &a), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &b), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &c), ST_OK);
    /* a's peer is node 3's VI b; this node's b is connected to c */
    CHECK_EQ_U(connect_remote(a, 3, b), ST_OK);
    CHECK_EQ_U(connect(b, c), ST_OK);
    fake_ctx.e[a].queued = 2;
    fake_ctx.flush_reads = FAKE_CTX_FLUSH_NEVER;
    uint32_t ca = fake_ctx.e[a].commits, cb = fake_ctx.e[b].commits, cc = fake_ctx.e[c].commits;
    uint32_t ra = fake_ctx.e[a].resets;

    brk_snap_t s = brk_snap();
    cm_break(a);
    brk_check(&s, 1, 1, 1);
    brk_check_aerr(&s, 0, a);
    brk_check_error(a, ca, ra, p, fl);
    CHECK_EQ_U(fake_ctx.e[a].queued, 2);
    const cm_msg_t *m = cm_last_sent();
    CHECK_EQ_U(m->node, 3);
    CHECK_EQ_U(m->src_vi, a);
    CHECK_EQ_U(m->dst_vi, b);
    CHECK_EQ_U(m->cm.op, VIA_WIRE_CM_OP_DISCONNECT);
    CHECK_EQ_U(m->cm.reason, 0);
    CHECK_EQ_U(m->cm.conn_id, 0);
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);
    /* this node's b and c: untouched */
    CHECK_EQ_U(vi_state(b), CONNECTED);
    CHECK_EQ_U(vi_state(c), CONNECTED);
    CHECK_EQ_U(vi_peer(b), c);
    CHECK_EQ_U(fake_ctx.e[b].commits, cb);
    CHECK_EQ_U(fake_ctx.e[c].commits, cc);

    /* twice: nothing (no second DISCONNECT) */
    s = brk_snap();
    cm_break(a);
    brk_check(&s, 0, 0, 0);
    /* the peer's DISCONNECT_ACK: nothing either */
    cm_msg_t ack = cm_msg(3, b, a, VIA_WIRE_CM_OP_DISCONNECT_ACK, 0, NULL, 0, 0);
    cm_rx(&ack);
    brk_check(&s, 0, 0, 0);
    CHECK_EQ_U(vi_state(a), ERROR);
    /* the owner's Disconnect: flushed, IDLE, no second DISCONNECT */
    fake_ctx.flush_reads = 1;
    CHECK_EQ_U(disconnect(a), ST_OK);
    CHECK_EQ_U(vi_state(a), IDLE);
    CHECK_EQ_U(fake_ctx.e[a].queued, 0);
    CHECK_EQ_U(fake_cm.nsent, s.sent);
    CHECK_EQ_U(fake_cm.async_errors, s.aerrs);
    check_ctx(a);

    /* a connection the connection manager made (the client's side):
     * DISCONNECT to the server's node and VI */
    CHECK_EQ_U(disconnect(b), ST_OK);
    via_admin_cm_request_t rq = {.vi = b, .node = 4, .disc_len = 3, .discriminator = disc8("srv")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &rq, sizeof rq), ST_OK);
    uint32_t conn = 0;
    memcpy(&conn, last.payload, 4);
    cm_msg_t acc = cm_msg(4, 9, b, VIA_WIRE_CM_OP_ACCEPT, conn, NULL, rel, 4096);
    acc.cm.attrs = fl;
    cm_rx(&acc);
    CHECK_EQ_U(vi_state(b), CONNECTED);
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_CONNECTED);
    cb = fake_ctx.e[b].commits;
    uint32_t rb = fake_ctx.e[b].resets;
    s = brk_snap();
    cm_break(b);
    brk_check(&s, 1, 1, 1);
    brk_check_aerr(&s, 0, b);
    brk_check_error(b, cb, rb, p, fl);
    m = cm_last_sent();
    CHECK_EQ_U(m->node, 4);
    CHECK_EQ_U(m->src_vi, b);
    CHECK_EQ_U(m->dst_vi, 9);
    CHECK_EQ_U(m->cm.op, VIA_WIRE_CM_OP_DISCONNECT);
    /* the peer's own DISCONNECT crossing ours: b no longer CONNECTED, so
     * it is dropped (DISCONNECT_ACK answers), no second CONN_LOST */
    s = brk_snap();
    cm_msg_t dis = cm_msg(4, 9, b, VIA_WIRE_CM_OP_DISCONNECT, 0, NULL, 0, 0);
    cm_rx(&dis);
    CHECK_EQ_U(fake_cm.async_errors, s.aerrs);
    CHECK_EQ_U(cm_dropped(), s.dropped + 1);
    CHECK_EQ_U(cm_last_sent()->cm.op, VIA_WIRE_CM_OP_DISCONNECT_ACK);
    CHECK_EQ_U(vi_state(b), ERROR);
    CHECK_EQ_U(fake_ctx.commits, s.commits);
}

/* A VI that is not CONNECTED (IDLE, CONNECT_PENDING, ERROR, destroyed,
 * never created, beyond the table or the register's 16 bits): nothing
 * (no commit, no asynchronous error, no message, no event); a pending
 * request stays pending. */
static void test_cm_break_not_connected(void)
{
    boot(16);
    uint32_t fl = 0, rel = brk_level(&fl);
    uint32_t p = new_ptag(), idle = 0, err = 0, pend = 0, gone = 0, rerr = 0;
    CHECK_EQ_U(create(rel, 4096, p, fl, &idle), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &err), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &pend), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &gone), ST_OK);
    CHECK_EQ_U(create(rel, 4096, p, fl, &rerr), ST_OK);
    CHECK_EQ_U(vi_set_state(err, ERROR), ST_OK);
    via_admin_cm_request_t rq = {.vi = pend, .node = 4, .disc_len = 3, .discriminator = disc8("srv")};
    CHECK_EQ_U(exec(VIA_ADMIN_OP_CM_REQUEST, &rq, sizeof rq), ST_OK);
    uint32_t conn = 0;
    memcpy(&conn, last.payload, 4);
    CHECK_EQ_U(destroy(gone), ST_OK);
    /* rerr: its remote peer disconnected (ERROR through the CM) */
    CHECK_EQ_U(connect_remote(rerr, 2, 5), ST_OK);
    cm_msg_t dis = cm_msg(2, 5, rerr, VIA_WIRE_CM_OP_DISCONNECT, 0, NULL, 0, 0);
    cm_rx(&dis);
    CHECK_EQ_U(vi_state(rerr), ERROR);
    (void)cm_poll_ev();

    uint32_t vis[] = {idle, err, pend, gone, rerr, 9, 15, 16, 1000, 0xFFFFu, 0x10000u, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof vis / sizeof vis[0]; i++) {
        brk_snap_t s = brk_snap();
        cm_break(vis[i]);
        brk_check(&s, 0, 0, 0);
    }
    CHECK_EQ_U(query_state(idle), IDLE);
    CHECK_EQ_U(query_state(err), ERROR);
    CHECK_EQ_U(query_state(pend), PENDING);
    CHECK_EQ_U(query_state(gone), 0xFFFFFFFFu);
    CHECK_EQ_U(query_state(rerr), ERROR);
    CHECK_EQ_U(vi_count(), 4);
    CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);
    for (uint32_t v = 0; v < 16; v++)
        check_ctx(v);
    /* the pending request still takes its answer */
    cm_msg_t acc = cm_msg(4, 9, pend, VIA_WIRE_CM_OP_ACCEPT, conn, NULL, rel, 4096);
    cm_rx(&acc);
    CHECK_EQ_U(vi_state(pend), CONNECTED);
}

/* A loopback VI whose peer no longer is connected back to it (the peer
 * went IDLE or ERROR, was destroyed, connected to another VI of this node
 * or to a VI of another node with this VI's id; a VI connected to itself):
 * only the VI goes to ERROR and hears CONN_LOST; the peer and its new
 * connection are left alone; no message. */
static void test_cm_break_stale_peer(void)
{
    uint32_t fl = 0, rel = brk_level(&fl);
    for (uint32_t k = 0; k < 6; k++) {
        boot(16);
        uint32_t p = new_ptag(), a = 0, b = 0, c = 0;
        CHECK_EQ_U(create(rel, 4096, p, fl, &a), ST_OK);
        CHECK_EQ_U(create(rel, 4096, p, fl, &b), ST_OK);
        CHECK_EQ_U(create(rel, 4096, p, fl, &c), ST_OK);
        if (k == 5) {
            CHECK_EQ_U(vi_cm_connect(a, TEST_NODE, a), ST_OK); /* a's peer is a */
        } else {
            CHECK_EQ_U(connect(a, b), ST_OK);
            /* b leaves without a hearing of it */
            CHECK_EQ_U(vi_set_state(b, k == 1 ? ERROR : IDLE), ST_OK);
            if (k == 2)
                CHECK_EQ_U(destroy(b), ST_OK);
            if (k == 3)
                CHECK_EQ_U(connect(b, c), ST_OK);
            if (k == 4)
                CHECK_EQ_U(connect_remote(b, 3, a), ST_OK);
        }
        CHECK_EQ_U(vi_state(a), CONNECTED);
        uint32_t sb = vi_state(b), pb = vi_peer(b), sc = vi_state(c);
        uint32_t ca = fake_ctx.e[a].commits, cb = fake_ctx.e[b].commits, cc = fake_ctx.e[c].commits;
        uint32_t ra = fake_ctx.e[a].resets;
        fake_ctx_entry_t eb = fake_ctx.e[b];
        brk_snap_t s = brk_snap();
        cm_break(a);
        brk_check(&s, 1, 1, 0);
        brk_check_aerr(&s, 0, a);
        brk_check_error(a, ca, ra, p, fl);
        CHECK_EQ_U(vi_state(b), sb);
        CHECK_EQ_U(vi_peer(b), pb);
        CHECK_EQ_U(vi_state(c), sc);
        CHECK_EQ_U(fake_ctx.e[b].commits, cb);
        CHECK_EQ_U(fake_ctx.e[c].commits, cc);
        CHECK(memcmp(&fake_ctx.e[b], &eb, sizeof eb) == 0);
        if (k == 3) {
            CHECK_EQ_U(vi_state(b), CONNECTED);
            CHECK_EQ_U(vi_peer(b), c);
            CHECK_EQ_U(vi_peer(c), b);
        }
        if (k == 4) {
            CHECK_EQ_U(vi_state(b), CONNECTED);
            CHECK_EQ_U(fake_ctx.e[b].peer_node, 3);
        }
        CHECK_EQ_U(cm_poll_ev().type, VIA_ADMIN_CM_EV_NONE);
        /* and twice: nothing */
        s = brk_snap();
        cm_break(a);
        brk_check(&s, 0, 0, 0);
        for (uint32_t v = 0; v < 16; v++)
            if (v != b || k != 4) /* check_ctx wants this node as a peer's */
                check_ctx(v);
    }
}

int main(void)
{
    if (FW_RELIABILITY_LEVEL_SUPPORT == 7u) {
        TEST_RUN(test_connect_levels);
        return test_main_end();
    }
    TEST_RUN(test_layouts);
    TEST_RUN(test_max_vi);
    TEST_RUN(test_create_query_destroy);
    TEST_RUN(test_create_bad);
    TEST_RUN(test_states);
    TEST_RUN(test_modify);
    TEST_RUN(test_args_len);
    TEST_RUN(test_reboot);
    TEST_RUN(test_commits);
    TEST_RUN(test_ctx_reliable);
    TEST_RUN(test_commit_timeout);
    TEST_RUN(test_connect);
    TEST_RUN(test_connect_remote);
    TEST_RUN(test_cm_server);
    TEST_RUN(test_cm_client);
    TEST_RUN(test_cm_peer);
    TEST_RUN(test_cm_levels);
    TEST_RUN(test_cm_break_loopback);
    TEST_RUN(test_cm_break_remote);
    TEST_RUN(test_cm_break_not_connected);
    TEST_RUN(test_cm_break_stale_peer);
    TEST_RUN(test_random);
    return test_main_end();
}

/* vi.c: virtual interfaces (see vi.h). */
#include <stdint.h>

#include "admin.h"
#include "mem.h"
#include "vi.h"
#include "via_fw.h"
#include "via_vip.h"

#define VI_FLAGS (VIA_ADMIN_VI_RDMA_WRITE | VIA_ADMIN_VI_RDMA_READ)

_Static_assert(VIA_ADMIN_MAX_VI <= 65536, "VI ids are 16 bits in the table");
_Static_assert(VIA_ADMIN_MAX_PTAGS <= 256, "a ptag is 16 bits");
_Static_assert((FW_RELIABILITY_LEVEL_SUPPORT & ~7u) == 0 && (FW_RDMA_READ_SUPPORT & ~FW_RELIABILITY_LEVEL_SUPPORT) == 0,
               "support masks");
_Static_assert(VIA_VIP_VI_STATE_ERROR <= 3, "a state is 2 bits");
_Static_assert(VIA_ADMIN_MAX_TRANSFER_SIZE < (1u << 17), "a MaxTransferSize is 17 bits in the table");
/* The VI states are the context's (VI_CTX_ATTR.STATE), the VI flags its
 * RDMA enables shifted down by 16. */
_Static_assert(VIA_VIP_VI_STATE_IDLE == VIA_FW_VI_CTX_STATE_IDLE && VIA_VIP_VI_STATE_CONNECTED == VIA_FW_VI_CTX_STATE_CONNECTED &&
                   VIA_VIP_VI_STATE_CONNECT_PENDING == VIA_FW_VI_CTX_STATE_CONNECT_PENDING &&
                   VIA_VIP_VI_STATE_ERROR == VIA_FW_VI_CTX_STATE_ERROR,
               "VI states");
_Static_assert(VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK == VIA_ADMIN_VI_RDMA_WRITE << 16, "RDMA_WRITE bit");
_Static_assert(VIA_FW_VI_CTX_ATTR_RDMA_READ_MASK == VIA_ADMIN_VI_RDMA_READ << 16, "RDMA_READ bit");

/* One VI: 12 bytes, so MAX_VI entries take 3 KiB of data memory. */
typedef struct {
    uint32_t mts : 17;  /* MaxTransferSize (1 .. MAX_TRANSFER_SIZE) */
    uint32_t live : 1;  /* created and not destroyed */
    uint32_t rel : 3;   /* reliability level (one bit of 1, 2, 4) */
    uint32_t flags : 2; /* VI_RDMA_WRITE | VI_RDMA_READ */
    uint32_t state : 2; /* VIA_VIP_VI_STATE_* */
    uint16_t ptag;      /* the ptag it holds a use of */
    uint16_t peer;      /* CONNECTED: the peer VI's id; else 0 */
    uint8_t peer_node;  /* CONNECTED: the peer's node (this node for loopback); else 0 */
} vi_t;
_Static_assert(sizeof(vi_t) == 12, "vi_t is 12 bytes");

static vi_t vis[VIA_ADMIN_MAX_VI];
static uint32_t nvi; /* VIs that can exist (vi_init) */
static uint8_t self_node; /* this NIC's node (vi_set_node) */

void vi_set_node(uint32_t node) { self_node = (uint8_t)node; }

/* The attributes CREATE_VI and MODIFY_VI carry. */
typedef struct {
    uint32_t rel, mts, ptag, flags, qos;
} vi_attrs_t;

uint32_t vi_init(uint32_t num_vi)
{
    /* Only the entries below nvi are ever used (vi_get), so only those are
     * cleared: at boot .bss is zero already, and clearing all MAX_VI
     * entries would cost about 3,000 cycles of boot time. */
    nvi = num_vi < VIA_ADMIN_MAX_VI ? num_vi : VIA_ADMIN_MAX_VI;
    for (uint32_t i = 0; i < nvi; i++)
        vis[i] = (vi_t){0};
    return nvi;
}

static vi_t *vi_get(uint32_t vi)
{
    return vi < nvi && vis[vi].live ? &vis[vi] : 0;
}

/* ------------------------------------------------------ context commits */

/* Polls VI_CTX_STATUS until BUSY clears, at most VI_CTX_POLL_LIMIT times;
 * returns 1 if it cleared. */
static int ctx_idle(void)
{
    uint32_t n = VI_CTX_POLL_LIMIT;
    while (vi_ctx_read(VIA_FW_REG_VI_CTX_STATUS) & VIA_FW_VI_CTX_STATUS_BUSY_MASK)
        if (--n == 0)
            return 0;
    return 1;
}

/* VI_CTX_STATUS.SEND_QUEUED / RECV_QUEUED: the queues of the VI in
 * VI_CTX_VI hold descriptors not yet completed. */
#define QUEUED_MASK (VIA_FW_VI_CTX_STATUS_SEND_QUEUED_MASK | VIA_FW_VI_CTX_STATUS_RECV_QUEUED_MASK)

/* VI_CTX_STATUS with VI_CTX_VI = id (its queue bits are VI id's). */
static uint32_t queue_status(uint32_t id)
{
    vi_ctx_write(VIA_FW_REG_VI_CTX_VI, id);
    return vi_ctx_read(VIA_FW_REG_VI_CTX_STATUS);
}

/* Waits until both queues of VI id (in ERROR: the data path completes
 * every queued descriptor with FLUSHED) are empty, at most VI_FLUSH_POLL_LIMIT
 * reads; OK or INTERNAL. */
static uint32_t flush_wait(uint32_t id)
{
    if (!(queue_status(id) & QUEUED_MASK))
        return VIA_ADMIN_ST_OK;
    for (uint32_t n = VI_FLUSH_POLL_LIMIT - 1; n != 0; n--)
        if (!(vi_ctx_read(VIA_FW_REG_VI_CTX_STATUS) & QUEUED_MASK))
            return VIA_ADMIN_ST_OK;
    return VIA_ADMIN_ST_INTERNAL;
}

/* Writes VI id's whole context as v says (v == 0: the VI disabled, every
 * field 0) in one commit and waits for the data path to take it. OK, or
 * INTERNAL when the window stayed busy (before the commit: nothing was
 * written; after it: the data path may still take it later). */
static uint32_t ctx_commit(uint32_t id, const vi_t *v, int reset_q)
{
    if (!ctx_idle())
        return VIA_ADMIN_ST_INTERNAL;
    uint32_t attr = reset_q ? VIA_FW_VI_CTX_ATTR_RESET_Q_MASK : 0;
    if (v)
        attr |= VIA_FW_VI_CTX_ATTR_ENABLE_MASK | ((uint32_t)v->state << VIA_FW_VI_CTX_ATTR_STATE_SHIFT) |
                ((uint32_t)v->flags << 16) |
                /* a reliable level: an error at either end breaks the connection (VI_CTX_BREAK) */
                (v->rel != VIA_VIP_RELIABILITY_UNRELIABLE ? VIA_FW_VI_CTX_ATTR_RELIABLE_MASK : 0);
    vi_ctx_write(VIA_FW_REG_VI_CTX_VI, id);
    vi_ctx_write(VIA_FW_REG_VI_CTX_ATTR, attr);
    vi_ctx_write(VIA_FW_REG_VI_CTX_PTAG, v ? v->ptag : 0);
    vi_ctx_write(VIA_FW_REG_VI_CTX_MTU, v ? v->mts : 0);
    vi_ctx_write(VIA_FW_REG_VI_CTX_PEER, v ? ((uint32_t)v->peer_node << VIA_FW_VI_CTX_PEER_NODE_SHIFT) | v->peer : 0);
    vi_ctx_write(VIA_FW_REG_VI_CTX_CMD, VIA_FW_VI_CTX_CMD_COMMIT_MASK);
    return ctx_idle() ? VIA_ADMIN_ST_OK : VIA_ADMIN_ST_INTERNAL;
}

/* Checks 4..7 of vi.h (the reserved fields are the caller's): the
 * attributes on their own, then the ptag (live, not held), then RDMA read
 * against the level. */
static uint32_t attrs_check(const vi_attrs_t *a)
{
    if ((a->flags & ~VI_FLAGS) || a->qos != 0)
        return VIA_ADMIN_ST_BAD_PARAM;
    if (a->rel == 0 || (a->rel & (a->rel - 1)) || !(a->rel & FW_RELIABILITY_LEVEL_SUPPORT))
        return VIA_ADMIN_ST_INVALID_RELIABILITY_LEVEL;
    if (a->mts == 0 || a->mts > VIA_ADMIN_MAX_TRANSFER_SIZE)
        return VIA_ADMIN_ST_INVALID_MTU;
    if (!mem_ptag_valid(a->ptag))
        return VIA_ADMIN_ST_INVALID_PTAG;
    if ((a->flags & VIA_ADMIN_VI_RDMA_READ) && !(a->rel & FW_RDMA_READ_SUPPORT))
        return VIA_ADMIN_ST_INVALID_RDMAREAD;
    return VIA_ADMIN_ST_OK;
}

static void attrs_set(vi_t *v, const vi_attrs_t *a)
{
    v->rel = a->rel & 7;
    v->mts = a->mts;
    v->ptag = (uint16_t)a->ptag;
    v->flags = a->flags & VI_FLAGS;
}

uint32_t vi_create(const via_admin_create_vi_t *c, uint32_t *vi)
{
    vi_attrs_t a = {c->reliability_level, c->max_transfer_size, c->ptag, c->flags, c->qos};
    if (c->send_cq != 0 || c->recv_cq != 0)
        return VIA_ADMIN_ST_BAD_PARAM;
    uint32_t st = attrs_check(&a);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    uint32_t i = 0;
    while (i < nvi && vis[i].live)
        i++;
    if (i >= nvi)
        return VIA_ADMIN_ST_NO_RESOURCE;
    vi_t nv = {.live = 1, .state = VIA_VIP_VI_STATE_IDLE};
    attrs_set(&nv, &a);
    /* The new VI's context: enabled, IDLE, empty queues, no peer. */
    st = ctx_commit(i, &nv, 1);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    if (mem_ptag_hold(a.ptag) != VIA_ADMIN_ST_OK) /* checked live above */
        return VIA_ADMIN_ST_INVALID_PTAG;
    vis[i] = nv;
    *vi = i;
    return VIA_ADMIN_ST_OK;
}

uint32_t vi_destroy(uint32_t vi)
{
    vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_IDLE)
        return VIA_ADMIN_ST_INVALID_STATE;
    /* Disabled, its queues emptied. */
    uint32_t st = ctx_commit(vi, 0, 1);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    mem_ptag_release(v->ptag);
    *v = (vi_t){0};
    return VIA_ADMIN_ST_OK;
}

uint32_t vi_query(uint32_t vi, via_admin_vi_info_t *info)
{
    const vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    info->vi = vi;
    info->state = v->state;
    info->reliability_level = v->rel;
    info->max_transfer_size = v->mts;
    info->ptag = v->ptag;
    info->flags = v->flags;
    info->qos = 0;
    info->send_cq = 0;
    info->recv_cq = 0;
    /* what the data path's queues hold now */
    uint32_t q = queue_status(vi);
    info->queues = ((q & VIA_FW_VI_CTX_STATUS_SEND_QUEUED_MASK) ? 0 : VIA_ADMIN_VI_SEND_QUEUE_EMPTY) |
                   ((q & VIA_FW_VI_CTX_STATUS_RECV_QUEUED_MASK) ? 0 : VIA_ADMIN_VI_RECV_QUEUE_EMPTY);
    return VIA_ADMIN_ST_OK;
}

uint32_t vi_modify(const via_admin_modify_vi_t *m)
{
    vi_t *v = vi_get(m->vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_IDLE)
        return VIA_ADMIN_ST_INVALID_STATE;
    vi_attrs_t a = {m->reliability_level, m->max_transfer_size, m->ptag, m->flags, m->qos};
    uint32_t st = attrs_check(&a);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    /* Take the new ptag's use before giving the old one back: the same
     * ptag never drops to zero uses on the way. */
    if (!mem_ptag_valid(a.ptag)) /* checked live above */
        return VIA_ADMIN_ST_INVALID_PTAG;
    vi_t nv = *v;
    attrs_set(&nv, &a);
    /* The new attributes; the queues keep their descriptors. */
    st = ctx_commit(m->vi, &nv, 0);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    /* Take the new ptag's use before giving the old one back: the same
     * ptag never drops to zero uses on the way. */
    mem_ptag_hold(a.ptag);
    mem_ptag_release(v->ptag);
    *v = nv;
    return VIA_ADMIN_ST_OK;
}

/* Sets VI id (v) to state with peer (VI peer on node peer_node), in the
 * table once its commit is taken (queues kept). */
static uint32_t set_state_commit(uint32_t id, vi_t *v, uint32_t state, uint32_t peer, uint32_t peer_node)
{
    vi_t nv = *v;
    nv.state = state & 3;
    nv.peer = (uint16_t)peer;
    nv.peer_node = (uint8_t)peer_node;
    uint32_t st = ctx_commit(id, &nv, 0);
    if (st == VIA_ADMIN_ST_OK)
        *v = nv;
    return st;
}

uint32_t vi_connect_loopback(const via_admin_connect_loopback_t *c)
{
    uint32_t ia = c->vi_a, ib = c->vi_b;
    vi_t *a = vi_get(ia), *b = vi_get(ib);
    if (!a || !b)
        return VIA_ADMIN_ST_INVALID_VI;
    if (ia == ib)
        return VIA_ADMIN_ST_BAD_PARAM;
    if (a->state != VIA_VIP_VI_STATE_IDLE || b->state != VIA_VIP_VI_STATE_IDLE)
        return VIA_ADMIN_ST_INVALID_STATE;
    if (a->rel != b->rel)
        return VIA_ADMIN_ST_INVALID_RELIABILITY_LEVEL;
    if (a->mts != b->mts)
        return VIA_ADMIN_ST_INVALID_MTU;
    uint32_t st = set_state_commit(ia, a, VIA_VIP_VI_STATE_CONNECTED, ib, self_node);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    st = set_state_commit(ib, b, VIA_VIP_VI_STATE_CONNECTED, ia, self_node);
    if (st != VIA_ADMIN_ST_OK) {
        /* Put the first end back (this fails too if the window is stuck:
         * then the table keeps it CONNECTED, as the hardware has it). */
        set_state_commit(ia, a, VIA_VIP_VI_STATE_IDLE, 0, 0);
        return st;
    }
    return VIA_ADMIN_ST_OK;
}

uint32_t vi_connect_remote(const via_admin_connect_remote_t *c)
{
    vi_t *v = vi_get(c->vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (c->peer_node > 0xFFu || c->peer_node == self_node || c->peer_vi > 0xFFFFu)
        return VIA_ADMIN_ST_BAD_PARAM;
    if (v->state != VIA_VIP_VI_STATE_IDLE)
        return VIA_ADMIN_ST_INVALID_STATE;
    return set_state_commit(c->vi, v, VIA_VIP_VI_STATE_CONNECTED, c->peer_vi, c->peer_node);
}

uint32_t vi_disconnect(uint32_t vi)
{
    vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_CONNECTED && v->state != VIA_VIP_VI_STATE_ERROR)
        return VIA_ADMIN_ST_INVALID_STATE;
    uint32_t ip = v->peer;
    /* a peer on another node is that node's to disconnect; one on this
     * NIC goes with the VI if it is still connected to it */
    vi_t *p = v->state == VIA_VIP_VI_STATE_CONNECTED && v->peer_node == self_node ? vi_get(ip) : 0;
    if (p && (p == v || p->state != VIA_VIP_VI_STATE_CONNECTED || p->peer != vi || p->peer_node != self_node))
        p = 0;
    /* ERROR first: the data path flushes what is queued (sends and
     * receives complete with FLUSHED), then IDLE */
    uint32_t st = VIA_ADMIN_ST_OK;
    if (v->state == VIA_VIP_VI_STATE_CONNECTED)
        st = set_state_commit(vi, v, VIA_VIP_VI_STATE_ERROR, 0, 0);
    if (st == VIA_ADMIN_ST_OK && p)
        st = set_state_commit(ip, p, VIA_VIP_VI_STATE_ERROR, 0, 0);
    if (st == VIA_ADMIN_ST_OK)
        st = flush_wait(vi);
    if (st == VIA_ADMIN_ST_OK && p)
        st = flush_wait(ip);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    st = set_state_commit(vi, v, VIA_VIP_VI_STATE_IDLE, 0, 0);
    if (st == VIA_ADMIN_ST_OK && p)
        st = set_state_commit(ip, p, VIA_VIP_VI_STATE_IDLE, 0, 0);
    return st;
}

uint32_t vi_peer_of(uint32_t vi, uint32_t *node, uint32_t *peer)
{
    const vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_CONNECTED)
        return VIA_ADMIN_ST_INVALID_STATE;
    *node = v->peer_node;
    *peer = v->peer;
    return VIA_ADMIN_ST_OK;
}

uint32_t vi_remote_disconnected(uint32_t vi)
{
    vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_CONNECTED)
        return VIA_ADMIN_ST_INVALID_STATE;
    /* ERROR: the data path flushes the queues; the owner's Disconnect
     * takes the VI back to IDLE */
    return set_state_commit(vi, v, VIA_VIP_VI_STATE_ERROR, 0, 0);
}

uint32_t vi_self_node(void) { return self_node; }

uint32_t vi_cm_attrs(uint32_t vi, uint32_t *rel, uint32_t *mts, uint32_t *flags)
{
    const vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    *rel = v->rel;
    *mts = v->mts;
    *flags = v->flags;
    return VIA_ADMIN_ST_OK;
}

uint32_t vi_cm_pending(uint32_t vi)
{
    vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_IDLE)
        return VIA_ADMIN_ST_INVALID_STATE;
    return set_state_commit(vi, v, VIA_VIP_VI_STATE_CONNECT_PENDING, 0, 0);
}

uint32_t vi_cm_connect(uint32_t vi, uint32_t node, uint32_t peer)
{
    vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_IDLE && v->state != VIA_VIP_VI_STATE_CONNECT_PENDING)
        return VIA_ADMIN_ST_INVALID_STATE;
    return set_state_commit(vi, v, VIA_VIP_VI_STATE_CONNECTED, peer, node);
}

uint32_t vi_cm_idle(uint32_t vi)
{
    vi_t *v = vi_get(vi);
    if (!v)
        return VIA_ADMIN_ST_INVALID_VI;
    if (v->state != VIA_VIP_VI_STATE_CONNECT_PENDING)
        return VIA_ADMIN_ST_INVALID_STATE;
    return set_state_commit(vi, v, VIA_VIP_VI_STATE_IDLE, 0, 0);
}

uint32_t vi_state(uint32_t vi)
{
    const vi_t *v = vi_get(vi);
    return v ? v->state : 0xFFFFFFFFu;
}

uint32_t vi_set_state(uint32_t vi, uint32_t state)
{
    vi_t *v = vi_get(vi);
    if (!v || state > VIA_VIP_VI_STATE_ERROR)
        return VIA_ADMIN_ST_INVALID_VI;
    int keep = state == VIA_VIP_VI_STATE_CONNECTED;
    return set_state_commit(vi, v, state, keep ? v->peer : 0, keep ? v->peer_node : 0);
}

uint32_t vi_peer(uint32_t vi)
{
    const vi_t *v = vi_get(vi);
    return v ? v->peer : 0xFFFFFFFFu;
}

uint32_t vi_count(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < nvi; i++)
        n += vis[i].live;
    return n;
}

/* vi.c: virtual interfaces (see vi.h). */
#include <stdint.h>

#include "admin.h"
#include "mem.h"
#include "vi.h"
#include "via_vip.h"

#define VI_FLAGS (VIA_ADMIN_VI_RDMA_WRITE | VIA_ADMIN_VI_RDMA_READ)

_Static_assert(VIA_ADMIN_MAX_VI <= 65536, "VI ids are 16 bits in the table");
_Static_assert(VIA_ADMIN_MAX_PTAGS <= 256, "a ptag is 16 bits");
_Static_assert((FW_RELIABILITY_LEVEL_SUPPORT & ~7u) == 0 && (FW_RDMA_READ_SUPPORT & ~FW_RELIABILITY_LEVEL_SUPPORT) == 0,
               "support masks");
_Static_assert(VIA_VIP_VI_STATE_ERROR <= 3, "a state is 2 bits");

/* One VI: 8 bytes, so MAX_VI entries take 2 KiB of data memory. */
typedef struct {
    uint32_t mts;     /* MaxTransferSize */
    uint16_t ptag;    /* the ptag it holds a use of */
    uint8_t live;     /* created and not destroyed */
    uint8_t rel : 3;  /* reliability level (one bit of 1, 2, 4) */
    uint8_t flags : 2; /* VI_RDMA_WRITE | VI_RDMA_READ */
    uint8_t state : 2; /* VIA_VIP_VI_STATE_* */
} vi_t;

static vi_t vis[VIA_ADMIN_MAX_VI];
static uint32_t nvi; /* VIs that can exist (vi_init) */

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
    if (mem_ptag_hold(a.ptag) != VIA_ADMIN_ST_OK) /* checked live above */
        return VIA_ADMIN_ST_INVALID_PTAG;
    vis[i] = (vi_t){.live = 1, .state = VIA_VIP_VI_STATE_IDLE};
    attrs_set(&vis[i], &a);
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
    /* No descriptor queue exists yet (the descriptor engine will keep
     * them): both queues are empty. */
    info->queues = VIA_ADMIN_VI_SEND_QUEUE_EMPTY | VIA_ADMIN_VI_RECV_QUEUE_EMPTY;
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
    if (mem_ptag_hold(a.ptag) != VIA_ADMIN_ST_OK)
        return VIA_ADMIN_ST_INVALID_PTAG;
    mem_ptag_release(v->ptag);
    attrs_set(v, &a);
    return VIA_ADMIN_ST_OK;
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
    v->state = state & 3;
    return VIA_ADMIN_ST_OK;
}

uint32_t vi_count(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < nvi; i++)
        n += vis[i].live;
    return n;
}

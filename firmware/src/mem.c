/* mem.c: protection tags and memory registration (see mem.h). */
#include <stdint.h>

#include "log.h"
#include "mem.h"
#include "via_fw.h"

#define PAGE_SHIFT 12
#define PAGE_MASK 0xFFFu
#define MEM_FLAGS (VIA_ADMIN_MEM_RDMA_WRITE | VIA_ADMIN_MEM_RDMA_READ)

/* MEM flags are TPT_ATTR's enable bits shifted down by 16. */
_Static_assert(VIA_FW_TPT_ATTR_RDMA_WRITE_MASK == VIA_ADMIN_MEM_RDMA_WRITE << 16, "RDMA_WRITE bit");
_Static_assert(VIA_FW_TPT_ATTR_RDMA_READ_MASK == VIA_ADMIN_MEM_RDMA_READ << 16, "RDMA_READ bit");
_Static_assert(VIA_ADMIN_MAX_PTAGS <= 256, "a ptag's index is 8 bits");
_Static_assert(MEM_MAX_REGIONS % 32 == 0 && MEM_MAX_REGIONS <= 65536, "region bitmap");

/* The ptag table: gen is the current generation of index i (never 0); the
 * ptag gen << 8 | i exists while live; uses counts the regions and VIs
 * using it. */
static struct {
    uint8_t gen;
    uint8_t live;
    uint16_t uses;
} ptags[VIA_ADMIN_MAX_PTAGS];

static uint32_t regions;                          /* TPT regions used (mem_init) */
static uint32_t region_map[MEM_MAX_REGIONS / 32]; /* bit i: region i taken */
static uint32_t total_bytes;                      /* sum of registered lengths */
static uint32_t fence_pending; /* handle whose DEREGISTER answered ST_BUSY (fence not drained), or 0 */

/* ------------------------------------------------------------ TPT access */

/* Polls TPT_STATUS until BUSY clears, at most MEM_POLL_LIMIT times; returns
 * the last status (BUSY still set if it never cleared). */
static uint32_t tpt_wait(void)
{
    uint32_t st, n = MEM_POLL_LIMIT;
    do
        st = tpt_read(VIA_FW_REG_TPT_STATUS);
    while ((st & VIA_FW_TPT_STATUS_BUSY_MASK) && --n);
    return st;
}

static int tpt_busy(uint32_t st)
{
    return (st & VIA_FW_TPT_STATUS_BUSY_MASK) != 0;
}

/* Runs op on region TPT_INDEX and waits for it. */
static uint32_t tpt_run(uint32_t op)
{
    tpt_write(VIA_FW_REG_TPT_CMD, op);
    return tpt_wait();
}

/* Checks that handle names a registered region with its current generation
 * (TPT READ, which leaves the entry in the TPT_* registers and TPT_INDEX
 * set to the region). */
static uint32_t region_check(uint32_t handle)
{
    uint32_t index = handle & 0xFFFFu, gen = handle >> 16;
    if (gen == 0 || index >= regions)
        return VIA_ADMIN_ST_INVALID_HANDLE;
    if (tpt_busy(tpt_wait()))
        return VIA_ADMIN_ST_BUSY;
    tpt_write(VIA_FW_REG_TPT_INDEX, index);
    uint32_t st = tpt_run(VIA_FW_TPT_OP_READ);
    if (tpt_busy(st))
        return VIA_ADMIN_ST_BUSY;
    if (!(st & VIA_FW_TPT_STATUS_VALID_MASK) || (st >> VIA_FW_TPT_STATUS_GEN_SHIFT) != gen)
        return VIA_ADMIN_ST_INVALID_HANDLE;
    return VIA_ADMIN_ST_OK;
}

/* ----------------------------------------------------------------- ptags */

/* The index of a live ptag, or -1 (bits 31:16 set, index out of range,
 * destroyed, or an old generation). */
static int ptag_index(uint32_t ptag)
{
    uint32_t i = ptag & 0xFFu;
    if ((ptag >> 16) != 0 || i >= VIA_ADMIN_MAX_PTAGS || !ptags[i].live || ptags[i].gen != ((ptag >> 8) & 0xFFu))
        return -1;
    return (int)i;
}

/* A region stops using ptag (as the TPT holds it: 16 bits). Guarded, so an
 * entry the firmware did not write cannot corrupt the table. */
static void ptag_unuse(uint32_t ptag)
{
    uint32_t i = ptag & 0xFFu;
    if (i < VIA_ADMIN_MAX_PTAGS && ptags[i].uses != 0)
        ptags[i].uses--;
}

uint32_t mem_create_ptag(uint32_t *ptag)
{
    for (uint32_t i = 0; i < VIA_ADMIN_MAX_PTAGS; i++)
        if (!ptags[i].live) {
            ptags[i].live = 1;
            *ptag = (uint32_t)ptags[i].gen << 8 | i;
            return VIA_ADMIN_ST_OK;
        }
    return VIA_ADMIN_ST_NO_RESOURCE;
}

uint32_t mem_destroy_ptag(uint32_t ptag)
{
    int i = ptag_index(ptag);
    if (i < 0)
        return VIA_ADMIN_ST_INVALID_PTAG;
    if (ptags[i].uses != 0)
        return VIA_ADMIN_ST_IN_USE;
    ptags[i].live = 0;
    if (++ptags[i].gen == 0)
        ptags[i].gen = 1;
    return VIA_ADMIN_ST_OK;
}

int mem_ptag_valid(uint32_t ptag)
{
    return ptag_index(ptag) >= 0;
}

uint32_t mem_ptag_hold(uint32_t ptag)
{
    int i = ptag_index(ptag);
    if (i < 0)
        return VIA_ADMIN_ST_INVALID_PTAG;
    ptags[i].uses++;
    return VIA_ADMIN_ST_OK;
}

void mem_ptag_release(uint32_t ptag)
{
    ptag_unuse(ptag);
}

/* --------------------------------------------------------------- regions */

uint32_t mem_init(uint32_t tpt_regions)
{
    for (uint32_t i = 0; i < VIA_ADMIN_MAX_PTAGS; i++) {
        ptags[i].gen = 1;
        ptags[i].live = 0;
        ptags[i].uses = 0;
    }
    for (uint32_t i = 0; i < MEM_MAX_REGIONS / 32; i++)
        region_map[i] = 0;
    total_bytes = 0;
    fence_pending = 0;
    regions = tpt_regions < MEM_MAX_REGIONS ? tpt_regions : MEM_MAX_REGIONS;
    if (regions != 0 && tpt_busy(tpt_wait()))
        fw_log("mem: TPT still busy clearing after %u polls\n", (unsigned)MEM_POLL_LIMIT);
    return regions;
}

/* Pages of [va, va+len), len > 0. */
static uint32_t pages_spanned(uint64_t va, uint32_t len)
{
    return (uint32_t)((((uint64_t)((uint32_t)va & PAGE_MASK)) + len + PAGE_MASK) >> PAGE_SHIFT);
}

uint32_t mem_register(const via_admin_reg_mem_t *r, uint32_t *handle)
{
    uint64_t va = r->va, pl = r->page_list;
    uint32_t len = r->len, flags = r->flags, pages = r->pages;

    /* The parameters on their own. */
    if (len == 0 || va + len < va || (flags & ~MEM_FLAGS) ||
        pages != pages_spanned(va, len) || (pl & 7) || pl + ((uint64_t)pages << 3) < pl)
        return VIA_ADMIN_ST_BAD_PARAM;
    int p = ptag_index(r->ptag);
    if (p < 0)
        return VIA_ADMIN_ST_INVALID_PTAG;

    /* The limits: the block size, a free region (first fit) and the byte
     * total. */
    if (len > VIA_ADMIN_MAX_REGISTER_BLOCK_BYTES)
        return VIA_ADMIN_ST_NO_RESOURCE;
    uint32_t index = 0;
    while (index < regions && region_map[index >> 5] == ~0u)
        index += 32;
    while (index < regions && (region_map[index >> 5] >> (index & 31) & 1))
        index++;
    if (index >= regions || len > VIA_ADMIN_MAX_REGISTER_BYTES - total_bytes)
        return VIA_ADMIN_ST_NO_RESOURCE;

    if (tpt_busy(tpt_wait()))
        return VIA_ADMIN_ST_BUSY;
    tpt_write(VIA_FW_REG_TPT_INDEX, index);
    tpt_write(VIA_FW_REG_TPT_VA_LO, (uint32_t)va);
    tpt_write(VIA_FW_REG_TPT_VA_HI, (uint32_t)(va >> 32));
    tpt_write(VIA_FW_REG_TPT_LEN, len);
    tpt_write(VIA_FW_REG_TPT_ATTR, r->ptag | flags << 16);
    tpt_write(VIA_FW_REG_TPT_PL_LO, (uint32_t)pl);
    tpt_write(VIA_FW_REG_TPT_PL_HI, (uint32_t)(pl >> 32));
    uint32_t st = tpt_run(VIA_FW_TPT_OP_WRITE);
    /* The entry may become valid later: keep the index reserved either way,
     * so it is never written again under a handle someone may hold. */
    region_map[index >> 5] |= 1u << (index & 31);
    if (tpt_busy(st) || !(st & VIA_FW_TPT_STATUS_VALID_MASK)) {
        fw_log("mem: TPT WRITE of region %u failed: status 0x%08x\n", (unsigned)index, (unsigned)st);
        return VIA_ADMIN_ST_BUSY;
    }
    ptags[p].uses++;
    total_bytes += len;
    *handle = (st & VIA_FW_TPT_STATUS_GEN_MASK) | index;
    return VIA_ADMIN_ST_OK;
}

uint32_t mem_deregister(uint32_t handle)
{
    /* The retry of a DEREGISTER whose fence had not drained: the region is
     * already gone; answer OK once the TPT is idle. */
    if (handle != 0 && handle == fence_pending) {
        if (tpt_busy(tpt_wait()))
            return VIA_ADMIN_ST_BUSY;
        fence_pending = 0;
        return VIA_ADMIN_ST_OK;
    }
    uint32_t s = region_check(handle);
    if (s != VIA_ADMIN_ST_OK)
        return s;
    uint32_t len = tpt_read(VIA_FW_REG_TPT_LEN);
    uint32_t ptag = via_fw_tpt_attr_ptag_get(tpt_read(VIA_FW_REG_TPT_ATTR));
    uint32_t index = handle & 0xFFFFu;

    /* INVALIDATE ends the region at once; BUSY then stays set until no DMA
     * uses a translation made before it (the fence). The bookkeeping follows
     * the entry, whether the fence drains in time or not. */
    uint32_t st = tpt_run(VIA_FW_TPT_OP_INVALIDATE);
    region_map[index >> 5] &= ~(1u << (index & 31));
    ptag_unuse(ptag);
    total_bytes -= len <= total_bytes ? len : total_bytes;
    if (tpt_busy(st)) {
        fence_pending = handle;
        fw_log("mem: deregister 0x%08x: fence not drained after %u polls\n", (unsigned)handle,
               (unsigned)MEM_POLL_LIMIT);
        return VIA_ADMIN_ST_BUSY;
    }
    return VIA_ADMIN_ST_OK;
}

uint32_t mem_query(uint32_t handle, via_admin_mem_attrs_t *a)
{
    uint32_t s = region_check(handle);
    if (s != VIA_ADMIN_ST_OK)
        return s;
    uint32_t attr = tpt_read(VIA_FW_REG_TPT_ATTR);
    a->va = (uint64_t)tpt_read(VIA_FW_REG_TPT_VA_HI) << 32 | tpt_read(VIA_FW_REG_TPT_VA_LO);
    a->len = tpt_read(VIA_FW_REG_TPT_LEN);
    a->ptag = via_fw_tpt_attr_ptag_get(attr);
    a->flags = (attr >> 16) & MEM_FLAGS;
    a->pages = pages_spanned(a->va, a->len);
    a->page_list = (uint64_t)tpt_read(VIA_FW_REG_TPT_PL_HI) << 32 | tpt_read(VIA_FW_REG_TPT_PL_LO);
    return VIA_ADMIN_ST_OK;
}

uint32_t mem_set_attrs(const via_admin_set_mem_t *m)
{
    uint32_t ptag = m->ptag, flags = m->flags;
    if (flags & ~MEM_FLAGS)
        return VIA_ADMIN_ST_BAD_PARAM;
    uint32_t s = region_check(m->handle);
    if (s != VIA_ADMIN_ST_OK)
        return s;
    int p = ptag_index(ptag);
    if (p < 0)
        return VIA_ADMIN_ST_INVALID_PTAG;
    uint32_t old = via_fw_tpt_attr_ptag_get(tpt_read(VIA_FW_REG_TPT_ATTR));
    tpt_write(VIA_FW_REG_TPT_ATTR, ptag | flags << 16);
    uint32_t st = tpt_run(VIA_FW_TPT_OP_SET_ATTR);
    if (tpt_busy(st) || !(st & VIA_FW_TPT_STATUS_VALID_MASK)) {
        fw_log("mem: TPT SET_ATTR of 0x%08x failed: status 0x%08x\n", (unsigned)m->handle, (unsigned)st);
        return VIA_ADMIN_ST_BUSY;
    }
    ptag_unuse(old);
    ptags[p].uses++;
    return VIA_ADMIN_ST_OK;
}

/* ------------------------------------------------- for the host tests only */
/* (Nothing on the core calls these: --gc-sections leaves them out.) */

uint32_t mem_total_bytes(void)
{
    return total_bytes;
}

uint32_t mem_ptag_uses(uint32_t index)
{
    return index < VIA_ADMIN_MAX_PTAGS ? ptags[index].uses : 0;
}

int mem_region_used(uint32_t index)
{
    return index < regions && (region_map[index >> 5] >> (index & 31) & 1);
}

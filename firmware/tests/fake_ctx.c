/* fake_ctx.c: the per-VI context write port model (see fake_ctx.h). */
#include <stdio.h>
#include <string.h>

#include "fake_ctx.h"
#include "via_fw.h"
#include "vi.h"

struct fake_ctx fake_ctx;

void fake_ctx_reset(uint32_t num_vi)
{
    memset(&fake_ctx, 0, sizeof fake_ctx);
    fake_ctx.num_vi = num_vi < FAKE_CTX_MAX_VI ? num_vi : FAKE_CTX_MAX_VI;
}

static void violation(const char *what, uint32_t reg)
{
    fprintf(stderr, "fake_ctx: violation: %s (register 0x%03x)\n", what, (unsigned)reg);
    fake_ctx.violations++;
}

static void apply(void)
{
    fake_ctx_entry_t *e = &fake_ctx.e[fake_ctx.pend_vi];
    uint32_t commits = e->commits + 1, resets = e->resets + fake_ctx.pend_reset;
    uint32_t q = fake_ctx.pend_reset ? 0 : e->queued;
    *e = fake_ctx.pend;
    e->commits = commits;
    e->resets = resets;
    e->queued = q;
    fake_ctx.flush_left = fake_ctx.flush_reads;
    fake_ctx.pending = 0;
}

uint32_t vi_ctx_read(uint32_t reg)
{
    switch (reg) {
    case VIA_FW_REG_VI_CTX_VI:
        return fake_ctx.vi;
    case VIA_FW_REG_VI_CTX_ATTR:
        return fake_ctx.attr;
    case VIA_FW_REG_VI_CTX_PTAG:
        return fake_ctx.ptag;
    case VIA_FW_REG_VI_CTX_MTU:
        return fake_ctx.mtu;
    case VIA_FW_REG_VI_CTX_PEER:
        return fake_ctx.peer;
    case VIA_FW_REG_VI_CTX_CMD:
        return 0;
    case VIA_FW_REG_VI_CTX_STATUS:
        fake_ctx.status_reads++;
        if (fake_ctx.busy == 0) {
            fake_ctx_entry_t *e = &fake_ctx.e[fake_ctx.vi % FAKE_CTX_MAX_VI];
            uint32_t q = e->queued;
            if (fake_ctx.flush_left > fake_ctx.flush_reads)
                fake_ctx.flush_left = fake_ctx.flush_reads;
            if (q && e->state == VIA_FW_VI_CTX_STATE_ERROR && fake_ctx.flush_reads != FAKE_CTX_FLUSH_NEVER &&
                (fake_ctx.flush_left <= 1 || --fake_ctx.flush_left == 0)) {
                e->queued = 0;
                fake_ctx.flushes++;
                fake_ctx.flush_left = fake_ctx.flush_reads;
            }
            return ((q & 1u) ? VIA_FW_VI_CTX_STATUS_SEND_QUEUED_MASK : 0) |
                   ((q & 2u) ? VIA_FW_VI_CTX_STATUS_RECV_QUEUED_MASK : 0);
        }
        if (fake_ctx.busy != FAKE_CTX_BUSY_FOREVER && --fake_ctx.busy == 0 && fake_ctx.pending)
            apply();
        return VIA_FW_VI_CTX_STATUS_BUSY_MASK;
    default:
        violation("read of an unknown register", reg);
        return 0;
    }
}

#define ATTR_FIELDS                                                                                \
    (VIA_FW_VI_CTX_ATTR_ENABLE_MASK | VIA_FW_VI_CTX_ATTR_RESET_Q_MASK | VIA_FW_VI_CTX_ATTR_STATE_MASK | \
     VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK | VIA_FW_VI_CTX_ATTR_RDMA_READ_MASK |                      \
     VIA_FW_VI_CTX_ATTR_RELIABLE_MASK)

void vi_ctx_write(uint32_t reg, uint32_t v)
{
    uint32_t *r = 0, mask = 0xFFFFu;
    switch (reg) {
    case VIA_FW_REG_VI_CTX_VI:
        r = &fake_ctx.vi;
        break;
    case VIA_FW_REG_VI_CTX_ATTR:
        r = &fake_ctx.attr;
        mask = ATTR_FIELDS;
        break;
    case VIA_FW_REG_VI_CTX_PTAG:
        r = &fake_ctx.ptag;
        break;
    case VIA_FW_REG_VI_CTX_MTU:
        r = &fake_ctx.mtu;
        mask = 0xFFFFFFFFu;
        break;
    case VIA_FW_REG_VI_CTX_PEER:
        r = &fake_ctx.peer;
        mask = VIA_FW_VI_CTX_PEER_PEER_MASK | VIA_FW_VI_CTX_PEER_NODE_MASK;
        break;
    case VIA_FW_REG_VI_CTX_CMD:
        if (v != VIA_FW_VI_CTX_CMD_COMMIT_MASK)
            violation("VI_CTX_CMD other than COMMIT", reg);
        if (fake_ctx.busy != 0) {
            violation("commit while BUSY (ignored)", reg);
            return;
        }
        if (fake_ctx.vi >= fake_ctx.num_vi)
            violation("commit of a VI index >= NUM_VI", reg);
        fake_ctx.commits++;
        fake_ctx.pend = (fake_ctx_entry_t){
            .enable = (fake_ctx.attr & VIA_FW_VI_CTX_ATTR_ENABLE_MASK) != 0,
            .state = (uint8_t)via_fw_vi_ctx_attr_state_get(fake_ctx.attr),
            .rdma_write = (fake_ctx.attr & VIA_FW_VI_CTX_ATTR_RDMA_WRITE_MASK) != 0,
            .rdma_read = (fake_ctx.attr & VIA_FW_VI_CTX_ATTR_RDMA_READ_MASK) != 0,
            .reliable = (fake_ctx.attr & VIA_FW_VI_CTX_ATTR_RELIABLE_MASK) != 0,
            .attr = fake_ctx.attr,
            .ptag = (uint16_t)fake_ctx.ptag,
            .peer = (uint16_t)via_fw_vi_ctx_peer_peer_get(fake_ctx.peer),
            .peer_node = (uint8_t)via_fw_vi_ctx_peer_node_get(fake_ctx.peer),
            .mtu = fake_ctx.mtu,
        };
        fake_ctx.pend_vi = fake_ctx.vi % FAKE_CTX_MAX_VI;
        fake_ctx.pend_reset = (fake_ctx.attr & VIA_FW_VI_CTX_ATTR_RESET_Q_MASK) != 0;
        fake_ctx.pending = 1;
        if (fake_ctx.stick_after != 0 && --fake_ctx.stick_after == 0)
            fake_ctx.cmd_busy = FAKE_CTX_BUSY_FOREVER;
        fake_ctx.busy = fake_ctx.cmd_busy;
        if (fake_ctx.busy == 0)
            apply();
        return;
    default:
        violation("store to an unknown register", reg);
        return;
    }
    if (v & ~mask)
        violation("store of bits outside the fields", reg);
    *r = v & mask;
}

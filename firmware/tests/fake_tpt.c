/* fake_tpt.c: the TPT model of fake_tpt.h. */
#include <stdio.h>
#include <string.h>

#include "fake_tpt.h"
#include "mem.h"
#include "via_fw.h"

struct fake_tpt fake;

void fake_tpt_clear_record(void)
{
    memset(fake.ops, 0, sizeof fake.ops);
    fake.log_n = 0;
    fake.status_reads = 0;
}

void fake_tpt_reset(uint32_t regions, uint32_t boot_busy)
{
    memset(&fake, 0, sizeof fake);
    fake.regions = regions;
    for (uint32_t i = 0; i < FAKE_TPT_MAX_REGIONS; i++)
        fake.e[i].gen = 1;
    fake.busy = boot_busy;
    fake.cmd_busy = 2;
    fake.fence_busy = 5;
}

static void violation(const char *what, uint32_t reg)
{
    fake.violations++;
    fprintf(stderr, "fake_tpt: violation: %s (register 0x%03x)\n", what, reg);
}

static void run(uint32_t op)
{
    uint32_t i = fake.index & (fake.regions - 1);
    fake_entry_t *e = &fake.e[i];
    if (op < 8)
        fake.ops[op]++;
    fake.log_op[fake.log_n++ % FAKE_LOG_MAX] = op << 16 | i;
    fake.busy = fake.cmd_busy;
    switch (op) {
    case VIA_FW_TPT_OP_WRITE:
        if (e->valid)
            violation("WRITE over a valid entry", VIA_FW_REG_TPT_CMD);
        e->va = (uint64_t)fake.va_hi << 32 | fake.va_lo;
        e->len = fake.len;
        e->attr = fake.attr & 0x3FFFFu;
        e->pl = (uint64_t)fake.pl_hi << 32 | fake.pl_lo;
        e->valid = !fake.fail_write;
        fake.st_valid = e->valid;
        fake.st_gen = e->gen;
        break;
    case VIA_FW_TPT_OP_SET_ATTR:
        if (!e->valid)
            violation("SET_ATTR of an invalid entry", VIA_FW_REG_TPT_CMD);
        else
            e->attr = fake.attr & 0x3FFFFu;
        fake.st_valid = e->valid;
        fake.st_gen = 0xBAD0; /* not reported */
        break;
    case VIA_FW_TPT_OP_INVALIDATE:
        e->valid = 0;
        if (++e->gen == 0)
            e->gen = 1;
        fake.st_valid = 0;
        fake.st_gen = 0xBAD1;
        fake.busy = fake.fence_busy;
        break;
    case VIA_FW_TPT_OP_READ:
        fake.va_lo = (uint32_t)e->va;
        fake.va_hi = (uint32_t)(e->va >> 32);
        fake.len = e->len;
        fake.attr = e->attr;
        fake.pl_lo = (uint32_t)e->pl;
        fake.pl_hi = (uint32_t)(e->pl >> 32);
        fake.st_valid = e->valid;
        fake.st_gen = e->gen;
        break;
    default:
        violation("unknown TPT op", VIA_FW_REG_TPT_CMD);
        break;
    }
}

static uint32_t *reg_ptr(uint32_t reg)
{
    switch (reg) {
    case VIA_FW_REG_TPT_INDEX: return &fake.index;
    case VIA_FW_REG_TPT_VA_LO: return &fake.va_lo;
    case VIA_FW_REG_TPT_VA_HI: return &fake.va_hi;
    case VIA_FW_REG_TPT_LEN: return &fake.len;
    case VIA_FW_REG_TPT_ATTR: return &fake.attr;
    case VIA_FW_REG_TPT_PL_LO: return &fake.pl_lo;
    case VIA_FW_REG_TPT_PL_HI: return &fake.pl_hi;
    default: return NULL;
    }
}

uint32_t tpt_read(uint32_t reg)
{
    if (reg == VIA_FW_REG_TPT_STATUS) {
        fake.status_reads++;
        uint32_t busy = fake.busy != 0;
        if (fake.busy != 0 && fake.busy != FAKE_BUSY_FOREVER)
            fake.busy--;
        /* While BUSY the other fields are not meaningful: garbage. */
        if (busy)
            return 0xDEAD0000u | VIA_FW_TPT_STATUS_VALID_MASK | VIA_FW_TPT_STATUS_BUSY_MASK;
        return fake.st_gen << VIA_FW_TPT_STATUS_GEN_SHIFT | fake.st_valid << VIA_FW_TPT_STATUS_VALID_SHIFT;
    }
    uint32_t *p = reg_ptr(reg);
    if (p == NULL) {
        violation("read of an unknown register", reg);
        return 0;
    }
    if (fake.busy != 0) {
        violation("register read while BUSY", reg);
        return 0xDEADBEEFu;
    }
    return *p;
}

void tpt_write(uint32_t reg, uint32_t v)
{
    if (fake.busy != 0) {
        violation("register write while BUSY", reg);
        return;
    }
    if (reg == VIA_FW_REG_TPT_CMD) {
        run(v & VIA_FW_TPT_CMD_OP_MASK);
        return;
    }
    uint32_t *p = reg_ptr(reg);
    if (p == NULL) {
        violation("write of an unknown register", reg);
        return;
    }
    *p = v;
}

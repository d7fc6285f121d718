/* fake_tpt.h: a model of the TPT as the firmware sees it through the TPT_*
 * registers of its peripheral window (rtl/layouts/fw.layout), for the host
 * tests. It implements mem.h's tpt_read/tpt_write: the entry registers, the
 * commands (WRITE, SET_ATTR, INVALIDATE with its fence, READ), the region
 * entries with their generations (1 after reset, skipping 0, incremented
 * by INVALIDATE) and BUSY. It records every command and counts what the
 * firmware must never do (a violation): a register access other than a
 * TPT_STATUS read while BUSY, a WRITE over a valid entry, a SET_ATTR of an
 * invalid one, an unknown register or op. Results the firmware must not
 * use (GEN after SET_ATTR or INVALIDATE) read as garbage. */
#ifndef FW_TEST_FAKE_TPT_H
#define FW_TEST_FAKE_TPT_H

#include <stdint.h>

#define FAKE_TPT_MAX_REGIONS 8192u
#define FAKE_BUSY_FOREVER 0xFFFFFFFFu
#define FAKE_LOG_MAX 64u

typedef struct {
    uint64_t va, pl;
    uint32_t len, attr;
    uint16_t gen;
    uint8_t valid;
} fake_entry_t;

struct fake_tpt {
    uint32_t regions; /* power of two; TPT_INDEX bits above are ignored */
    fake_entry_t e[FAKE_TPT_MAX_REGIONS];

    /* Registers. */
    uint32_t index, va_lo, va_hi, len, attr, pl_lo, pl_hi;
    uint32_t st_valid, st_gen;

    /* BUSY: the next `busy` TPT_STATUS reads answer BUSY (FAKE_BUSY_FOREVER:
     * all of them). Each command sets it to cmd_busy, INVALIDATE to
     * fence_busy (the fence). */
    uint32_t busy, cmd_busy, fence_busy;
    int fail_write; /* WRITE leaves the entry invalid (broken hardware) */

    /* What happened. */
    uint32_t ops[8];               /* commands run, by TPT_OP */
    uint32_t log_op[FAKE_LOG_MAX]; /* the last commands: op << 16 | index */
    uint32_t log_n;                /* commands run in all */
    uint32_t status_reads;
    uint32_t violations;
};

extern struct fake_tpt fake;

/* After a NIC reset: every entry invalid with generation 1, BUSY for
 * boot_busy status reads (the TPT clears itself). */
void fake_tpt_reset(uint32_t regions, uint32_t boot_busy);

/* Clears the record (ops, log, status_reads), not the entries. */
void fake_tpt_clear_record(void);

#endif /* FW_TEST_FAKE_TPT_H */

/* mem.h: protection tags and memory registration (docs/admin.md: the
 * CREATE_PTAG .. SET_MEM_ATTRS commands). The firmware keeps the bookkeeping
 * (ptag table, which TPT regions are in use, the registered byte total) and
 * programs the translation and protection table (TPT) through the TPT_*
 * registers of its peripheral window. Every register access goes through
 * tpt_read/tpt_write, which main.c implements with MMIO and the host tests
 * (tests/fake_tpt.c) with a model of the TPT, so this is pure logic.
 *
 * Handles and ptags (the fixed design of issue 8):
 *   memory handle = TPT generation[15:0] << 16 | region index[15:0]; the TPT
 *                   keeps the generations (from 1 after reset, skipping 0,
 *                   incremented by INVALIDATE), so a handle is current iff
 *                   READ says VALID and the same GEN.
 *   ptag          = generation[7:0] << 8 | index[7:0], index < MAX_PTAGS;
 *                   kept here (from 1, skipping 0, incremented on destroy).
 *
 * Every function returns an admin status (VIA_ADMIN_ST_*) and writes its
 * output only on ST_OK. ST_BUSY means the TPT did not finish a command
 * within MEM_POLL_LIMIT status reads (after a DEREGISTER: the fence has not
 * drained yet; retrying the same DEREGISTER answers ST_OK once it has). */
#ifndef FW_MEM_H
#define FW_MEM_H

#include <stdint.h>

#include "via_admin.h"

/* Regions the firmware's in-use bitmap covers (512 bytes of data memory): a
 * TPT built with more regions is used up to this many. */
#define MEM_MAX_REGIONS 4096u

/* TPT_STATUS reads before a command counts as stuck. One poll is ten
 * instructions, about 20 cycles on via_cpu, so this is about 330,000 cycles:
 * far more than any fence needs (the DMA in flight under the old
 * translation), and well below the driver's admin timeout (1,000,000
 * cycles), even with a second wait in the same command. */
#define MEM_POLL_LIMIT 16384u

/* mem_init empties the tables (every ptag destroyed, no region registered),
 * waits for the TPT to finish clearing itself after reset (BUSY; a TPT that
 * stays busy is logged, and commands then answer ST_BUSY until it is idle)
 * and returns how many regions registration uses: min(tpt_regions,
 * MEM_MAX_REGIONS), what QUERY_NIC reports as MAX_REGISTER_REGIONS (0: no
 * TPT; nothing touches its registers, REGISTER_MEM says NO_RESOURCE). The
 * firmware only starts after a NIC reset, which invalidates every TPT entry,
 * so empty tables are the TPT's state too. */
uint32_t mem_init(uint32_t tpt_regions);

/* CREATE_PTAG: OK with the lowest free index; NO_RESOURCE when all
 * MAX_PTAGS exist. */
uint32_t mem_create_ptag(uint32_t *ptag);
/* DESTROY_PTAG: INVALID_PTAG (bits 31:16 set, index >= MAX_PTAGS, not
 * created, or an old generation), IN_USE while a region or a VI has it. */
uint32_t mem_destroy_ptag(uint32_t ptag);
/* REGISTER_MEM, checked in this order: BAD_PARAM (LEN 0 or over
 * MAX_REGISTER_BLOCK_BYTES, VA+LEN overflowing 64 bits, FLAGS reserved
 * bits, PAGES not the pages [VA, VA+LEN) spans, PAGE_LIST not 8-byte
 * aligned or PAGE_LIST + 8*PAGES overflowing), INVALID_PTAG, NO_RESOURCE
 * (no free region, or MAX_REGISTER_BYTES exceeded), BUSY (TPT stuck). */
uint32_t mem_register(const via_admin_reg_mem_t *r, uint32_t *handle);
/* DEREGISTER_MEM: INVALID_HANDLE unless the handle is current (generation
 * 0, index out of range, not registered, deregistered or re-registered
 * since); OK once the fence has drained; BUSY if it did not in time. */
uint32_t mem_deregister(uint32_t handle);
/* QUERY_MEM: INVALID_HANDLE as above; OK with the entry as the TPT holds it. */
uint32_t mem_query(uint32_t handle, via_admin_mem_attrs_t *a);
/* SET_MEM_ATTRS: BAD_PARAM (FLAGS reserved bits), INVALID_HANDLE,
 * INVALID_PTAG; OK moves the region's use from its old ptag to the new. */
uint32_t mem_set_attrs(const via_admin_set_mem_t *s);

/* mem_ptag_valid: the ptag exists. A VI (vi.c) takes a use of a live ptag (ST_OK; INVALID_PTAG if it is
 * none), and gives it back; DESTROY_PTAG answers IN_USE while any region or
 * VI uses the ptag. */
int mem_ptag_valid(uint32_t ptag);
uint32_t mem_ptag_hold(uint32_t ptag);
void mem_ptag_release(uint32_t ptag);

/* The firmware's bookkeeping, for the host tests' consistency checks
 * (mem_ptag_uses counts regions and VIs). */
uint32_t mem_total_bytes(void);
uint32_t mem_ptag_uses(uint32_t index);
int mem_region_used(uint32_t index);

/* The hardware: a TPT register of the peripheral window (VIA_FW_REG_TPT_*). */
uint32_t tpt_read(uint32_t reg);
void tpt_write(uint32_t reg, uint32_t v);

#endif /* FW_MEM_H */

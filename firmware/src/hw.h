/* hw.h: the only code that touches the control processor's peripheral
 * window. Offsets, fields and constants all come from the generated headers
 * (include/via_fw.h for the window, include/via_bar0.h for the read-only
 * BAR0 view); nothing here knows an address of its own except through them.
 * Every access is one aligned 32-bit volatile load or store: the window
 * decodes words, and the admin windows and the BAR0 view are word arrays. */
#ifndef FW_HW_H
#define FW_HW_H

#include <stdint.h>

#include "via_bar0.h"
#include "via_fw.h"

/* A register of the peripheral window (VIA_FW_REG_*). */
static inline uint32_t hw_read(uint32_t reg)
{
    return *(volatile const uint32_t *)(uintptr_t)(VIA_FW_BASE + VIA_FW_REGS_BASE + reg);
}

static inline void hw_write(uint32_t reg, uint32_t v)
{
    *(volatile uint32_t *)(uintptr_t)(VIA_FW_BASE + VIA_FW_REGS_BASE + reg) = v;
}

/* A BAR0 global register (VIA_REG_*) through the firmware's read-only view. */
static inline uint32_t hw_bar0_read(uint32_t reg)
{
    return *(volatile const uint32_t *)(uintptr_t)(VIA_FW_BASE + VIA_FW_BAR0_BASE + reg);
}

/* Word i of the host's admin command (read-only to the firmware). */
static inline uint32_t hw_admin_cmd_word(uint32_t i)
{
    return *(volatile const uint32_t *)(uintptr_t)(VIA_FW_BASE + VIA_FW_ADMIN_CMD_WIN_BASE + 4u * i);
}

/* Word i of the admin response the host reads after ADMIN_COMPLETE. */
static inline void hw_admin_rsp_word(uint32_t i, uint32_t v)
{
    *(volatile uint32_t *)(uintptr_t)(VIA_FW_BASE + VIA_FW_ADMIN_RSP_WIN_BASE + 4u * i) = v;
}

/* Sleeps until the event FIFO is not empty (returns at once if it already
 * is not: WFI is level-sensitive, so an event that arrives between reading
 * EVENT and WFI is not lost). */
static inline void hw_wait_for_event(void)
{
    __asm__ volatile("wfi" ::: "memory");
}

#endif /* FW_HW_H */

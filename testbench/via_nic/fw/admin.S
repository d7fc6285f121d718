// tb_via_nic test firmware: the admin mailbox path.
//
// Boot: logs "boot", then what it reads through the BAR0 view: MAGIC,
// CAP_CPU, FW_LOG_LEVEL (3: the words logged so far, not cleared) and
// FW_LOG (the head word "boot", not popped); sets READY to 0x56460102.
// Then, forever: WFI, pop an event;
//   EV_ADMIN: copy the 64 words of ADMIN_CMD into ADMIN_RSP, log CMD word 0,
//             and if CMD word 1 is not zero arm the timer for TIME + word 1
//             cycles; write ADMIN_COMPLETE;
//   EV_TIMER: log "timr".
#include "via_fw.h"   // generated from rtl/layouts/fw.layout
#include "via_bar0.h" // generated from rtl/layouts/bar0.layout

    .section .text.init
    .globl _start
_start:
    li      s0, VIA_FW_BASE
    li      s1, VIA_FW_BASE + VIA_FW_BAR0_BASE
    li      s2, VIA_FW_BASE + VIA_FW_ADMIN_CMD_WIN_BASE
    li      t0, 0x746f6f62          // "boot"
    sw      t0, VIA_FW_REG_LOG(s0)
    lw      t0, VIA_REG_MAGIC(s1)
    sw      t0, VIA_FW_REG_LOG(s0)
    lw      t0, VIA_REG_CAP_CPU(s1)
    sw      t0, VIA_FW_REG_LOG(s0)
    lw      t0, VIA_REG_FW_LOG_LEVEL(s1)
    sw      t0, VIA_FW_REG_LOG(s0)
    lw      t0, VIA_REG_FW_LOG(s1)
    sw      t0, VIA_FW_REG_LOG(s0)
    li      t0, 0x56460102
    sw      t0, VIA_FW_REG_READY(s0)

idle:
    wfi
next:
    lw      t1, VIA_FW_REG_EVENT(s0)
    andi    t1, t1, 0xff
    beqz    t1, idle
    li      t2, VIA_FW_EV_ADMIN
    beq     t1, t2, admin
    li      t2, VIA_FW_EV_TIMER
    beq     t1, t2, timer
    j       next

admin:
    li      a0, VIA_FW_BASE + VIA_FW_ADMIN_CMD_WIN_BASE
    li      a1, VIA_FW_BASE + VIA_FW_ADMIN_RSP_WIN_BASE
    li      a2, 64
1:  lw      t0, 0(a0)
    sw      t0, 0(a1)
    addi    a0, a0, 4
    addi    a1, a1, 4
    addi    a2, a2, -1
    bnez    a2, 1b
    lw      t0, 0(s2)
    sw      t0, VIA_FW_REG_LOG(s0)
    lw      t1, 4(s2)
    beqz    t1, 2f
    lw      t2, VIA_FW_REG_TIME_LO(s0)       // latches TIME_HI
    lw      t3, VIA_FW_REG_TIME_HI(s0)
    add     t4, t2, t1
    sltu    t5, t4, t2
    add     t3, t3, t5
    sw      t4, VIA_FW_REG_TIMER_CMP_LO(s0)
    sw      t3, VIA_FW_REG_TIMER_CMP_HI(s0)
    li      t0, 1
    sw      t0, VIA_FW_REG_TIMER_CTRL(s0)
2:  sw      zero, VIA_FW_REG_ADMIN_COMPLETE(s0)
    j       next

timer:
    li      t0, 0x726d6974          // "timr"
    sw      t0, VIA_FW_REG_LOG(s0)
    j       next

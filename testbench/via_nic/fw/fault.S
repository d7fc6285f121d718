// tb_via_nic test firmware: a firmware fault. Logs "flt!", sets READY, then
// executes an all-ones word (illegal instruction: the core halts with
// mcause 2, mepc its address, mtval 0xffffffff).
#include "via_fw.h"   // generated from rtl/layouts/fw.layout
#include "via_bar0.h" // generated from rtl/layouts/bar0.layout

    .section .text.init
    .globl _start
_start:
    li      s0, VIA_FW_BASE
    li      t0, 0x21746c66          // "flt!"
    sw      t0, VIA_FW_REG_LOG(s0)
    li      t0, 0x56460001
    sw      t0, VIA_FW_REG_READY(s0)
    .word   0xffffffff
    j       _start

/* fault.S: the driver's firmware-fault test image (image/fault-test.bin).
 * Boots like the real firmware (header, READY with the same version, one
 * log line), sleeps in WFI, and on the first ADMIN event executes an illegal
 * instruction at the fixed address FAULT_PC (0x100): the core halts with
 * CPU_TRAP_CAUSE 2, CPU_TRAP_PC 0x100 and CPU_TRAP_VAL 0xc0001073 (unimp,
 * a write to the read-only cycle CSR), and the host sees FW_FAULT. Other
 * events are popped and ignored. No stack, no data memory. */
#include "test_image.h"

    IMAGE_HEADER FW_IMAGE_KIND_FAULT_TEST
    WRITE_READY
    LOG_WORDS msg, msg_end

    li      s0, VIA_FW_BASE
wait:
    lw      a0, VIA_FW_REG_EVENT(s0)
    andi    a0, a0, VIA_FW_EVENT_CODE_MASK
    li      a1, VIA_FW_EV_ADMIN
    beq     a0, a1, fault
    bnez    a0, wait            /* another event: drop it, look again */
    wfi
    j       wait

    .balign 4, 0
msg:
    .ascii  "fault-test: illegal instruction on the next admin command\n"
    .balign 4, 0
msg_end:

    .org    0x100
fault:
    unimp

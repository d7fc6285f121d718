/* hang.S: the driver's watchdog test image (image/hang-test.bin): a
 * firmware that boots normally (header, READY with the real version, one
 * log line) and then stops answering. It pops every event and drops it, and
 * sleeps in WFI in between: the core is neither halted (no FW_FAULT) nor
 * spinning, CPU_STATUS shows WFI, and an admin command stays BUSY forever,
 * so only the driver's admin timeout can notice. Popping matters: WFI wakes
 * while the event FIFO is not empty, so a firmware that never popped would
 * spin through WFI instead of sleeping, and the simulator's idle skip would
 * not apply to the wait. No stack, no data memory. */
#include "test_image.h"

    IMAGE_HEADER FW_IMAGE_KIND_HANG_TEST
    WRITE_READY
    LOG_WORDS msg, msg_end

    li      s0, VIA_FW_BASE
idle:
    lw      a0, VIA_FW_REG_EVENT(s0)    /* pop and forget */
    wfi
    j       idle

    .balign 4, 0
msg:
    .ascii  "hang-test: ignoring every event from now on\n"
    .balign 4, 0
msg_end:

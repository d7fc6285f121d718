/* start.S: reset entry of the firmware image. The core starts at address 0
 * with no stack and uninitialised data memory (the memories are not reset).
 * The image header (version.h) follows the first jump. */
#include "version.h"

    .section .text.init, "ax"
    .globl _start
_start:
    j       reset
    .word   FW_IMAGE_MAGIC
    .word   FW_VERSION
    .word   FW_IMAGE_KIND_FIRMWARE

reset:
    la      sp, _stack_top
    /* .data: copy its initial values from instruction memory (loads may
     * read it) into data memory. Both ends are word aligned (link.ld). */
    la      t0, _data_load
    la      t1, _data_start
    la      t2, _data_end
1:  bgeu    t1, t2, 2f
    lw      t3, 0(t0)
    sw      t3, 0(t1)
    addi    t0, t0, 4
    addi    t1, t1, 4
    j       1b
    /* .bss: zero. */
2:  la      t1, _bss_start
    la      t2, _bss_end
3:  bgeu    t1, t2, 4f
    sw      zero, 0(t1)
    addi    t1, t1, 4
    j       3b
4:  call    main
    /* main does not return; if it ever does, sleep rather than run off
     * into whatever follows (the driver still sees FW_READY and no answers). */
5:  wfi
    j       5b

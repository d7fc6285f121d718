/* test_image.h: what the driver's test images (fault.S, hang.S) share with
 * the real firmware: the image header, READY and a log line. Register
 * offsets come from the generated include/via_fw.h, which assembly can
 * include. */
#include "version.h"
#include "via_fw.h"

/* The four header words of version.h, then falls through to the body. */
.macro IMAGE_HEADER kind
    .section .text.init, "ax"
    .globl _start
_start:
    j       1f
    .word   FW_IMAGE_MAGIC
    .word   FW_VERSION
    .word   \kind
1:
.endm

/* READY = magic << 16 | version, as main.c writes it; clobbers t0, t1. */
.macro WRITE_READY
    li      t0, VIA_FW_BASE
    li      t1, (VIA_FW_READY_MAGIC_VALUE << 16) | FW_VERSION
    sw      t1, VIA_FW_REG_READY(t0)
.endm

/* Writes the words from \start to \end (a zero-padded, word-aligned text)
 * to LOG; clobbers t0..t3. */
.macro LOG_WORDS start, end
    li      t0, VIA_FW_BASE
    la      t1, \start
    la      t2, \end
2:  bgeu    t1, t2, 3f
    lw      t3, 0(t1)
    sw      t3, VIA_FW_REG_LOG(t0)
    addi    t1, t1, 4
    j       2b
3:
.endm

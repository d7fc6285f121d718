// FENCE (a no-op), WFI (waits for irq_wake; the bench's WAKE register
// raises it a given number of cycles after a write), x0 hard-wired to 0.
#include "test.h"

TEST_PASS_HEADER

    li  TESTNUM, 1
    li  a0, 7
    fence
    fence rw, rw
    fence iorw, iorw
    fence.tso
    fence w, r
    CHECK(a0, 7)

    // WFI with irq_wake already high (WAKE 0): falls through
    li  TESTNUM, 2
    li  s0, PER_BASE
    sw  zero, 16(s0)
    lw  a0, 20(s0)
    wfi
    lw  a1, 20(s0)
    sub a2, a1, a0
    li  t0, 200
    bgeu a2, t0, fail

    // WFI waits: wake 300 cycles after the write
    li  TESTNUM, 3
    li  t0, 300
    sw  t0, 16(s0)
    lw  a0, 20(s0)
    wfi
    lw  a1, 20(s0)
    sub a2, a1, a0
    li  t0, 290
    bltu a2, t0, fail
    rdinstret a3                 // WFI retired exactly once
    li  TESTNUM, 4
    li  t0, 1000
    sw  t0, 16(s0)
    rdinstret a0
    wfi
    rdinstret a1
    sub a2, a1, a0
    CHECK(a2, 2)

    // x0 ignores writes from every kind of instruction
    li  TESTNUM, 5
    li  a1, 0x10000100
    li  a2, -1
    sw  a2, 0(a1)
    lui  x0, 0xFFFFF
    auipc x0, 1
    addi x0, a2, 1
    add  x0, a2, a2
    lw   x0, 0(a1)
    csrr x0, mscratch
    jal  x0, 1f
1:  mv  a0, x0
    CHECK(a0, 0)
    add a0, x0, x0
    CHECK(a0, 0)

TEST_END

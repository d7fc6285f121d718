// The peripheral port: word and sub-word accesses with random ready delays
// (the bench's model), back-to-back accesses, the console, the bench's
// cycle counter.
#include "test.h"

TEST_PASS_HEADER

    li  s0, PER_BASE
    li  TESTNUM, 1
    lw  a0, 12(s0)               // PER_ID
    CHECK(a0, PER_ID_VALUE)

    // many back-to-back accesses with changing data
    li  TESTNUM, 2
    li  s1, 64
    li  a1, 0x01234567
1:  sw  a1, 8(s0)                // SCRATCH
    lw  a0, 8(s0)
    bne a0, a1, fail
    lw  a2, 12(s0)
    CHECK(a2, PER_ID_VALUE)
    slli a2, a1, 1
    srli a1, a1, 31
    or  a1, a1, a2               // rotate left by 1
    addi s1, s1, -1
    bnez s1, 1b

    // the bench's cycle counter advances
    li  TESTNUM, 3
    lw  a0, 20(s0)
    lw  a1, 20(s0)
    bgeu a0, a1, fail

    // console: a string, byte by byte
    li  TESTNUM, 4
    la  a1, message
2:  lbu a2, 0(a1)
    beqz a2, 3f
    sb  a2, 4(s0)
    addi a1, a1, 1
    j   2b
3:

    // a load from the peripheral followed by a store to data memory and a
    // load back: the data path from per_rdata
    li  TESTNUM, 5
    li  s1, DMEM_BASE + 0x40
    lw  a0, 12(s0)
    sw  a0, 0(s1)
    lw  a0, 0(s1)
    CHECK(a0, PER_ID_VALUE)

TEST_END

    .section .rodata
message:
    .string "periph: hello from via_cpu\n"

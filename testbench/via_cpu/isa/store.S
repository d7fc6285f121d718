// SB SH SW into data memory and the peripheral window: byte and halfword
// merging into a word at every position, only the low bits of rs2 stored,
// negative offsets, rs1 == rs2, x0 as data, first and last words.
#include "test.h"

#define PRESET(base, off, val) li t0, val; sw t0, off(base)

TEST_PASS_HEADER

    li  s0, DMEM_BASE + 0x200

    li  TESTNUM, 1
    li  a1, 0x12345678
    sw  a1, 0(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x12345678)
    sw  zero, 4(s0)
    lw  a0, 4(s0)
    CHECK(a0, 0)

    // SB into each lane of 0x11223344: only that byte changes
    li  TESTNUM, 2
    li  a1, 0xCAFEBAAA           // only 0xAA is stored
    PRESET(s0, 0, 0x11223344)
    sb  a1, 0(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x112233AA)
    PRESET(s0, 0, 0x11223344)
    sb  a1, 1(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x1122AA44)
    PRESET(s0, 0, 0x11223344)
    sb  a1, 2(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x11AA3344)
    PRESET(s0, 0, 0x11223344)
    sb  a1, 3(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0xAA223344)

    // SH into each half
    li  TESTNUM, 3
    li  a1, 0xFFFFCDEF           // only 0xCDEF is stored
    PRESET(s0, 0, 0x11223344)
    sh  a1, 0(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x1122CDEF)
    PRESET(s0, 0, 0x11223344)
    sh  a1, 2(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0xCDEF3344)

    // build a word byte by byte, then half by half
    li  TESTNUM, 4
    PRESET(s0, 8, 0)
    li  a1, 0x01
    sb  a1, 8(s0)
    li  a1, 0x82
    sb  a1, 9(s0)
    li  a1, 0x03
    sb  a1, 10(s0)
    li  a1, 0xF4
    sb  a1, 11(s0)
    lw  a0, 8(s0)
    CHECK(a0, 0xF4038201)
    li  a1, 0x8000
    sh  a1, 10(s0)
    lw  a0, 8(s0)
    CHECK(a0, 0x80008201)
    lh  a0, 10(s0)
    CHECK(a0, 0xFFFF8000)

    // neighbours untouched
    li  TESTNUM, 5
    PRESET(s0, 16, 0xAAAAAAAA)
    PRESET(s0, 20, 0xBBBBBBBB)
    PRESET(s0, 24, 0xCCCCCCCC)
    li  a1, 0
    sb  a1, 23(s0)
    sh  a1, 20(s0)
    lw  a0, 16(s0)
    CHECK(a0, 0xAAAAAAAA)
    lw  a0, 20(s0)
    CHECK(a0, 0x00BB0000)
    lw  a0, 24(s0)
    CHECK(a0, 0xCCCCCCCC)

    // negative offsets, rs1 == rs2
    li  TESTNUM, 6
    addi s1, s0, 64
    li  a1, 0x5555AAAA
    sw  a1, -4(s1)
    lw  a0, 60(s0)
    CHECK(a0, 0x5555AAAA)
    sb  zero, -1(s1)
    lw  a0, 60(s0)
    CHECK(a0, 0x0055AAAA)
    sh  a1, -64(s1)
    lhu a0, 0(s0)
    CHECK(a0, 0xAAAA)
    li  TESTNUM, 7
    sw  s1, 0(s1)
    lw  a0, 0(s1)
    bne a0, s1, fail

    // first and last words of data memory (word 0 holds the variant)
    li  TESTNUM, 8
    li  s1, DMEM_BASE
    li  a1, 0x600DF00D
    sw  a1, 4(s1)
    lw  a0, 4(s1)
    CHECK(a0, 0x600DF00D)
    li  s1, DMEM_BASE + DMEM_BYTES
    sw  a1, -4(s1)
    sb  zero, -1(s1)
    lw  a0, -4(s1)
    CHECK(a0, 0x000DF00D)

    // peripheral scratch register honours the byte strobes
    li  s0, SCRATCH
    li  TESTNUM, 11
    li  a1, 0x11223344
    sw  a1, 0(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x11223344)
    li  TESTNUM, 12
    li  a1, 0xAA
    sb  a1, 2(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x11AA3344)
    sb  a1, 0(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0x11AA33AA)
    li  TESTNUM, 13
    li  a1, 0xBEEF
    sh  a1, 2(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0xBEEF33AA)
    sh  a1, 0(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0xBEEFBEEF)
    sb  a1, 3(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0xEFEFBEEF)
    sw  zero, 0(s0)
    lw  a0, 0(s0)
    CHECK(a0, 0)

TEST_END

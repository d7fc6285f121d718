// LUI and AUIPC: upper immediates, sign bit, wrap-around of pc + imm, x0.
#include "test.h"

#define LA_ABS(reg, sym) lui reg, %hi(sym); addi reg, reg, %lo(sym)

TEST_PASS_HEADER

    li  TESTNUM, 1
    lui a0, 0
    CHECK(a0, 0)
    li  TESTNUM, 2
    lui a0, 0xFFFFF
    CHECK(a0, 0xFFFFF000)
    li  TESTNUM, 3
    lui a0, 0x80000
    CHECK(a0, 0x80000000)
    li  TESTNUM, 4
    lui a0, 0x12345
    CHECK(a0, 0x12345000)
    li  TESTNUM, 5
    lui a0, 0x7FFFF
    addi a0, a0, 0x7FF
    CHECK(a0, 0x7FFFF7FF)
    li  TESTNUM, 6
    lui x0, 0x12345
    bnez x0, fail

    // AUIPC: pc of the auipc itself plus the immediate
    li  TESTNUM, 11
1:  auipc a0, 0
    LA_ABS(a1, 1b)
    bne a0, a1, fail
    li  TESTNUM, 12
2:  auipc a0, 1
    LA_ABS(a1, 2b + 0x1000)
    bne a0, a1, fail
    li  TESTNUM, 13
3:  auipc a0, 0xFFFFF            // pc - 0x1000, wraps below 0
    LA_ABS(a1, 3b)
    li  a2, 0x1000
    sub a1, a1, a2
    bne a0, a1, fail
    li  TESTNUM, 14
4:  auipc a0, 0x80000
    LA_ABS(a1, 4b)
    li  a2, 0x80000000
    add a1, a1, a2
    bne a0, a1, fail
    li  TESTNUM, 15
    auipc x0, 5
    bnez x0, fail
    // la (auipc + addi) reaches a label
    li  TESTNUM, 16
    la  a0, 5f
    LA_ABS(a1, 5f)
    bne a0, a1, fail
5:  nop

TEST_END

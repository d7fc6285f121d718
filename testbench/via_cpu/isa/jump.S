// JAL and JALR: link values, forward, backward and far targets (offsets
// with immediate bits 11 and 12+ set), jal x0, JALR with an odd target (bit
// 0 is cleared: no trap when the result is 4-aligned), negative offsets, rd
// equal to rs1, calls and returns.
#include "test.h"

#define LA_ABS(reg, sym) lui reg, %hi(sym); addi reg, reg, %lo(sym)

TEST_PASS_HEADER

    // JAL forward: ra = address of the next instruction
    li  TESTNUM, 1
    jal ra, 1f
2:  j   fail
1:  LA_ABS(a1, 2b)
    bne ra, a1, fail

    // JAL backward
    li  TESTNUM, 2
    li  s0, 0
    j   4f
3:  addi s0, s0, 1
    jal t0, 5f
4:  jal zero, 3b
5:  CHECK(s0, 1)
    LA_ABS(a1, 4b)
    bne t0, a1, fail

    // jal x0 writes nothing
    li  TESTNUM, 3
    jal x0, 6f
    j   fail
6:  bnez x0, fail

    // JALR to an aligned target
    li  TESTNUM, 4
    LA_ABS(t0, 7f)
    jalr ra, 0(t0)
8:  j   fail
7:  LA_ABS(a1, 8b)
    bne ra, a1, fail

    // JALR with a negative offset
    li  TESTNUM, 5
    LA_ABS(t0, 9f + 12)
    jalr ra, -12(t0)
    j   fail
9:  nop

    // JALR with odd targets whose bit-0-cleared value is 4-aligned
    li  TESTNUM, 6
    LA_ABS(t0, 10f + 1)
    jalr ra, 0(t0)
    j   fail
10: LA_ABS(t0, 11f)
    jalr ra, 1(t0)
    j   fail
11: LA_ABS(t0, 12f + 2)
    jalr ra, -1(t0)              // 12f + 1 -> 12f
    j   fail
12: nop

    // JALR with rd == rs1: the target uses the old value
    li  TESTNUM, 7
    LA_ABS(t0, 13f)
    jalr t0, 0(t0)
14: j   fail
13: LA_ABS(a1, 14b)
    bne t0, a1, fail

    // jalr x0 (ret idiom) and a call chain
    li  TESTNUM, 8
    li  a0, 5
    call func_double_plus_one     // a0 = 11
    CHECK(a0, 11)
    li  TESTNUM, 9
    li  a0, 3
    call func_nested              // a0 = 2 * (2 * 3 + 1) + 1 = 15
    CHECK(a0, 15)

    // Far: a forward branch and a backward branch over 2 KiB (imm bit 11),
    // a JAL over 4 KiB (imm bit 12) and one back.
    li  TESTNUM, 10
    li  s0, 0
    j   21f
20: addi s0, s0, 1               // reached by the far backward branch
    j   22f
21: beq zero, zero, far_fwd
    j   fail
    .fill 560, 4, 0              // illegal instructions: must not run
far_fwd:
    li  TESTNUM, 11
    bnez s0, fail
    beq zero, zero, 20b
22: CHECK(s0, 1)
    li  TESTNUM, 12
    jal ra, far_jal
far_ret:
    li  TESTNUM, 13
    CHECK(s0, 2)
    j   pass

func_double_plus_one:
    add a0, a0, a0
    addi a0, a0, 1
    jalr x0, 0(ra)

func_nested:
    mv  s1, ra
    call func_double_plus_one
    call func_double_plus_one
    mv  ra, s1
    ret

    .fill 1040, 4, 0
far_jal:
    LA_ABS(a1, far_ret)
    bne ra, a1, fail
    addi s0, s0, 1
    jal zero, far_ret

TEST_END

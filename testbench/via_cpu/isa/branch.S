// BEQ BNE BLT BGE BLTU BGEU: taken and not taken, signed against unsigned
// at 0x80000000 / 0x7FFFFFFF / 0xFFFFFFFF / 0, equal operands, x0 operands,
// backward loops, and branches with the same register twice.
#include "test.h"

TEST_PASS_HEADER

    // BEQ
    TEST_BR_TAKEN(    1, beq, 0x00000000, 0x00000000)
    TEST_BR_TAKEN(    2, beq, 0xFFFFFFFF, 0xFFFFFFFF)
    TEST_BR_TAKEN(    3, beq, 0x80000000, 0x80000000)
    TEST_BR_NOT_TAKEN(4, beq, 0x00000000, 0x00000001)
    TEST_BR_NOT_TAKEN(5, beq, 0x80000000, 0x00000000)
    TEST_BR_NOT_TAKEN(6, beq, 0xFFFFFFFF, 0x7FFFFFFF)

    // BNE
    TEST_BR_TAKEN(    11, bne, 0x00000000, 0x00000001)
    TEST_BR_TAKEN(    12, bne, 0x80000000, 0x00000000)
    TEST_BR_TAKEN(    13, bne, 0x00000001, 0x80000001)
    TEST_BR_NOT_TAKEN(14, bne, 0x00000000, 0x00000000)
    TEST_BR_NOT_TAKEN(15, bne, 0xFFFFFFFF, 0xFFFFFFFF)

    // BLT (signed)
    TEST_BR_TAKEN(    21, blt, 0x00000000, 0x00000001)
    TEST_BR_TAKEN(    22, blt, 0xFFFFFFFF, 0x00000000)   // -1 < 0
    TEST_BR_TAKEN(    23, blt, 0x80000000, 0x7FFFFFFF)   // min < max
    TEST_BR_TAKEN(    24, blt, 0x80000000, 0xFFFFFFFF)
    TEST_BR_TAKEN(    25, blt, 0xFFFFFFFE, 0xFFFFFFFF)
    TEST_BR_NOT_TAKEN(26, blt, 0x00000001, 0x00000000)
    TEST_BR_NOT_TAKEN(27, blt, 0x00000000, 0xFFFFFFFF)
    TEST_BR_NOT_TAKEN(28, blt, 0x7FFFFFFF, 0x80000000)
    TEST_BR_NOT_TAKEN(29, blt, 0x80000000, 0x80000000)   // equal
    TEST_BR_NOT_TAKEN(30, blt, 0xFFFFFFFF, 0x80000000)

    // BGE (signed)
    TEST_BR_TAKEN(    31, bge, 0x00000000, 0x00000000)   // equal
    TEST_BR_TAKEN(    32, bge, 0x00000001, 0x00000000)
    TEST_BR_TAKEN(    33, bge, 0x00000000, 0xFFFFFFFF)
    TEST_BR_TAKEN(    34, bge, 0x7FFFFFFF, 0x80000000)
    TEST_BR_TAKEN(    35, bge, 0xFFFFFFFF, 0x80000000)
    TEST_BR_NOT_TAKEN(36, bge, 0xFFFFFFFF, 0x00000000)
    TEST_BR_NOT_TAKEN(37, bge, 0x80000000, 0x7FFFFFFF)
    TEST_BR_NOT_TAKEN(38, bge, 0x80000000, 0xFFFFFFFF)

    // BLTU (unsigned)
    TEST_BR_TAKEN(    41, bltu, 0x00000000, 0x00000001)
    TEST_BR_TAKEN(    42, bltu, 0x00000000, 0xFFFFFFFF)
    TEST_BR_TAKEN(    43, bltu, 0x7FFFFFFF, 0x80000000)
    TEST_BR_TAKEN(    44, bltu, 0x80000000, 0xFFFFFFFF)
    TEST_BR_TAKEN(    45, bltu, 0xFFFFFFFE, 0xFFFFFFFF)
    TEST_BR_NOT_TAKEN(46, bltu, 0xFFFFFFFF, 0x00000000)
    TEST_BR_NOT_TAKEN(47, bltu, 0x80000000, 0x7FFFFFFF)
    TEST_BR_NOT_TAKEN(48, bltu, 0x80000000, 0x80000000)
    TEST_BR_NOT_TAKEN(49, bltu, 0x00000001, 0x00000000)

    // BGEU (unsigned)
    TEST_BR_TAKEN(    51, bgeu, 0x00000000, 0x00000000)
    TEST_BR_TAKEN(    52, bgeu, 0xFFFFFFFF, 0x00000000)
    TEST_BR_TAKEN(    53, bgeu, 0x80000000, 0x7FFFFFFF)
    TEST_BR_TAKEN(    54, bgeu, 0xFFFFFFFF, 0xFFFFFFFF)
    TEST_BR_TAKEN(    55, bgeu, 0xFFFFFFFF, 0x80000000)
    TEST_BR_NOT_TAKEN(56, bgeu, 0x00000000, 0x00000001)
    TEST_BR_NOT_TAKEN(57, bgeu, 0x7FFFFFFF, 0x80000000)
    TEST_BR_NOT_TAKEN(58, bgeu, 0x00000000, 0xFFFFFFFF)

    // x0 and identical operands
    li  TESTNUM, 61
    beq zero, zero, 1f
    j   fail
1:  bne zero, zero, fail
    blt zero, zero, fail
    bltu zero, zero, fail
    li  a1, 0x80000000
    bge a1, a1, 2f
    j   fail
2:  bgeu a1, a1, 3f
    j   fail
3:  bltz a1, 4f                  // blt a1, x0
    j   fail
4:  bgez a1, fail
    bgtz a1, fail                // blt x0, a1

    // backward branches: count down loops with each condition
    li  TESTNUM, 71
    li  a0, 10
    li  a1, 0
5:  addi a1, a1, 3
    addi a0, a0, -1
    bne a0, zero, 5b
    CHECK(a1, 30)
    li  TESTNUM, 72
    li  a0, -5
    li  a1, 0
6:  addi a1, a1, 1
    addi a0, a0, 1
    blt a0, zero, 6b
    CHECK(a1, 5)
    li  TESTNUM, 73
    li  a0, 0
    li  a2, 7
7:  addi a0, a0, 1
    bltu a0, a2, 7b
    CHECK(a0, 7)
    li  TESTNUM, 74
    li  a0, 4
8:  addi a0, a0, -1
    bge a0, zero, 8b
    CHECK(a0, -1)
    li  TESTNUM, 75
    li  a0, 0xFFFFFFF0
    li  a2, 0xFFFFFFF4
9:  addi a0, a0, 1
    bgeu a2, a0, 9b
    CHECK(a0, 0xFFFFFFF5)
    li  TESTNUM, 76
    li  a0, 3
10: addi a0, a0, -1
    beq a0, zero, 11f
    j   10b
11: CHECK(a0, 0)

TEST_END

// Register-immediate ALU instructions: ADDI SLTI SLTIU XORI ORI ANDI SLLI
// SRLI SRAI, with negative immediates, wrap-around, shift amounts 0 and 31,
// signed against unsigned comparisons, and writes to x0.
#include "test.h"

TEST_PASS_HEADER

    // ADDI
    TEST_RI( 1, addi, 0x00000000, 0x00000000,     0)
    TEST_RI( 2, addi, 0x00000002, 0x00000001,     1)
    TEST_RI( 3, addi, 0xFFFFFFFF, 0x00000000,    -1)
    TEST_RI( 4, addi, 0xFFFFF800, 0x00000000, -2048)
    TEST_RI( 5, addi, 0x000007FF, 0x00000000,  2047)
    TEST_RI( 6, addi, 0x80000000, 0x7FFFFFFF,     1)   // signed overflow wraps
    TEST_RI( 7, addi, 0x7FFFFFFF, 0x80000000,    -1)
    TEST_RI( 8, addi, 0x00000000, 0xFFFFFFFF,     1)   // unsigned wrap
    TEST_RI( 9, addi, 0x12345000, 0x12345800, -2048)
    TEST_RI(10, addi, 0xFFFFFFFE, 0xFFFFFFFF,    -1)

    // SLTI (signed)
    TEST_RI(11, slti, 0, 0x00000000,     0)
    TEST_RI(12, slti, 1, 0xFFFFFFFF,     0)    // -1 < 0
    TEST_RI(13, slti, 0, 0x00000001,    -1)
    TEST_RI(14, slti, 1, 0x80000000,    -1)
    TEST_RI(15, slti, 0, 0x7FFFFFFF, -2048)
    TEST_RI(16, slti, 1, 0x80000000,  2047)
    TEST_RI(17, slti, 1, 0x000007FE,  2047)
    TEST_RI(18, slti, 0, 0x000007FF,  2047)

    // SLTIU (immediate sign-extended, then compared unsigned)
    TEST_RI(21, sltiu, 0, 0x00000000,     0)
    TEST_RI(22, sltiu, 1, 0x00000000,     1)
    TEST_RI(23, sltiu, 1, 0x00000000,    -1)   // 0 < 0xFFFFFFFF
    TEST_RI(24, sltiu, 0, 0xFFFFFFFF,    -1)
    TEST_RI(25, sltiu, 1, 0xFFFFFFFE,    -1)
    TEST_RI(26, sltiu, 0, 0x80000000,  2047)
    TEST_RI(27, sltiu, 1, 0x7FFFFFFF, -2048)   // vs 0xFFFFF800
    TEST_RI(28, sltiu, 1, 0x00000000,     1)   // seqz idiom
    TEST_RI(29, sltiu, 0, 0x00000005,     1)

    // XORI ORI ANDI
    TEST_RI(31, xori, 0xFF00F00F, 0x00FF0F0F,  0xF00 - 0x1000)  // imm -256 = 0xFFFFFF00
    TEST_RI(32, xori, 0x0FF00F00, 0x0FF00FF0,  0x0F0)
    TEST_RI(33, xori, 0xFFFFFFFF, 0x00000000,  -1)              // not idiom
    TEST_RI(34, xori, 0x12345678, 0x12345678,  0)
    TEST_RI(35, ori,  0xFFFFFF0F, 0x00FF0F0F,  0xF00 - 0x1000)
    TEST_RI(36, ori,  0x0FF00FF0, 0x0FF00FF0,  0x0F0)
    TEST_RI(37, ori,  0x800007FF, 0x80000000,  2047)
    TEST_RI(38, andi, 0x00FF0F00, 0x00FF0F0F,  0xF00 - 0x1000)
    TEST_RI(39, andi, 0x000000F0, 0x0FF00FF0,  0x0F0)
    TEST_RI(40, andi, 0x00000000, 0xFFFFF800,  2047)
    TEST_RI(41, andi, 0xFFFFF800, 0xFFFFFFFF, -2048)

    // SLLI SRLI SRAI: shift by 0, 1, 7, 31
    TEST_RI(51, slli, 0x00000001, 0x00000001,  0)
    TEST_RI(52, slli, 0x00000002, 0x00000001,  1)
    TEST_RI(53, slli, 0x00000080, 0x00000001,  7)
    TEST_RI(54, slli, 0x80000000, 0x00000001, 31)
    TEST_RI(55, slli, 0x80000000, 0xFFFFFFFF, 31)
    TEST_RI(56, slli, 0x34567880, 0x91A2B3C4,  5)
    TEST_RI(57, slli, 0x91A2B3C4, 0x91A2B3C4,  0)

    TEST_RI(61, srli, 0x80000000, 0x80000000,  0)
    TEST_RI(62, srli, 0x40000000, 0x80000000,  1)
    TEST_RI(63, srli, 0x01000000, 0x80000000,  7)
    TEST_RI(64, srli, 0x00000001, 0x80000000, 31)
    TEST_RI(65, srli, 0x00000001, 0xFFFFFFFF, 31)
    TEST_RI(66, srli, 0x048D159E, 0x91A2B3C4,  5)

    TEST_RI(71, srai, 0x80000000, 0x80000000,  0)
    TEST_RI(72, srai, 0xC0000000, 0x80000000,  1)
    TEST_RI(73, srai, 0xFF000000, 0x80000000,  7)
    TEST_RI(74, srai, 0xFFFFFFFF, 0x80000000, 31)
    TEST_RI(75, srai, 0xFFFFFFFF, 0xFFFFFFFF, 31)
    TEST_RI(76, srai, 0xFC8D159E, 0x91A2B3C4,  5)
    TEST_RI(77, srai, 0x3FFFFFFF, 0x7FFFFFFF,  1)   // positive: zero fill
    TEST_RI(78, srai, 0x00000000, 0x7FFFFFFF, 31)

    // x0 as destination: the write is dropped
    li  TESTNUM, 81
    addi x0, x0, 5
    bnez x0, fail
    addi a0, x0, 0
    bnez a0, fail
    li  a1, 0x1234
    ori  x0, a1, 0x7FF
    xori x0, a1, -1
    slli x0, a1, 3
    sltiu x0, zero, 1
    add a0, zero, zero
    bnez a0, fail
    // x0 as source reads 0
    li  TESTNUM, 82
    addi a0, x0, -7
    CHECK(a0, -7)
    // NOP (addi x0, x0, 0) leaves everything as it was
    li  TESTNUM, 83
    li  a0, 0x55AA
    nop
    nop
    CHECK(a0, 0x55AA)

TEST_END

// LB LH LW LBU LHU from instruction memory (read-only data), data memory
// and the peripheral window: every byte and halfword position, sign
// extension of 0x80 and 0x8000 against zero extension, positive and
// negative offsets, rs1 = x0, rd == rs1, x0 as destination, the first and
// last words of data memory.
#include "test.h"

// The pattern at BASE: words 0x8001FF7F 0x7FFF8000 0x00000000 0xDEADBEEF.
#define LOAD_CHECKS(n, base)           \
    li  TESTNUM, n;                    \
    lw  a0, 0(base);   CHECK(a0, 0x8001FF7F) \
    li  TESTNUM, n + 1;                \
    lb  a0, 0(base);   CHECK(a0, 0x0000007F) \
    lb  a0, 1(base);   CHECK(a0, 0xFFFFFFFF) \
    lb  a0, 2(base);   CHECK(a0, 0x00000001) \
    lb  a0, 3(base);   CHECK(a0, 0xFFFFFF80) \
    li  TESTNUM, n + 2;                \
    lbu a0, 0(base);   CHECK(a0, 0x0000007F) \
    lbu a0, 1(base);   CHECK(a0, 0x000000FF) \
    lbu a0, 2(base);   CHECK(a0, 0x00000001) \
    lbu a0, 3(base);   CHECK(a0, 0x00000080) \
    li  TESTNUM, n + 3;                \
    lh  a0, 0(base);   CHECK(a0, 0xFFFFFF7F) \
    lh  a0, 2(base);   CHECK(a0, 0xFFFF8001) \
    lhu a0, 0(base);   CHECK(a0, 0x0000FF7F) \
    lhu a0, 2(base);   CHECK(a0, 0x00008001) \
    li  TESTNUM, n + 4;                \
    lh  a0, 4(base);   CHECK(a0, 0xFFFF8000) \
    lh  a0, 6(base);   CHECK(a0, 0x00007FFF) \
    lhu a0, 4(base);   CHECK(a0, 0x00008000) \
    lhu a0, 6(base);   CHECK(a0, 0x00007FFF) \
    lb  a0, 5(base);   CHECK(a0, 0xFFFFFF80) \
    lbu a0, 5(base);   CHECK(a0, 0x00000080) \
    lb  a0, 4(base);   CHECK(a0, 0x00000000) \
    lb  a0, 7(base);   CHECK(a0, 0x0000007F) \
    li  TESTNUM, n + 5;                \
    lw  a0, 12(base);  CHECK(a0, 0xDEADBEEF) \
    addi s1, base, 16;                 \
    lw  a0, -8(s1);    CHECK(a0, 0x00000000) \
    lw  a0, -4(s1);    CHECK(a0, 0xDEADBEEF) \
    lbu a0, -1(s1);    CHECK(a0, 0x000000DE) \
    lb  a0, -2(s1);    CHECK(a0, 0xFFFFFFAD) \
    lh  a0, -2(s1);    CHECK(a0, 0xFFFFDEAD) \
    lhu a0, -4(s1);    CHECK(a0, 0x0000BEEF) \
    li  TESTNUM, n + 6;                \
    mv  a1, base;                      \
    lw  a1, 12(a1);    CHECK(a1, 0xDEADBEEF) \
    lw  x0, 0(base);                   \
    bnez x0, fail;                     \
    lbu x0, 1(base);                   \
    bnez x0, fail;

TEST_PASS_HEADER

    // instruction memory
    la  s0, rodata
    LOAD_CHECKS(1, s0)
    // absolute addressing from x0: the header's magic word at address 4
    li  TESTNUM, 8
    lw  a0, 4(zero)
    CHECK(a0, TEST_MAGIC)
    lhu a0, 6(zero)
    CHECK(a0, TEST_MAGIC >> 16)

    // data memory: copy the pattern with word stores, then the same checks
    li  s0, DMEM_BASE + 0x100
    la  t0, rodata
    lw  t1, 0(t0)
    sw  t1, 0(s0)
    lw  t1, 4(t0)
    sw  t1, 4(s0)
    sw  zero, 8(s0)
    lw  t1, 12(t0)
    sw  t1, 12(s0)
    LOAD_CHECKS(11, s0)

    // first word (the bench's variant number, 0) and last word of data memory
    li  TESTNUM, 21
    li  a1, DMEM_BASE
    lw  a0, 0(a1)
    CHECK(a0, 0)
    li  TESTNUM, 22
    li  a1, DMEM_BASE + DMEM_BYTES - 4
    li  t0, 0x80FF7F01
    sw  t0, 0(a1)
    lw  a0, 0(a1)
    CHECK(a0, 0x80FF7F01)
    lb  a0, 3(a1)
    CHECK(a0, 0xFFFFFF80)
    lhu a0, 2(a1)
    CHECK(a0, 0x80FF)
    lb  a0, 0(a1)
    CHECK(a0, 1)

    // peripheral window: PER_ID reads 0x8BADF00D, bytes 0D F0 AD 8B
    li  s0, PER_ID
    li  TESTNUM, 31
    lw  a0, 0(s0)
    CHECK(a0, 0x8BADF00D)
    li  TESTNUM, 32
    lb  a0, 0(s0)
    CHECK(a0, 0x0000000D)
    lb  a0, 1(s0)
    CHECK(a0, 0xFFFFFFF0)
    lb  a0, 2(s0)
    CHECK(a0, 0xFFFFFFAD)
    lb  a0, 3(s0)
    CHECK(a0, 0xFFFFFF8B)
    li  TESTNUM, 33
    lbu a0, 0(s0)
    CHECK(a0, 0x0D)
    lbu a0, 1(s0)
    CHECK(a0, 0xF0)
    lbu a0, 2(s0)
    CHECK(a0, 0xAD)
    lbu a0, 3(s0)
    CHECK(a0, 0x8B)
    li  TESTNUM, 34
    lh  a0, 0(s0)
    CHECK(a0, 0xFFFFF00D)
    lh  a0, 2(s0)
    CHECK(a0, 0xFFFF8BAD)
    lhu a0, 0(s0)
    CHECK(a0, 0xF00D)
    lhu a0, 2(s0)
    CHECK(a0, 0x8BAD)
    li  TESTNUM, 35
    lw  s0, 0(s0)                // rd == rs1 through the peripheral port
    CHECK(s0, 0x8BADF00D)
    li  s0, PER_ID
    lw  x0, 0(s0)
    bnez x0, fail

TEST_END

    .section .rodata
    .balign 4
rodata:
    .word 0x8001FF7F, 0x7FFF8000, 0x00000000, 0xDEADBEEF

// Misaligned accesses and jumps: loads (mcause 4) and stores (6) to data
// memory, instruction memory and the peripheral window (which must not see
// the access), taken branches and JAL/JALR to targets that are not
// 4-aligned (mcause 0, mepc = the jump, mtval = the target, rd untouched).
// A not-taken branch with a misaligned target does not trap.
#include "test.h"

#define SENTINEL 0x5EE5EE5E
#define WORD     0x10000100      // data memory word the stores aim at
#define PRESET   0x600DCAFE

// Setup common to all variants: a0 = sentinel, s0 = WORD holding PRESET.
#define SETUP(n)                   \
    li  TESTNUM, n;                \
    li  a0, SENTINEL;              \
    li  ra, SENTINEL;              \
    li  a1, 0xAAAAAAAA;            \
    li  s0, WORD;                  \
    li  t0, PRESET;                \
    sw  t0, 0(s0);                 \
    sw  t0, 4(s0);

TEST_VARIANT_HEADER

v0: SETUP(1)
b0: lw  a0, 2(s0)
    j   fail
v1: SETUP(2)
b1: lh  a0, 1(s0)
    j   fail
v2: SETUP(3)
b2: lhu a0, 3(s0)
    j   fail
v3: SETUP(4)
b3: lw  a0, 1(s0)
    j   fail
v4: SETUP(5)
b4: lw  a0, 3(s0)
    j   fail
v5: SETUP(6)
b5: sw  a1, 2(s0)
    j   fail
v6: SETUP(7)
b6: sh  a1, 1(s0)
    j   fail
v7: SETUP(8)
b7: sh  a1, 3(s0)
    j   fail
v8: SETUP(9)
b8: sw  a1, 1(s0)
    j   fail
v9: SETUP(10)
    li  s1, SCRATCH
b9: sw  a1, 2(s1)                // peripheral: must not reach the bus
    j   fail
v10: SETUP(11)
    li  s1, PER_ID
b10: lw  a0, 1(s1)
    j   fail
v11: SETUP(12)
b11: lh  a0, 3(zero)             // instruction memory
    j   fail
v12: SETUP(13)
b12: jal ra, t12 + 2
    j   fail
t12: nop
    nop
    j   fail
v13: SETUP(14)
    la  t0, t13
b13: jalr ra, 2(t0)
    j   fail
t13: nop
    nop
    j   fail
v14: SETUP(15)
    la  t0, t14
b14: jalr ra, 3(t0)              // bit 0 cleared: t14 + 2
    j   fail
t14: nop
    nop
    j   fail
v15: SETUP(16)
    la  t0, t15 + 6
b15: jalr ra, 0(t0)
    j   fail
t15: nop
    nop
    nop
    j   fail
v16: SETUP(17)
b16: beq zero, zero, t16 + 2
    j   fail
t16: nop
    nop
    j   fail
v17: SETUP(18)
    li  a2, 1
b17: bne a2, zero, t17 + 2
    j   fail
t17: nop
    nop
    j   fail
v18: SETUP(19)
    j   1f
t18: nop                         // backward target
    nop
    j   fail
1:  li  a2, 1
b18: bltu zero, a2, t18 + 2
    j   fail
v19: SETUP(20)                   // not taken: no trap, test passes
    li  a2, 1
    beq a2, zero, t19 + 2
    bgeu zero, a2, t19 + 2
    j   pass
t19: nop
    nop
    j   fail
v20: SETUP(21)
    la  t0, t20
    mv  t1, t0
b20: jalr t0, 2(t0)              // rd == rs1: rd untouched
    j   fail
t20: nop
    nop
    j   fail

TEST_END

    .balign 4
variant_table:
    .word v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10
    .word v11, v12, v13, v14, v15, v16, v17, v18, v19, v20
expect_table:
    EXPECT(4, b0, WORD + 2, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(4, b1, WORD + 1, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(4, b2, WORD + 3, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(4, b3, WORD + 1, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(4, b4, WORD + 3, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(6, b5, WORD + 2, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(6, b6, WORD + 1, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(6, b7, WORD + 3, 10, SENTINEL, WORD + 4, PRESET, 0)
    EXPECT(6, b8, WORD + 1, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(6, b9, SCRATCH + 2, 10, SENTINEL, WORD, PRESET, 0)
    EXPECT(4, b10, PER_ID + 1, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(4, b11, 3, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(0, b12, t12 + 2, 1, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(0, b13, t13 + 2, 1, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(0, b14, t14 + 2, 1, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(0, b15, t15 + 6, 1, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(0, b16, t16 + 2, 1, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(0, b17, t17 + 2, 1, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(0, b18, t18 + 2, 1, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(EXPECT_PASS, 0, 0, 0, 0, NO_CHECK, 0, NO_CHECK)
    EXPECT(0, b20, t20 + 2, 5, t20, NO_CHECK, 0, 0)
expect_table_end:

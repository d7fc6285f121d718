// Macros shared by the via_cpu ISA tests (assembled with the C preprocessor).
//
// Every image starts with a header the bench reads before running it:
//   word 0  j test_main
//   word 1  TEST_MAGIC
//   word 2  number of variants N (the bench runs the image N times and
//           writes the variant number into data memory word 0 first)
//   word 3  byte address of the expectation table: N records of 8 words
//             cause     EXPECT_PASS: the test writes 1 to TOHOST;
//                       otherwise the mcause the core must halt with
//             epc       expected mepc (trap_pc)
//             tval      expected mtval (trap_val)
//             reg       register number to check after the trap (0: none)
//             regval    its expected value
//             memaddr   byte address of a memory word to check through the
//                       host port after the trap (NO_CHECK: none)
//             memval    its expected value
//             percount  expected number of peripheral accesses (NO_CHECK: any)
//
// A passing test writes 1 to TOHOST; a failing one writes TESTNUM*2+1 (the
// bench prints TESTNUM). TESTNUM lives in gp; t6 is scratch for the macros.

#define TEST_MAGIC  0x54535456
#define EXPECT_PASS 0xFFFFFFFF
#define NO_CHECK    0xFFFFFFFF

#define PER_BASE    0x20000000
#define TOHOST      0x20000000  // write 1: pass; 2n+1: test n failed
#define CONSOLE     0x20000004  // byte writes go to the bench log
#define SCRATCH     0x20000008  // read/write register, byte strobes honoured
#define PER_ID      0x2000000C  // reads 0x8BADF00D
#define WAKE        0x20000010  // write n: irq_wake drops, rises n cycles later
#define PER_CYCLES  0x20000014  // reads the bench's cycle counter
#define PER_ERR     0x2000F000  // 0x2000F000..0x2000FFFF answer with per_err
#define PER_ID_VALUE 0x8BADF00D

#define DMEM_BASE   0x10000000
#define VARIANT     0x10000000  // data memory word 0, written by the bench
#define IMEM_BYTES  0x4000      // the bench's via_cpu uses the defaults
#define DMEM_BYTES  0x2000

#define TESTNUM gp

// Label differences must be constants when assembled (variant counts), and
// the images must not depend on linker relaxation.
    .option norelax

// Header of a test with one run that must pass.
#define TEST_PASS_HEADER            \
    .section .text.init, "ax";      \
    .globl _start;                  \
_start:                             \
    j   test_main;                  \
    .word TEST_MAGIC, 1, expect_table; \
expect_table:                       \
    .word EXPECT_PASS, 0, 0, 0, 0, NO_CHECK, 0, NO_CHECK; \
test_main:

// Header of a test with variants: jumps to variant_table[VARIANT]. The
// file provides, in the same section, expect_table..expect_table_end (one
// EXPECT per variant) and variant_table (one .word label per variant).
#define TEST_VARIANT_HEADER         \
    .section .text.init, "ax";      \
    .globl _start;                  \
_start:                             \
    j   test_main;                  \
    .word TEST_MAGIC, (expect_table_end - expect_table) / 32, expect_table; \
test_main:                          \
    li  t0, VARIANT;                \
    lw  t0, 0(t0);                  \
    slli t0, t0, 2;                 \
    la  t1, variant_table;          \
    add t1, t1, t0;                 \
    lw  t1, 0(t1);                  \
    jr  t1;

#define EXPECT(cause, epc, tval, reg, regval, memaddr, memval, percount) \
    .word cause, epc, tval, reg, regval, memaddr, memval, percount

#define PASS                        \
    li  t6, TOHOST;                 \
    li  t5, 1;                      \
    sw  t5, 0(t6);                  \
1:  j   1b;

// fail: report TESTNUM; the label is provided by TEST_END.
#define TEST_END                    \
pass:                               \
    PASS                            \
fail:                               \
    li  t6, TOHOST;                 \
    slli t5, TESTNUM, 1;            \
    ori t5, t5, 1;                  \
    sw  t5, 0(t6);                  \
2:  j   2b;

// Compare a register with a constant; on mismatch go to fail.
#define CHECK(reg, val)             \
    li  t6, val;                    \
    bne reg, t6, fail;

// rd = rs1 OP rs2 with rd, rs1, rs2 distinct, then aliased in all ways.
#define TEST_RR(n, inst, res, v1, v2) \
    li  TESTNUM, n;                 \
    li  a1, v1;                     \
    li  a2, v2;                     \
    inst a0, a1, a2;                \
    CHECK(a0, res)                  \
    inst a1, a1, a2;                \
    CHECK(a1, res)                  \
    li  a1, v1;                     \
    inst a2, a1, a2;                \
    CHECK(a2, res)

// rd = rs1 OP rs1
#define TEST_RR_SAME(n, inst, res, v) \
    li  TESTNUM, n;                 \
    li  a1, v;                      \
    inst a0, a1, a1;                \
    CHECK(a0, res)                  \
    inst a1, a1, a1;                \
    CHECK(a1, res)

// rd = rs1 OP imm, distinct and aliased
#define TEST_RI(n, inst, res, v1, imm) \
    li  TESTNUM, n;                 \
    li  a1, v1;                     \
    inst a0, a1, imm;               \
    CHECK(a0, res)                  \
    inst a1, a1, imm;               \
    CHECK(a1, res)

// Writes to x0 are dropped: x0 still reads 0 afterwards.
#define TEST_RR_X0(n, inst, v1, v2) \
    li  TESTNUM, n;                 \
    li  a1, v1;                     \
    li  a2, v2;                     \
    inst x0, a1, a2;                \
    bne x0, zero, fail;             \
    add a0, x0, x0;                 \
    bnez a0, fail;

// A branch that must be taken (forward) and one that must not.
#define TEST_BR_TAKEN(n, inst, v1, v2) \
    li  TESTNUM, n;                 \
    li  a1, v1;                     \
    li  a2, v2;                     \
    inst a1, a2, 3f;                \
    j   fail;                       \
3:

#define TEST_BR_NOT_TAKEN(n, inst, v1, v2) \
    li  TESTNUM, n;                 \
    li  a1, v1;                     \
    li  a2, v2;                     \
    inst a1, a2, fail;

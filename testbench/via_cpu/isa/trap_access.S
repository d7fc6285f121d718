// Access faults: loads (mcause 5) and stores (7) outside every window,
// stores to instruction memory (which must stay unchanged), accesses the
// peripheral answers with per_err (they reach the bus once), and fetches
// outside instruction memory (mcause 1, mepc = mtval = the fetch address;
// the jump that led there retired and wrote its link register), including
// running off the end of instruction memory.
#include "test.h"

#define SENTINEL 0x5EE5EE5E
#define ROM_VALUE 0x13579BDF

#define SETUP(n)                   \
    li  TESTNUM, n + 1;            \
    li  a0, SENTINEL;              \
    li  ra, SENTINEL;              \
    li  a1, 0xAAAAAAAA;

#define LOAD_FAULT(n, inst, addr)  \
v##n: SETUP(n)                     \
    lui s0, %hi(addr);             \
    addi s0, s0, %lo(addr);        \
b##n: inst a0, 0(s0);              \
    j   fail;

#define STORE_FAULT(n, inst, addr) \
v##n: SETUP(n)                     \
    lui s0, %hi(addr);             \
    addi s0, s0, %lo(addr);        \
b##n: inst a1, 0(s0);              \
    j   fail;

TEST_VARIANT_HEADER

    LOAD_FAULT(0, lw, IMEM_BYTES)            // just past instruction memory
    LOAD_FAULT(1, lw, DMEM_BASE + DMEM_BYTES) // just past data memory
    LOAD_FAULT(2, lw, 0x30000000)
    LOAD_FAULT(3, lw, 0x20010000)            // just past the peripheral window
    LOAD_FAULT(4, lw, 0xFFFFFFFC)
    LOAD_FAULT(5, lb, 0x0FFFFFFF)
    LOAD_FAULT(6, lhu, 0x1FFFFFFE)
    STORE_FAULT(7, sw, rom_word)             // instruction memory is read-only
    STORE_FAULT(8, sb, rom_word + 1)
    STORE_FAULT(9, sh, rom_word + 2)
    STORE_FAULT(10, sw, DMEM_BASE + DMEM_BYTES)
    STORE_FAULT(11, sw, 0x40000000)
    STORE_FAULT(12, sw, 0x20010000)
    LOAD_FAULT(13, lw, PER_ERR)              // per_err
    STORE_FAULT(14, sw, PER_ERR + 4)
    STORE_FAULT(15, sb, PER_ERR + 0xFFF)
    LOAD_FAULT(16, lh, PER_ERR + 0x802)
    STORE_FAULT(17, sw, 0x0FFFFFFC)

    // fetch faults: the jump retires, the fetch at the target faults
v18: SETUP(18)
    li  t0, IMEM_BYTES
    jalr ra, 0(t0)
r18: j   fail
v19: SETUP(19)
    li  t0, DMEM_BASE
    jalr ra, 0(t0)
r19: j   fail
v20: SETUP(20)
    li  t0, PER_BASE
    jalr ra, 0(t0)
r20: j   fail
v21: SETUP(21)
    li  t0, 0xFFFFFFFC
    jalr ra, 0(t0)
r21: j   fail
v22: SETUP(22)
    jal ra, last_words               // runs off the end of instruction memory
r22: j   fail

TEST_END

    .balign 4
rom_word:
    .word ROM_VALUE
variant_table:
    .word v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11
    .word v12, v13, v14, v15, v16, v17, v18, v19, v20, v21, v22
expect_table:
    EXPECT(5, b0, IMEM_BYTES, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(5, b1, DMEM_BASE + DMEM_BYTES, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(5, b2, 0x30000000, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(5, b3, 0x20010000, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(5, b4, 0xFFFFFFFC, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(5, b5, 0x0FFFFFFF, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(5, b6, 0x1FFFFFFE, 10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(7, b7, rom_word, 0, 0, rom_word, ROM_VALUE, 0)
    EXPECT(7, b8, rom_word + 1, 0, 0, rom_word, ROM_VALUE, 0)
    EXPECT(7, b9, rom_word + 2, 0, 0, rom_word, ROM_VALUE, 0)
    EXPECT(7, b10, DMEM_BASE + DMEM_BYTES, 0, 0, NO_CHECK, 0, 0)
    EXPECT(7, b11, 0x40000000, 0, 0, NO_CHECK, 0, 0)
    EXPECT(7, b12, 0x20010000, 0, 0, NO_CHECK, 0, 0)
    EXPECT(5, b13, PER_ERR, 10, SENTINEL, NO_CHECK, 0, 1)
    EXPECT(7, b14, PER_ERR + 4, 0, 0, NO_CHECK, 0, 1)
    EXPECT(7, b15, PER_ERR + 0xFFF, 0, 0, NO_CHECK, 0, 1)
    EXPECT(5, b16, PER_ERR + 0x802, 10, SENTINEL, NO_CHECK, 0, 1)
    EXPECT(7, b17, 0x0FFFFFFC, 0, 0, NO_CHECK, 0, 0)
    EXPECT(1, IMEM_BYTES, IMEM_BYTES, 1, r18, NO_CHECK, 0, 0)
    EXPECT(1, DMEM_BASE, DMEM_BASE, 1, r19, NO_CHECK, 0, 0)
    EXPECT(1, PER_BASE, PER_BASE, 1, r20, NO_CHECK, 0, 0)
    EXPECT(1, 0xFFFFFFFC, 0xFFFFFFFC, 1, r21, NO_CHECK, 0, 0)
    EXPECT(1, IMEM_BYTES, IMEM_BYTES, 1, r22, NO_CHECK, 0, 0)
expect_table_end:

    // the last two words of instruction memory: two NOPs, then the end
    .org IMEM_BYTES - 8
last_words:
    nop
    nop

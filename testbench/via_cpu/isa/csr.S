// Zicsr: CSRRW CSRRS CSRRC CSRRWI CSRRSI CSRRCI on mscratch, mepc, mcause,
// mtval; the constant/WARL CSRs mstatus, misa, mhartid; the counters cycle,
// instret, cycleh, instreth (monotonic, instret exact).
#include "test.h"

TEST_PASS_HEADER

    // mscratch: full read/write, old value returned
    li  TESTNUM, 1
    li  a1, 0x12345678
    csrw mscratch, a1
    csrr a0, mscratch
    CHECK(a0, 0x12345678)
    li  TESTNUM, 2
    li  a1, 0xF0F0F0F0
    csrrw a0, mscratch, a1
    CHECK(a0, 0x12345678)
    csrr a0, mscratch
    CHECK(a0, 0xF0F0F0F0)
    li  TESTNUM, 3                 // set bits
    li  a1, 0x0000FFFF
    csrrs a0, mscratch, a1
    CHECK(a0, 0xF0F0F0F0)
    csrr a0, mscratch
    CHECK(a0, 0xF0F0FFFF)
    li  TESTNUM, 4                 // clear bits
    li  a1, 0xFF0000FF
    csrrc a0, mscratch, a1
    CHECK(a0, 0xF0F0FFFF)
    csrr a0, mscratch
    CHECK(a0, 0x00F0FF00)
    li  TESTNUM, 5                 // immediate forms (uimm 0..31, zero-extended)
    csrrwi a0, mscratch, 31
    CHECK(a0, 0x00F0FF00)
    csrr a0, mscratch
    CHECK(a0, 31)
    csrrci a0, mscratch, 5
    CHECK(a0, 31)
    csrr a0, mscratch
    CHECK(a0, 26)
    csrrsi a0, mscratch, 0x11
    CHECK(a0, 26)
    csrr a0, mscratch
    CHECK(a0, 27)
    li  TESTNUM, 6                 // set/clear with x0 or 0 only read
    csrrs a0, mscratch, x0
    CHECK(a0, 27)
    csrrc a0, mscratch, x0
    CHECK(a0, 27)
    csrrsi a0, mscratch, 0
    csrrci a0, mscratch, 0
    csrr a0, mscratch
    CHECK(a0, 27)
    li  TESTNUM, 7                 // rd == rs1: swap
    li  a0, 0xA5A5A5A5
    csrrw a0, mscratch, a0
    CHECK(a0, 27)
    csrr a0, mscratch
    CHECK(a0, 0xA5A5A5A5)
    li  TESTNUM, 8                 // rd = x0 writes nothing to x0
    csrrw x0, mscratch, zero
    bnez x0, fail
    csrr a0, mscratch
    CHECK(a0, 0)

    // mepc: bits 1:0 read 0
    li  TESTNUM, 11
    li  a1, 0x12345677
    csrw mepc, a1
    csrr a0, mepc
    CHECK(a0, 0x12345674)
    csrrci a0, mepc, 4
    CHECK(a0, 0x12345674)
    csrr a0, mepc
    CHECK(a0, 0x12345670)
    // mcause keeps bits 4:0
    li  TESTNUM, 12
    li  a1, 0xFFFFFFFF
    csrw mcause, a1
    csrr a0, mcause
    CHECK(a0, 0x1F)
    csrwi mcause, 7
    csrr a0, mcause
    CHECK(a0, 7)
    // mtval: full read/write
    li  TESTNUM, 13
    li  a1, 0xDEADBEEF
    csrw mtval, a1
    csrr a0, mtval
    CHECK(a0, 0xDEADBEEF)
    csrs mtval, 1
    csrc mtval, a1
    csrr a0, mtval
    CHECK(a0, 0)

    // mstatus: MPP = M, writes ignored; misa: RV32I, writes ignored
    li  TESTNUM, 21
    csrr a0, mstatus
    CHECK(a0, 0x00001800)
    li  a1, -1
    csrw mstatus, a1
    csrr a0, mstatus
    CHECK(a0, 0x00001800)
    csrc mstatus, a1
    csrr a0, mstatus
    CHECK(a0, 0x00001800)
    li  TESTNUM, 22
    csrr a0, misa
    CHECK(a0, 0x40000100)
    csrw misa, zero
    csrr a0, misa
    CHECK(a0, 0x40000100)
    li  TESTNUM, 23
    csrr a0, mhartid
    CHECK(a0, 0)

    // instret counts retired instructions exactly
    li  TESTNUM, 31
    rdinstret a0
    rdinstret a1
    sub a2, a1, a0
    CHECK(a2, 1)
    rdinstret a0
    nop
    nop
    nop
    rdinstret a1
    sub a2, a1, a0
    CHECK(a2, 4)
    // a taken branch, a load and a store each count once
    li  TESTNUM, 32
    li  s0, DMEM_BASE + 0x100
    rdinstret a0
    beq zero, zero, 1f
1:  sw  zero, 0(s0)
    lw  t0, 0(s0)
    rdinstret a1
    sub a2, a1, a0
    CHECK(a2, 4)

    // cycle increases, and by at least one per instruction
    li  TESTNUM, 33
    rdcycle a0
    rdcycle a1
    bgeu a0, a1, fail
    rdcycle a0
    nop
    nop
    nop
    nop
    rdcycle a1
    sub a2, a1, a0
    li  t0, 5
    bltu a2, t0, fail
    // cycle outruns instret
    li  TESTNUM, 34
    rdcycle a0
    rdinstret a1
    bltu a0, a1, fail
    // the high halves are 0 this early and read without fault
    li  TESTNUM, 35
    rdcycleh a0
    CHECK(a0, 0)
    rdinstreth a0
    CHECK(a0, 0)
    // a loop of known length: instret advances by exactly 3 per iteration
    li  TESTNUM, 36
    li  t0, 100
    rdinstret a0
2:  addi t0, t0, -1
    nop
    bnez t0, 2b
    rdinstret a1
    sub a2, a1, a0
    CHECK(a2, 301)

TEST_END

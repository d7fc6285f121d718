// Illegal instructions: each variant executes one encoding that RV32I +
// Zicsr (with this core's CSR set) does not define. Expected: mcause 2,
// mepc = the word, mtval = the instruction bits, rd (a0) untouched, no
// peripheral access.
#include "test.h"

#define SENTINEL 0x5EE5EE5E

#define ILLEGAL_LIST(X) \
    X( 0, 0x00000000)  /* all-zero word */ \
    X( 1, 0xFFFFFFFF)  /* all-ones word */ \
    X( 2, 0x02C58533)  /* MUL (M extension) */ \
    X( 3, 0x02C5C533)  /* DIV (M extension) */ \
    X( 4, 0x02359513)  /* SLLI with funct7 0000001 */ \
    X( 5, 0x0235D513)  /* SRLI with funct7 0000001 (RV64 shamt) */ \
    X( 6, 0x4235D513)  /* SRAI with funct7 0100001 */ \
    X( 7, 0x40359513)  /* SLLI with funct7 0100000 */ \
    X( 8, 0x40C59533)  /* OP funct7 0100000 funct3 001 */ \
    X( 9, 0x40C5E533)  /* OP funct7 0100000 funct3 110 */ \
    X(10, 0x80C58533)  /* OP funct7 1000000 */ \
    X(11, 0x0005B503)  /* LD (load funct3 011) */ \
    X(12, 0x0005E503)  /* LWU (load funct3 110) */ \
    X(13, 0x0005F503)  /* load funct3 111 */ \
    X(14, 0x00C5B023)  /* SD (store funct3 011) */ \
    X(15, 0x00C5C023)  /* store funct3 100 */ \
    X(16, 0x00C5A463)  /* branch funct3 010 */ \
    X(17, 0x00C5B463)  /* branch funct3 011 */ \
    X(18, 0x00059567)  /* JALR funct3 001 */ \
    X(19, 0x0000100F)  /* FENCE.I (Zifencei) */ \
    X(20, 0x0000200F)  /* MISC-MEM funct3 010 */ \
    X(21, 0x00000001)  /* compressed C.NOP (bits 1:0 = 01) */ \
    X(22, 0x00000002)  /* bits 1:0 = 10 */ \
    X(23, 0x00C5853B)  /* OP-32 (RV64 ADDW) */ \
    X(24, 0x0015851B)  /* OP-IMM-32 (RV64 ADDIW) */ \
    X(25, 0x00C5A52F)  /* AMO (A extension) */ \
    X(26, 0x0000000B)  /* custom-0 */ \
    X(27, 0x0005A507)  /* LOAD-FP */ \
    X(28, 0x00000057)  /* OP-V */ \
    X(29, 0x0000007F)  /* opcode 1111111 (>= 80-bit) */ \
    X(30, 0x30200073)  /* MRET */ \
    X(31, 0x10200073)  /* SRET */ \
    X(32, 0x00200073)  /* URET */ \
    X(33, 0x7B200073)  /* DRET */ \
    X(34, 0x12000073)  /* SFENCE.VMA */ \
    X(35, 0x000000F3)  /* ECALL with rd = 1 */ \
    X(36, 0x00108073)  /* EBREAK with rs1 = 1 */ \
    X(37, 0x105000F3)  /* WFI with rd = 1 */ \
    X(38, 0x00004573)  /* SYSTEM funct3 100 */ \
    X(39, 0x30502573)  /* CSRR mtvec (not implemented) */ \
    X(40, 0x30402573)  /* CSRR mie (not implemented) */ \
    X(41, 0xC0102573)  /* CSRR time (not implemented) */ \
    X(42, 0xB0002573)  /* CSRR mcycle (not implemented) */ \
    X(43, 0xF1102573)  /* CSRR mvendorid (not implemented) */ \
    X(44, 0x7C002573)  /* CSRR custom 0x7C0 */ \
    X(45, 0xC0059073)  /* CSRRW cycle (read-only) */ \
    X(46, 0xF1405073)  /* CSRRWI mhartid, 0 (read-only, CSRRW always writes) */ \
    X(47, 0xC025A573)  /* CSRRS instret with rs1 != 0 (read-only) */ \
    X(48, 0xC800E573)  /* CSRRSI cycleh, 1 (read-only) */ \
    X(49, 0xC825B573)  /* CSRRC instreth with rs1 != 0 (read-only) */ \

#define ILLEGAL_CODE(n, insn)      \
v##n:                              \
    li  TESTNUM, n + 1;            \
    li  a0, SENTINEL;              \
    li  a1, DMEM_BASE + 0x100;     \
    li  a2, 0x22222222;            \
bad##n:                            \
    .word insn;                    \
    j   fail;

#define ILLEGAL_VTAB(n, insn)   .word v##n;
#define ILLEGAL_EXPECT(n, insn) EXPECT(2, bad##n, insn, 10, SENTINEL, NO_CHECK, 0, 0);

TEST_VARIANT_HEADER

ILLEGAL_LIST(ILLEGAL_CODE)

TEST_END

    .balign 4
variant_table:
ILLEGAL_LIST(ILLEGAL_VTAB)
expect_table:
ILLEGAL_LIST(ILLEGAL_EXPECT)
expect_table_end:

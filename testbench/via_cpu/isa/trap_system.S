// ECALL and EBREAK halt the core like any other trap (the firmware uses
// neither): ECALL mcause 11 with mtval 0, EBREAK mcause 3 with mtval = pc.
#include "test.h"

#define SENTINEL 0x5EE5EE5E

TEST_VARIANT_HEADER

v0: li  TESTNUM, 1
    li  a0, SENTINEL
bad0:
    ecall
    j   fail

v1: li  TESTNUM, 2
    li  a0, SENTINEL
bad1:
    ebreak
    j   fail

TEST_END

    .balign 4
variant_table:
    .word v0, v1
expect_table:
    EXPECT(11, bad0, 0,    10, SENTINEL, NO_CHECK, 0, 0)
    EXPECT(3,  bad1, bad1, 10, SENTINEL, NO_CHECK, 0, 0)
expect_table_end:

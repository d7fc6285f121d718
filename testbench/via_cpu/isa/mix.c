// A mixed C workload for the via_cpu bench: the measured program for CPI,
// and a check of the C toolchain flow the firmware uses (startup that sets
// sp, copies .data from instruction memory and clears .bss; calls,
// recursion, stack frames; byte, halfword and word accesses; peripheral
// loads and console writes; rdcycle/rdinstret). It computes
// checksums that must match a constant computed on the build host (MIX_HOST
// below) and prints its own cycle and instruction counts.
//
// RV32I has no multiply: the code avoids '*' so no libgcc helper is needed.

#include <stdint.h>

#ifndef MIX_HOST
#define TOHOST  (*(volatile uint32_t *)0x20000000u)
#define CONSOLE (*(volatile uint8_t *)0x20000004u)

// Header read by the bench (see test.h), then the C startup.
__asm__(
    "    .section .text.init, \"ax\"\n"
    "    .globl _start\n"
    "_start:\n"
    "    j    1f\n"
    "    .word 0x54535456, 1, expect_table\n"
    "expect_table:\n"
    "    .word 0xFFFFFFFF, 0, 0, 0, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF\n"
    "1:  la   sp, _stack_top\n"
    "    la   t0, _data_load\n"
    "    la   t1, _data_start\n"
    "    la   t2, _data_end\n"
    "2:  bgeu t1, t2, 3f\n"
    "    lw   t3, 0(t0)\n"
    "    sw   t3, 0(t1)\n"
    "    addi t0, t0, 4\n"
    "    addi t1, t1, 4\n"
    "    j    2b\n"
    "3:  la   t1, _bss_start\n"
    "    la   t2, _bss_end\n"
    "4:  bgeu t1, t2, 5f\n"
    "    sw   zero, 0(t1)\n"
    "    addi t1, t1, 4\n"
    "    j    4b\n"
    "5:  call main\n"
    "    li   t0, 0x20000000\n"
    "    sw   a0, 0(t0)\n"
    "6:  j    6b\n"
);
#endif

#define N 64

static uint32_t rng_state = 0x12345678u;     // .data
static uint32_t words[N];                    // .bss
static uint8_t bytes[4 * N];                 // .bss
static const char greeting[] = "mix: C on via_cpu\n";

static uint32_t xorshift32(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rng_state = x;
    return x;
}

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void insertion_sort(int32_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        int32_t v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static uint32_t fib(uint32_t n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static uint32_t halfword_sum(const uint8_t *p, int n)
{
    const int16_t *h = (const int16_t *)(const void *)p;
    uint32_t s = 0;
    for (int i = 0; i < n / 2; i++)
        s += (uint32_t)(int32_t)h[i];
    return s;
}

static void copy_bytes(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        dst[i] = src[i];
}

uint32_t mix_run(void);
uint32_t mix_run(void)
{
    for (int i = 0; i < N; i++)
        words[i] = xorshift32();
    copy_bytes(bytes, (const uint8_t *)words, sizeof bytes);
    uint32_t c1 = crc32(bytes, sizeof bytes);
    insertion_sort((int32_t *)words, N);
    for (int i = 1; i < N; i++)
        if ((int32_t)words[i - 1] > (int32_t)words[i])
            return 0xBAD00001u;
    uint32_t c2 = crc32((const uint8_t *)words, sizeof words);
    uint32_t h = halfword_sum(bytes, sizeof bytes);
    uint32_t f = fib(15);
    return c1 ^ (c2 >> 1) ^ (h << 3) ^ f;
}

#ifdef MIX_HOST
#include <stdio.h>
int main(void)
{
    printf("0x%08X\n", mix_run());
    return 0;
}
#else
#define MIX_EXPECTED 0x869453D5u   // from: gcc -DMIX_HOST -O2 -fno-strict-aliasing mix.c && ./a.out
#define PER_ID  (*(volatile uint32_t *)0x2000000Cu)

static void put_string(const char *s)
{
    while (*s)
        CONSOLE = (uint8_t)*s++;
}

static void put_hex(uint32_t v)
{
    for (int i = 28; i >= 0; i -= 4)
        CONSOLE = (uint8_t)"0123456789abcdef"[(v >> i) & 15u];
}

static inline uint32_t rdcycle(void)
{
    uint32_t v;
    __asm__ volatile("rdcycle %0" : "=r"(v));
    return v;
}

static inline uint32_t rdinstret(void)
{
    uint32_t v;
    __asm__ volatile("rdinstret %0" : "=r"(v));
    return v;
}

int main(void)
{
    put_string(greeting);
    if (PER_ID != 0x8BADF00Du)
        return 5;
    uint32_t c0 = rdcycle();
    uint32_t i0 = rdinstret();
    uint32_t r = mix_run();
    uint32_t c1 = rdcycle();
    uint32_t i1 = rdinstret();
    put_string("mix: result 0x");
    put_hex(r);
    put_string(", 0x");
    put_hex(i1 - i0);
    put_string(" instructions in 0x");
    put_hex(c1 - c0);
    put_string(" cycles\n");
    return r == MIX_EXPECTED ? 1 : 3;
}
#endif

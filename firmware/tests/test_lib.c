/* test_lib.c: host-native tests of the firmware's memcpy, memset and strlen
 * (src/lib.c), compiled here under the names fw_memcpy, fw_memset and
 * fw_strlen (the Makefile renames them with -D) so they do not replace the
 * host's own. Every alignment and length around the word and 16-byte loops,
 * in heap blocks of exactly the touched size (AddressSanitizer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void *fw_memcpy(void *restrict dst, const void *restrict src, size_t n);
void *fw_memset(void *dst, int c, size_t n);
size_t fw_strlen(const char *s);

enum { MAX = 80 };

static void test_memcpy(void)
{
    for (size_t doff = 0; doff < 4; doff++)
        for (size_t soff = 0; soff < 4; soff++)
            for (size_t n = 0; n <= MAX; n++) {
                uint8_t *src = malloc(soff + n + 1);
                uint8_t *dst = malloc(doff + n + 1);
                uint8_t *want = malloc(doff + n + 1);
                for (size_t i = 0; i < soff + n + 1; i++)
                    src[i] = (uint8_t)(i * 13 + 7);
                memset(dst, 0xEE, doff + n + 1);
                memcpy(want, dst, doff + n + 1);
                memcpy(want + doff, src + soff, n);
                CHECK(fw_memcpy(dst + doff, src + soff, n) == dst + doff);
                CHECK(memcmp(dst, want, doff + n + 1) == 0);
                free(src);
                free(dst);
                free(want);
            }
}

static void test_memset(void)
{
    for (size_t off = 0; off < 4; off++)
        for (size_t n = 0; n <= MAX; n++) {
            uint8_t *b = malloc(off + n + 1);
            uint8_t *want = malloc(off + n + 1);
            memset(b, 0x11, off + n + 1);
            memset(want, 0x11, off + n + 1);
            memset(want + off, 0xC3, n);
            CHECK(fw_memset(b + off, 0x1C3, n) == b + off); /* only the low byte counts */
            CHECK(memcmp(b, want, off + n + 1) == 0);
            free(b);
            free(want);
        }
}

static void test_strlen(void)
{
    CHECK_EQ_U(fw_strlen(""), 0);
    CHECK_EQ_U(fw_strlen("a"), 1);
    CHECK_EQ_U(fw_strlen("vianic"), 6);
}

int main(void)
{
    TEST_RUN(test_memcpy);
    TEST_RUN(test_memset);
    TEST_RUN(test_strlen);
    return test_main_end();
}

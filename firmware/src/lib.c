/* lib.c: memcpy, memset and strlen for the core (see lib.h). Word loops,
 * four words per iteration, when everything is aligned: the admin path
 * clears and copies whole 256-byte responses, and RV32I moves a word in the
 * time of a byte. Built with -fno-tree-loop-distribute-patterns so GCC does
 * not turn these loops back into calls to themselves. */
#include <stdint.h>

#include "lib.h"

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
        uint32_t *dw = (uint32_t *)(void *)d;
        const uint32_t *sw = (const uint32_t *)(const void *)s;
        for (; n >= 16; n -= 16, dw += 4, sw += 4) {
            dw[0] = sw[0];
            dw[1] = sw[1];
            dw[2] = sw[2];
            dw[3] = sw[3];
        }
        for (; n >= 4; n -= 4)
            *dw++ = *sw++;
        d = (uint8_t *)dw;
        s = (const uint8_t *)sw;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    if (((uintptr_t)d & 3u) == 0) {
        uint32_t w = (uint8_t)c;
        w |= w << 8;
        w |= w << 16;
        uint32_t *dw = (uint32_t *)(void *)d;
        for (; n >= 16; n -= 16, dw += 4) {
            dw[0] = w;
            dw[1] = w;
            dw[2] = w;
            dw[3] = w;
        }
        for (; n >= 4; n -= 4)
            *dw++ = w;
        d = (uint8_t *)dw;
    }
    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}

size_t strlen(const char *s)
{
    const char *p = s;
    while (*p)
        p++;
    return (size_t)(p - s);
}

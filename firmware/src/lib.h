/* lib.h: the few C library functions the firmware uses. There is no libc on
 * the core; lib.c implements these (GCC also emits memcpy/memset calls for
 * struct copies and clears). Host builds of the tests get them from the host
 * libc instead: the prototypes are the standard ones. */
#ifndef FW_LIB_H
#define FW_LIB_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memset(void *dst, int c, size_t n);
size_t strlen(const char *s);

#endif /* FW_LIB_H */

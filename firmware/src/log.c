/* log.c: fw_log and its formatter (see log.h). Hardware-free: the words go
 * to log_write_word, so the host tests run this file unchanged. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

typedef void (*put_fn)(void *ctx, char c);

typedef struct {
    put_fn put;
    void *ctx;
    size_t n;
} out_t;

static void out_char(out_t *o, char c)
{
    o->put(o->ctx, c);
    o->n++;
}

static void out_pad(out_t *o, char c, int count)
{
    for (; count > 0; count--)
        out_char(o, c);
}

/* Emits digits (most significant first, ndig of them) with width padding. */
static void out_field(out_t *o, const char *digits, int ndig, int neg, int width, int zero, int left)
{
    int len = ndig + neg;
    int pad = width > len ? width - len : 0;
    if (!left && !zero)
        out_pad(o, ' ', pad);
    if (neg)
        out_char(o, '-');
    if (!left && zero)
        out_pad(o, '0', pad);
    for (int i = 0; i < ndig; i++)
        out_char(o, digits[i]);
    if (left)
        out_pad(o, ' ', pad);
}

static const uint32_t pow10[] = {
    1000000000u, 100000000u, 10000000u, 1000000u, 100000u, 10000u, 1000u, 100u, 10u, 1u,
};

/* Decimal digits of v by repeated subtraction (no divide instruction). */
static int fmt_dec(char *buf, uint32_t v)
{
    int n = 0;
    for (unsigned i = 0; i < sizeof pow10 / sizeof pow10[0]; i++) {
        char d = '0';
        while (v >= pow10[i]) {
            v -= pow10[i];
            d++;
        }
        if (n > 0 || d != '0' || i == sizeof pow10 / sizeof pow10[0] - 1)
            buf[n++] = d;
    }
    return n;
}

static int fmt_hex(char *buf, uint32_t v)
{
    int n = 0;
    for (int shift = 28; shift >= 0; shift -= 4) {
        uint32_t nib = (v >> shift) & 15u;
        if (n > 0 || nib != 0 || shift == 0)
            buf[n++] = "0123456789abcdef"[nib];
    }
    return n;
}

size_t fw_vformat(put_fn put, void *ctx, const char *fmt, va_list ap)
{
    out_t o = {put, ctx, 0};
    char digits[10];

    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            out_char(&o, *p);
            continue;
        }
        const char *start = p++;
        int left = 0, zero = 0, width = 0;
        for (;; p++) {
            if (*p == '-')
                left = 1;
            else if (*p == '0')
                zero = 1;
            else
                break;
        }
        /* Widths beyond a log line are clamped: a bad format string must not
         * emit megabytes of padding. */
        for (; *p >= '0' && *p <= '9'; p++)
            if (width < 100)
                width = width * 10 + (*p - '0');
        if (width > 100)
            width = 100;

        switch (*p) {
        case 'd': {
            int v = va_arg(ap, int);
            uint32_t mag = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
            out_field(&o, digits, fmt_dec(digits, mag), v < 0, width, zero, left);
            break;
        }
        case 'u':
            out_field(&o, digits, fmt_dec(digits, va_arg(ap, unsigned)), 0, width, zero, left);
            break;
        case 'x':
            out_field(&o, digits, fmt_hex(digits, va_arg(ap, unsigned)), 0, width, zero, left);
            break;
        case 'c':
            digits[0] = (char)va_arg(ap, int);
            out_field(&o, digits, 1, 0, width, 0, left);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (s == NULL)
                s = "(null)";
            int len = 0;
            while (s[len])
                len++;
            out_field(&o, s, len, 0, width, 0, left);
            break;
        }
        case '%':
            out_char(&o, '%');
            break;
        default:
            /* Unknown conversion or the format ends inside one: copy it. */
            for (const char *q = start; q <= p && *q; q++)
                out_char(&o, *q);
            if (*p == '\0')
                return o.n;
            break;
        }
    }
    return o.n;
}

typedef struct {
    char *buf;
    size_t cap;
    size_t n;
} buf_t;

static void buf_put(void *ctx, char c)
{
    buf_t *b = ctx;
    if (b->n + 1 < b->cap)
        b->buf[b->n] = c;
    b->n++;
}

size_t fw_format(char *buf, size_t cap, const char *fmt, ...)
{
    buf_t b = {buf, cap, 0};
    va_list ap;
    va_start(ap, fmt);
    size_t n = fw_vformat(buf_put, &b, fmt, ap);
    va_end(ap);
    if (cap > 0)
        buf[b.n < cap ? b.n : cap - 1] = '\0';
    return n;
}

typedef struct {
    uint32_t word;
    unsigned fill; /* bytes in word */
} pack_t;

static void pack_put(void *ctx, char c)
{
    pack_t *pk = ctx;
    pk->word |= (uint32_t)(uint8_t)c << (8u * pk->fill);
    if (++pk->fill == 4 || c == '\n') {
        log_write_word(pk->word);
        pk->word = 0;
        pk->fill = 0;
    }
}

void fw_log(const char *fmt, ...)
{
    pack_t pk = {0, 0};
    va_list ap;
    va_start(ap, fmt);
    fw_vformat(pack_put, &pk, fmt, ap);
    va_end(ap);
    if (pk.fill > 0)
        log_write_word(pk.word);
}

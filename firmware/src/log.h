/* log.h: the firmware log. fw_log formats like a small printf and packs the
 * text into 32-bit words (first byte in bits 7:0, unused bytes zero), which
 * go to the host's FW_LOG FIFO through log_write_word. A line ends with
 * '\n'; a call's last word is flushed even when it does not end a line.
 *
 * Conversions: %s %c %d %u %x %%, with an optional '0' flag and a width
 * (%08x, %4u, %-8s left-justifies). Numbers are int/unsigned (32 bits on the
 * core and the host; pass a uint32_t as (unsigned): it is long on RV32). An
 * unknown conversion is printed as is, so a bad format string shows in the
 * log instead of crashing. No division: RV32I has none, and there is no
 * libgcc. */
#ifndef FW_LOG_H
#define FW_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* fw_log formats and emits one message. */
void fw_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* fw_format writes at most cap-1 characters and a NUL to buf and returns the
 * length the full text has (as snprintf does). */
size_t fw_format(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* fw_vformat calls put(ctx, c) for every character of the text and returns
 * how many there were. */
size_t fw_vformat(void (*put)(void *ctx, char c), void *ctx, const char *fmt, va_list ap);

/* log_write_word takes one packed word of log text. main.c writes it to the
 * LOG register; the host tests capture it. */
void log_write_word(uint32_t w);

#endif /* FW_LOG_H */

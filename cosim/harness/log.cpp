// log.cpp: console logging (see log.h). One formatted write per line, so
// lines of concurrent processes sharing a terminal do not interleave.
#include "log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace vianic {

namespace {
bool g_verbose = false;

void vlog(const char* prefix, const char* fmt, va_list ap) {
    char buf[2048];
    int n = snprintf(buf, sizeof buf, "vianic-sim: %s", prefix);
    if (n < 0) return;
    int m = vsnprintf(buf + n, sizeof buf - size_t(n) - 1, fmt, ap);
    if (m < 0) return;
    size_t len = size_t(n) + size_t(m);
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}
}  // namespace

void log_set_verbose(bool on) { g_verbose = on; }
bool log_is_verbose() { return g_verbose; }

void log_info(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog("", fmt, ap);
    va_end(ap);
}

void log_verbose(const char* fmt, ...) {
    if (!g_verbose) return;
    va_list ap;
    va_start(ap, fmt);
    vlog("", fmt, ap);
    va_end(ap);
}

void log_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog("error: ", fmt, ap);
    va_end(ap);
}

}  // namespace vianic

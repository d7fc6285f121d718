// log.h: console logging of vianic-sim. Every line goes to stderr prefixed
// "vianic-sim: "; log_verbose lines only with --verbose. (The one line the
// launcher waits for, "listening on ...", goes to stdout from main.)
#pragma once

namespace vianic {

void log_set_verbose(bool on);
bool log_is_verbose();

void log_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_verbose(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace vianic

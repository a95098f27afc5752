/*
 * log.h — one line per thing worth knowing, on stderr:
 *
 *   2024-05-01T12:00:00.123Z INFO  conn 7 from 127.0.0.1:51234
 *
 * Levels below the configured one are dropped before formatting.
 */
#ifndef TAPIS_SERVER_LOG_H
#define TAPIS_SERVER_LOG_H

#include <stdbool.h>

typedef enum log_level {
    LOG_DEBUG,
    LOG_INFO,
    LOG_WARN,
    LOG_ERROR,
    LOG_NOTICE, /* always written, whatever the level: start and stop */
} log_level_t;

void log_set_level(log_level_t level);
/* --log-format json: {"ts","level","msg"} per line, plus "conn", "room" or
   "session" when the message starts with one (its id). */
void log_set_json(bool on);
/* Parse "debug", "info", "warn" or "error". Returns -1 for anything else. */
int log_parse_level(const char *name);
void log_msg(log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The level set (log_set_level()): below it, log_debug() evaluates nothing
   of its arguments (some look up JSON on every act). */
extern log_level_t log_min_level;

#define log_debug(...)                                                                             \
    do {                                                                                           \
        if (log_min_level <= LOG_DEBUG) log_msg(LOG_DEBUG, __VA_ARGS__);                           \
    } while (0)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)

#endif

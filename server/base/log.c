/* log.c — timestamped, levelled lines on stderr (one write per line), as
   text or as one JSON object each (--log-format json). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "json/json_text.h"
#include "server/base/log.h"

log_level_t log_min_level = LOG_INFO;
static bool json_lines;
static const char *const names[] = {"DEBUG", "INFO ", "WARN ", "ERROR", "NOTE "};
static const char *const json_names[] = {"debug", "info", "warn", "error", "notice"};

void log_set_level(log_level_t level)
{
    log_min_level = level;
}

void log_set_json(bool on)
{
    json_lines = on;
}

/*
 * The subject a line starts with -- "conn 7", "room 12", "session 3" -- as a
 * field of its own, so that a log shipper can follow one of them.
 */
static void add_subject(json_t *o, const char *msg)
{
    static const char *const subjects[] = {"conn", "room", "session"};
    for (int i = 0; i < 3; i++) {
        size_t k = strlen(subjects[i]);
        if (strncmp(msg, subjects[i], k) != 0 || msg[k] != ' ') continue;
        const char *id = msg + k + 1;
        size_t n = strcspn(id, " :,");
        if (n == 0 || n > 32) return;
        bool number = strspn(id, "0123456789") >= n && n < 19; /* conn and session ids */
        json_object_set_new(o, subjects[i],
                            number ? json_integer(strtoll(id, NULL, 10)) : json_stringn(id, n));
        return;
    }
}

/* One JSON object: {"ts","level","msg"[,"conn"|"room"|"session"]}; 0, or -1 to fall back to text.
 */
static int write_json(log_level_t level, const char *ts, const char *msg)
{
    char line[2048];
    json_t *o = json_object();
    if (!o) return -1;
    json_object_set_new(o, "ts", json_string(ts));
    json_object_set_new(o, "level", json_string(json_names[level]));
    json_object_set_new(o, "msg", json_string(msg)); /* NULL (skipped) if not UTF-8 */
    add_subject(o, msg);
    size_t n = json_object_get(o, "msg") ? json_text(o, line, sizeof line - 1) : 0;
    json_decref(o);
    if (n == 0 || n >= sizeof line - 1) return -1;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
    return 0;
}

int log_parse_level(const char *name)
{
    static const char *const words[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++)
        if (strcasecmp(name, words[i]) == 0) return i;
    return -1;
}

void log_msg(log_level_t level, const char *fmt, ...)
{
    if (level < log_min_level) return;
    char line[1024];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    n += (size_t)snprintf(line + n, sizeof line - n, ".%03ldZ %s ", ts.tv_nsec / 1000000L,
                          names[level]);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    if (k < 0) k = 0;
    n += (size_t)k;
    if (n > sizeof line - 2) n = sizeof line - 2;
    if (json_lines) {
        line[n] = 0;
        line[24] = 0; /* the time stamp ends at 24: 2024-05-01T12:00:00.123Z */
        if (write_json(level, line, line + 31) == 0) return;
        line[24] = ' ';
    }
    /* Control bytes from clients (names, chat) must not break the one-line rule. */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20) line[i] = '?';
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
}

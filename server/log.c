/* log.c — timestamped, levelled lines on stderr (one write per line). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static log_level_t min_level = LOG_INFO;
static const char *const names[] = {"DEBUG", "INFO ", "WARN ", "ERROR", "NOTE "};

void log_set_level(log_level_t level)
{
    min_level = level;
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
    if (level < min_level) return;
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
    /* Control bytes from clients (names, chat) must not break the one-line rule. */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20) line[i] = '?';
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
}

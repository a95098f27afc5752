/*
 * driver.c — a main() for the harnesses where libFuzzer is not available
 * (gcc, or -Dfuzz=disabled): it runs LLVMFuzzerTestOneInput() over every file
 * of the corpus directories given, then over random mutations of them for a
 * while. No coverage guides it, so it finds less than libFuzzer; it exists so
 * that every build runs the harnesses and their corpus, under the sanitizers
 * when the build has them.
 *
 * It takes libFuzzer's command line, so one test definition serves both:
 *
 *   HARNESS [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=N] [-timeout=S]
 *           [-artifact_prefix=P] DIR_OR_FILE...
 *
 *   -max_total_time=S  mutate for S seconds after the corpus (default 0)
 *   -runs=N            stop after N mutated inputs (default: no limit)
 *   -seed=N            the mutations' seed (0, the default: from the clock;
 *                      the seed used is printed, so a run can be repeated)
 *   -max_len=N         longest mutated input (default: 4096, or the longest
 *                      corpus file if longer)
 *   -timeout=S         an input that runs longer is a failure (default 1200)
 *   -artifact_prefix=P where the input of a failure is written: P + "crash-"
 *                      (or "timeout-") + a hash; default the current directory
 * Other "-flag=value" arguments are libFuzzer's and are ignored (named on
 * stderr, except -error_exitcode and -print_final_stats: a failure here
 * always ends in abort() or a signal).
 *
 * On a failure (abort, a sanitizer report, a signal, the timeout) the input
 * being run is written out and its path printed; then the process dies as it
 * would have. Run the harness on that file alone to reproduce it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

/* Set by sanitizer runtimes, when linked in: called before they exit. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* ------------------------------------------------------------------------ */
/* The input being run, written out if it fails                             */
/* ------------------------------------------------------------------------ */

static const uint8_t *current;
static size_t current_len;
static const char *current_from = "";
static char artifact_prefix[1024] = "./";
static volatile sig_atomic_t saved;

static void put(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

/* Async-signal-safe: writes the current input to PREFIX + kind + hash. */
static void save_current(const char *kind)
{
    if (saved || !current) return;
    saved = 1;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < current_len; i++)
        h = (h ^ current[i]) * 1099511628211ULL;
    char path[1200], hex[17];
    for (int i = 0; i < 16; i++)
        hex[i] = "0123456789abcdef"[(h >> (60 - 4 * i)) & 15];
    hex[16] = 0;
    size_t n = 0;
    for (const char *parts[] = {artifact_prefix, kind, hex, NULL}, **p = parts; *p; p++)
        for (const char *s = *p; *s && n < sizeof path - 1; s++)
            path[n++] = *s;
    path[n] = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        for (size_t off = 0; off < current_len;) {
            ssize_t w = write(fd, current + off, current_len - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        close(fd);
    }
    put("\ndriver: failing input (");
    put(current_from);
    put(") written to ");
    put(fd >= 0 ? path : "(could not write it)");
    put("\n");
}

static void on_death(void)
{
    save_current("crash-");
}

static void on_signal(int sig)
{
    save_current(sig == SIGALRM ? "timeout-" : "crash-");
    if (sig == SIGALRM) {
        put("driver: timeout\n");
        sig = SIGABRT;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static unsigned timeout_s = 1200;

static void run_one(const uint8_t *data, size_t len, const char *from)
{
    /* An exact-size copy: a read past the end is a sanitizer report. */
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) abort();
    if (len) memcpy(copy, data, len);
    current = copy;
    current_len = len;
    current_from = from;
    alarm(timeout_s);
    LLVMFuzzerTestOneInput(copy, len);
    alarm(0);
    current = NULL;
    free(copy);
}

/* ------------------------------------------------------------------------ */
/* The corpus                                                               */
/* ------------------------------------------------------------------------ */

typedef struct unit {
    uint8_t *data;
    size_t len;
    char *name;
} unit_t;

typedef struct corpus {
    unit_t *u;
    size_t n, cap;
} corpus_t;

static void corpus_add_file(corpus_t *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            data = realloc(data, cap);
            if (!data) abort();
        }
        size_t r = fread(data + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    fclose(f);
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->u = realloc(c->u, c->cap * sizeof *c->u);
        if (!c->u) abort();
    }
    c->u[c->n++] = (unit_t){data, len, strdup(path)};
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every regular file of a directory (sorted, not recursive). */
static void corpus_add(corpus_t *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        corpus_add_file(c, path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t size = strlen(path) + strlen(e->d_name) + 2;
        char *full = malloc(size);
        if (!full) abort();
        snprintf(full, size, "%s/%s", path, e->d_name);
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names) abort();
        }
        names[n++] = full;
    }
    closedir(d);
    if (n > 1) qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        corpus_add_file(c, names[i]);
        free(names[i]);
    }
    free(names);
}

/* ------------------------------------------------------------------------ */
/* Mutations                                                                */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t below(size_t n)
{
    return n ? (size_t)(next() % n) : 0;
}

/* Bytes and words that matter to a line protocol, JSON, telnet and the games. */
static const char *const tokens[] = {
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "\xff\xff",
    "\xff\xfb\x01",
    "\xff\xfa",
    "\xff\xf0",
    "\xff",
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "=",
    "\\",
    "\\u0000",
    "\\ud800",
    "\\u00e9",
    "\xc3\xa9",
    "\xe2\x80\xae",
    "\xf0\x9f\x82\xa1",
    "\x80",
    "\x7f",
    "\0",
    "0",
    "-1",
    "9223372036854775807",
    "99999999999999999999",
    "1e999",
    "0.5",
    "true",
    "null",
    "{\"cmd\":\"act\",\"action\":{\"type\":\"",
    "\"type\":",
    "act ",
    "hello ",
    "create 233 ",
    "say ",
    "{\"type\":\"play\"}",
    "card=",
    "cards=",
    "args",
    ",,",
};

static size_t mutate(uint8_t *buf, size_t len, size_t max, const corpus_t *c)
{
    int rounds = 1 + (int)below(8);
    for (int r = 0; r < rounds; r++) {
        switch (below(9)) {
        case 0: /* flip a bit */
            if (len) buf[below(len)] ^= (uint8_t)(1u << below(8));
            break;
        case 1: /* a random byte */
            if (len) buf[below(len)] = (uint8_t)next();
            break;
        case 2: /* delete a range */
            if (len) {
                size_t at = below(len), n = 1 + below(len - at < 16 ? len - at : 16);
                memmove(buf + at, buf + at + n, len - at - n);
                len -= n;
            }
            break;
        case 3:
        case 4: { /* insert a token */
            const char *t = tokens[below(sizeof tokens / sizeof tokens[0])];
            size_t n = t[0] ? strlen(t) : 1, at = below(len + 1);
            if (len + n > max) break;
            memmove(buf + at + n, buf + at, len - at);
            memcpy(buf + at, t, n);
            len += n;
            break;
        }
        case 5: { /* copy a range of itself elsewhere (repeats, long lines) */
            if (!len) break;
            size_t from = below(len), n = 1 + below(len - from), to = below(len + 1);
            if (below(4) == 0) n = n * (1 + below(64));
            if (len + n > max) n = max - len;
            uint8_t *tmp = malloc(n ? n : 1);
            if (!tmp) abort();
            for (size_t i = 0; i < n; i++)
                tmp[i] = buf[from + i % (len - from)];
            memmove(buf + to + n, buf + to, len - to);
            memcpy(buf + to, tmp, n);
            free(tmp);
            len += n;
            break;
        }
        case 6: { /* splice: the head of this one, the tail of another */
            const unit_t *o = &c->u[below(c->n)];
            if (!o->len) break;
            size_t at = below(len + 1), from = below(o->len), n = o->len - from;
            if (at + n > max) n = max - at;
            memcpy(buf + at, o->data + from, n);
            len = at + n;
            break;
        }
        case 7: /* truncate */ len = below(len + 1); break;
        default: { /* a digit run becomes another number */
            if (!len) break;
            size_t at = below(len);
            while (at < len && (buf[at] < '0' || buf[at] > '9'))
                at++;
            if (at < len) buf[at] = (uint8_t)('0' + below(10));
            break;
        }
        }
    }
    return len;
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int flag(const char *arg, const char *name, unsigned long long *out)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || arg[n] != '=') return 0;
    char *end;
    *out = strtoull(arg + n + 1, &end, 10);
    if (*end) {
        fprintf(stderr, "driver: bad value in %s\n", arg);
        exit(2);
    }
    return 1;
}

int main(int argc, char **argv)
{
    unsigned long long seconds = 0, runs = ~0ULL, seed = 0, max_len = 0, timeout = 1200;
    corpus_t c = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            corpus_add(&c, a);
        } else if (strncmp(a, "-artifact_prefix=", 17) == 0) {
            snprintf(artifact_prefix, sizeof artifact_prefix, "%s", a + 17);
        } else if (!flag(a, "-max_total_time", &seconds) && !flag(a, "-runs", &runs) &&
                   !flag(a, "-seed", &seed) && !flag(a, "-max_len", &max_len) &&
                   !flag(a, "-timeout", &timeout) && strncmp(a, "-error_exitcode=", 16) != 0 &&
                   strncmp(a, "-print_final_stats=", 19) != 0) {
            fprintf(stderr, "driver: ignoring %s (a libFuzzer flag)\n", a);
        }
    }
    timeout_s = timeout ? (unsigned)timeout : 0;
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
    int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], on_signal);

    double t0 = now_s();
    size_t longest = 0;
    for (size_t i = 0; i < c.n; i++) {
        run_one(c.u[i].data, c.u[i].len, c.u[i].name);
        if (c.u[i].len > longest) longest = c.u[i].len;
    }
    printf("driver: %zu corpus inputs in %.2f s\n", c.n, now_s() - t0);

    if (seed == 0) seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
    rng_state = seed;
    if (!max_len) max_len = longest > 4096 ? longest : 4096;
    unsigned long long done = 0;
    if (seconds > 0 && runs > 0) {
        if (c.n == 0) corpus_add_file(&c, "/dev/null");
        uint8_t *buf = malloc(max_len);
        if (!buf) abort();
        char from[160];
        double t1 = now_s(), end = t1 + (double)seconds;
        while (done < runs && now_s() < end) {
            const unit_t *u = &c.u[below(c.n)];
            size_t len = u->len < max_len ? u->len : max_len;
            memcpy(buf, u->data, len);
            len = mutate(buf, len, max_len, &c);
            snprintf(from, sizeof from, "a mutation of %.100s, seed %llu, run %llu", u->name, seed,
                     done + 1);
            run_one(buf, len, from);
            done++;
        }
        free(buf);
        printf("driver: %llu mutations in %.1f s (seed %llu, -seed=%llu repeats them)\n", done,
               now_s() - t1, seed, seed);
    }
    for (size_t i = 0; i < c.n; i++) {
        free(c.u[i].data);
        free(c.u[i].name);
    }
    free(c.u);
    return 0;
}

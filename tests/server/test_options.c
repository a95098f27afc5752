/*
 * test_options.c — tapisd's options (server/base/options.c) alone: the defaults,
 * that every default --help states is the value tapisd takes, the bounds of
 * each kind of value, the config file, and what SIGHUP's reload keeps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/base/log.h"
#include "server/base/options.h"

/* options_parse() of a NULL-ended argument list after "tapisd". */
static int parse(server_opts_t *o, ...)
{
    char *argv[64] = {"tapisd"};
    int argc = 1;
    va_list ap;
    va_start(ap, o);
    for (char *a; (a = va_arg(ap, char *)) && argc < 63;)
        argv[argc++] = a;
    va_end(ap);
    return options_parse(o, argc, argv);
}

/* What `tapisd --help` prints, in a static buffer. */
static const char *help(void)
{
    static char text[16384];
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    dup2(fileno(tmp), STDOUT_FILENO);
    server_opts_t o;
    int rc = parse(&o, "--help", NULL);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(rc, 1);
    rewind(tmp);
    size_t n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = 0;
    fclose(tmp);
    return text;
}

static void defaults_are_the_documented_ones(void **state)
{
    (void)state;
    server_opts_t o;
    assert_int_equal(parse(&o, NULL), 0);
    assert_string_equal(o.host, "127.0.0.1");
    assert_int_equal(o.port, 7233);
    assert_int_equal(o.max_line, 8192);
    assert_int_equal(o.max_conns, 10000);
    assert_int_equal(o.out_cap, 1048576);
    assert_int_equal(o.hello_timeout, 60000);
    assert_int_equal(o.reconnect_window, 120000);
    assert_int_equal(o.turn_timer, 60000);
    assert_int_equal(o.dispute_ms, 200);
    assert_int_equal(o.bot_delay_min, 50);
    assert_int_equal(o.bot_delay_max, 300);
    assert_false(o.bot_delay_set); /* only a --bot-delay given sets every level's pace */
    assert_int_equal(o.line_rate, 1000);
    assert_int_equal(o.error_rate, 20);
    assert_int_equal(o.chat_rate, 5);
    assert_int_equal(o.max_chat, 500);
    assert_int_equal(o.create_rate, 60);
    assert_int_equal(o.max_rooms, 10000);
    assert_int_equal(o.waiting_timeout, 600000);
    assert_int_equal(o.idle_timeout, 600000);
    assert_int_equal(o.max_conns_per_ip, 64);
    assert_int_equal(o.conn_rate, 20);
    assert_string_equal(o.db_path, "tapis.db");
    assert_false(o.fsync_always);
    assert_int_equal(o.log_level, LOG_INFO);
    assert_false(o.log_json);
    assert_false(o.metrics);
    assert_string_equal(o.admin_token_file, "");
    assert_string_equal(o.config_path, "");
    assert_string_equal(o.redis_host, "");
    assert_int_equal(o.node_ttl, 3000);
    assert_false(o.seeded);
    assert_null(o.export_game);
}

/*
 * For every "--name ARG ... (default X" of --help: giving `--name X` leaves
 * the options as they are with no argument at all. A default written in the
 * help that is not the one tapisd takes fails here.
 */
static void every_default_in_help_is_the_value_taken(void **state)
{
    (void)state;
    const char *text = help();
    regex_t row, def;
    assert_int_equal(regcomp(&row, "^  --([a-z-]+) ", REG_EXTENDED | REG_NEWLINE), 0);
    assert_int_equal(regcomp(&def, "\\(default ([^;) ]+)[;)]", REG_EXTENDED), 0);
    server_opts_t base, given;
    assert_int_equal(parse(&base, NULL), 0);
    int rows = 0, checked = 0;
    for (const char *p = text; *p;) {
        regmatch_t m[2];
        if (regexec(&row, p, 2, m, 0) != 0) break;
        rows++;
        char name[64], value[64];
        snprintf(name, sizeof name, "--%.*s", (int)(m[1].rm_eo - m[1].rm_so), p + m[1].rm_so);
        /* the option's text runs to the next option line or a blank line */
        const char *body = p + m[0].rm_eo, *end = body;
        while (*end && !(end[0] == '\n' && (end[1] == '\n' || strncmp(end + 1, "  --", 4) == 0)))
            end++;
        char entry[1024];
        snprintf(entry, sizeof entry, "%.*s", (int)(end - body), body);
        for (char *c = entry; *c; c++)
            if (*c == '\n') *c = ' ';
        for (char *c = entry; (c = strstr(c, "  "));) /* the wrapping's indent */
            memmove(c, c + 1, strlen(c));
        if (regexec(&def, entry, 2, m, 0) == 0) {
            snprintf(value, sizeof value, "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
                     entry + m[1].rm_so);
            if (strcmp(value, "off") == 0 || strcmp(value, "none") == 0) { /* not given */
                p = *end ? end + 1 : end;
                continue;
            }
            int rc = parse(&given, name, value, NULL);
            if (rc != 0) fail_msg("%s %s (its default in --help) does not parse", name, value);
            given.bot_delay_set = base.bot_delay_set; /* the one mark of a value given */
            if (memcmp(&given, &base, sizeof base) != 0)
                fail_msg("%s %s (its default in --help) is not the default", name, value);
            checked++;
        }
        p = *end ? end + 1 : end;
    }
    regfree(&row);
    regfree(&def);
    assert_true(rows >= 30);
    assert_true(checked >= 20); /* the numbers, times and words with a default */
}

static void values_out_of_range_are_refused(void **state)
{
    (void)state;
    struct {
        const char *opt, *ok, *bad;
    } cases[] = {
        {"--max-line", "16", "15"},
        {"--max-line", "16777216", "16777217"},
        {"--max-conns", "1", "0"},
        {"--out-cap", "1024", "1023"},
        {"--max-chat", "1000", "1001"},
        {"--max-rooms", "1000000", "1000001"},
        {"--chat-rate", "10000", "10001"},
        {"--line-rate", "0", "-1"},
        {"--line-rate", "7", "7x"},
        {"--hello-timeout", "0", "5h"},
        {"--waiting-timeout", "1ms", "0"},
        {"--dispute-window", "60000", "60001"},
        {"--dispute-window", "1s", "61s"},
        {"--node-ttl", "300ms", "299ms"},
        {"--node-ttl", "10m", "11m"},
        {"--bot-delay", "10-20", "20-10"},
        {"--fsync", "always", "sometimes"},
        {"--log-format", "json", "xml"},
        {"--log-level", "warn", "loud"},
        {"--listen", "[::1]:7000", "[::1]:70000"},
        {"--listen", ":7000", "::1:7000"},
        {"--metrics", "127.0.0.1:0", "127.0.0.1"},
        {"--redis", "localhost:6379", "localhost"},
        {"--advertise", "host:7233", "host:0"},
        {"--node-id", "node-a.1", "node a"},
        {"--db", "none", ""},
        {"--seed", "18446744073709551615", "18446744073709551616"},
        {"--web-root", "none", ""},
        {"--allow-origin", "https://a.example:8443", "a.example"},
        {"--allow-origin", "*", "https://a.example/path"},
        {"--allow-origin", "http://a,https://b", "http://a,"},
        {"--trusted-proxy", "127.0.0.1,::1", "localhost"},
        {"--trusted-proxy", "10.0.0.1", "10.0.0.1/8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        server_opts_t o;
        if (parse(&o, cases[i].opt, cases[i].ok, NULL) != 0)
            fail_msg("%s %s refused", cases[i].opt, cases[i].ok);
        if (parse(&o, cases[i].opt, cases[i].bad, NULL) != -1)
            fail_msg("%s %s accepted", cases[i].opt, cases[i].bad);
    }
    server_opts_t o;
    assert_int_equal(parse(&o, "--no-such-option", NULL), -1);
    assert_int_equal(parse(&o, "--line-rate", NULL), -1); /* needs a value */
    assert_int_equal(parse(&o, "stray", NULL), -1);
}

static void values_land_where_they_should(void **state)
{
    (void)state;
    server_opts_t o;
    assert_int_equal(parse(&o, "--listen", "[::1]:7000", "--bot-delay", "0", "--db", "none",
                           "--metrics", ":9233", "--fsync", "always", "--seed", "42",
                           "--dispute-window", "2s", "--idle-timeout", "90", NULL),
                     0);
    assert_string_equal(o.host, "::1");
    assert_int_equal(o.port, 7000);
    assert_true(o.bot_delay_set);
    assert_int_equal(o.bot_delay_min, 0);
    assert_int_equal(o.bot_delay_max, 0);
    assert_string_equal(o.db_path, "");
    assert_true(o.metrics);
    assert_string_equal(o.metrics_host, "127.0.0.1");
    assert_int_equal(o.metrics_port, 9233);
    assert_true(o.fsync_always);
    assert_true(o.seeded);
    assert_int_equal(o.seed, 42);
    assert_int_equal(o.dispute_ms, 2000);
    assert_int_equal(o.idle_timeout, 90000); /* a bare TIME is in seconds */
    /* the lists add up, given again or as one comma list */
    assert_int_equal(parse(&o, "--allow-origin", "http://a", "--allow-origin", "https://b,*",
                           "--trusted-proxy", "::1", "--trusted-proxy", "10.1.2.3", "--web-root",
                           "none", NULL),
                     0);
    assert_string_equal(o.allow_origin, "http://a,https://b,*");
    assert_string_equal(o.trusted_proxy, "::1,10.1.2.3");
    assert_string_equal(o.web_root, "");
}

/* A config file of `text`; its path in a static buffer. */
static const char *config(const char *text)
{
    static char path[] = "/tmp/tapis-options-XXXXXX";
    strcpy(path, "/tmp/tapis-options-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void config_file_sets_options_and_the_command_line_wins(void **state)
{
    (void)state;
    server_opts_t o;
    const char *path = config("# limits\nline-rate 500\nmax-chat = 50   # bytes\n\nchat-rate 9\n");
    assert_int_equal(parse(&o, "--config", path, "--chat-rate", "3", NULL), 0);
    assert_int_equal(o.line_rate, 500);
    assert_int_equal(o.max_chat, 50);
    assert_int_equal(o.chat_rate, 3);
    assert_string_equal(o.config_path, path);
    unlink(path);
    const char *refused[] = {"config other\n", "export-game 3\n", "help 1\n",      "version 1\n",
                             "nope 1\n",       "line-rate\n",     "line-rate -3\n"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        path = config(refused[i]);
        if (parse(&o, "--config", path, NULL) != -1) fail_msg("config %s accepted", refused[i]);
        unlink(path);
    }
}

static void reload_applies_limits_and_keeps_what_needs_a_restart(void **state)
{
    (void)state;
    server_opts_t cur, next;
    assert_int_equal(parse(&cur, "--listen", "127.0.0.1:7000", "--db", "a.db", "--seed", "1",
                           "--line-rate", "10", "--node-ttl", "2s", NULL),
                     0);
    assert_int_equal(parse(&next, "--listen", "127.0.0.1:7001", "--db", "b.db", "--seed", "2",
                           "--line-rate", "20", "--node-ttl", "5s", "--log-level", "debug",
                           "--fsync", "always", "--metrics", "127.0.0.1:9000", NULL),
                     0);
    options_reload(&cur, &next);
    assert_int_equal(cur.line_rate, 20);
    assert_int_equal(cur.log_level, LOG_DEBUG);
    assert_int_equal(cur.port, 7000);
    assert_string_equal(cur.db_path, "a.db");
    assert_false(cur.fsync_always);
    assert_false(cur.metrics);
    assert_int_equal(cur.node_ttl, 2000);
    assert_int_equal(cur.seed, 1);
}

int main(void)
{
    log_set_level(LOG_ERROR); /* the reload's warnings are expected */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_the_documented_ones),
        cmocka_unit_test(every_default_in_help_is_the_value_taken),
        cmocka_unit_test(values_out_of_range_are_refused),
        cmocka_unit_test(values_land_where_they_should),
        cmocka_unit_test(config_file_sets_options_and_the_command_line_wins),
        cmocka_unit_test(reload_applies_limits_and_keeps_what_needs_a_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * metrics.c — the numbers of metrics.h, written as Prometheus text or JSON.
 *
 * One list of families (collect()) feeds both writers, so `stats` and
 * GET /metrics can never disagree on a name or a label.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "server/metrics/metrics.h"
#include "core/game.h"
#include "include/tapis_error.h"

static const double bucket_le[METRICS_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};

static const char *const cause_names[CLOSE__COUNT] = {
    [CLOSE_EOF] = "eof",
    [CLOSE_QUIT] = "quit",
    [CLOSE_ERROR] = "error",
    [CLOSE_SLOW_READER] = "slow_reader",
    [CLOSE_TOO_MANY_ERRORS] = "too_many_errors",
    [CLOSE_HELLO_TIMEOUT] = "hello_timeout",
    [CLOSE_IDLE_TIMEOUT] = "idle_timeout",
    [CLOSE_LINE_TOO_LONG] = "line_too_long",
    [CLOSE_HTTP] = "http",
    [CLOSE_REFUSED] = "refused",
    [CLOSE_TAKEN_OVER] = "taken_over",
    [CLOSE_KICKED] = "kicked",
    [CLOSE_SHUTDOWN] = "shutdown",
    [CLOSE_NO_MEMORY] = "out_of_memory",
};

static const char *const refuse_names[REFUSE__COUNT] = {
    [REFUSE_MAX_CONNS] = "max_conns",
    [REFUSE_PER_IP] = "per_ip",
    [REFUSE_CONN_RATE] = "conn_rate",
};

static const char *const budget_names[BUDGET__COUNT] = {
    [BUDGET_LINE] = "line",
    [BUDGET_CHAT] = "chat",
    [BUDGET_CREATE] = "create",
    [BUDGET_LOGIN] = "login",
};

static const char *const http_status_names[METRICS_HTTP_STATUSES] = {
    "101", "200", "400", "403", "404", "405", "426", "429", "431", "500", "503",
};

/* ------------------------------------------------------------------------ */
/* Counting                                                                 */
/* ------------------------------------------------------------------------ */

void metrics_http(metrics_t *m, int status)
{
    char s[8];
    snprintf(s, sizeof s, "%d", status);
    int k = 9; /* "500" */
    for (int i = 0; i < METRICS_HTTP_STATUSES; i++)
        if (strcmp(s, http_status_names[i]) == 0) k = i;
    m->http[k]++;
}

void histogram_observe(histogram_t *h, double seconds)
{
    if (!(seconds >= 0)) seconds = 0; /* NaN or a clock step back */
    int i = 0;
    while (i < METRICS_BUCKETS && seconds > bucket_le[i])
        i++;
    h->le[i]++;
    h->count++;
    h->sum += seconds;
}

close_cause_t metrics_close_cause(const char *why)
{
    static const struct {
        const char *why;
        close_cause_t cause;
    } map[] = {
        {"end of input", CLOSE_EOF},
        {"quit", CLOSE_QUIT},
        {"slow reader", CLOSE_SLOW_READER},
        {"output not flushed in time", CLOSE_SLOW_READER},
        {TAPIS_E_TOO_MANY_ERRORS, CLOSE_TOO_MANY_ERRORS},
        {TAPIS_E_HELLO_TIMEOUT, CLOSE_HELLO_TIMEOUT},
        {TAPIS_E_IDLE_TIMEOUT, CLOSE_IDLE_TIMEOUT},
        {"line too long", CLOSE_LINE_TOO_LONG},
        {"HTTP request on the line port", CLOSE_HTTP},
        {"HTTP answered", CLOSE_HTTP},
        {"no HTTP request in time", CLOSE_HTTP},
        {"closed by the client", CLOSE_QUIT},
        {TAPIS_E_SERVER_FULL, CLOSE_REFUSED},
        {TAPIS_E_TOO_MANY_CONNECTIONS, CLOSE_REFUSED},
        {TAPIS_E_RATE_LIMITED, CLOSE_REFUSED},
        {"server stopping", CLOSE_SHUTDOWN},
        {"shutdown", CLOSE_SHUTDOWN},
        {"session taken over", CLOSE_TAKEN_OVER},
        {"kicked", CLOSE_KICKED},
        {"out of memory", CLOSE_NO_MEMORY},
        {"end of file", CLOSE_EOF}, /* uv_strerror(UV_EOF) */
    };
    for (size_t i = 0; why && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(why, map[i].why) == 0) return map[i].cause;
    return CLOSE_ERROR;
}

int metrics_game_index(const char *game_id)
{
    int n;
    const game_desc_t *const *games = game_registry(&n);
    for (int i = 0; i < n && i < METRICS_GAMES; i++)
        if (strcmp(games[i]->id, game_id) == 0) return i;
    return METRICS_GAMES - 1;
}

void metrics_refused(metrics_t *m, int game, const char *code)
{
    if (!code) code = TAPIS_E_ILLEGAL_ACTION;
    int i;
    for (i = 0; i < m->nrefusals; i++)
        if (m->refusals[i].game == game &&
            (m->refusals[i].code == code || strcmp(m->refusals[i].code, code) == 0))
            break;
    if (i == m->nrefusals) {
        if (m->nrefusals == METRICS_REFUSALS) {
            code = "other";
            for (i = 0; i < m->nrefusals; i++)
                if (m->refusals[i].game == game && strcmp(m->refusals[i].code, code) == 0) break;
            if (i == m->nrefusals) i = m->nrefusals - 1; /* full: fold into the last */
        } else {
            m->refusals[m->nrefusals++] = (struct metrics_refusal){.game = game, .code = code};
        }
    }
    m->refusals[i].n++;
}

/* ------------------------------------------------------------------------ */
/* Writing: one family list, two formats                                    */
/* ------------------------------------------------------------------------ */

typedef struct writer {
    buf_t *text;  /* Prometheus text, or NULL */
    json_t *json; /* {family: ...}, or NULL */
    json_t *cur;  /* the current family's array of labelled samples (JSON) */
    const char *family;
    int failed;
} writer_t;

static void family(writer_t *w, const char *name, const char *type, const char *help)
{
    w->family = name;
    w->cur = NULL;
    if (w->json) { /* labelled samples go in an array, empty if there are none */
        w->cur = json_array();
        if (json_object_set_new(w->json, name, w->cur) < 0) w->failed = 1;
    }
    if (w->text) {
        if (buf_printf(w->text, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type) < 0)
            w->failed = 1;
    }
}

/* A sample of the current family, with up to two labels (NULL names: fewer). */
static void sample(writer_t *w, const char *suffix, const char *k1, const char *v1, const char *k2,
                   const char *v2, double value)
{
    if (w->text) {
        int r = buf_printf(w->text, "%s%s", w->family, suffix);
        if (k1) r |= buf_printf(w->text, "{%s=\"%s\"", k1, v1);
        if (k2) r |= buf_printf(w->text, ",%s=\"%s\"", k2, v2);
        if (k1) r |= buf_puts(w->text, "}");
        if (value == floor(value) && fabs(value) < 1e15)
            r |= buf_printf(w->text, " %.0f\n", value);
        else
            r |= buf_printf(w->text, " %.15g\n", value);
        if (r < 0) w->failed = 1;
        return;
    }
    json_t *v = json_real(value);
    if (value == floor(value) && fabs(value) < 9e15) {
        json_decref(v);
        v = json_integer((json_int_t)value);
    }
    if (!k1) {
        if (json_object_set_new(w->json, w->family, v) < 0) w->failed = 1;
        return;
    }
    json_t *o = json_object();
    json_object_set_new(o, k1, json_string(v1));
    if (k2) json_object_set_new(o, k2, json_string(v2));
    json_object_set_new(o, "value", v);
    if (json_array_append_new(w->cur, o) < 0) w->failed = 1;
}

static void counter(writer_t *w, const char *name, const char *help, uint64_t v)
{
    family(w, name, "counter", help);
    sample(w, "", NULL, NULL, NULL, NULL, (double)v);
}

static void gauge(writer_t *w, const char *name, const char *help, double v)
{
    family(w, name, "gauge", help);
    sample(w, "", NULL, NULL, NULL, NULL, v);
}

static void histogram(writer_t *w, const char *name, const char *help, const histogram_t *h)
{
    family(w, name, "histogram", help);
    json_t *buckets = w->json ? json_object() : NULL;
    uint64_t cum = 0;
    char le[32];
    for (int i = 0; i <= METRICS_BUCKETS; i++) {
        cum += h->le[i];
        if (i < METRICS_BUCKETS)
            snprintf(le, sizeof le, "%g", bucket_le[i]);
        else
            snprintf(le, sizeof le, "+Inf");
        if (w->text)
            sample(w, "_bucket", "le", le, NULL, NULL, (double)cum);
        else
            json_object_set_new(buckets, le, json_integer((json_int_t)cum));
    }
    if (w->text) {
        sample(w, "_sum", NULL, NULL, NULL, NULL, h->sum);
        sample(w, "_count", NULL, NULL, NULL, NULL, (double)h->count);
        return;
    }
    json_t *o = json_pack("{s:o, s:f, s:I}", "buckets", buckets, "sum", h->sum, "count",
                          (json_int_t)h->count);
    if (!o || json_object_set_new(w->json, name, o) < 0) w->failed = 1;
}

/* Resident set size in bytes (/proc/self/statm), or -1. */
static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = -1, resident = -1;
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : (double)resident * (double)sysconf(_SC_PAGESIZE);
}

static double open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

static void collect(const metrics_t *m, const struct server *srv, writer_t *w)
{
    metrics_census_t c = {0};
    if (m->census) m->census(srv, &c);
    int ngames;
    const game_desc_t *const *games = game_registry(&ngames);
    if (ngames > METRICS_GAMES) ngames = METRICS_GAMES;

    family(w, "tapis_build_info", "gauge", "The version of this tapisd (always 1).");
    sample(w, "", "version", TAPIS_VERSION, NULL, NULL, 1);
    gauge(w, "tapis_start_time_seconds", "When this tapisd started, in Unix time.",
          (double)m->start_wall_ms / 1000.0);
    gauge(w, "tapis_draining", "1 while the server drains (no new rooms), else 0.",
          c.draining ? 1 : 0);

    gauge(w, "tapis_connections_open", "Connections open now.", c.conns);
    counter(w, "tapis_connections_accepted_total", "Connections accepted.", m->accepted);
    family(w, "tapis_connections_refused_total", "counter",
           "Connections refused at accept, by the limit that refused them.");
    for (int i = 0; i < REFUSE__COUNT; i++)
        sample(w, "", "reason", refuse_names[i], NULL, NULL, (double)m->refused[i]);
    family(w, "tapis_connections_closed_total", "counter", "Connections closed, by cause.");
    for (int i = 0; i < CLOSE__COUNT; i++)
        sample(w, "", "cause", cause_names[i], NULL, NULL, (double)m->closed[i]);

    gauge(w, "tapis_websockets_open", "Connections that are WebSockets now.",
          (double)m->websockets);
    family(w, "tapis_http_responses_total", "counter",
           "HTTP answers of the game port (the page, WebSocket handshakes), by status.");
    for (int i = 0; i < METRICS_HTTP_STATUSES; i++)
        sample(w, "", "status", http_status_names[i], NULL, NULL, (double)m->http[i]);

    family(w, "tapis_sessions", "gauge",
           "Sessions: connected, or held for a player who may reconnect.");
    sample(w, "", "state", "connected", NULL, NULL, c.sessions_connected);
    sample(w, "", "state", "held", NULL, NULL, c.sessions_held);

    static const char *const status[3] = {"waiting", "playing", "over"};
    family(w, "tapis_rooms", "gauge", "Rooms now, by game and status.");
    for (int g = 0; g < ngames; g++)
        for (int s = 0; s < 3; s++)
            sample(w, "", "game", games[g]->id, "status", status[s], c.rooms[g][s]);

    family(w, "tapis_actions_applied_total", "counter", "Actions the games took, by game.");
    for (int g = 0; g < ngames; g++)
        sample(w, "", "game", games[g]->id, NULL, NULL, (double)m->applied[g]);
    family(w, "tapis_actions_refused_total", "counter",
           "Actions the games refused, by game and error code.");
    for (int i = 0; i < m->nrefusals; i++)
        sample(w, "", "game", games[m->refusals[i].game < ngames ? m->refusals[i].game : 0]->id,
               "code", m->refusals[i].code, (double)m->refusals[i].n);
    family(w, "tapis_rate_limited_total", "counter", "Requests a budget refused, by budget.");
    for (int i = 0; i < BUDGET__COUNT; i++)
        sample(w, "", "budget", budget_names[i], NULL, NULL, (double)m->rate_limited[i]);

    counter(w, "tapis_state_events_total", "State events sent to seats and spectators.",
            m->state_events);
    counter(w, "tapis_sent_bytes_total", "Bytes handed to the kernel for clients.", m->bytes_sent);
    counter(w, "tapis_received_bytes_total", "Bytes read from clients.", m->bytes_received);
    histogram(w, "tapis_action_latency_seconds",
              "From reading an action's line to its state events being queued.",
              &m->action_latency);
    histogram(w, "tapis_loop_lag_seconds", "How late a 100 ms timer of the event loop fires.",
              &m->loop_lag);
    histogram(w, "tapis_journal_commit_seconds", "One commit of the SQLite journal.",
              &m->journal_commit);
    histogram(w, "tapis_rtt_seconds",
              "Connections' round-trip estimates (the least of the last pongs), at each pong.",
              &m->rtt);
    histogram(w, "tapis_race_credit_seconds",
              "Round trip credited to each action of a room settling races by reaction time.",
              &m->race_credit);
    counter(w, "tapis_race_caught_total",
            "Actions that came sooner than their sender's round trip allows: its quota shrank.",
            m->race_caught);
    counter(w, "tapis_turns_after_stall_total",
            "Turns that began over 2 ms after their poll returned: work due since waited a poll.",
            m->turns_after_stall);
    counter(w, "tapis_bot_searches_total",
            "Bots' decisions made on the thread pool, off the event loop (level hard).",
            m->bot_searches);
    counter(w, "tapis_bot_searches_dropped_total",
            "Bots' decisions from the thread pool dropped: their room changed or closed meanwhile.",
            m->bot_searches_dropped);
    gauge(w, "tapis_bot_searches_running", "Bots' decisions handed to the thread pool now.",
          (double)m->bot_searches_running);
    gauge(w, "tapis_bot_searches_waiting", "Bots' decisions waiting for room under --bot-searches.",
          (double)m->bot_searches_waiting);

    int nodes = 0;
    bool redis_up = m->cluster_health ? m->cluster_health(srv, &nodes) : false;
    gauge(w, "tapis_cluster_nodes", "Live nodes of the cluster, this one included (0: alone).",
          nodes);
    gauge(w, "tapis_cluster_redis_up", "1 while the cluster's Redis answers, else 0.",
          redis_up ? 1 : 0);
    gauge(w, "tapis_relay_links", "Links open to other nodes, serving clients of this one.",
          (double)m->relay_links);
    counter(w, "tapis_relayed_requests_total", "Requests sent to the node hosting their room.",
            m->relayed);
    counter(w, "tapis_rooms_taken_over_total", "Rooms of dead nodes rebuilt on this one.",
            m->taken_over);

    gauge(w, "process_resident_memory_bytes", "Resident memory size in bytes.", rss_bytes());
    gauge(w, "process_open_fds", "Open file descriptors.", open_fds());
    struct rlimit rl;
    gauge(w, "process_max_fds", "The file descriptor limit.",
          getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (double)rl.rlim_cur : -1);
    gauge(w, "process_start_time_seconds", "When the process started, in Unix time.",
          (double)m->start_wall_ms / 1000.0);
}

int metrics_text(const metrics_t *m, const struct server *srv, buf_t *out)
{
    writer_t w = {.text = out};
    collect(m, srv, &w);
    return w.failed ? -1 : 0;
}

json_t *metrics_json(const metrics_t *m, const struct server *srv)
{
    writer_t w = {.json = json_object()};
    if (!w.json) return NULL;
    collect(m, srv, &w);
    if (w.failed) {
        json_decref(w.json);
        return NULL;
    }
    return w.json;
}

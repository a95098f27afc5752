/*
 * conn.h — one client connection: reading lines, writing messages, closing.
 *
 * Reading: a read callback only feeds bytes to the connection's splitter,
 * notes when they came, and puts the connection in the server's ready heap
 * under the stamp of its next complete line; the scheduler (scheduler.c) takes
 * the lines in stamp order from a uv_check handle. See "Stamps" in conn.c.
 *
 * Writing: every message is one line, appended to the connection's output
 * (the turn's shared buffer while it has none of its own waiting: conn.c,
 * "Output"); it is flushed by conn_flush_all() alone, which the
 * scheduler calls once per turn (and from its uv_prepare handle for what
 * timers sent) right after the turn's durable commit, each with one write:
 * no output, not even a closing connection's last words, goes out before
 * the commit of what made it. A connection whose pending output passes
 * --out-cap is dropped (a slow reader must not make the server buffer
 * without end).
 */
#ifndef TAPIS_SERVER_CONN_H
#define TAPIS_SERVER_CONN_H

#include "server/server.h"
#include "server/net/rtt.h"

#define CONN_STAMPS 16    /* reads remembered per connection to stamp its lines */
#define CONN_OUT_PIECES 4 /* its pieces of the turn's buffer, at most (conn.c, "Output") */

/* ------------------------------------------------------------------------ */
/* Connection                                                               */
/* ------------------------------------------------------------------------ */

/* What the connection speaks, known from its first bytes (web.h). */
typedef enum conn_kind {
    CONN_SNIFFING, /* nothing read yet */
    CONN_LINES,    /* the line protocol */
    CONN_HTTP,     /* an HTTP request head (web.c) */
    CONN_WS,       /* a WebSocket: text messages are lines (ws.c) */
} conn_kind_t;

typedef enum conn_state {
    CONN_OPEN,     /* reading and answering */
    CONN_FLUSHING, /* read nothing more; close once the output is flushed */
    CONN_DOOMED,   /* failed while sending: closed from the check handle */
    CONN_CLOSING,  /* uv_close() called; waiting for the close callbacks */
} conn_state_t;

/* tcp, then what an act reads (in as few cache lines as they fit: at 2,000
   tables connections are out of the cache, and each line read is a miss),
   then what a connection's start, pings and end read. */
struct conn {
    uv_tcp_t tcp; /* first: a uv_stream_t * is a conn_t * */
    server_t *srv;
    session_t *session; /* the lobby's: NULL before hello (conn.c never reads it) */
    conn_state_t state;
    conn_kind_t kind;
    bool reading;
    bool saw_line;  /* a first line came: HTTP detection is done */
    bool eof;       /* the peer shut down its side: answer, then close */
    bool shutting;  /* CONN_FLUSHING and uv_shutdown() called */
    int lines_held; /* while > 0 its lines wait (a relayed request awaits its reply) */
    struct ws *ws;  /* ws.c's, once CONN_WS */
    frame_t frame;
    int nreads;
    int turn_lines;          /* lines taken in that turn */
    uint64_t turn;           /* the scheduler turn turn_lines counts in */
    uint64_t stamp_floor_us; /* no read is stamped before this: the last read, a resume */
    int64_t rx_real_ns;      /* the kernel's stamp of this read's bytes (0: none) */
    ssize_t read_here; /* what on_alloc() read for on_read(): bytes, UV_EOF, an error (0: none) */
    heap_node_t ready; /* in srv->ready, keyed by its next line's stamp (and delay) */
    uint64_t last_line_ms; /* for the idle timeout */
    budget_t line_budget, error_budget;
    buf_t out; /* output not yet handed to the kernel or libuv (see conn.c) */
    struct {
        size_t off, len;       /* in srv->out_turn */
    } pieces[CONN_OUT_PIECES]; /* its output there, in order, while `out` is empty */
    int npieces;
    size_t out_pending; /* bytes handed to libuv and not yet written */
    queue_t flush_node; /* in srv->flushing while output waits (else unlinked) */
    /* When its ping may be due (0: in srv->unpinged; rtt.c): read at each flush, so beside `out`.
     */
    uint64_t ping_check_us;
    rtt_t rtt; /* its round trip and the state events written to it (rtt.h) */
    struct {
        uint64_t end;     /* stream position (frame_t.fed) after this read */
        uint64_t us;      /* when it was read */
    } reads[CONN_STAMPS]; /* oldest first: the reads whose bytes are not all taken */

    uv_timer_t timer; /* hello timeout, then the flush deadline */
    uv_shutdown_t shutdown;
    uint64_t id;
    char peer[64]; /* "addr:port" for the log; "client via proxy" once a trusted proxy named it */
    char addr[48]; /* the peer's numeric address */
    struct web_in *web;       /* web.c's, while CONN_HTTP */
    int open_handles;         /* freed when the last handle's close callback ran */
    peer_count_t *peer_count; /* connections from the same address */
    const char *doom_why;
    const char *close_why;      /* the first reason given to close it: its metrics cause */
    queue_t doom_node;          /* in srv->doomed while CONN_DOOMED */
    struct relay_client *relay; /* relay.c's (links, lost rooms; opaque to conn.c), or NULL */
    bool greeted;               /* conn_hello_done() ran */
    bool node_link; /* from a cluster node's address (hooks.is_node_addr): not capped per address */
    bool relayed;   /* a node's link (hello "via"): idles as long as its client */
    bool via_proxy; /* from a --trusted-proxy: counted per address once it names its client */
    bool admitted;  /* ...and that was done (conn__admit_client()) */
    queue_t ping_node; /* in srv->pinging or srv->unpinged (rtt.c) */
    queue_t node;      /* in srv->conns */
};

/*
 * What a connection hands up, filled by the layer above (the lobby) and set in
 * srv->conn_hooks before the first connection is accepted. conn.c knows no
 * session, relay, store or cluster: what it needs of them goes through here.
 */
struct conn_hooks {
    /* A complete line, its read stamp, and whether it passed c's line budget
       (`limited`: it did not). c's next line waits until this returns. */
    void (*on_line)(conn_t *c, const char *line, size_t len, uint64_t stamp, bool limited);
    /* c is closing (its output is discarded): detach what the upper layer hung on it. */
    void (*on_close)(conn_t *c);
    /* Is ip (numeric) a trusted peer, such as a cluster node? Its connections are
       not counted per address (--max-conns-per-ip, --conn-rate). May be NULL. */
    bool (*is_node_addr)(const server_t *srv, const char *ip);
    /* How long (µs) c's next line (its bytes without the "\n", or NULL for a
       line too long), read at `stamp`, waits before it is taken: the races'
       hold (server/room/room_race.c). May be NULL. */
    uint64_t (*line_delay)(conn_t *c, const char *line, size_t len, uint64_t stamp);
    /* Is c's player in a room? Its reads are then stamped with the kernel's
       receive time (--kernel-stamps; conn.c, "Stamps"). May be NULL. */
    bool (*in_room)(conn_t *c);
};

/* The listener's connection callback. */
void conn_on_connection(uv_stream_t *listener, int status);

/* Send one message (borrowed). Returns 0, or -1 if the connection cannot take it. */
int conn_send(conn_t *c, const json_t *msg);
/* The same, stealing the reference to msg. */
int conn_send_new(conn_t *c, json_t *msg);
/* Send a message already encoded (one line, newline included: proto_encode()). */
int conn_send_encoded(conn_t *c, const char *line, size_t len);

/* Send a line as it is (relay.c: a node's reply or event), adding its "\n". */
int conn_send_line(conn_t *c, const char *line, size_t len);

/* Close now (pending output is discarded). `why` goes to the log. */
void conn_close(conn_t *c, const char *why);
/* Flush, read nothing more, close once everything sent so far is written. */
void conn_close_after_flush(conn_t *c, const char *why);

/* A hello succeeded: stop the hello timeout. */
void conn_hello_done(conn_t *c);

/* Take c's next line, check its budget and dispatch it (the scheduler's work). */
void conn_take_line(conn_t *c);
/* Re-key c in the ready heap after its input changed (or take it out). */
void conn_update_ready(conn_t *c);
/* An error reply `code` went to c: one unit of its error budget (none for the
   server's own failures: unavailable, internal, server_full, draining);
   closes c when spent. */
void conn_note_error(conn_t *c, const char *code);
/* Write the output every connection has waiting (the scheduler, after its commit). */
void conn_flush_all(server_t *srv);
/* The bytes of c's output waiting for the next flush. */
size_t conn_out_waiting(const conn_t *c);
/* For web.c and ws.c only: append bytes to c's output as they are (an HTTP
   answer, a WebSocket frame), and feed bytes to c's line splitter. 0 or -1
   (c is doomed, or memory ran out). */
int conn__write_raw(conn_t *c, const void *data, size_t n);
int conn__feed_lines(conn_t *c, const char *data, size_t n);
/* A connection from a --trusted-proxy names its client `addr` (NULL: none;
   then the proxy's own address counts): count it under that address for
   --max-conns-per-ip and --conn-rate, once. Returns NULL, or the code that
   refuses it (logged and counted): then answer and close it, or
   conn__refuse() for a line connection. Nothing for any other connection. */
const char *conn__admit_client(conn_t *c, const char *addr);
void conn__refuse(conn_t *c, const char *code);
/* An HTTP connection kept for another request (web.c): it has --hello-timeout
   again to send it, or it is closed. */
void conn__wait_request(conn_t *c);

/* Free what the connections keep for the server: the counts per address, the turn's
   output buffer (at exit, once every connection is closed). */
void conn_free_all(server_t *srv);
/* accept.c's part of it. */
void conn__free_peers(server_t *srv);

/* Between conn.c and accept.c: send an error event then close once it is
   written; read c again (unless it is paused, closing or at its end); take c
   out of the count of its address (it is closing). */
void conn__close_with_error(conn_t *c, const char *code, const char *message);
void conn__resume_reading(conn_t *c);
void conn__uncount(conn_t *c);

#endif

/*
 * framing.h — the bounded line splitter of one connection.
 *
 * Bytes go in as they arrive (any split: one byte at a time or many lines at
 * once) with frame_feed(); complete lines come out one by one with
 * frame_next(), so a read callback can take at most N lines, yield to the
 * loop, and take the rest later without reading more from the socket.
 *
 * What the splitter does to the byte stream:
 *  - A line ends at "\n"; one "\r" right before it is dropped too ("\r\n").
 *    A "\r" anywhere else is an ordinary byte (the envelope rejects it in
 *    the inline form; JSON treats it as white space between tokens).
 *  - Telnet negotiation is removed before splitting: IAC IAC is a literal
 *    byte 255, IAC WILL/WONT/DO/DONT opt, IAC SB ... IAC SE and every other
 *    two-byte IAC command vanish. The state carries across feeds, so a
 *    sequence split between two reads is removed as well.
 *  - NUL bytes are kept: a line may contain them (its length says where it
 *    ends), and the envelope rejects such a line with a clear error.
 *  - A line longer than max_line bytes (terminator excluded, telnet removed)
 *    yields FRAME_TOO_LONG exactly once, as soon as it is known (no need to
 *    wait for its "\n"). The connection is then dead for the splitter: every
 *    later frame_feed() drops its bytes and frame_next() returns
 *    FRAME_NEED_MORE. The caller answers line_too_long and closes. Lines
 *    that were complete before the long one are still yielded first.
 *
 * Memory: the buffer holds the complete lines not yet taken plus at most
 * max_line + 2 bytes of the current partial line. A caller that stops
 * taking lines should also stop reading (see frame_buffered()).
 */
#ifndef TAPIS_PROTOCOL_FRAMING_H
#define TAPIS_PROTOCOL_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_DEFAULT_MAX_LINE 8192

/* Results of frame_next(). */
#define FRAME_LINE 1      /* *line / *len hold one complete line */
#define FRAME_NEED_MORE 0 /* no complete line buffered: feed more bytes */
#define FRAME_TOO_LONG -1 /* the current line exceeds max_line (reported once) */

/* Result of frame_feed() when the buffer cannot grow. */
#define FRAME_ENOMEM -2

typedef struct frame {
    char *buf;       /* telnet-free bytes: [start, len) not yet taken */
    size_t cap;      /* allocated size of buf */
    size_t start;    /* first byte of the next line */
    size_t len;      /* end of the buffered bytes */
    size_t scan;     /* no "\n" in [start, scan): where the next search begins */
    size_t partial;  /* bytes since the last "\n" fed (the current line so far) */
    size_t max_line; /* longest accepted line, terminator excluded */
    int telnet;      /* telnet parser state (framing.c) */
    bool overflow;   /* a too-long line was seen: drop everything after it */
    bool reported;   /* FRAME_TOO_LONG was returned */
    uint64_t fed;    /* telnet-free bytes kept since frame_init (a position in the stream) */
    uint64_t taken;  /* stream position just past the last line taken */
} frame_t;

/* Initialise f with a line limit (0 means FRAME_DEFAULT_MAX_LINE). Allocates nothing. */
void frame_init(frame_t *f, size_t max_line);

/* Release the buffer. f may be initialised again afterwards. */
void frame_free(frame_t *f);

/*
 * Append bytes read from the connection (telnet sequences removed on the way).
 * Returns 0, or FRAME_ENOMEM when the buffer could not grow (nothing is
 * guaranteed about the stream afterwards: close the connection).
 * Lines returned by frame_next() before this call are invalidated.
 */
int frame_feed(frame_t *f, const char *data, size_t n);

/*
 * Take the next complete line. On FRAME_LINE, *line points into the buffer
 * (NUL-terminated at line[*len]; it may also contain NUL bytes before that)
 * and stays valid until the next frame_feed() or frame_free(); taking further
 * lines does not move it. Returns FRAME_LINE, FRAME_NEED_MORE or, once,
 * FRAME_TOO_LONG.
 */
int frame_next(frame_t *f, const char **line, size_t *len);

/*
 * Look at the next complete line without taking it. Returns FRAME_LINE with
 * *end = the stream position just past its "\n" (what `taken` becomes when
 * frame_next() takes it), FRAME_TOO_LONG (not yet reported) with *end =
 * `fed`, or FRAME_NEED_MORE. Positions count telnet-free bytes, as `fed`
 * does, so a caller that notes `fed` after each frame_feed() knows which
 * feed brought the end of each line (tapisd stamps lines that way).
 */
int frame_peek(frame_t *f, uint64_t *end);

/* Bytes buffered and not yet taken (complete lines and the partial one). */
size_t frame_buffered(const frame_t *f);

/* True once a too-long line was seen: the stream is dead for the splitter. */
bool frame_is_dead(const frame_t *f);

/*
 * True if `line` looks like the first line of an HTTP request,
 * METHOD SP TARGET SP HTTP/digit... ("GET / HTTP/1.1", "POST /x HTTP/1.0",
 * "PRI * HTTP/2.0"): METHOD is 3 to 10 upper-case ASCII letters. A line
 * protocol port closes such a connection quietly (memcached habit).
 */
bool frame_is_http_request(const char *line, size_t len);

#endif

/*
 * http_head.h — the head of an HTTP/1.x request: where it ends, and what it
 * says. Shared by the two HTTP servers of tapisd: the metrics responder
 * (server/metrics/http.c) and the game port's page and WebSocket upgrade
 * (server/net/web.c). Input is hostile by assumption; nothing here
 * allocates, and every pointer handed back points into the caller's bytes.
 *
 * Parsing follows RFC 9112 where it costs nothing: CRLF or a bare LF ends a
 * line, empty lines before the request line are skipped, a header line
 * starting with whitespace (obs-fold) or without a token before its colon
 * is refused, a value holds visible bytes, spaces and tabs only.
 */
#ifndef TAPIS_PROTOCOL_HTTP_HEAD_H
#define TAPIS_PROTOCOL_HTTP_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_MAX_HEADERS 64 /* header lines of one request; more is a 431 */

/* Where the search for the end of a head stands (zero it for a new head). */
typedef struct http_scan {
    size_t scan;       /* bytes already searched */
    size_t line_start; /* where the line being searched starts */
    size_t head_start; /* after the empty lines before the request line */
} http_scan_t;

/*
 * Search the new bytes of d[0..len) (the same buffer, grown, at each call)
 * for the end of the head. Returns its length through the \n of the blank
 * line, or 0 while it is incomplete. Each byte is looked at once.
 */
size_t http_head_end(http_scan_t *s, const char *d, size_t len);

typedef struct http_header {
    const char *name, *value; /* value without the spaces around it */
    size_t name_len, value_len;
} http_header_t;

typedef struct http_request {
    const char *method, *target;
    size_t method_len, target_len;
    int minor;     /* HTTP/1.minor */
    bool has_body; /* Transfer-Encoding, or a Content-Length other than 0 */
    int nheaders;
    http_header_t headers[HTTP_MAX_HEADERS];
} http_request_t;

/* What http_parse() found wrong. */
typedef enum http_parse_error {
    HTTP_OK = 0,
    HTTP_BAD_REQUEST_LINE = -1, /* not METHOD SP TARGET SP HTTP/1.x */
    HTTP_BAD_HEADER = -2,       /* a header line that is not a token, a colon, a value */
    HTTP_TOO_MANY_HEADERS = -3, /* over HTTP_MAX_HEADERS */
} http_parse_error_t;

/*
 * Parse the head d[s->head_start .. end) that http_head_end() found (`end`
 * its result). Returns HTTP_OK and fills *r, or an error.
 */
http_parse_error_t http_parse(const http_scan_t *s, const char *d, size_t end, http_request_t *r);

/* True if r's method is `m` (exactly: methods are case-sensitive). */
bool http_method_is(const http_request_t *r, const char *m);

/* The first header named `name` (case-insensitive), or NULL. */
const http_header_t *http_header(const http_request_t *r, const char *name);

/* How many headers are named `name`. */
int http_header_count(const http_request_t *r, const char *name);

/* True if the comma-separated list v[0..n) holds `token` (case-insensitive). */
bool http_list_has(const char *v, size_t n, const char *token);

/* The path of r's target: absolute-form loses its scheme and authority, any form its query. */
void http_target_path(const http_request_t *r, const char **path, size_t *len);

/* The reason phrase of an answer's status (200 "OK", ...; any other "Internal Server Error"). */
const char *http_reason(int status);

#endif

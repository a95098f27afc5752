/*
 * protocol.h — the protocol layer of tapis in one include.
 *
 * framing.h      bytes -> lines (bounded, telnet removed, HTTP detection)
 * envelope.h     line -> validated request; replies, events, encoding
 * commands.h     the command table and its validation, help text
 * inline_form.h  the word form for netcat/telnet; action -> words
 *
 * Parts the server uses as well (include them by name): buf.h, the growable
 * byte buffer; queue.h, the intrusive queue. Errors are tapis_error_t with
 * the codes of tapis_error.h (top-level include/).
 *
 * Typical use from a read callback:
 *
 *     frame_feed(&c->frame, buf->base, nread);
 *     for (int i = 0; i < MAX_LINES_PER_TICK; i++) {
 *         const char *line; size_t len;
 *         int r = frame_next(&c->frame, &line, &len);
 *         if (r == FRAME_NEED_MORE) break;
 *         if (r == FRAME_TOO_LONG) { reply line_too_long, close after flush; break; }
 *         if (first line && frame_is_http_request(line, len)) { close quietly; break; }
 *         proto_request_t req; tapis_error_t err;
 *         switch (proto_request_parse(&req, line, len, &err)) {
 *         case PROTO_EMPTY: break;
 *         case PROTO_ERROR: send(proto_reply_from_error(&req, &err)); break;
 *         case PROTO_OK:    dispatch(req.command->id, req.msg, req.re, req.id); break;
 *         }
 *         proto_request_free(&req);
 *     }
 *     (if lines remain buffered: stop reading, continue from an idle/check handle)
 */
#ifndef TAPIS_PROTOCOL_PROTOCOL_H
#define TAPIS_PROTOCOL_PROTOCOL_H

#include "protocol/framing.h"
#include "protocol/envelope.h"
#include "protocol/commands.h"
#include "protocol/inline_form.h"

#endif

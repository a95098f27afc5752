/*
 * tapis.h — the parts of the `tapis` client that live in their own files.
 */
#ifndef TAPIS_CLIENTS_TAPIS_H
#define TAPIS_CLIENTS_TAPIS_H

/* `tapis --json`: pass raw lines between stdin/stdout and host:port. Exit status. */
int tapis_json_mode(const char *host, const char *port);

#endif

/*
 * tapis.h — the parts of the `tapis` client that live in their own files.
 */
#ifndef TAPIS_CLIENTS_TAPIS_H
#define TAPIS_CLIENTS_TAPIS_H

#include <stdbool.h>

/*
 * SIGINT, SIGTERM and SIGHUP from now on ask the loop that holds the terminal
 * to end (stop_signal.c): tapis_stop_signal() is then the signal, else 0.
 */
void tapis_catch_stop_signals(void);
int tapis_stop_signal(void);

/* `tapis --json`: pass raw lines between stdin/stdout and host:port. Exit status. */
int tapis_json_mode(const char *host, const char *port);

/*
 * `tapis replay ID` (replay_cmd.c): fetch the record of finished game `id`
 * (hello as `name`, or a throwaway name when NULL), re-run it through core/
 * and step through it on the terminal, or print its steps as JSON lines.
 * Exit status: 0, or 1 when the server refuses or cannot be reached, or the
 * record does not replay as recorded.
 */
int tapis_replay(const char *host, const char *port, const char *name, const char *id, bool json,
                 bool color);
/* `tapis [HOST:PORT] verify ID` (or a record read from record_file): the deal
   and the replay checked (clients/verify.h); commit, when given, is the one
   seen before the deal. Returns the exit status: 0 verified, 1 not. */
int tapis_verify(const char *host, const char *port, const char *name, const char *id,
                 const char *record_file, const char *commit);

#endif

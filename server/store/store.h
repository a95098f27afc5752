/*
 * store.h — durable tables: sessions, rooms, seats and each room's journal
 * in one SQLite database (docs/STORE.md gives the format).
 *
 * A game is fully determined by (game, players, options, seed, stamped
 * action log), so the store keeps exactly that: every change of a room's
 * game goes to its journal with its room time, and a restart rebuilds every
 * unfinished room by replaying it. Write-ahead: the writes of one scheduler
 * turn (or of one loop iteration's timers) go into one transaction that
 * the sink's commit (durable_commit(), through store_durable) commits
 * BEFORE the turn's output is flushed, so no client ever sees a state that
 * a crash could take back.
 *
 * With --db none there is no store (srv->store is NULL) and every function
 * here does nothing. Nothing is written once the server is stopping: the
 * shutdown leaves rooms and sessions as they were, to be restored.
 *
 * Tokens are never stored: sessions keep a hash of theirs (session.c).
 */
#ifndef TAPIS_SERVER_STORE_H
#define TAPIS_SERVER_STORE_H

#include "server/durable/durable.h"
#include "server/server.h"

/* The store as a backend of the durability sink (durable.h), registered with
   the server as its ctx: rooms and sessions reach the functions below through
   it, never directly. */
extern const durable_backend_t store_durable;
/* The store as the accounts' backend (server/account/account.h; store_accounts.c), with the
   server as its ctx. */
struct account_backend;
extern const struct account_backend store_accounts_backend;

/*
 * Open (or create) the database at srv->opts.db_path, migrate its schema and
 * set srv->store. Returns 0, or -1 after logging why (the server must not
 * run then: it would lose what the database holds).
 */
int store_open(server_t *srv);
/* Commit what is pending, then close (the end of main). */
void store_close(server_t *srv);

/*
 * The restart is the sink's (durable_restore(), through the store's backend):
 * the store hands every session and unfinished room up as records, and the
 * lobby rebuilds them; it sets the room and session counters past the stored
 * ones, and quarantines a room whose journal does not replay (logged, never
 * half-loaded).
 */

/*
 * What rooms and sessions write comes only through the sink (store_durable's
 * entries, store_write.c): sessions, rooms (created with their complete
 * options and seed, playing, over or closed), seats, and each room's journal,
 * entry n of kind "act" (seat, data = the action), "tick" (seat -1, data
 * NULL), "start" (the game starts; seat -1, data NULL) or "seat" (data = who
 * sits there now: {"name","session"}, {"bot"} or {}).
 */

/*
 * Finished games (match history). A page of them, newest first (ended, then
 * rid): those where session `viewer` sits (the seats table), or with `all`
 * every public one. *total gets how many match. Returns the array of
 * {id, game, players (names by seat), result, ended}; [] with no store;
 * NULL on a database error (logged).
 */
json_t *store_history(server_t *srv, uint64_t viewer, bool all, int limit, long long offset,
                      long long *total);

#define STORE_REC_OK DURABLE_REC_OK
#define STORE_REC_NOT_FOUND DURABLE_REC_NOT_FOUND
#define STORE_REC_NOT_FINISHED DURABLE_REC_NOT_FINISHED
#define STORE_REC_BAD DURABLE_REC_BAD
#define STORE_REC_ERROR DURABLE_REC_ERROR
/*
 * The record of finished game `id` (docs/STORE.md, "Records"): *out gets
 * {id, game, players, options, seed, seats, actions, result, started, ended}
 * with STORE_REC_OK. Not found with no store.
 */
int store_game_record(server_t *srv, const char *id, uint64_t viewer, json_t **out);
/*
 * tapisd --db PATH --export-game ID: open PATH read-only, replay the game's
 * journal and check it gives the stored result, print the record on stdout.
 * Returns the exit code: 0, or 1 after a message on stderr.
 */
int store_export_game(const char *path, const char *id);

#endif

/*
 * stop_signal.c — SIGINT, SIGTERM and SIGHUP as a request to stop (tapis.h),
 * for the two loops of `tapis` that hold the terminal: the interactive client
 * (tapis.c) and the replay viewer (replay_cmd.c). Both must put the terminal
 * back before the process ends, so a signal only asks, and the loop ends.
 */
#include <signal.h>
#include <string.h>

#include "clients/tapis.h"

/* The one file-scope variable: what the signal handler may touch. */
static volatile sig_atomic_t STOP_SIGNAL;

static void on_stop_signal(int sig)
{
    STOP_SIGNAL = sig;
}

void tapis_catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a read, poll or fgets under way returns (EINTR), so the
       loop sees the request at once rather than at the next key. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int tapis_stop_signal(void)
{
    return STOP_SIGNAL;
}

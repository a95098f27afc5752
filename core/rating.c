/*
 * rating.c — the Weng–Lin Plackett–Luce update of rating.h.
 *
 * The order of the sums is fixed (teams in the order given), so the same
 * game gives the same ratings, bit for bit, on every node of a cluster.
 */
#include <math.h>
#include <stddef.h>

#include "core/rating.h"

const rating_params_t rating_default_params = {
    .beta = RATING_BETA,
    .kappa = RATING_KAPPA,
    .tau = RATING_TAU,
};

rating_t rating_new(void)
{
    return (rating_t){.mu = RATING_MU, .sigma = RATING_SIGMA};
}

double rating_display(rating_t r)
{
    return r.mu - 3.0 * r.sigma;
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */
/* ------------------------------------------------------------------------ */

static int valid_input(const rating_params_t *p, int n_teams, const int *team_size, const int *rank,
                       const rating_t *players)
{
    if (!team_size || !rank || !players || n_teams < 2 || n_teams > RATING_MAX_TEAMS) return 0;
    if (!isfinite(p->beta) || p->beta <= 0 || !isfinite(p->kappa) || p->kappa <= 0 ||
        !isfinite(p->tau) || p->tau < 0)
        return 0;
    int total = 0;
    for (int t = 0; t < n_teams; t++) {
        if (team_size[t] < 1 || team_size[t] > RATING_MAX_PLAYERS - total) return 0;
        total += team_size[t];
    }
    for (int j = 0; j < total; j++)
        if (!isfinite(players[j].mu) || !isfinite(players[j].sigma) || players[j].sigma <= 0)
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The update                                                               */
/* ------------------------------------------------------------------------ */

int rating_update(const rating_params_t *p, int n_teams, const int *team_size, const int *rank,
                  rating_t *players)
{
    if (!p) p = &rating_default_params;
    if (!valid_input(p, n_teams, team_size, rank, players)) return -1;

    /* τ first: every σ grows a little, so that no rating ever freezes. */
    double sig2[RATING_MAX_PLAYERS];
    int total = 0;
    for (int t = 0; t < n_teams; t++)
        total += team_size[t];
    for (int j = 0; j < total; j++)
        sig2[j] = players[j].sigma * players[j].sigma + p->tau * p->tau;

    /* A team is the sum of its players: μ and σ² add. */
    double tmu[RATING_MAX_TEAMS], tsig2[RATING_MAX_TEAMS];
    double c2 = 0;
    for (int t = 0, j = 0; t < n_teams; t++) {
        tmu[t] = 0;
        tsig2[t] = 0;
        for (int k = 0; k < team_size[t]; k++, j++) {
            tmu[t] += players[j].mu;
            tsig2[t] += sig2[j];
        }
        c2 += tsig2[t] + p->beta * p->beta;
    }
    double c = sqrt(c2);

    /*
     * sumq[q]: the strength of the teams that did not place ahead of q (q
     * itself included); a[q]: how many teams share q's rank. The
     * exponentials are taken relative to the largest μ, which cancels in
     * every quotient and keeps them finite however far apart ratings drift.
     */
    double top = tmu[0];
    for (int t = 1; t < n_teams; t++)
        if (tmu[t] > top) top = tmu[t];
    double e[RATING_MAX_TEAMS], sumq[RATING_MAX_TEAMS];
    int a[RATING_MAX_TEAMS];
    for (int t = 0; t < n_teams; t++)
        e[t] = exp((tmu[t] - top) / c);
    for (int q = 0; q < n_teams; q++) {
        sumq[q] = 0;
        a[q] = 0;
        for (int i = 0; i < n_teams; i++) {
            if (rank[i] >= rank[q]) sumq[q] += e[i];
            if (rank[i] == rank[q]) a[q]++;
        }
    }

    double omega[RATING_MAX_TEAMS], delta[RATING_MAX_TEAMS];
    for (int i = 0; i < n_teams; i++) {
        double w = 0, d = 0;
        for (int q = 0; q < n_teams; q++) {
            if (rank[q] > rank[i]) continue;
            double quo = e[i] / sumq[q];
            w += (q == i ? 1 - quo : -quo) / a[q];
            d += quo * (1 - quo) / a[q];
        }
        double gamma = sqrt(tsig2[i]) / c;
        omega[i] = w * tsig2[i] / c;
        delta[i] = d * gamma * tsig2[i] / c2;
    }

    /* Each player takes the share of the team's change that its σ² is of the team's. */
    for (int t = 0, j = 0; t < n_teams; t++) {
        for (int k = 0; k < team_size[t]; k++, j++) {
            double share = sig2[j] / tsig2[t];
            players[j].mu += share * omega[t];
            players[j].sigma = sqrt(sig2[j]) * sqrt(fmax(1 - share * delta[t], p->kappa));
        }
    }
    return 0;
}

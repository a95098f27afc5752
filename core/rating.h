/*
 * rating.h — players' strength: OpenSkill's Weng–Lin update with the
 * Plackett–Luce model (Weng and Lin, "A Bayesian Approximation Method for
 * Online Ranking", JMLR 12, 2011, algorithm 4), as OpenSkill computes it.
 *
 * A rating is a belief about a player's skill: a mean μ and an uncertainty
 * σ. New players start at μ 25, σ 25/3; what a person is shown (and what
 * the leaderboard sorts by) is the cautious μ − 3σ, which starts at 0 and
 * rises as the server learns. One game moves everyone's rating at once:
 * 2 to RATING_MAX_TEAMS sides, each side a team of one or more players
 * (seqnum's partners), ranked 1, 2, ... with equal ranks for a tie.
 *
 * Pure arithmetic: libc and <math.h>, no allocation, no I/O, so the server,
 * the store, the cluster and the tests compute the same numbers.
 */
#ifndef TAPIS_CORE_RATING_H
#define TAPIS_CORE_RATING_H

#define RATING_MU 25.0
#define RATING_SIGMA (25.0 / 3.0)
#define RATING_BETA (25.0 / 6.0)
#define RATING_KAPPA 0.0001
#define RATING_TAU (25.0 / 300.0)

/* The most sides and players one update takes (6 seats is the most of any game). */
#define RATING_MAX_TEAMS 16
#define RATING_MAX_PLAYERS 64

typedef struct rating {
    double mu;
    double sigma;
} rating_t;

typedef struct rating_params {
    double beta;  /* the spread of one game's performance around the skill */
    double kappa; /* the floor of a σ's shrinking factor, so it never reaches 0 */
    double tau;   /* added to every σ before each game, so ratings keep moving */
} rating_params_t;

/* The defaults above. */
extern const rating_params_t rating_default_params;

/* A new player's rating: μ 25, σ 25/3. */
rating_t rating_new(void);

/* What a person is shown: μ − 3σ. */
double rating_display(rating_t r);

/*
 * One game's update, in place. `players` lists the players team after team:
 * team t has team_size[t] >= 1 players; rank[t] is its place (lower is
 * better, equal ranks tie; any integers). n_teams in [2, RATING_MAX_TEAMS],
 * at most RATING_MAX_PLAYERS players in all, every μ finite, every σ finite
 * and > 0. p NULL takes the defaults.
 *
 * Returns 0, or -1 with nothing changed when the input breaks the above.
 */
int rating_update(const rating_params_t *p, int n_teams, const int *team_size, const int *rank,
                  rating_t *players);

#endif

/*
 * view.c — what each seat may see of a 233 table (the ONLY route by which a
 * state reaches a client), the full dump, resampling of hidden cards, the
 * audit of invariants, and the test constructors.
 *
 * Hidden: every hand (its owner sees it under "hand"), the order and faces of
 * the draw pile. Public: the discard pile's top card and size, locked melds,
 * gifts, scores, card counts, the events, and at the end of a round every hand
 * (they are revealed by the rules).
 */
#include <stdlib.h>
#include <string.h>

#include "core/233/internal.h"
#include "include/tapis_alloc.h"

static const char *const phase_names[] = {"draw", "gift", "discard", "over"};

json_t *g233_cards_json(const g233_card_t *cards, int n)
{
    return game_cards_json(cards, n, g233_card_name);
}

void g233_write_cards(jw_t *w, const char *key, const g233_card_t *cards, int n)
{
    game_write_cards(w, key, cards, n, g233_card_name);
}

/* Each kind's name as a JSON string, in a fixed width: a hand's text is
   these, copied whole (a constant size, no call) and counted by length. */
typedef struct quoted_name {
    char text[12];
    size_t n;
} quoted_name_t;
#define QUOTED(name)                                                                               \
    {                                                                                              \
        "\"" name "\"", sizeof name + 1                                                            \
    }
static const quoted_name_t quoted[] = {G233_CARD_NAMES(QUOTED)};
#undef QUOTED
enum { HAND_TEXT_CARDS = 24 }; /* a hand's text is made in a buffer up to this many cards */

static void write_hand(jw_t *w, const char *key, const g233_hand_t *h)
{
    if (jw_is_text(w) && g233_hand_size(h) <= HAND_TEXT_CARDS) {
        /* room for every card's comma and name, and a last name's whole width */
        char buf[HAND_TEXT_CARDS * (sizeof "\"reverse\"," - 1) + 2 + sizeof quoted[0].text];
        char *p = buf;
        *p++ = '[';
        for (uint64_t kinds = g233_hand_kinds(h); kinds; kinds &= kinds - 1) {
            int c = __builtin_ctzll(kinds);
            for (int i = 0; i < h->n[c]; i++) {
                *p = ',';
                p += p > buf + 1;
                memcpy(p, quoted[c].text, sizeof quoted[c].text);
                p += quoted[c].n;
            }
        }
        *p++ = ']';
        jw_json_text(w, key, NULL, buf, (size_t)(p - buf));
        return;
    }
    jw_arr(w, key);
    for (int c = 0; c < G233_KINDS; c++)
        for (int i = 0; i < h->n[c]; i++)
            jw_str(w, NULL, g233_card_name((g233_card_t)c));
    jw_end(w);
}

json_t *g233_hand_json(const g233_hand_t *h)
{
    jw_t w;
    jw_tree(&w);
    write_hand(&w, NULL, h);
    return jw_take(&w);
}

/* What everyone sees of seat s (game_write_players()). */
static void write_player(const game_t *base, int s, jw_t *w)
{
    const g233_player_t *p = &((const g233_t *)base)->p[s];
    jw_int(w, "cards", g233_hand_size(&p->hand));
    jw_arr(w, "melds");
    for (int i = 0; i < p->nmelds; i++)
        g233_write_cards(w, NULL, p->melds[i].cards, p->melds[i].n);
    jw_end(w);
    jw_int(w, "gifts_plus", p->gifts_plus);
    jw_int(w, "gifts_minus", p->gifts_minus);
    jw_int(w, "score", p->score);
}

/* The public part of the table: identical for every viewer. */
void g233_view_public(const game_t *base, jw_t *w)
{
    const g233_t *g = (const g233_t *)base;
    int top = g->ndiscard ? g->discard[g->ndiscard - 1] : -1;
    jw_str(w, "game", "233");
    jw_int(w, "round", g->round);
    jw_int(w, "dealer", g->dealer);
    jw_int(w, "turn", g->turn);
    jw_int(w, "direction", g->dir);
    jw_str(w, "phase", phase_names[g->phase]);
    jw_bool(w, "last_draws", g->declarer >= 0);
    jw_int(w, "draw_pile", g->ndraw);
    if (top >= 0)
        jw_str(w, "discard", g233_card_name((g233_card_t)top));
    else
        jw_null(w, "discard");
    jw_int(w, "discard_pile", g->ndiscard);
    game_write_seat(w, "discarder", g->discarder);
    jw_int(w, "rebuilds", g->rebuilds);
    jw_bool(w, "claim_open",
            g->open && g->phase == G233_PH_DRAW && g->declarer < 0 && top >= 0 && !g233_placing(g));
    jw_arr(w, "claims");
    for (int i = 0; i < g->nclaims; i++)
        jw_int(w, NULL, g->claims[i].seat);
    jw_end(w);
    /* The room's window (its option, perhaps the server's --dispute-window): a
       client shows the dispute's countdown from it. */
    jw_int(w, "dispute_ms", g->dispute_ms);
    game_write_seat(w, "declarer", g->declarer);
    game_write_players(base, w, write_player);
    /* The events (a game_log_t) and the last round's summary are never changed
       once made: their text was made once, and a view copies it. */
    game_write_log(w, "events", &g->events);
    jw_int(w, "target", g->target);
    if (g->declarer >= 0) jw_str(w, "combo", g233_combo_name(g->declared));
    if (g->phase == G233_PH_GIFT) {
        /* A drawn gift is shown to everyone: it is placed face up. */
        const g233_hand_t *h = &g->p[g->turn].hand;
        jw_str(w, "pending_gift", h->n[G233_CARD_GIFT_MINUS] ? "gift-5" : "gift+5");
    }
    if (g->last_round.tree) game_write_shared(w, "last_round", &g->last_round); /* see above */
    game_write_result(base, w);
}

/* What only `seat` sees (game_write_own() writes "seat" before and "legal" after). */
void g233_view_seat(const game_t *base, int seat, jw_t *w)
{
    const g233_t *g = (const g233_t *)base;
    const g233_player_t *p = &g->p[seat];
    write_hand(w, "hand", &p->hand);
    if (seat == g->turn && g->must_win) jw_bool(w, "must_win", true);
    /* A stop in hand that was the last card drawn may be a rainbow's special
       card: what the player's discards may do depends on it, and they know it. */
    if (p->last_drawn == G233_CARD_STOP && p->hand.n[G233_CARD_STOP])
        jw_str(w, "last_drawn", "stop");
}

/* ------------------------------------------------------------------ */
/* Dump: the whole state                                                */
/* ------------------------------------------------------------------ */

void g233_dump(const game_t *base, json_t *d)
{
    const g233_t *g = (const g233_t *)base;
    json_t *hands = json_array(), *private = json_array(), *claims = json_array();
    for (int s = 0; s < base->seats; s++) {
        const g233_player_t *p = &g->p[s];
        json_array_append_new(hands, g233_hand_json(&p->hand));
        json_array_append_new(private, json_pack("{s:i, s:i, s:i, s:b}", "squares", p->squares,
                                                 "last_drawn", p->last_drawn, "to_place",
                                                 p->to_place, "last_done", p->last_done));
    }
    for (int i = 0; i < g->nclaims; i++) {
        const g233_claim_t *c = &g->claims[i];
        json_array_append_new(claims, json_pack("{s:i, s:i, s:b, s:o, s:I}", "seat", c->seat,
                                                "kind", c->kind, "take", c->take, "meld",
                                                g233_cards_json(c->meld.cards, c->meld.n), "at",
                                                (json_int_t)c->at));
    }
    json_object_set_new(d, "hands", hands);
    json_object_set_new(d, "private", private);
    json_object_set_new(d, "pending", claims);
    json_object_set_new(d, "rng", game_rng_json(&g->rng));
    json_object_set_new(d, "draw", g233_cards_json(g->draw, g->ndraw));
    json_object_set_new(d, "discards", g233_cards_json(g->discard, g->ndiscard));
    json_object_set_new(d, "window_end", json_integer(g->nclaims ? (json_int_t)g->window_end : 0));
    json_object_set_new(d, "open", json_boolean(g->open));
    json_object_set_new(d, "must_win", json_boolean(g->must_win));
    json_object_set_new(d, "drawn", json_integer(g->drawn));
    json_object_set_new(d, "winners", json_integer(g->winners));
    json_object_set_new(d, "options",
                        json_pack("{s:i, s:i, s:i, s:b, s:s, s:s}", "dispute_ms", g->dispute_ms,
                                  "max_rebuilds", g->max_rebuilds, "target", g->target,
                                  "claim_sequences", g->claim_sequences, "declare",
                                  g->declare_must ? "must" : "may", "take",
                                  g->take_draw ? "draw" : "claim"));
}

/* ------------------------------------------------------------------ */
/* Resample: redraw what `seat` cannot see                              */
/* ------------------------------------------------------------------ */

game_t *g233_resample(const game_t *base, int seat, uint64_t seed)
{
    g233_t *g = (g233_t *)game_copy(base);
    if (!g) return NULL;
    int n = base->seats;
    g233_card_t pool[G233_DECK];
    int npool = 0, want[G233_MAX_SEATS] = {0};
    g233_hand_t keep[G233_MAX_SEATS];
    memcpy(pool, g->draw, (size_t)g->ndraw);
    npool = g->ndraw;
    for (int s = 0; s < n; s++) {
        keep[s] = g->p[s].hand;
        if (s == seat) continue;
        /* Kept in place: gifts (a drawn one is public; a dealt -5 not yet given
         * is why the table waits on its holder) and cards a pending claim has
         * named. Stops are hidden cards like any other: dealt ones sit in hands. */
        g233_hand_t reserved = {{0}};
        reserved.n[G233_CARD_GIFT_PLUS] = keep[s].n[G233_CARD_GIFT_PLUS];
        reserved.n[G233_CARD_GIFT_MINUS] = keep[s].n[G233_CARD_GIFT_MINUS];
        for (int i = 0; i < g->nclaims; i++)
            if (g->claims[i].seat == s && g->claims[i].kind == G233_CLAIM_MELD)
                for (int k = 0; k < g->claims[i].meld.n - 1; k++)
                    reserved.n[g->claims[i].meld.cards[k]]++;
        /* A final claim keeps its whole hand. */
        for (int i = 0; i < g->nclaims; i++)
            if (g->claims[i].seat == s && g->claims[i].kind == G233_CLAIM_FINAL) reserved = keep[s];
        for (int c = 0; c < G233_KINDS; c++) {
            int free_n = keep[s].n[c] - reserved.n[c];
            for (int i = 0; i < free_n; i++)
                pool[npool++] = (g233_card_t)c;
            want[s] += free_n;
        }
        keep[s] = reserved;
    }
    rng_t r;
    rng_seed(&r, seed);
    rng_shuffle_u8(&r, pool, npool);
    /* Hands take only cards that may sit in a hand at rest (no gift); the rest
     * is the pile. */
    bool used[G233_DECK] = {0};
    for (int s = 0; s < n; s++) {
        if (s == seat) continue;
        for (int i = 0; i < npool && want[s] > 0; i++) {
            if (used[i] || pool[i] == G233_CARD_GIFT_PLUS || pool[i] == G233_CARD_GIFT_MINUS)
                continue;
            used[i] = true;
            keep[s].n[pool[i]]++;
            want[s]--;
        }
        g->p[s].hand = keep[s];
    }
    g->ndraw = 0;
    for (int i = 0; i < npool; i++)
        if (!used[i]) g->draw[g->ndraw++] = pool[i];
    return &g->base;
}

/* ------------------------------------------------------------------ */
/* Audit                                                                */
/* ------------------------------------------------------------------ */

int g233_audit(const game_t *base, game_error_t *err)
{
    const g233_t *g = (const g233_t *)base;
    int count[G233_KINDS] = {0};
    game_count_cards(count, g->draw, g->ndraw);
    game_count_cards(count, g->discard, g->ndiscard);
    for (int s = 0; s < base->seats; s++) {
        const g233_player_t *p = &g->p[s];
        int held = g233_hand_size(&p->hand);
        for (int c = 0; c < G233_KINDS; c++)
            count[c] += p->hand.n[c];
        for (int i = 0; i < p->nmelds; i++) {
            held += p->melds[i].n;
            game_count_cards(count, p->melds[i].cards, p->melds[i].n);
        }
        count[G233_CARD_GIFT_PLUS] += p->gifts_plus;
        count[G233_CARD_GIFT_MINUS] += p->gifts_minus;
        if (g->phase == G233_PH_OVER) continue;
        if (p->to_place > p->hand.n[G233_CARD_GIFT_MINUS] ||
            (p->to_place && (g->phase != G233_PH_DRAW || g->ndiscard != 1 || g->drawn)))
            return game_fail(err, "bad_gift", "seat %d has %d dealt -5 to give, at the wrong time",
                             s, p->to_place);
        int expect =
            8 + p->squares + p->to_place + (s == g->turn && g->phase != G233_PH_DRAW ? 1 : 0);
        if (held != expect)
            return game_fail(err, "bad_hand_size", "seat %d holds %d cards, not %d", s, held,
                             expect);
    }
    for (int c = 0; c < G233_KINDS; c++)
        if (count[c] != g233_card_copies((g233_card_t)c))
            return game_fail(err, "cards_lost", "%d %s in play, not %d", count[c],
                             g233_card_name((g233_card_t)c), g233_card_copies((g233_card_t)c));
    return 0;
}

/* ------------------------------------------------------------------ */
/* Test constructors                                                    */
/* ------------------------------------------------------------------ */

int g233_hand_parse(g233_hand_t *h, const char *names)
{
    memset(h, 0, sizeof *h);
    int cards[G233_DECK], n = game_parse_cards(names, g233_card_parse, cards, G233_DECK);
    for (int i = 0; i < n; i++)
        h->n[cards[i]]++;
    return n < 0 ? -1 : 0;
}

/* Take a card of kind c out of the draw pile; failing that, out of another
 * seat's hand, which gets a plain card of the draw pile instead. */
static int take_card(g233_t *g, int c, int except)
{
    if (game_take_card(g->draw, &g->ndraw, (g233_card_t)c)) return 0;
    for (int s = 0; s < g->base.seats; s++) {
        if (s == except || !g->p[s].hand.n[c]) continue;
        for (int i = g->ndraw - 1; i >= 0; i--) {
            if (g->draw[i] >= G233_CARD_GIFT_PLUS) continue;
            g->p[s].hand.n[g->draw[i]]++;
            g->p[s].hand.n[c]--;
            memmove(&g->draw[i], &g->draw[i + 1], (size_t)(g->ndraw - 1 - i));
            g->ndraw--;
            return 0;
        }
    }
    return -1;
}

int g233_give_hand(g233_t *g, int seat, const char *names)
{
    g233_hand_t want;
    if (g233_hand_parse(&want, names)) return -1;
    g233_hand_t *h = &g->p[seat].hand;
    for (int c = 0; c < G233_KINDS; c++)
        for (; h->n[c]; h->n[c]--)
            g->draw[g->ndraw++] = (g233_card_t)c;
    for (int c = 0; c < G233_KINDS; c++)
        for (int i = 0; i < want.n[c]; i++) {
            if (take_card(g, c, seat)) return -1;
            h->n[c]++;
        }
    g->p[seat].to_place = want.n[G233_CARD_GIFT_MINUS];
    return 0;
}

int g233_stack_draw(g233_t *g, const char *name)
{
    int c = g233_card_parse(name);
    if (c < 0 || take_card(g, c, g->turn)) return -1;
    g->draw[g->ndraw++] = (g233_card_t)c;
    return 0;
}

int g233_stack_discard(g233_t *g, const char *name, int discarder)
{
    int c = g233_card_parse(name);
    if (c < 0 || take_card(g, c, g->turn)) return -1;
    g->discard[g->ndiscard++] = (g233_card_t)c;
    g->discarder = discarder;
    g->open = true;
    return 0;
}

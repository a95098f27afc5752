/*
 * test_kit.c — the kit of core/game.h that every game shares: the option
 * table (defaults, checks, its JSON description), the kit's defaults for
 * optional functions, the "random" bot, winners as JSON and the immutable
 * event log. Behaviour per game is in test_<game>_*.c and test_conformance.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/game.h"
#include "json/json_text.h"
#include "tests/lib/test_main.h"

extern const game_desc_t g233_desc, aspoint3_desc, seqnum_desc, slap_desc;

static json_t *parse(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    if (!j) fail_msg("bad test JSON: %s", text);
    return j;
}

static void assert_json(const json_t *got, const char *want_text)
{
    json_t *want = parse(want_text);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        fail_msg("got %s, want %s", g ? g : "(null)", want_text);
    }
    json_decref(want);
}

/* game_new(d, seats, options) must refuse with `code` and a message holding each of `words`. */
static void refused(const game_desc_t *d, int seats, const char *options, const char *code,
                    const char *w1, const char *w2)
{
    json_t *o = parse(options);
    game_error_t err = {0};
    game_t *g = game_new(d, seats, o, 1, &err);
    json_decref(o);
    if (g) fail_msg("%s accepted %s", d->id, options);
    assert_string_equal(err.code, code);
    if (w1 && !strstr(err.message, w1)) fail_msg("\"%s\" does not name %s", err.message, w1);
    if (w2 && !strstr(err.message, w2)) fail_msg("\"%s\" does not name %s", err.message, w2);
}

/* ------------------------------------------------------------------ */
/* The option table                                                     */
/* ------------------------------------------------------------------ */

static void default_options_are_those_of_before_the_table(void **state)
{
    (void)state;
    json_t *d = game_default_options(&g233_desc);
    assert_json(d, "{\"dispute_ms\": 200, \"max_rebuilds\": 3, \"target\": 233, "
                   "\"claim_sequences\": false, \"declare\": \"must\", \"take\": \"claim\"}");
    json_decref(d);
    d = game_default_options(&aspoint3_desc);
    assert_json(d, "{\"rounds\": 3, \"target\": 350, \"packs\": 0, \"pack_scoring\": \"manche\"}");
    json_decref(d);
    d = game_default_options(&seqnum_desc);
    assert_json(d, "{\"teams\": 0, \"max_turns\": 400}");
    json_decref(d);
    d = game_default_options(&slap_desc);
    assert_json(d, "{\"go_ms\": 1000, \"stall_ms\": 1500, \"max_stalls\": 30, \"max_rounds\": 20}");
    json_decref(d);
}

static void options_json_advertises_types_ranges_and_choices(void **state)
{
    (void)state;
    json_t *t = game_options_json(&g233_desc);
    assert_int_equal(json_array_size(t), 6);
    json_t *dispute = json_array_get(t, 0), *declare = json_array_get(t, 4);
    json_t *claim = json_array_get(t, 3);
    assert_string_equal(json_string_value(json_object_get(dispute, "name")), "dispute_ms");
    assert_string_equal(json_string_value(json_object_get(dispute, "type")), "int");
    assert_int_equal(json_integer_value(json_object_get(dispute, "default")), 200);
    assert_int_equal(json_integer_value(json_object_get(dispute, "min")), 0);
    assert_int_equal(json_integer_value(json_object_get(dispute, "max")), 60000);
    assert_true(json_string_length(json_object_get(dispute, "help")) > 0);
    assert_string_equal(json_string_value(json_object_get(claim, "type")), "bool");
    assert_true(json_is_false(json_object_get(claim, "default")));
    assert_null(json_object_get(claim, "min"));
    assert_string_equal(json_string_value(json_object_get(declare, "type")), "string");
    assert_string_equal(json_string_value(json_object_get(declare, "default")), "must");
    assert_json(json_object_get(declare, "choices"), "[\"must\", \"may\"]");
    assert_json(json_object_get(json_array_get(t, 5), "choices"), "[\"claim\", \"draw\"]");
    json_decref(t);
    /* Every game: one row per default option, the same default. */
    const game_desc_t *games[] = {&g233_desc, &aspoint3_desc, &seqnum_desc, &slap_desc};
    for (size_t i = 0; i < 4; i++) {
        json_t *rows = game_options_json(games[i]), *def = game_default_options(games[i]);
        assert_int_equal(json_array_size(rows), json_object_size(def));
        size_t k;
        json_t *row;
        json_array_foreach(rows, k, row)
        {
            json_t *want = json_object_get(def, json_string_value(json_object_get(row, "name")));
            assert_true(json_equal(json_object_get(row, "default"), want));
        }
        json_decref(rows);
        json_decref(def);
    }
}

static void bad_options_name_the_option_and_what_it_accepts(void **state)
{
    (void)state;
    refused(&g233_desc, 2, "{\"target\": 0}", "bad_option", "target", "1..100000");
    refused(&g233_desc, 2, "{\"dispute_ms\": 60001}", "bad_option", "dispute_ms", "0..60000");
    refused(&g233_desc, 2, "{\"dispute_ms\": 1.5}", "bad_option", "dispute_ms", "integer");
    refused(&g233_desc, 2, "{\"claim_sequences\": 1}", "bad_option", "claim_sequences", "true");
    refused(&g233_desc, 2, "{\"declare\": \"maybe\"}", "bad_option", "\"must\"", "\"may\"");
    refused(&g233_desc, 2, "{\"declare\": 3}", "bad_option", "declare", NULL);
    refused(&g233_desc, 2, "{\"nope\": 3}", "bad_option", "nope", NULL);
    refused(&aspoint3_desc, 2, "{\"rounds\": 16}", "bad_option", "rounds", "1..15");
    refused(&aspoint3_desc, 2, "{\"pack_scoring\": \"x\"}", "bad_option", "manche", "total");
    refused(&seqnum_desc, 4, "{\"teams\": 7}", "bad_option", "teams", "0..6");
    refused(&seqnum_desc, 4, "{\"teams\": 3}", "bad_option", "teams", NULL); /* by create() */
    refused(&seqnum_desc, 5, "{}", "bad_players", NULL, NULL);
    refused(&slap_desc, 2, "{\"max_rounds\": 0}", "bad_option", "max_rounds", "1..1000");
    refused(&slap_desc, 7, "{}", "bad_players", NULL, NULL);
    /* The ends of a range are accepted. */
    game_error_t err = {0};
    json_t *o = parse("{\"target\": 100000, \"dispute_ms\": 0, \"declare\": \"may\"}");
    game_t *g = game_new(&g233_desc, 2, o, 1, &err);
    assert_non_null(g);
    game_free(g);
    json_decref(o);
}

/* ------------------------------------------------------------------ */
/* Kit defaults and the random bot                                      */
/* ------------------------------------------------------------------ */

static void a_game_without_timers_has_no_deadline_and_ticks_nothing(void **state)
{
    (void)state;
    assert_null(aspoint3_desc.tick);
    assert_null(seqnum_desc.next_deadline);
    game_t *g = game_new(&seqnum_desc, 2, NULL, 5, NULL);
    assert_int_equal(game_next_deadline(g), GAME_NO_DEADLINE);
    assert_false(game_tick(g, 1000000));
    game_free(g);
}

static void the_default_action_is_the_first_bot_levels_choice(void **state)
{
    (void)state;
    game_t *g = game_new(&slap_desc, 3, NULL, 9, NULL);
    game_tick(g, 0);
    game_tick(g, 5000); /* the go */
    unsigned w = game_waiting(g);
    assert_true(w != 0);
    for (int s = 0; s < 3; s++) {
        json_t *a = game_default_action(g, s);
        if (!(w & (1u << s))) {
            assert_null(a);
            continue;
        }
        json_t *v = game_view(g, s);
        rng_t r;
        rng_seed(&r, GAME_DEFAULT_ACTION_SEED);
        json_t *b = game_bot(&slap_desc, v, slap_desc.bot_levels[0].strategy, &r);
        assert_true(json_equal(a, b));
        json_decref(v);
        json_decref(a);
        json_decref(b);
    }
    assert_null(game_default_action(g, 3));
    assert_null(game_default_action(g, GAME_SPECTATOR));
    game_free(g);
}

static void the_random_bot_draws_uniformly_from_legal(void **state)
{
    (void)state;
    json_t *v = parse("{\"legal\": [{\"type\": \"a\"}, {\"type\": \"b\"}, {\"type\": \"c\"}]}");
    int seen[3] = {0};
    rng_t r;
    rng_seed(&r, 7);
    for (int i = 0; i < 300; i++) {
        json_t *a = game_bot_random(v, &r);
        const char *t = json_string_value(json_object_get(a, "type"));
        assert_non_null(t);
        seen[t[0] - 'a']++;
        json_decref(a);
    }
    for (int k = 0; k < 3; k++)
        assert_true(seen[k] > 60);
    /* The same generator state, the same choice as a game's "random" level. */
    rng_t r1, r2;
    rng_seed(&r1, 3);
    rng_seed(&r2, 3);
    json_t *a = game_bot_random(v, &r1), *b = game_bot(&g233_desc, v, "random", &r2);
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    json_decref(v);
    v = parse("{\"legal\": []}");
    assert_null(game_bot_random(v, &r));
    assert_null(game_bot(&slap_desc, v, "greedy", &r));
    json_decref(v);
}

/* ------------------------------------------------------------------ */
/* Winners and the log                                                  */
/* ------------------------------------------------------------------ */

static void winners_json_lists_the_seats_of_the_mask(void **state)
{
    (void)state;
    json_t *w = game_winners_json(0x15u, 4);
    assert_json(w, "[0, 2]");
    json_decref(w);
    w = game_winners_json(0, 6);
    assert_json(w, "[]");
    json_decref(w);
}

static void a_held_log_never_sees_later_entries(void **state)
{
    (void)state;
    game_log_t log;
    game_log_init(&log, 2);
    game_log_append(&log, json_integer(1));
    json_t *held = game_log_json(&log);
    game_log_append(&log, json_integer(2));
    game_log_append(&log, json_integer(3)); /* the cap drops 1 */
    assert_json(held, "[1]");
    json_t *now = game_log_json(&log);
    assert_json(now, "[2, 3]");
    assert_int_equal(game_log_size(&log), 2);
    game_log_t copy;
    game_log_share(&copy, &log);
    game_log_append(&copy, json_integer(4));
    assert_json(now, "[2, 3]");
    json_t *copied = game_log_json(&copy);
    assert_json(copied, "[3, 4]");
    json_decref(copied);
    game_log_free(&copy);
    game_log_free(&log);
    json_decref(held);
    json_decref(now);
}

/* The log as a writer's text end writes it, and as a tree, against `want`:
   the entries appended so far, the cap's drops made on a jansson array. */
static void assert_log_is(const game_log_t *log, const json_t *want)
{
    char got[4096], text[4096];
    jw_t w;
    jw_text(&w, got, sizeof got);
    game_write_log(&w, NULL, log);
    assert_true(jw_ok(&w));
    size_t n = json_text(want, text, sizeof text);
    if (jw_len(&w) != n || memcmp(got, text, n) != 0)
        fail_msg("log text %.*s, want %.*s", (int)jw_len(&w), got, (int)n, text);
    json_t *tree = game_log_json(log);
    assert_true(json_equal(tree, want));
    json_decref(tree);
    jw_tree(&w);
    game_write_log(&w, NULL, log);
    tree = jw_take(&w);
    assert_true(json_equal(tree, want));
    json_decref(tree);
    assert_int_equal(game_log_size(log), json_array_size(want));
}

/* The log's text follows its entries through appends and the cap's drops,
   whatever the entries hold (strings with commas, brackets, escaped quotes),
   entries given as trees or written as text (a seat's event). */
static void a_logs_text_is_its_entries_encoded(void **state)
{
    (void)state;
    static const char *const nasty[] = {"a,b", "}]", "\"[{", "\\", "x\"},{\"y", ""};
    for (size_t cap = 0; cap <= 4; cap++) {
        game_log_t log;
        json_t *want = json_array();
        game_log_init(&log, cap);
        assert_log_is(&log, want);
        for (int i = 0; i < 24; i++) {
            json_t *e;
            switch (i % 5) {
            case 0: e = json_pack("{s:i, s:s}", "seat", i, "did", nasty[i % 6]); break;
            case 1: e = json_integer(-i); break;
            case 2: e = json_string(nasty[i % 6]); break;
            case 3: e = json_pack("[s,{s:[]},n]", nasty[i % 6], "k"); break;
            default: /* a seat's event, written as text: with a card every other time */
                e = i % 2 ? json_pack("{s:i, s:s, s:s}", "seat", i, "did", nasty[i % 6], "card",
                                      nasty[(i + 1) % 6])
                          : json_pack("{s:i, s:s}", "seat", i, "did", nasty[i % 6]);
                break;
            }
            json_array_append(want, e);
            if (cap && json_array_size(want) > cap) json_array_remove(want, 0);
            if (i % 5 == 4) {
                game_log_seat_event(&log, i, nasty[i % 6], i % 2 ? "card" : NULL,
                                    nasty[(i + 1) % 6]);
                json_decref(e);
            } else {
                game_log_append(&log, e);
            }
            assert_log_is(&log, want);
        }
        game_log_free(&log);
        json_decref(want);
    }
}

/* A seat's event is the text jw writes for it, byte for byte: plain names
   (up to 16 bytes) take a direct path, the others jw's. */
static void seat_event_text_is_what_jw_writes(void **state)
{
    (void)state;
    static const char *const strings[] = {"draw",
                                          "",
                                          "gift+5",
                                          "sixteen_bytes_ok",
                                          "seventeen_bytes_x",
                                          "a\"b",
                                          "back\\slash",
                                          "tab\there",
                                          "caf\xc3\xa9",
                                          "\x7f"};
    static const int seats[] = {0, 7, 10, 42, 99, 100, 999, 1000, -1, 123456};
    enum { N = sizeof strings / sizeof strings[0] };
    for (size_t s = 0; s < sizeof seats / sizeof seats[0]; s++)
        for (int i = 0; i < N; i++)
            for (int k = -1; k < N; k++) {
                const char *key = k < 0 ? NULL : strings[k], *value = strings[(i + k + N) % N];
                char want[512], got[512];
                jw_t w;
                jw_text(&w, want, sizeof want);
                jw_arr(&w, NULL);
                jw_obj(&w, NULL);
                jw_int(&w, "seat", seats[s]);
                jw_str(&w, "did", strings[i]);
                if (key) jw_str_n(&w, key, strlen(key), value);
                jw_end(&w);
                jw_end(&w);
                assert_true(jw_ok(&w));
                size_t nwant = jw_len(&w);
                game_log_t log;
                game_log_init(&log, 4);
                game_log_seat_event(&log, seats[s], strings[i], key, value);
                jw_text(&w, got, sizeof got);
                game_write_log(&w, NULL, &log);
                assert_true(jw_ok(&w));
                assert_int_equal(jw_len(&w), nwant);
                assert_memory_equal(got, want, nwant);
                game_log_free(&log);
            }
}

/* Names are found whatever the case of their letters, and only whole. */
static void names_are_found_in_any_case(void **state)
{
    (void)state;
    static const char *const names[] = {"Y1", "Y12", "red", "gift+5", "gift-5", ""};
    assert_int_equal(game_name_index("Y1", names, 6), 0);
    assert_int_equal(game_name_index("y1", names, 6), 0);
    assert_int_equal(game_name_index("y12", names, 6), 1);
    assert_int_equal(game_name_index("RED", names, 6), 2);
    assert_int_equal(game_name_index("rEd", names, 6), 2);
    assert_int_equal(game_name_index("GIFT-5", names, 6), 4);
    assert_int_equal(game_name_index("", names, 6), 5);
    assert_int_equal(game_name_index("Y", names, 6), -1);
    assert_int_equal(game_name_index("Y123", names, 6), -1);
    assert_int_equal(game_name_index("re", names, 6), -1);
    assert_int_equal(game_name_index("gift=5", names, 6), -1); /* '=' is not '-' in any case */
    assert_int_equal(game_name_index("r\xc9"
                                     "d",
                                     names, 6),
                     -1); /* only ASCII letters fold */
    assert_int_equal(game_name_index(NULL, names, 6), -1);
}

TEST_MAIN(cmocka_unit_test(default_options_are_those_of_before_the_table),
          cmocka_unit_test(options_json_advertises_types_ranges_and_choices),
          cmocka_unit_test(bad_options_name_the_option_and_what_it_accepts),
          cmocka_unit_test(a_game_without_timers_has_no_deadline_and_ticks_nothing),
          cmocka_unit_test(the_default_action_is_the_first_bot_levels_choice),
          cmocka_unit_test(the_random_bot_draws_uniformly_from_legal),
          cmocka_unit_test(winners_json_lists_the_seats_of_the_mask),
          cmocka_unit_test(a_held_log_never_sees_later_entries),
          cmocka_unit_test(a_logs_text_is_its_entries_encoded),
          cmocka_unit_test(seat_event_text_is_what_jw_writes),
          cmocka_unit_test(names_are_found_in_any_case))

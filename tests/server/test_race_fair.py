#!/usr/bin/env python3
"""test_race_fair.py (suite soak) — races between players at 5, 60 and 150 ms
of round trip, over real sockets through delay proxies (race_fair.py), the
players reacting with one distribution. By reaction time (the default) each
one's share of the races is within 7 points of equal; by arrival the
nearest takes most of them; a player 5 ms away that delays its pongs to look
150 ms away is never credited more than the cap and loses its credit to the
quota. Each test prints the shares; races during which the harness itself
ran late are not counted (race_fair.Punctuality). Usage: test_race_fair.py PATH/TO/tapisd"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import race_fair  # noqa: E402
from harness import run_tests, test  # noqa: E402

RTTS = [5, 60, 150]
CAP_MS = 200


def log(line):
    print(line, flush=True)


@test
def races_by_reaction_time_are_fair_across_round_trips(exe):
    shares, counted, credits, lags = race_fair.run(exe, RTTS, 450, "reaction", seed=1, tables=12,
                                                   log=log)
    race_fair.report(RTTS, shares, counted, credits, lags, "reaction", None, out=log)
    assert counted >= 450, "%d races counted: the harness ran late for the others" % counted
    for i, share in enumerate(shares):
        assert abs(share - 1 / 3) <= 0.07, "player %d (%d ms): %.1f%%" % (i, RTTS[i], 100 * share)
    for i, cs in credits.items():  # each credited about its round trip, never past the cap
        assert cs and max(cs) <= CAP_MS, (i, max(cs))


@test
def races_by_arrival_go_to_the_nearest(exe):
    shares, counted, credits, lags = race_fair.run(exe, RTTS, 60, "arrival", seed=2, tables=2,
                                                   log=log)
    race_fair.report(RTTS, shares, counted, credits, lags, "arrival", None, out=log)
    assert shares[0] >= 0.6 and shares[2] <= 0.1, shares
    assert all(c == 0 for cs in credits.values() for c in cs), "arrival credits nothing"


@test
def a_player_faking_its_round_trip_loses_the_credit(exe):
    shares, counted, credits, lags = race_fair.run(exe, RTTS[::-1], 90, "reaction", liar=0,
                                                   seed=3, log=log)
    race_fair.report(RTTS[::-1], shares, counted, credits, lags, "reaction", 0, out=log)
    liar = credits[0]
    assert lags[0] >= RTTS[-1], "the liar looked %s ms away" % lags[0]
    assert liar and max(liar) <= CAP_MS, max(liar)
    # The quota takes its credit within its first races, and keeps it near nothing.
    later = liar[20:]
    assert later and sum(later) / len(later) <= 20, sum(later) / len(later)
    assert shares[0] <= 1 / 3 + 0.07, shares


if __name__ == "__main__":
    run_tests(sys.argv)

/*
 * sanitized.h — how many random games a test plays: all of them in a plain
 * build, a third under AddressSanitizer, where a game costs about five times
 * as much. deploy/dev test runs both builds, the plain one over every game;
 * the sanitizer's third still meets every option and table size the loop
 * cycles through (seeds 1, 2, 3...), and runs each code path under ASan.
 *
 *   for (uint64_t seed = 1; seed <= SANITIZED_GAMES(60); seed++)
 */
#ifndef TAPIS_TESTS_SANITIZED_H
#define TAPIS_TESTS_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__)
#define TAPIS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAPIS_SANITIZED 1
#endif
#endif

#ifdef TAPIS_SANITIZED
#define SANITIZED_GAMES(n) (((n) + 2) / 3)
#else
#define SANITIZED_GAMES(n) (n)
#endif

#endif

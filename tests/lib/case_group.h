/*
 * case_group.h — a catalogue of cases run as one cmocka group, a test per
 * case named after it, so that the report names the row that failed
 * (test_envelope.c's malformed input, test_framing.c's splits).
 * Header only: a test includes it after <cmocka.h>'s own prerequisites.
 */
#ifndef TAPIS_TESTS_CASE_GROUP_H
#define TAPIS_TESTS_CASE_GROUP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

/*
 * Run the array `cases` as the group `group`: test i runs fn with *state
 * pointing at cases[i] and is named by its member `name` (a string).
 * Returns how many tests failed.
 */
#define CASE_GROUP_RUN(group, fn, cases, name)                                                     \
    case_group__run((group), (fn), (cases), sizeof(cases) / sizeof((cases)[0]),                    \
                    sizeof((cases)[0]), offsetof(__typeof__((cases)[0]), name))

static inline int case_group__run(const char *group, CMUnitTestFunction fn, const void *cases,
                                  size_t n, size_t size, size_t name_at)
{
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    if (!tests) return (int)n;
    for (size_t i = 0; i < n; i++) {
        const char *c = (const char *)cases + i * size;
        tests[i] =
            (struct CMUnitTest){*(const char *const *)(c + name_at), fn, NULL, NULL, (void *)c};
    }
    int failed = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
    free(tests);
    return failed;
}

#endif

/*
 * test_main.h — the main() of a cmocka test file: its tests, run as one
 * group named "tests" (what cmocka prints). A file whose main() does more
 * (a group set-up, its own checks) writes its own.
 *
 *   TEST_MAIN(cmocka_unit_test(a_rule_holds), cmocka_unit_test(another_does))
 */
#ifndef TAPIS_TESTS_TEST_MAIN_H
#define TAPIS_TESTS_TEST_MAIN_H

#define TEST_MAIN(...)                                                                             \
    int main(void)                                                                                 \
    {                                                                                              \
        const struct CMUnitTest tests[] = {__VA_ARGS__};                                           \
        return cmocka_run_group_tests(tests, NULL, NULL);                                          \
    }

#endif

/* harness.h: a minimal host test harness. CHECK records a failure with its
 * location and goes on; TEST_RUN runs one test function; test_main_end
 * prints the summary and gives main's exit status. */
#ifndef FW_TEST_HARNESS_H
#define FW_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

static int harness_checks;
static int harness_failures;
static const char *harness_test;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        harness_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            harness_failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, harness_test,     \
                    #cond);                                                                        \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_U(got, want)                                                                      \
    do {                                                                                           \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want);        \
        harness_checks++;                                                                          \
        if (g_ != w_) {                                                                            \
            harness_failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s: %s is 0x%llx, want 0x%llx\n", __FILE__, __LINE__,          \
                    harness_test, #got, g_, w_);                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        harness_checks++;                                                                          \
        if (strcmp(g_, w_) != 0) {                                                                 \
            harness_failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__,          \
                    harness_test, #got, g_, w_);                                                   \
        }                                                                                          \
    } while (0)

#define TEST_RUN(fn)                                                                               \
    do {                                                                                           \
        harness_test = #fn;                                                                        \
        int before_ = harness_failures;                                                            \
        fn();                                                                                      \
        printf("%s %s\n", harness_failures == before_ ? "ok  " : "FAIL", #fn);                     \
    } while (0)

static inline int test_main_end(void)
{
    printf("%d checks, %d failed: %s\n", harness_checks, harness_failures,
           harness_failures ? "FAIL" : "PASS");
    return harness_failures ? 1 : 0;
}

#endif /* FW_TEST_HARNESS_H */

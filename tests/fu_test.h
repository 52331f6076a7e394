/* fu_test.h: a tiny test helper (after Redis' testhelp.h and libuv's ASSERT_*): each check
 * prints both operands on failure; a test program returns fu_test_report(). */
#ifndef FU_TEST_H
#define FU_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int fu_test_failed = 0;   /* per test program */
static int fu_test_passed = 0;

#define FU_T_FAIL(fmt, ...)                                                              \
  do {                                                                                   \
    fprintf(stderr, "FAIL %s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__);           \
    fu_test_failed++;                                                                    \
  } while (0)

#define EXPECT(cond)                                                                     \
  do {                                                                                   \
    if (cond) fu_test_passed++;                                                          \
    else FU_T_FAIL("%s", #cond);                                                         \
  } while (0)

#define EXPECT_INT_EQ(a, b)                                                              \
  do {                                                                                   \
    long long fu_a = (long long)(a), fu_b = (long long)(b);                              \
    if (fu_a == fu_b) fu_test_passed++;                                                  \
    else FU_T_FAIL("%s == %s: %lld != %lld", #a, #b, fu_a, fu_b);                        \
  } while (0)

#define EXPECT_STR_EQ(a, b)                                                              \
  do {                                                                                   \
    const char *fu_a = (a), *fu_b = (b);                                                 \
    if (fu_a && fu_b && strcmp(fu_a, fu_b) == 0) fu_test_passed++;                       \
    else FU_T_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, fu_a ? fu_a : "(null)",         \
                   fu_b ? fu_b : "(null)");                                              \
  } while (0)

/* |a - b| <= tol */
#define EXPECT_NEAR(a, b, tol)                                                           \
  do {                                                                                   \
    double fu_a = (a), fu_b = (b), fu_t = (tol);                                         \
    if (fabs(fu_a - fu_b) <= fu_t) fu_test_passed++;                                     \
    else FU_T_FAIL("%s ~ %s: %.9g vs %.9g (diff %.3g > %.3g)", #a, #b, fu_a, fu_b,       \
                   fabs(fu_a - fu_b), fu_t);                                             \
  } while (0)

/* |a - b| <= rel * |b| */
#define EXPECT_REL(a, b, rel)                                                            \
  do {                                                                                   \
    double fu_a = (a), fu_b = (b), fu_r = (rel);                                         \
    if (fabs(fu_a - fu_b) <= fu_r * fabs(fu_b)) fu_test_passed++;                        \
    else FU_T_FAIL("%s ~ %s: %.9g vs %.9g (rel %.3g > %.3g)", #a, #b, fu_a, fu_b,        \
                   fu_b != 0 ? fabs(fu_a - fu_b) / fabs(fu_b) : INFINITY, fu_r);         \
  } while (0)

static inline int fu_test_report(const char *name) {
  fprintf(stderr, "%s: %d checks passed, %d failed\n", name, fu_test_passed, fu_test_failed);
  return fu_test_failed ? 1 : 0;
}

#endif

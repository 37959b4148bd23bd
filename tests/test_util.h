/*
 * test_util: helpers shared by the cmocka tests.
 *
 * cmocka 1.1.5's assert_float_equal() works in float and trips
 * -Wconversion; assert_near() compares doubles with a relative tolerance
 * and prints both values on failure.
 */
#ifndef PROJ_TEST_UTIL_H
#define PROJ_TEST_UTIL_H

#include <math.h>

#define assert_near(got, want, rel_tol)                                      \
    do {                                                                     \
        double got_ = (got), want_ = (want), tol_ = (rel_tol);               \
        double err_ = fabs(got_ - want_);                                    \
        double lim_ = tol_ * fabs(want_);                                    \
        if (!(err_ <= lim_) && !(want_ == 0 && fabs(got_) <= tol_))          \
            fail_msg("%s = %.10g, expected %.10g (rel. tolerance %g)", #got, \
                     got_, want_, tol_);                                     \
    } while (0)

#define assert_between(got, lo, hi)                                      \
    do {                                                                 \
        double got_ = (got);                                             \
        if (!(got_ >= (lo) && got_ <= (hi)))                             \
            fail_msg("%s = %.10g, expected within [%g, %g]", #got, got_, \
                     (double)(lo), (double)(hi));                        \
    } while (0)

#endif

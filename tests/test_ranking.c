/*
 * test_ranking: what rank hands over, read — a family by name, the
 * templates carried for the workbook (each the registry's own), and
 * release.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "ranking.h"
#include "terms.h"
#include "test_util.h"

/*
 * Four families, found by name (their colours are the views', tested in
 * test_figures); a name not among them is -1.
 */
static void test_ranking_family_index(void **state)
{
    struct ranking *r = calloc(1, sizeof *r);
    static const char *const names[] = {"A", "ZeRO-3", "C", "D"};
    static const bool fits[] = {true, false, true, false};
    struct diag d;
    size_t i;
    (void)state;
    assert_non_null(r);
    diag_init(&d);
    assert_int_equal(ranking_families(r, 4, &d), STATUS_OK);
    for (i = 0; i < 4; i++) {
        snprintf(r->family[i].name, sizeof r->family[i].name, "%s", names[i]);
        r->family[i].best.fits = fits[i];
    }
    r->families_by_step[0] = 2;
    r->families_by_step[1] = 0;
    r->families_by_step[2] = 3;
    r->families_by_step[3] = 1;
    assert_int_equal(ranking_family_index(r, "ZeRO-3"), 1);
    assert_int_equal(ranking_family_index(r, "D"), 3);
    assert_int_equal(ranking_family_index(r, "E"), -1);
    ranking_free(r);
    assert_null(r->family);
    assert_int_equal(r->nfamilies, 0);
    free(r);
}

/* Release frees the rows and closes the spill files; a zeroed ranking
 * and NULL are fine, and so is a second release. */
static void test_ranking_free(void **state)
{
    struct ranking *r = calloc(1, sizeof *r);
    (void)state;
    assert_non_null(r);
    ranking_free(NULL);
    ranking_free(r);
    r->rows = calloc(4, sizeof *r->rows);
    r->nrows = 4;
    r->spill = calloc(2, sizeof *r->spill);
    assert_non_null(r->spill);
    r->nspill = 2;
    r->spill[0] = tmpfile();
    assert_non_null(r->spill[0]);
    ranking_free(r); /* ASan reports a leak if a file or the rows stay */
    assert_null(r->rows);
    assert_int_equal(r->nrows, 0);
    assert_null(r->spill);
    assert_int_equal(r->nspill, 0);
    ranking_free(r);
    free(r);
}

/*
 * The templates rank carries are the registry's, key for key: every time
 * term's and memory term's key and the link times' ("ib_s", "nv_s") give
 * what terms_template gives (the workbook compiles what the ranking
 * carries, so a template lost on the way would drop a live formula); a
 * key of no term gives NULL, as terms_template does.
 */
static void test_ranking_template(void **state)
{
    struct ranking r;
    struct diag d;
    size_t i, nt, nm;
    const struct terms_term *t = terms_all(&nt);
    const struct terms_mem_term *m = terms_memory(&nm);
    (void)state;
    memset(&r, 0, sizeof r);
    diag_init(&d);
    assert_null(ranking_template(&r, "step")); /* none carried yet */
    assert_int_equal(rank_templates(&r, &d), STATUS_OK);
    for (i = 0; i < nt; i++)
        assert_string_equal(ranking_template(&r, t[i].key),
                            terms_template(t[i].key));
    for (i = 0; i < nm; i++)
        assert_string_equal(ranking_template(&r, m[i].key),
                            terms_template(m[i].key));
    assert_string_equal(ranking_template(&r, "ib_s"), TERMS_IB_TIME);
    assert_string_equal(ranking_template(&r, "nv_s"), TERMS_NVLINK_TIME);
    assert_null(ranking_template(&r, "tp")); /* a plan field: no term */
    assert_null(terms_template("tp"));
    ranking_free(&r);
    assert_null(r.templates);
    assert_int_equal(r.ntemplates, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranking_family_index),
        cmocka_unit_test(test_ranking_template),
        cmocka_unit_test(test_ranking_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

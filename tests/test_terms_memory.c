/*
 * test_terms_memory: the memory terms (terms_memory.c): the runtime's
 * share, the total, the headroom and the one rule of "fits", by hand on
 * a made-up plan's memory, each template (evaluated by util_evaluate in
 * tests/util.c) beside its C value. The cluster is
 * tests/data/hw-h800.ini: 79.21 GiB of HBM, a 0.3 GiB CUDA context, 2.0
 * GiB of NCCL buffers and 5% fragmentation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "plans_table.h"
#include "terms.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/tiny-moe.ini", &f.m, NULL, 0, &d) ||
        hardware_load("tests/data/hw-h800.ini", &f.hw, NULL, 0, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->m);
    hardware_release(&f->hw);
    return 0;
}

/* The fit rule by hand: H800's 79.21 GiB less 10% is 71.289 GiB. */
static void test_terms_fits_by_hand(void **state)
{
    const double gib = 1073741824.0;
    (void)state;
    assert_true(terms_fits(71.28 * gib, 79.21 * gib, 10));
    assert_false(terms_fits(71.30 * gib, 79.21 * gib, 10));
    assert_true(terms_fits(79.21 * gib, 79.21 * gib, 0));
    assert_false(terms_fits(40 * gib, 79.21 * gib, 50)); /* 39.6 usable */
}

/* Sets the Plans column `key` of row sh to v. */
/* The memory terms in bytes, the one place each is written (memory.c,
 * figures, the Memory sheet, the Plans column and the charts call them):
 * the same parts as test_terms_memory_by_hand (70 GiB allocated, 5.8 GiB
 * context, buffers and fragmentation on the fixture's H800); usable:
 * 79.21 GiB less 10% = 71.289 GiB; headroom 79.21 - 75.8 = 3.41 GiB. */
static void test_terms_memory_bytes_by_hand(void **state)
{
    struct fixture *f = *state;
    const double gib = 1073741824.0;
    struct memory mem;
    memset(&mem, 0, sizeof mem);
    mem.weights = 20 * gib;
    mem.grads = 10 * gib;
    mem.optimizer = 30 * gib;
    mem.activations = 10 * gib;
    mem.other = terms_mem_other(&f->hw.spec, &mem);
    assert_near(mem.other / gib, 5.8, 1e-12);
    mem.total = terms_mem_total(&mem);
    assert_near(mem.total / gib, 75.8, 1e-12);
    mem.capacity = f->hw.capacity_bytes;
    assert_near(terms_mem_usable(mem.capacity, 10) / gib, 71.289, 1e-12);
    assert_near(terms_mem_headroom(&mem) / gib, 3.41, 1e-12);
    /* the fit rule is the usable share: at it fits, above it does not */
    assert_true(
        terms_fits(terms_mem_usable(mem.capacity, 10), mem.capacity, 10));
    assert_false(terms_fits(mem.total, mem.capacity, 10));
}

static void set_cell(struct util_sheet *sh, const char *key, double v)
{
    long k = plans_table_find(key);
    assert_true(k >= 0 && (size_t)k < sh->ncells);
    sh->cell[k] = util_num(v);
}

/* Evaluates memory term `id`'s template on row sh. */
static double template_value(const struct util_sheet *sh, int id)
{
    size_t n;
    const struct terms_mem_term *mt = terms_memory(&n);
    struct plans_formula fm;
    char text[PLANS_FORMULA_MAX];
    struct util_value v;
    assert_true((size_t)id < n);
    assert_int_equal(mt[id].id, id);
    assert_true(plans_table_formula_compile(mt[id].formula, &fm));
    plans_table_formula_expand(&fm, 1, text, sizeof text);
    v = util_evaluate(text, sh);
    assert_int_equal(v.kind, UTIL_NUM);
    return v.num;
}

/*
 * A plan's memory by hand: weights 20, gradients 10, optimizer 30,
 * activations 10 GiB (70 allocated). Other: context 0.3 + NCCL 2.0 + 5%
 * of 70 = 3.5, so 5.8 GiB; total 75.8 GiB; headroom 79.21 - 75.8 =
 * 3.41 GiB. With the sweep's default 10% kept free a plan may use
 * 71.289 GiB: it does not fit (0); with none kept free it does.
 */
static void test_terms_memory_by_hand(void **state)
{
    struct fixture *f = *state;
    const double gib = 1073741824.0;
    size_t n, ncols;
    const struct terms_mem_term *mt = terms_memory(&n);
    struct memory mem;
    struct terms_mem_env env;
    struct util_sheet sh;
    memset(&mem, 0, sizeof mem);
    mem.weights = 20 * gib;
    mem.grads = 10 * gib;
    mem.optimizer = 30 * gib;
    mem.activations = 10 * gib;
    mem.other = 5.8 * gib;
    mem.total = 75.8 * gib;
    mem.capacity = f->hw.capacity_bytes;
    env.mem = &mem;
    env.hw = &f->hw;
    env.headroom_pct = 10;
    assert_int_equal(n, TERMS_MEM_COUNT);
    assert_near(mt[TERMS_MEM_OTHER].c(&env), 5.8, 1e-12);
    assert_near(mt[TERMS_MEM_TOTAL].c(&env), 75.8, 1e-12);
    assert_near(mt[TERMS_MEM_HEADROOM].c(&env), 79.21 - 75.8, 1e-12);
    assert_true(mt[TERMS_MEM_FITS].c(&env) == 0);
    env.headroom_pct = 0;
    assert_true(mt[TERMS_MEM_FITS].c(&env) == 1);

    /* the templates on a row holding the same parts (GiB), with the
     * sweep's default headroom (10%: HEADROOM_PCT without a sweep) */
    memset(&sh, 0, sizeof sh);
    plans_table_columns(&ncols);
    assert_true(ncols <= sizeof sh.cell / sizeof sh.cell[0]);
    sh.ncells = ncols;
    sh.hw = &f->hw;
    sh.m = &f->m;
    set_cell(&sh, "mem_weights", 20);
    set_cell(&sh, "mem_grads", 10);
    set_cell(&sh, "mem_opt", 30);
    set_cell(&sh, "mem_act", 10);
    set_cell(&sh, "mem_other", 5.8);
    set_cell(&sh, "mem_total", 75.8);
    assert_near(template_value(&sh, TERMS_MEM_OTHER), 5.8, 1e-12);
    assert_near(template_value(&sh, TERMS_MEM_TOTAL), 75.8, 1e-12);
    assert_near(template_value(&sh, TERMS_MEM_HEADROOM), 79.21 - 75.8, 1e-12);
    assert_true(template_value(&sh, TERMS_MEM_FITS) == 0);
    /* 71.28 GiB is under the 71.289 usable: it fits */
    set_cell(&sh, "mem_total", 71.28);
    assert_true(template_value(&sh, TERMS_MEM_FITS) == 1);
}

/* The template shown under a memory column is the registry's. */
static void test_terms_memory_templates_by_key(void **state)
{
    size_t n, i;
    const struct terms_mem_term *mt = terms_memory(&n);
    (void)state;
    for (i = 0; i < n; i++) {
        assert_non_null(terms_template(mt[i].key));
        assert_string_equal(terms_template(mt[i].key), mt[i].formula);
        assert_true(plans_table_find(mt[i].key) >= 0);
    }
    assert_string_equal(terms_template("headroom"), "HBM_GIB-{mem_total}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_fits_by_hand),
        cmocka_unit_test(test_terms_memory_by_hand),
        cmocka_unit_test(test_terms_memory_bytes_by_hand),
        cmocka_unit_test(test_terms_memory_templates_by_key),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

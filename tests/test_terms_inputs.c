/*
 * test_terms_inputs: the registry of the workbook's inputs
 * (terms_inputs.c): every data-file input is a number key of its file
 * with the schema's unit, every derived input's formula gives its C
 * value and reads only inputs listed before it, which inputs a cluster
 * without a calibration defines, the workbook's own names, and the one
 * template lexer that rejects a name nobody registered. Fixtures are the
 * snapshots in tests/data (H800: tests/data/hw-h800.ini).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "calibration.h"
#include "collectives.h"
#include "plans_table.h"
#include "stack.h"
#include "sweep.h"
#include "terms.h"
#include "test_util.h"
#include "xlsx_table.h"

struct fixture {
    struct model moe;
    struct hardware hw;
    struct calibration cal; /* hw.cal: the calibration inputs exist */
    struct stack stack;     /* hw.stack: so do the stack's */
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/tiny-moe.ini", &f.moe, NULL, 0, &d) ||
        hardware_load("tests/data/hw-h800.ini", &f.hw, NULL, 0, &d) ||
        calibration_load("tests/data/snap/calibration/h800.ini", &f.cal, NULL,
                         0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &f.stack, NULL, 0,
                   &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    f.hw.cal = &f.cal;
    f.hw.stack = &f.stack;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->moe);
    hardware_release(&f->hw);
    calibration_release(&f->cal);
    stack_release(&f->stack);
    return 0;
}

/* Derived inputs: their formula over the other inputs equals their C
 * value; each reads only inputs listed before it. */
static void test_terms_derived_inputs_match_c(void **state)
{
    struct fixture *f = *state;
    struct util_sheet sh;
    size_t n, i;
    const struct terms_input *in = terms_inputs(&n);
    memset(&sh, 0, sizeof sh);
    sh.hw = &f->hw;
    sh.m = &f->moe;
    for (i = 0; i < n; i++) {
        double c;
        struct plans_formula fm;
        struct util_value v;
        assert_true(terms_input_value(&in[i], &f->hw, &f->moe, NULL, &c));
        if (in[i].origin != TERMS_DERIVED)
            continue;
        assert_true(plans_table_formula_compile(in[i].formula, &fm));
        v = util_evaluate(fm.text, &sh);
        assert_near(v.num, c, 1e-12);
    }
    /* by hand: H800 BF16 758 TFLOP/s x the clock derate (the comm SMs
     * are charged as their own term, not here) */
    assert_near(terms_input_find("BF16_TFLOPS_USED")->value(&f->hw),
                758 * f->hw.spec.clock_derate, 1e-12);
}

/* Every data-file input names a number field of its file, with the unit
 * the schema gives; the SI scale turns it into the rate C uses. */
static void test_terms_inputs_are_schema_keys(void **state)
{
    struct fixture *f = *state;
    size_t n, i;
    const struct terms_input *in = terms_inputs(&n);
    double v;
    for (i = 0; i < n; i++) {
        const struct datafile_schema *schema;
        long k;
        if (in[i].origin == TERMS_DERIVED)
            continue;
        schema = in[i].origin == TERMS_HARDWARE      ? hardware_schema()
                 : in[i].origin == TERMS_MODEL       ? model_schema()
                 : in[i].origin == TERMS_CALIBRATION ? calibration_schema()
                 : in[i].origin == TERMS_STACK       ? stack_schema()
                 : in[i].origin == TERMS_COLLECTIVES ? collectives_schema()
                                                     : sweep_schema();
        k = datafile_field_index(schema, in[i].section, in[i].key);
        if (k < 0)
            fail_msg("%s: no key %s.%s", in[i].name, in[i].section, in[i].key);
        assert_int_equal(terms_input_field(&in[i]), k);
        assert_string_equal(
            schema->fields[k].unit ? schema->fields[k].unit : "", in[i].unit);
    }
    assert_true(terms_input_value(terms_input_find("IB_GBPS"), &f->hw, &f->moe,
                                  NULL, &v));
    assert_near(v * terms_input_find("IB_GBPS")->si, f->hw.ib_bps, 1e-15);
    /* the collectives file's Simple ring step across nodes, 14 us
     * (tests/data/snap/collectives/nccl.ini), in s */
    assert_true(terms_input_value(terms_input_find("COLL_NET_STEP_US"), &f->hw,
                                  &f->moe, NULL, &v));
    assert_near(v * terms_input_find("COLL_NET_STEP_US")->si, 14e-6, 1e-15);
    /* a sweep input without a sweep file: the schema's default, 10% */
    assert_true(terms_input_value(terms_input_find("HEADROOM_PCT"), &f->hw,
                                  &f->moe, NULL, &v));
    assert_near(v, 10, 1e-15);
}

/* The workbook's own names are upper case, distinct from the inputs and
 * known to the compilers; an unknown name is not. */
static void test_terms_workbook_names(void **state)
{
    size_t n, i, k;
    const struct terms_name *names = terms_names(&n);
    (void)state;
    for (i = 0; i < n; i++) {
        assert_null(terms_input_find(names[i].name));
        assert_true(terms_name_known(names[i].name, false));
        for (k = 0; names[i].name[k]; k++)
            assert_true(isupper((unsigned char)names[i].name[k]) ||
                        isdigit((unsigned char)names[i].name[k]) ||
                        names[i].name[k] == '_');
        for (k = i + 1; k < n; k++)
            assert_string_not_equal(names[i].name, names[k].name);
    }
    assert_true(terms_name_known("FASTEST_PLAN", false));
    assert_false(terms_name_known("FASTEST_PLANS", false));
    assert_true(terms_name_known("INDEX", true));
    assert_false(terms_name_known("INDIRECT", true));
}

/* A template that names an input the registry lacks does not compile:
 * renaming IB_GBPS anywhere fails here, in well under a second. */
static void test_terms_unknown_names_rejected(void **state)
{
    struct plans_formula fm;
    (void)state;
    assert_true(plans_table_formula_compile("{ib_gb}/IB_GBPS", &fm));
    assert_false(plans_table_formula_compile("{ib_gb}/IB_GBPSX", &fm));
    assert_false(plans_table_formula_compile("{ib_gb}/ib_gbps", &fm));
    assert_false(plans_table_formula_compile("SUMX({ib_gb})", &fm));
    assert_false(plans_table_formula_compile("{ib_gb}/Assumptions!D4", &fm));
    assert_true(plans_table_formula_compile("1E+12/{tps}/3600", &fm));
    assert_true(plans_table_formula_compile("{precision}=\"fp8\"", &fm));
    assert_false(plans_table_formula_compile("{precision}=\"fp8", &fm));
}

/* xlsx_table's compiler checks names with the same lexer. */
static void test_terms_unknown_names_rejected_in_sheets(void **state)
{
    struct xlsx_column cols[] = {
        {"x", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 0},
    };
    struct xlsx_table t = {cols, 1, XLSX_FMT_NONE, NULL};
    char buf[XLSX_TABLE_FORMULA_MAX];
    (void)state;
    assert_true(xlsx_table_formula(&t, "MIN({x},IB_GBPS)", 3, buf, sizeof buf));
    assert_string_equal(buf, "=MIN(A4,IB_GBPS)");
    assert_true(xlsx_table_formula(&t, "IF({x}>0,\"a b\",\"IB_X\")", 0, buf,
                                   sizeof buf));
    assert_string_equal(buf, "=IF(A1>0,\"a b\",\"IB_X\")");
    assert_false(xlsx_table_formula(&t, "{x}*IB_GBPSX", 0, buf, sizeof buf));
    assert_false(xlsx_table_formula(&t, "{x}*Plans!A1", 0, buf, sizeof buf));
    assert_false(
        xlsx_table_formula(&t, "INDIRECT(\"A1\")", 0, buf, sizeof buf));
    assert_false(xlsx_table_formula(&t, "\"open", 0, buf, sizeof buf));
    assert_false(xlsx_table_formula(&t, "{y}", 0, buf, sizeof buf));
}

/* Each derived input's formula names only inputs listed before it (the
 * order the Assumptions sheet defines them in), and no derived input
 * comes before a data-file key. */
static void test_terms_derived_inputs_read_earlier_ones(void **state)
{
    size_t n, i;
    const struct terms_input *in = terms_inputs(&n);
    bool derived_seen = false;
    (void)state;
    for (i = 0; i < n; i++) {
        const char *s;
        if (in[i].origin != TERMS_DERIVED) {
            assert_false(derived_seen);
            continue;
        }
        derived_seen = true;
        assert_non_null(in[i].formula);
        assert_non_null(in[i].value);
        for (s = in[i].formula; *s;) {
            size_t len = 0;
            char name[64];
            const struct terms_input *ref;
            while (isupper((unsigned char)s[len]) ||
                   isdigit((unsigned char)s[len]) || s[len] == '_')
                len++;
            if (len == 0 || isdigit((unsigned char)s[0])) {
                s += len ? len : 1;
                continue;
            }
            snprintf(name, sizeof name, "%.*s", (int)len, s);
            ref = terms_input_find(name);
            if (!ref || ref >= &in[i])
                fail_msg("%s reads %s, not an earlier input", in[i].name, name);
            s += len;
        }
    }
    assert_true(derived_seen);
}

/* Values by hand from tests/data/hw-h800.ini: IB 50 GB/s, its
 * collectives file's (tests/data/snap/collectives/nccl.ini) Simple ring
 * step of 3.4 us inside a node, the
 * HBM's 79.21 GiB; BF16 758 TFLOP/s and FP8 1460 TFLOP/s achievable
 * with clock_derate 1, so the ridges are 758e12 / 50e9 = 15,160 FLOP/B
 * over IB and 1460e12 / 160e9 = 9,125 FLOP/B over NVLink for FP8. */
static void test_terms_input_values_by_hand(void **state)
{
    struct fixture *f = *state;
    double v;
    assert_true(terms_input_value(terms_input_find("COLL_STEP_US"), &f->hw,
                                  &f->moe, NULL, &v));
    assert_near(v, 3.4, 1e-15);
    assert_near(v * terms_input_find("COLL_STEP_US")->si, 3.4e-6, 1e-15);
    assert_true(terms_input_value(terms_input_find("HBM_GIB"), &f->hw, &f->moe,
                                  NULL, &v));
    assert_near(v, 79.21, 1e-15);
    assert_true(terms_input_value(terms_input_find("RIDGE_IB_BF16"), &f->hw,
                                  &f->moe, NULL, &v));
    assert_near(v, 15160, 1e-12);
    assert_true(terms_input_value(terms_input_find("RIDGE_NVLINK_FP8"), &f->hw,
                                  &f->moe, NULL, &v));
    assert_near(v, 9125, 1e-12);
    assert_null(terms_input_find("ib_gbps")); /* names are upper case */
    assert_null(terms_input_find("IB_GBP"));
}

/* Without a calibration the workbook defines no calibration or stack
 * input, nor a derived name over them (CLOCK_FACTOR); the cluster's
 * keys and the names over them stay. A stack without a calibration is
 * no expected step either. */
static void test_terms_input_available_without_calibration(void **state)
{
    struct fixture *f = *state;
    struct hardware hw = f->hw; /* shallow: calibration taken away */
    hw.cal = NULL;
    assert_true(terms_input_available(terms_input_find("IB_GBPS"), &hw));
    assert_true(terms_input_available(terms_input_find("RIDGE_IB_BF16"), &hw));
    assert_false(
        terms_input_available(terms_input_find("CLOCK_BURST_TFLOPS"), &hw));
    assert_false(terms_input_available(terms_input_find("CLOCK_FACTOR"), &hw));
    assert_false(
        terms_input_available(terms_input_find("COMPUTE_OVERHEAD"), &hw));
    assert_true(
        terms_input_available(terms_input_find("CLOCK_FACTOR"), &f->hw));
    assert_true(
        terms_input_available(terms_input_find("COMPUTE_OVERHEAD"), &f->hw));
}

/* The lexer's token lengths by hand: a number with its exponent, a
 * registered name, one character of punctuation; 0 for a lower-case
 * word, a written-out reference and an unknown name. */
static void test_terms_template_token_by_hand(void **state)
{
    (void)state;
    assert_int_equal(terms_template_token("1E+12/{tps}"), 5);
    assert_int_equal(terms_template_token("0.5*X"), 3);
    assert_int_equal(terms_template_token("IB_GBPS+1"), 7);
    assert_int_equal(terms_template_token("MAX({a},{b})"), 3);
    assert_int_equal(terms_template_token("*{a}"), 1);
    assert_int_equal(terms_template_token("ib_gbps"), 0);
    assert_int_equal(terms_template_token("$A$1"), 0);
    assert_int_equal(terms_template_token("Plans!A1"), 0);
    assert_int_equal(terms_template_token("IB_GBPSX"), 0);
    assert_int_equal(terms_template_token("IB_GBPS("), 0); /* not a function */
    assert_int_equal(terms_template_token(""), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_derived_inputs_match_c),
        cmocka_unit_test(test_terms_derived_inputs_read_earlier_ones),
        cmocka_unit_test(test_terms_inputs_are_schema_keys),
        cmocka_unit_test(test_terms_input_values_by_hand),
        cmocka_unit_test(test_terms_input_available_without_calibration),
        cmocka_unit_test(test_terms_workbook_names),
        cmocka_unit_test(test_terms_unknown_names_rejected),
        cmocka_unit_test(test_terms_unknown_names_rejected_in_sheets),
        cmocka_unit_test(test_terms_template_token_by_hand),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

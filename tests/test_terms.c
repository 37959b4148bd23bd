/*
 * test_terms: the time model's two sides agree. Every term's Excel
 * template, compiled as the workbook writes it, is evaluated here by a
 * small spreadsheet evaluator (+ - * /, comparisons, MAX, MIN, IF,
 * strings, cell references, named inputs) on a sample of plans, and must
 * give the C value cost_times() gave; every derived input likewise. A
 * renamed or misspelt input makes the template fail to compile. Fixtures
 * are the snapshots in tests/data, so editing data/ does not move them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "cost.h"
#include "stack.h"
#include "plans_table.h"
#include "sweep.h"
#include "xlsx_table.h"
#include "report.h"
#include "terms.h"
#include "test_util.h"

struct fixture {
    struct model moe, gpt;
    struct hardware hw;
    struct calibration cal; /* hw.cal: the expected terms are checked too */
    struct stack stack;
    struct report *rep; /* empty: plans_table_value_row reads families */
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/tiny-moe.ini", &f.moe, NULL, 0, &d) ||
        model_load("tests/data/gpt-korthikanti.ini", &f.gpt, NULL, 0, &d) ||
        hardware_load("tests/data/hw-h800.ini", &f.hw, NULL, 0, &d) ||
        calibration_load("tests/data/snap/calibration/h800.ini", &f.cal, NULL,
                         0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &f.stack, NULL, 0,
                   &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    f.hw.cal = &f.cal;
    f.hw.stack = &f.stack; /* its free factors are inputs too */
    f.rep = calloc(1, sizeof *f.rep);
    if (!f.rep)
        return -1;
    f.rep->m = &f.moe;
    f.rep->hw = &f.hw;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->moe);
    model_release(&f->gpt);
    hardware_release(&f->hw);
    calibration_release(&f->cal);
    stack_release(&f->stack);
    free(f->rep);
    return 0;
}

/* ---- A spreadsheet evaluator, just enough for our templates ---- */

enum { V_NUM, V_STR, V_BOOL };

struct value {
    int kind;
    double num;
    bool flag;
    char str[64];
};

/* One row of cells (column index -> value) and the inputs' values. */
struct sheet {
    struct value cell[128];
    size_t ncells;
    const struct hardware *hw;
    const struct model *m;
};

struct parser {
    const char *s;
    const struct sheet *sh;
    bool error;
    char why[128];
};

static void fail_at(struct parser *p, const char *why)
{
    if (!p->error)
        snprintf(p->why, sizeof p->why, "%s at \"%.20s\"", why, p->s);
    p->error = true;
}

static struct value num(double v)
{
    struct value x;
    memset(&x, 0, sizeof x);
    x.kind = V_NUM;
    x.num = v;
    return x;
}

static double as_num(struct parser *p, struct value v)
{
    if (v.kind == V_NUM)
        return v.num;
    if (v.kind == V_BOOL)
        return v.flag;
    fail_at(p, "text where a number is needed");
    return 0;
}

static struct value expr(struct parser *p);

static struct value reference(struct parser *p, const char *id, size_t n)
{
    size_t letters = 0, col = 0, i;
    struct value v;
    while (letters < n && isupper((unsigned char)id[letters]))
        letters++;
    for (i = letters; i < n && isdigit((unsigned char)id[i]); i++)
        ;
    if (letters >= 1 && letters <= 3 && i == n && letters < n) {
        for (i = 0; i < letters; i++)
            col = col * 26 + (size_t)(id[i] - 'A' + 1);
        if (col - 1 < p->sh->ncells)
            return p->sh->cell[col - 1];
        fail_at(p, "reference beyond the row");
        return num(0);
    } else {
        char name[64];
        const struct terms_input *in;
        double x;
        snprintf(name, sizeof name, "%.*s", (int)n, id);
        in = terms_input_find(name);
        if (!in || !terms_input_value(in, p->sh->hw, p->sh->m, NULL, &x)) {
            fail_at(p, "unknown name");
            return num(0);
        }
        v = num(x);
        return v;
    }
}

static struct value call(struct parser *p, const char *fn, size_t n)
{
    struct value args[8];
    size_t k = 0, i;
    p->s++; /* ( */
    while (*p->s != ')' && !p->error && k < 8) {
        args[k++] = expr(p);
        if (*p->s == ',')
            p->s++;
        else if (*p->s != ')')
            fail_at(p, "expected , or )");
    }
    p->s++;
    if (n == 2 && strncmp(fn, "IF", 2) == 0 && k == 3) {
        bool c = args[0].kind == V_BOOL ? args[0].flag : as_num(p, args[0]);
        return c ? args[1] : args[2];
    }
    if (n == 3 && (strncmp(fn, "MAX", 3) == 0 || strncmp(fn, "MIN", 3) == 0) &&
        k > 0) {
        double best = as_num(p, args[0]);
        for (i = 1; i < k; i++) {
            double x = as_num(p, args[i]);
            if (fn[1] == 'A' ? x > best : x < best)
                best = x;
        }
        return num(best);
    }
    fail_at(p, "unknown function");
    return num(0);
}

static struct value primary(struct parser *p)
{
    struct value v;
    const char *s = p->s;
    if (*s == '(') {
        p->s++;
        v = expr(p);
        if (*p->s != ')')
            fail_at(p, "expected )");
        p->s++;
        return v;
    }
    if (*s == '"') {
        const char *end = strchr(s + 1, '"');
        memset(&v, 0, sizeof v);
        v.kind = V_STR;
        if (!end) {
            fail_at(p, "unterminated string");
            return v;
        }
        snprintf(v.str, sizeof v.str, "%.*s", (int)(end - s - 1), s + 1);
        p->s = end + 1;
        return v;
    }
    if (isdigit((unsigned char)*s) || *s == '.') {
        char *end;
        double x = strtod(s, &end);
        p->s = end;
        return num(x);
    }
    if (isupper((unsigned char)*s) || *s == '_') {
        size_t n = 0;
        while (isupper((unsigned char)s[n]) || isdigit((unsigned char)s[n]) ||
               s[n] == '_')
            n++;
        p->s = s + n;
        if (*p->s == '(')
            return call(p, s, n);
        return reference(p, s, n);
    }
    fail_at(p, "unexpected character");
    p->s++;
    return num(0);
}

static struct value unary(struct parser *p)
{
    if (*p->s == '-') {
        p->s++;
        return num(-as_num(p, unary(p)));
    }
    return primary(p);
}

static struct value product(struct parser *p)
{
    struct value v = unary(p);
    while (*p->s == '*' || *p->s == '/') {
        char op = *p->s++;
        double b = as_num(p, unary(p)), a = as_num(p, v);
        v = num(op == '*' ? a * b : a / b);
    }
    return v;
}

static struct value sum(struct parser *p)
{
    struct value v = product(p);
    while (*p->s == '+' || *p->s == '-') {
        char op = *p->s++;
        double b = as_num(p, product(p)), a = as_num(p, v);
        v = num(op == '+' ? a + b : a - b);
    }
    return v;
}

static struct value expr(struct parser *p)
{
    struct value a = sum(p), b, r;
    char op[3] = "";
    if (*p->s == '=' || *p->s == '<' || *p->s == '>') {
        op[0] = *p->s++;
        if (*p->s == '=' || *p->s == '>')
            op[1] = *p->s++;
        b = sum(p);
        memset(&r, 0, sizeof r);
        r.kind = V_BOOL;
        if (a.kind == V_STR || b.kind == V_STR) {
            int c = strcmp(a.str, b.str);
            r.flag = op[0] == '=' ? c == 0 : op[1] == '>' ? c != 0 : false;
            return r;
        }
        {
            double x = as_num(p, a), y = as_num(p, b);
            if (strcmp(op, "=") == 0)
                r.flag = x == y;
            else if (strcmp(op, "<>") == 0)
                r.flag = x != y;
            else if (strcmp(op, "<=") == 0)
                r.flag = x <= y;
            else if (strcmp(op, ">=") == 0)
                r.flag = x >= y;
            else if (strcmp(op, "<") == 0)
                r.flag = x < y;
            else
                r.flag = x > y;
        }
        return r;
    }
    return a;
}

/* Evaluates "=..." (a compiled, expanded formula) on sheet sh. */
static struct value evaluate(const char *formula, const struct sheet *sh)
{
    struct parser p;
    struct value v;
    memset(&p, 0, sizeof p);
    p.s = formula[0] == '=' ? formula + 1 : formula;
    p.sh = sh;
    v = expr(&p);
    if (!p.error && *p.s)
        fail_at(&p, "trailing text");
    if (p.error)
        fail_msg("%s: %s", formula, p.why);
    return v;
}

/* ---- The tests ---- */

/* The row of the Plans table for plan `text` of model m, and its times. */
static void plan_row(const struct fixture *f,
                     const struct model *m,
                     const char *text,
                     struct sheet *sh,
                     struct cost_times *t,
                     struct memory *mem)
{
    struct plan p;
    struct cost_ctx ctx;
    struct cost_result r;
    struct report_row row;
    size_t n, i;
    const struct plans_column *cols = plans_table_columns(&n);
    util_plan(m, &f->hw, text, &p);
    util_ctx(&ctx, m, &f->hw, COMM_TOPO, &p);
    ctx.stack = &f->stack;
    cost_evaluate(&ctx, &p, &r, NULL, 0, NULL);
    assert_true(r.work.x.known);
    cost_ctx_release(&ctx);
    memset(&row, 0, sizeof row);
    row.plan = p;
    row.work = r.work;
    row.mem = r.mem;
    row.fits = r.fits;
    row.family = -1;
    if (mem)
        *mem = r.mem;
    cost_times(&r.work, &f->hw, m, p.precision, t);
    f->rep->m = m;
    memset(sh, 0, sizeof *sh);
    sh->hw = &f->hw;
    sh->m = m;
    assert_true(n <= sizeof sh->cell / sizeof sh->cell[0]);
    sh->ncells = n;
    for (i = 0; i < n; i++) {
        struct plans_value v;
        plans_table_value_row(&cols[i], f->rep, &row, 1, t, &v);
        sh->cell[i].kind = v.kind == PLANS_NUMBER ? V_NUM
                           : v.kind == PLANS_BOOL ? V_BOOL
                                                  : V_STR;
        sh->cell[i].num = v.num;
        sh->cell[i].flag = v.flag;
        snprintf(sh->cell[i].str, sizeof sh->cell[i].str, "%s", v.str);
    }
}

/* Every memory term's template on the same row gives the C value: the
 * runtime's share and the total as memory.c computed them, the headroom,
 * and the fit with the sweep's default headroom (10%). */
static void check_memory(const struct fixture *f,
                         const struct sheet *sh,
                         const struct memory *mem)
{
    size_t n, i;
    const struct terms_mem_term *mt = terms_memory(&n);
    struct terms_mem_env env = {mem, &f->hw, 10};
    assert_int_equal(n, TERMS_MEM_COUNT);
    for (i = 0; i < n; i++) {
        struct plans_formula fm;
        char text[PLANS_FORMULA_MAX];
        struct value v;
        assert_int_equal(mt[i].id, (int)i);
        if (!plans_table_formula_compile(mt[i].formula, &fm))
            fail_msg("%s: template does not compile: %s", mt[i].key,
                     mt[i].formula);
        plans_table_formula_expand(&fm, 1, text, sizeof text);
        v = evaluate(text, sh);
        assert_int_equal(v.kind, V_NUM);
        assert_near(v.num, mt[i].c(&env), 1e-12);
    }
    /* the C side repeats memory.c */
    assert_near(mt[TERMS_MEM_OTHER].c(&env) * 1073741824.0, mem->other, 1e-12);
    assert_near(mt[TERMS_MEM_TOTAL].c(&env) * 1073741824.0, mem->total, 1e-12);
}

/* Every term's template, on row 2 of a sheet holding the plan, gives the
 * C value of the term within 1e-12 (the units differ: GB over GB/s in
 * the sheet, bytes over B/s in C). */
static void check_terms(const struct sheet *sh, const struct cost_times *t)
{
    size_t n, i;
    const struct terms_term *terms = terms_all(&n);
    assert_int_equal(n, TERMS_COUNT);
    for (i = 0; i < n; i++) {
        struct plans_formula fm;
        char text[PLANS_FORMULA_MAX];
        struct value v;
        assert_int_equal(terms[i].id, (int)i);
        if (!plans_table_formula_compile(terms[i].formula, &fm))
            fail_msg("term %s: template does not compile: %s", terms[i].key,
                     terms[i].formula);
        plans_table_formula_expand(&fm, 1, text, sizeof text);
        v = evaluate(text, sh);
        if (terms[i].id == TERMS_BOUND) {
            assert_int_equal(v.kind, V_STR);
            assert_string_equal(v.str, cost_bound_label(t->bound));
        } else {
            assert_int_equal(v.kind, V_NUM);
            assert_near(v.num, terms_time(t, terms[i].id), 1e-12);
        }
    }
}

static void test_terms_templates_match_c(void **state)
{
    struct fixture *f = *state;
    static const char *const moe_plans[] = {
        "gpus=64 tp=2 pp=2 ep=8 zero=1 mbs=1 gbs=64",
        "gpus=64 pp=4 ep=16 zero=1 schedule=dualpipe precision=fp8 "
        "recompute=selective mbs=1 gbs=64",
        "gpus=64 zero=3 recompute=full mbs=1 gbs=64",
        "gpus=64 tp=4 pp=2 schedule=interleaved vpp=2 zero=2 mbs=2 gbs=64",
    };
    static const char *const gpt_plans[] = {
        "gpus=64 tp=8 pp=8 mbs=1 gbs=64 recompute=selective",
    };
    struct sheet sh;
    struct cost_times t;
    struct memory mem;
    size_t i;
    int pass;
    double neutral[sizeof moe_plans / sizeof moe_plans[0]];
    /* the stack's free factors neutral, then fitted-like (inside their
     * bounds), so the templates' COMPUTE_OVERHEAD and NETWORK_EFFICIENCY
     * are checked against the C where they change the terms */
    for (pass = 0; pass < 2; pass++) {
        f->stack.spec.compute_overhead = pass ? 1.37 : 1;
        f->stack.spec.network_efficiency = pass ? 0.61 : 1;
        for (i = 0; i < sizeof moe_plans / sizeof moe_plans[0]; i++) {
            plan_row(f, &f->moe, moe_plans[i], &sh, &t, &mem);
            /* the overhead multiplies the whole expected compute */
            if (pass == 0)
                neutral[i] = t.x_compute;
            else
                assert_near(t.x_compute, 1.37 * neutral[i], 1e-12);
            check_terms(&sh, &t);
            check_memory(f, &sh, &mem);
        }
        for (i = 0; i < sizeof gpt_plans / sizeof gpt_plans[0]; i++) {
            plan_row(f, &f->gpt, gpt_plans[i], &sh, &t, &mem);
            check_terms(&sh, &t);
            check_memory(f, &sh, &mem);
        }
    }
    f->stack.spec.compute_overhead = 1;
    f->stack.spec.network_efficiency = 1;
}

/* The bound's IF chain keeps the first maximum, as terms_core does:
 * with compute = IB, the plan is compute-bound (hand-made row). */
static void test_terms_bound_ties_go_to_compute(void **state)
{
    struct fixture *f = *state;
    struct sheet sh;
    struct cost_times t;
    struct plans_formula fm;
    char text[PLANS_FORMULA_MAX];
    struct value v;
    int bound;
    plan_row(f, &f->moe, "gpus=64 tp=2 pp=2 ep=8 zero=1 mbs=1 gbs=64", &sh, &t,
             NULL);
    sh.cell[plans_table_find("comm_sm")] = num(0);
    sh.cell[plans_table_find("ib_steady")] =
        sh.cell[plans_table_find("compute")];
    sh.cell[plans_table_find("core")] = sh.cell[plans_table_find("compute")];
    sh.cell[plans_table_find("nv_steady")] = num(0);
    sh.cell[plans_table_find("hbm")] = num(0);
    assert_true(plans_table_formula_compile(terms_find("bound")->formula, &fm));
    plans_table_formula_expand(&fm, 1, text, sizeof text);
    v = evaluate(text, &sh);
    assert_string_equal(v.str, "compute");
    assert_true(terms_core(2, 2, 1, 1, &bound) == 2);
    assert_int_equal(bound, COST_COMPUTE);
    assert_true(terms_core(2, 3, 3, 1, &bound) == 3);
    assert_int_equal(bound, COST_IB);
}

/* Derived inputs: their formula over the other inputs equals their C
 * value; each reads only inputs listed before it. */
static void test_terms_derived_inputs_match_c(void **state)
{
    struct fixture *f = *state;
    struct sheet sh;
    size_t n, i;
    const struct terms_input *in = terms_inputs(&n);
    memset(&sh, 0, sizeof sh);
    sh.hw = &f->hw;
    sh.m = &f->moe;
    for (i = 0; i < n; i++) {
        double c;
        struct plans_formula fm;
        struct value v;
        assert_true(terms_input_value(&in[i], &f->hw, &f->moe, NULL, &c));
        if (in[i].origin != TERMS_DERIVED)
            continue;
        assert_true(plans_table_formula_compile(in[i].formula, &fm));
        v = evaluate(fm.text, &sh);
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
    /* a sweep input without a sweep file: the schema's default, 10% */
    assert_true(terms_input_value(terms_input_find("HEADROOM_PCT"), &f->hw,
                                  &f->moe, NULL, &v));
    assert_near(v, 10, 1e-15);
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

/* A collective's link-time templates (the Communication sheet's) give
 * terms_collective_time(): 90 GB over 50 GB/s and 2,000 calls at 55 us
 * is 1.8 + 0.11 s (by hand); no bytes, no latency. */
static void test_terms_collective_time_by_hand(void **state)
{
    struct fixture *f = *state;
    struct xlsx_column cols[] = {
        {"calls", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 0},
        {"ib_gb", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 1},
        {"nv_gb", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 2},
        {"ib_s", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 3},
        {"nv_s", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 4},
    };
    struct xlsx_table t = {cols, 5, XLSX_FMT_NONE, NULL};
    struct sheet sh;
    char text[XLSX_TABLE_FORMULA_MAX];
    memset(&sh, 0, sizeof sh);
    sh.hw = &f->hw;
    sh.m = &f->moe;
    sh.ncells = 3;
    sh.cell[0] = num(2000);
    sh.cell[1] = num(90);
    sh.cell[2] = num(0);
    assert_true(
        xlsx_table_formula(&t, terms_template("ib_s"), 0, text, sizeof text));
    assert_near(evaluate(text, &sh).num, 1.8 + 2000 * 55e-6, 1e-12);
    assert_near(
        terms_collective_time(90e9, 2000, f->hw.ib_bps, f->hw.ib_latency_s),
        1.8 + 2000 * 55e-6, 1e-12);
    assert_true(
        xlsx_table_formula(&t, terms_template("nv_s"), 0, text, sizeof text));
    assert_near(evaluate(text, &sh).num, 0, 1e-15);
    assert_near(terms_collective_time(0, 2000, f->hw.nvlink_bps,
                                      f->hw.nvlink_latency_s),
                0, 1e-15);
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
    assert_true(terms_name_known("BEST_PLAN", false));
    assert_false(terms_name_known("BEST_PLANS", false));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_templates_match_c),
        cmocka_unit_test(test_terms_bound_ties_go_to_compute),
        cmocka_unit_test(test_terms_derived_inputs_match_c),
        cmocka_unit_test(test_terms_inputs_are_schema_keys),
        cmocka_unit_test(test_terms_unknown_names_rejected),
        cmocka_unit_test(test_terms_unknown_names_rejected_in_sheets),
        cmocka_unit_test(test_terms_fits_by_hand),
        cmocka_unit_test(test_terms_collective_time_by_hand),
        cmocka_unit_test(test_terms_workbook_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

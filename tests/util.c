/*
 * util: helpers the cmocka tests share (see test_util.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#include "figures.h"
#include "figures_internal.h"
#include "rank.h"
#include "terms.h"
#include "validation.h"

void util_plan(const struct model *m,
               const struct hardware *hw,
               const char *text,
               struct plan *out)
{
    struct plan base;
    struct diag d;
    char buf[256];
    char *args[1];
    long dp;
    memset(&base, 0, sizeof base);
    base.tp = base.pp = base.ep = base.cp = base.vpp = base.mbs = 1;
    snprintf(buf, sizeof buf, "%s", text);
    args[0] = buf;
    diag_init(&d);
    if (plan_parse(args, 1, &base, out, &dp, &d) != STATUS_OK ||
        plan_check(out, m, hw, PLAN_CHECK_RUNNABLE, &d) != PLAN_OK)
        fail_msg("%s: %s", text, d.msg);
}

void util_ctx(struct cost_ctx *ctx,
              const struct model *m,
              const struct hardware *hw,
              enum comm_model model,
              const struct plan *p)
{
    struct diag d;
    diag_init(&d);
    if (cost_ctx_init(ctx, m, hw, model, &d) != STATUS_OK ||
        cost_ctx_prepare_plan(ctx, p, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

void util_parts_init(struct util_parts *p)
{
    memset(p, 0, sizeof *p);
    util_parts_link(p);
}

void util_parts_families(struct util_parts *p, size_t n)
{
    struct diag d;
    diag_init(&d);
    if (ranking_families(&p->rank, n, &d) != STATUS_OK ||
        figures_families(&p->v, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

void util_parts_charts(struct util_parts *p, size_t n)
{
    size_t k;
    p->v.blocks = calloc(n + 1, sizeof *p->v.blocks);
    for (k = 0; k < 2; k++)
        p->v.sens[k].family = calloc(n + 1, sizeof *p->v.sens[k].family);
    if (!p->v.blocks || !p->v.sens[0].family || !p->v.sens[1].family)
        fail_msg("out of memory");
}

void util_parts_link(struct util_parts *p)
{
    p->v.in = &p->in;
    p->v.rank = &p->rank;
}

void util_parts_free(struct util_parts *p)
{
    if (!p)
        return;
    views_free(&p->v);
    ranking_free(&p->rank);
    report_inputs_free(&p->in);
}

void util_report(struct util_parts *r,
                 struct cost_ctx *ctx,
                 struct cost_ctx *other,
                 const struct sweep_file *sf,
                 size_t top,
                 const char *data_dir,
                 int64_t generated)
{
    struct validation_runs runs = {NULL, 0};
    struct validation_inputs *in = NULL;
    struct rank_options opt;
    struct diag d;
    size_t i, loaded = 0;
    enum status st;
    diag_init(&d);
    util_parts_init(r);
    r->in.m = ctx->m;
    r->in.hw = ctx->hw;
    r->in.sweep = sf;
    r->in.comm = ctx->comm;
    r->in.generated = generated;
    r->in.expected = ctx->hw->cal && ctx->stack;
    snprintf(r->in.command_line, sizeof r->in.command_line, "roofplan report");
    snprintf(r->in.version, sizeof r->in.version, "test");
    memset(&opt, 0, sizeof opt);
    opt.top = top;
    st = rank_run(&r->rank, ctx, sf, &opt, &d);
    if (st == STATUS_OK)
        st = rank_finish(&r->rank, sf, ctx, other, &d);
    if (st == STATUS_OK && data_dir)
        st = validation_load_dir(data_dir, &runs, &d);
    if (st == STATUS_OK && !(in = calloc(runs.n + 1, sizeof *in)))
        st = diag_set(&d, STATUS_NOMEM, "out of memory");
    for (i = 0; st == STATUS_OK && i < runs.n; i++, loaded++)
        st = validation_load_inputs(&runs.run[i], NULL, data_dir, ctx->m,
                                    ctx->hw, &in[i], &d);
    if (st == STATUS_OK)
        st = rank_finish_validations(&r->rank, runs.run, in, runs.n, ctx, other,
                                     &d);
    if (st == STATUS_OK)
        st = figures_views(&r->in, &r->rank, &r->v, &d);
    for (i = 0; i < loaded; i++)
        validation_inputs_release(&in[i]);
    free(in);
    validation_runs_release(&runs);
    if (st != STATUS_OK)
        fail_msg("%s", d.msg);
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int util_remove_tree(const char *dir)
{
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void util_temp_file(char *path, const char *text, size_t len)
{
    int fd = mkstemp(path);
    FILE *f;
    if (fd < 0)
        fail_msg("%s: cannot create", path);
    f = fdopen(fd, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0)
        fail_msg("%s: cannot write", path);
}

/* dir/name, or name alone when dir is NULL, into path (size bytes). */
static void
join_path(char *path, size_t size, const char *dir, const char *name)
{
    if (dir)
        snprintf(path, size, "%s/%s", dir, name);
    else
        snprintf(path, size, "%s", name);
}

void util_write_text(const char *dir, const char *name, const char *text)
{
    char path[1024];
    FILE *f;
    join_path(path, sizeof path, dir, name);
    f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        fail_msg("%s: cannot write", path);
}

const char *util_read_text(const char *dir, const char *name)
{
    static char buf[UTIL_TEXT_MAX];
    char path[1024];
    size_t n;
    FILE *f;
    join_path(path, sizeof path, dir, name);
    f = fopen(path, "r");
    if (!f)
        return "(none)";
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

int util_calibrated_cluster(struct hardware *hw,
                            struct calibration *cal,
                            struct stack *st)
{
    struct diag d;
    diag_init(&d);
    if (hardware_load("tests/data/hw-h800.ini", hw, NULL, 0, &d) ||
        calibration_load("tests/data/calibration/flat.ini", cal, NULL, 0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", st, NULL, 0,
                   &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    hw->cal = cal;
    return 0;
}

void util_calibrated_cluster_release(struct hardware *hw,
                                     struct calibration *cal,
                                     struct stack *st)
{
    hardware_release(hw);
    calibration_release(cal);
    stack_release(st);
}

void util_set(struct datafile_set *s, const char *arg)
{
    struct diag d;
    diag_init(&d);
    if (datafile_parse_set(arg, s, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

void util_model(struct model *m,
                const char *path,
                struct datafile_set *sets,
                size_t nsets)
{
    struct diag d;
    diag_init(&d);
    if (model_load(path, m, sets, nsets, &d) != STATUS_OK)
        fail_msg("%s: %s", path, d.msg);
}

enum status util_model_text(const char *text,
                            const char *recipe,
                            char *path,
                            size_t size,
                            struct diag *d)
{
    struct model m;
    enum status st;
    snprintf(path, size, "/tmp/roofplan-test-XXXXXX");
    util_temp_file(path, text, strlen(text));
    diag_init(d);
    st = model_load_with_training(path, recipe, &m, NULL, 0, d);
    if (st == STATUS_OK)
        model_release(&m);
    unlink(path);
    return st;
}

void util_expect_msg(const struct diag *d, const char *path, const char *rest)
{
    char want[DIAG_MSG_MAX];
    snprintf(want, sizeof want, "%s%s", path, rest);
    assert_string_equal(d->msg, want);
}

/* ---- A spreadsheet evaluator, just enough for the templates ---- */

struct parser {
    const char *s;
    const struct util_sheet *sh;
    bool error;
    char why[128];
};

static void fail_at(struct parser *p, const char *why)
{
    if (!p->error)
        snprintf(p->why, sizeof p->why, "%s at \"%.20s\"", why, p->s);
    p->error = true;
}

struct util_value util_num(double v)
{
    struct util_value x;
    memset(&x, 0, sizeof x);
    x.kind = UTIL_NUM;
    x.num = v;
    return x;
}

static double as_num(struct parser *p, struct util_value v)
{
    if (v.kind == UTIL_NUM)
        return v.num;
    if (v.kind == UTIL_BOOL)
        return v.flag;
    fail_at(p, "text where a number is needed");
    return 0;
}

static struct util_value expr(struct parser *p);

static struct util_value reference(struct parser *p, const char *id, size_t n)
{
    size_t letters = 0, col = 0, i;
    struct util_value v;
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
        return util_num(0);
    } else {
        char name[64];
        const struct terms_input *in;
        double x;
        snprintf(name, sizeof name, "%.*s", (int)n, id);
        in = terms_input_find(name);
        if (!in || !terms_input_value(in, p->sh->hw, p->sh->m, NULL, &x)) {
            fail_at(p, "unknown name");
            return util_num(0);
        }
        v = util_num(x);
        return v;
    }
}

static struct util_value call(struct parser *p, const char *fn, size_t n)
{
    struct util_value args[8];
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
        bool c = args[0].kind == UTIL_BOOL ? args[0].flag : as_num(p, args[0]);
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
        return util_num(best);
    }
    fail_at(p, "unknown function");
    return util_num(0);
}

static struct util_value primary(struct parser *p)
{
    struct util_value v;
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
        v.kind = UTIL_STR;
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
        return util_num(x);
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
    return util_num(0);
}

static struct util_value unary(struct parser *p)
{
    if (*p->s == '-') {
        p->s++;
        return util_num(-as_num(p, unary(p)));
    }
    return primary(p);
}

static struct util_value product(struct parser *p)
{
    struct util_value v = unary(p);
    while (*p->s == '*' || *p->s == '/') {
        char op = *p->s++;
        double b = as_num(p, unary(p)), a = as_num(p, v);
        v = util_num(op == '*' ? a * b : a / b);
    }
    return v;
}

static struct util_value sum(struct parser *p)
{
    struct util_value v = product(p);
    while (*p->s == '+' || *p->s == '-') {
        char op = *p->s++;
        double b = as_num(p, product(p)), a = as_num(p, v);
        v = util_num(op == '+' ? a + b : a - b);
    }
    return v;
}

static struct util_value expr(struct parser *p)
{
    struct util_value a = sum(p), b, r;
    char op[3] = "";
    if (*p->s == '=' || *p->s == '<' || *p->s == '>') {
        op[0] = *p->s++;
        if (*p->s == '=' || *p->s == '>')
            op[1] = *p->s++;
        b = sum(p);
        memset(&r, 0, sizeof r);
        r.kind = UTIL_BOOL;
        if (a.kind == UTIL_STR || b.kind == UTIL_STR) {
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

struct util_value util_evaluate(const char *formula,
                                const struct util_sheet *sh)
{
    struct parser p;
    struct util_value v;
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

/* ---- The figures stage's hand-made report ---- */

/* A row whose step is step_s of BF16 compute alone (no bubble, no
 * optimizer), with mem_gib of memory, ib_gb and nv_gb over the links. */
static void figures_row(const struct util_figures *f,
                        const char *plan,
                        int family,
                        double step_s,
                        double mem_gib,
                        double ib_gb,
                        double nv_gb,
                        struct ranking_row *row)
{
    memset(row, 0, sizeof *row);
    util_plan(&f->m, &f->hw, plan, &row->plan);
    row->work.bf16_flops = step_s * f->hw.bf16_flops;
    row->work.model_flops = row->work.bf16_flops;
    row->work.ib_bytes = ib_gb * 1e9;
    row->work.ib_calls = ib_gb > 0 ? 1000 : 0;
    /* a network step per call */
    row->work.ib_lat.net = row->work.ib_calls;
    row->work.nvlink_bytes = nv_gb * 1e9;
    /* all of it with the micro-batches (none at the step's end) */
    row->work.ib_steady_bytes = row->work.ib_bytes;
    row->work.ib_steady_calls = row->work.ib_calls;
    row->work.ib_steady_lat = row->work.ib_lat;
    row->work.nvlink_steady_bytes = row->work.nvlink_bytes;
    row->work.microbatches = 1;
    row->work.tokens = 64 * 1024;
    row->work.gpus = 64;
    row->mem.total = mem_gib * UTIL_GIB;
    row->mem.weights = mem_gib * UTIL_GIB;
    row->mem.capacity = f->hw.capacity_bytes;
    row->fits = terms_fits(row->mem.total, row->mem.capacity, 10);
    row->family = family;
    row->step = step_s;
    /* the row's times as rank keeps them: cost_times of its work */
    cost_times(&row->work, &f->hw, &f->m, row->plan.precision, &row->t);
}

/* The family's best plan as rank_finish_families leaves it. */
static void figures_best(const struct util_figures *f,
                         const struct ranking_row *row,
                         struct cost_result *c)
{
    ranking_row_result(row, c);
    cost_times(&row->work, &f->hw, &f->m, row->plan.precision, &c->t);
}

/*
 * Four plans of two families. A (ZeRO-1+PP+EP) fits: 10.0 s with 60 GiB
 * (and 100 GB over IB: 2.055 s, hidden), 10.15 s with 40 GiB (within
 * 2%), 10.5 s with 30 GiB. B (the baseline,
 * ZeRO-3) does not: 10 s of compute, 1000 GB over IB in 1000 calls and
 * 3000 GB over NVLink: IB 1000/50 + 1000 x 55 us = 20.055 s, NVLink
 * 3000/160 = 18.75 s, so 20.055 s, IB-bound.
 */
int util_figures_setup(void **state)
{
    static struct util_figures f;
    struct util_parts *r = &f.r;
    struct diag d;
    size_t i;
    memset(&f, 0, sizeof f);
    util_parts_init(&f.r);
    diag_init(&d);
    if (model_load("tests/data/tiny-moe.ini", &f.m, NULL, 0, &d) ||
        hardware_load("tests/data/hw-h800.ini", &f.hw, NULL, 0, &d) ||
        cost_ctx_init(&f.other, &f.m, &f.hw, COMM_FLAT, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    snprintf(f.sf.spec.r_baseline, sizeof f.sf.spec.r_baseline, "ZeRO-3");
    r->in.m = &f.m;
    r->in.hw = &f.hw;
    r->in.sweep = &f.sf;
    r->in.comm = COMM_TOPO;
    r->in.generated = 1700000000;
    r->rank.headroom_pct = 10;
    r->rank.tie_pct = 2;
    r->rank.plans_sheet = 2;
    r->rank.nsens_ib = 3;
    r->rank.sens_ib_gbps[0] = 12.5;
    r->rank.sens_ib_gbps[1] = 50;
    r->rank.sens_ib_gbps[2] = 400;
    r->rank.nsens_nv = 2;
    r->rank.sens_nv_gbps[0] = 160;
    r->rank.sens_nv_gbps[1] = 900;
    r->rank.rows = calloc(4, sizeof *r->rank.rows);
    if (!r->rank.rows)
        return -1;
    r->rank.nrows = 4;
    figures_row(&f, "gpus=64 pp=2 ep=8 zero=1 mbs=1 gbs=64", 0, 10.0, 60, 100,
                0, &r->rank.rows[0]);
    figures_row(&f, "gpus=64 pp=2 ep=8 zero=1 mbs=2 gbs=64", 0, 10.15, 40, 0, 0,
                &r->rank.rows[1]);
    figures_row(&f, "gpus=64 pp=4 ep=8 zero=1 mbs=1 gbs=64", 0, 10.5, 30, 0, 0,
                &r->rank.rows[2]);
    figures_row(&f, "gpus=64 zero=3 mbs=1 gbs=64", 1, 10.0, 500, 1000, 3000,
                &r->rank.rows[3]);
    r->rank.rows[3].step = 20.055;
    r->rank.valid = r->rank.enumerated = 4;
    r->rank.fitting = 3;
    if (ranking_families(&r->rank, 2, &d) != STATUS_OK)
        return -1;
    snprintf(r->rank.family[0].name, sizeof r->rank.family[0].name,
             "ZeRO-1+PP+EP");
    snprintf(r->rank.family[1].name, sizeof r->rank.family[1].name, "ZeRO-3");
    for (i = 0; i < 2; i++) {
        struct ranking_family *fam = &r->rank.family[i];
        figures_best(&f, &r->rank.rows[i ? 3 : 0], &fam->best);
        fam->best_other = fam->best;
        fam->has_best = true;
        fam->plans = i ? 1 : 3;
        fam->fitting = i ? 0 : 3;
        fam->has_lightest = true;
        fam->lightest = r->rank.rows[i ? 3 : 2].plan;
        fam->lightest_mem = r->rank.rows[i ? 3 : 2].mem;
        r->rank.families_by_step[i] = (long)i;
    }
    /* the flat model calls the baseline NVLink-bound */
    r->rank.family[1].best_other.t.bound = COST_NVLINK;
    diag_init(&d);
    rank_finish_crossovers(&r->rank, &f.hw, &f.sf);
    if (rank_templates(&r->rank, &d) != STATUS_OK ||
        rank_finish_other_best(&r->rank, &f.sf, &f.other, &d) != STATUS_OK ||
        rank_finish_replays(&r->rank, &f.m, &f.hw, &d) != STATUS_OK ||
        figures_views(&r->in, &r->rank, &r->v, &d) != STATUS_OK) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    *state = &f;
    return 0;
}

int util_figures_teardown(void **state)
{
    struct util_figures *f = *state;
    util_parts_free(&f->r);
    cost_ctx_release(&f->other);
    hardware_release(&f->hw);
    model_release(&f->m);
    return 0;
}

/* The narrowed sweep of util_snap_report (as test_plot_out's). */
static const char *const snap_sets[] = {"space.tp=1",
                                        "space.pp=1 16",
                                        "space.ep=1 64",
                                        "space.zero=1 3",
                                        "space.schedule=1f1b dualpipe",
                                        "space.precision=fp8",
                                        "space.recompute=selective",
                                        "space.mbs=1"};

#define SNAP "tests/data/snap/"

void util_snap_report(struct util_snap *s, bool expected)
{
    struct datafile_set sets[sizeof snap_sets / sizeof snap_sets[0]];
    struct diag d;
    size_t i, n = sizeof snap_sets / sizeof snap_sets[0];
    memset(s, 0, sizeof *s);
    diag_init(&d);
    for (i = 0; i < n; i++)
        util_set(&sets[i], snap_sets[i]);
    if (model_load(SNAP "models/deepseek-v3.ini", &s->m, NULL, 0, &d) ||
        hardware_load(SNAP "hardware/h800.ini", &s->hw, NULL, 0, &d) ||
        sweep_load(SNAP "sweeps/default.ini", &s->sf, sets, n, &d))
        fail_msg("%s", d.msg);
    if (expected &&
        (calibration_load(SNAP "calibration/h800.ini", &s->cal, NULL, 0, &d) ||
         stack_load(SNAP "stacks/deepseek-hai.ini", &s->stack, NULL, 0, &d)))
        fail_msg("%s", d.msg);
    if (expected) {
        s->hw.cal = &s->cal;
        s->hw.stack = &s->stack;
    }
    if (cost_ctx_init(&s->ctx, &s->m, &s->hw, COMM_TOPO, &d) ||
        cost_ctx_init(&s->other, &s->m, &s->hw, COMM_FLAT, &d))
        fail_msg("%s", d.msg);
    if (expected)
        s->ctx.stack = s->other.stack = &s->stack;
    util_report(&s->rep, &s->ctx, &s->other, &s->sf, 0, "tests/data/snap",
                1700000000);
}

void util_snap_free(struct util_snap *s)
{
    bool expected = s->hw.cal != NULL;
    util_parts_free(&s->rep);
    cost_ctx_release(&s->ctx);
    cost_ctx_release(&s->other);
    if (expected) {
        stack_release(&s->stack);
        calibration_release(&s->cal);
    }
    sweep_release(&s->sf);
    hardware_release(&s->hw);
    model_release(&s->m);
}

const char *util_plot_var(const struct plot_template_vars *v, const char *name)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        if (strcmp(v->name[i], name) == 0)
            return v->val[i].p ? v->val[i].p : "";
    fail_msg("no placeholder %s", name);
    return "";
}

const char *util_dat_body(const char *dat)
{
    const char *p;
    assert_non_null(dat);
    p = strchr(dat, '\n');
    assert_non_null(p);
    p = strchr(p + 1, '\n');
    assert_non_null(p);
    return p + 1;
}

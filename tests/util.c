/*
 * util: helpers the cmocka tests share (see test_util.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#include "figures.h"
#include "rank.h"
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
        plan_check(out, m, hw, false, &d) != PLAN_OK)
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
        cost_ctx_prepare(ctx, p->pp, p->vpp, p->schedule, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

void util_report(struct report *r,
                 struct cost_ctx *ctx,
                 struct cost_ctx *other,
                 const struct sweep_file *sf,
                 size_t top,
                 const char *data_dir,
                 int64_t generated)
{
    static struct validation_run runs[VALIDATION_RUNS_MAX];
    struct validation_inputs in[VALIDATION_RUNS_MAX];
    struct rank_options opt;
    struct diag d;
    size_t n = 0, i, loaded = 0;
    enum status st;
    diag_init(&d);
    memset(r, 0, sizeof *r);
    r->m = ctx->m;
    r->hw = ctx->hw;
    r->sweep = sf;
    r->comm = ctx->comm;
    r->generated = generated;
    r->expected = ctx->hw->cal && ctx->stack;
    snprintf(r->command_line, sizeof r->command_line, "roofplan report");
    snprintf(r->version, sizeof r->version, "test");
    memset(&opt, 0, sizeof opt);
    opt.top = top;
    st = rank_run(r, ctx, sf, &opt, &d);
    if (st == STATUS_OK)
        st = figures_families(r, ctx, other, &d);
    if (st == STATUS_OK && data_dir)
        st = validation_load_dir(data_dir, runs, VALIDATION_RUNS_MAX, &n, &d);
    for (i = 0; st == STATUS_OK && i < n; i++, loaded++)
        st = validation_load_inputs(&runs[i], NULL, data_dir, ctx->m, ctx->hw,
                                    &in[i], &d);
    if (st == STATUS_OK)
        st = figures_validations(r, runs, in, n, ctx, other, &d);
    if (st == STATUS_OK)
        st = figures_views(r, other, &d);
    for (i = 0; i < loaded; i++)
        validation_inputs_release(&in[i]);
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

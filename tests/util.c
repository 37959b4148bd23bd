/*
 * util: helpers the cmocka tests share (see test_util.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "test_util.h"

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

/*
 * fuzz_plan: the input as PLAN arguments (one per line; each line holds
 * key=value tokens separated by spaces or commas), through plan_parse()
 * and plan_check() against the default model, cluster and sweep
 * defaults. A plan that parses must format back to text that parses to
 * the same plan; a plan that fails must say why.
 *
 * Stage: plan (plan_parse and plan_check: src/plan/plan.c)
 */
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "diag.h"
#include "fuzz_util.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "sweep.h"

#define ARGS_MAX 64

/* The default model, cluster and sweep, loaded once: libFuzzer's entry
 * points take no context, so they live in this static, written only by
 * LLVMFuzzerInitialize() and read-only afterwards. */
static struct {
    struct model m;
    struct hardware hw;
    struct sweep_file sweep;
    struct plan defaults;
    struct cost_ctx cost; /* partitions are cached as plans need them */
} ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char p1[1024], p2[1024], p3[1024];
    struct diag d;
    (void)argc;
    (void)argv;
    diag_init(&d);
    if (model_load(fuzz_data_path("models/deepseek-v3.ini", p1, sizeof p1),
                   &ctx.m, NULL, 0, &d) != STATUS_OK ||
        hardware_load(fuzz_data_path("hardware/h800.ini", p2, sizeof p2),
                      &ctx.hw, NULL, 0, &d) != STATUS_OK ||
        sweep_load(fuzz_data_path("sweeps/default.ini", p3, sizeof p3),
                   &ctx.sweep, NULL, 0, &d) != STATUS_OK)
        abort(); /* the checked-in data must load */
    sweep_defaults(&ctx.sweep, &ctx.m, &ctx.hw, &ctx.defaults);
    if (cost_ctx_init(&ctx.cost, &ctx.m, &ctx.hw, COMM_TOPO, &d) != STATUS_OK)
        abort();
    return 0;
}

static bool same_plan(const struct plan *a, const struct plan *b)
{
    return a->gpus == b->gpus && a->tp == b->tp && a->pp == b->pp &&
           a->ep == b->ep && a->cp == b->cp && a->zero == b->zero &&
           a->schedule == b->schedule && a->vpp == b->vpp &&
           a->precision == b->precision && a->recompute == b->recompute &&
           a->mbs == b->mbs && a->gbs == b->gbs;
}

/* plan_format() text must parse back to the same plan. */
static void check_round_trip(const struct plan *p)
{
    char text[512], family[64];
    char *args[1];
    struct plan again;
    struct diag d;
    long dp = 0;
    diag_init(&d);
    plan_format(p, text, sizeof text);
    plan_family(p, family, sizeof family);
    args[0] = text;
    if (plan_parse(args, 1, &ctx.defaults, &again, &dp, &d) != STATUS_OK ||
        !same_plan(p, &again) || family[0] == '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    char *args[ARGS_MAX];
    size_t nargs = 0;
    char *c;
    struct plan p;
    struct cost_result res;
    struct diag d;
    long given_dp = 0;
    enum plan_reason r;

    if (!text)
        return 0;
    /* One argument per line, as the shell would pass them. */
    for (c = text; nargs < ARGS_MAX;) {
        char *nl = strchr(c, '\n');
        args[nargs++] = c;
        if (!nl)
            break;
        *nl = '\0';
        c = nl + 1;
    }
    diag_init(&d);
    if (plan_parse(args, nargs, &ctx.defaults, &p, &given_dp, &d) !=
        STATUS_OK) {
        if (d.status != STATUS_USAGE || d.msg[0] == '\0')
            abort();
        fuzz_need_text(d.msg, true); /* the token is quoted, never raw */
        free(text);
        return 0;
    }
    check_round_trip(&p);
    r = plan_check(&p, &ctx.m, &ctx.hw, PLAN_CHECK_RUNNABLE, &d);
    if (r != PLAN_OK) {
        if (d.msg[0] == '\0' || plan_reason_str(r)[0] == '\0')
            abort();
    } else {
        if (p.dp < 1 || p.edp < 1 || p.microbatches < 1 ||
            p.tp * p.pp * p.cp * p.dp != p.gpus ||
            p.dp * p.mbs * p.microbatches != p.gbs)
            abort(); /* derived values disagree with the plan */
        if (cost_ctx_prepare_plan(&ctx.cost, &p, &d) != STATUS_OK)
            abort(); /* plan_check() promised pp*vpp <= units, or a
                        layer split that divides */
        cost_evaluate(&ctx.cost, &p, COST_FLOOR | COST_EXPECTED, NULL, &res);
        if (!(res.t.step > 0) || res.rank < 0 || res.rank >= p.pp)
            abort();
        /* The sweep's stricter check may only reject more. */
        r = plan_check(&p, &ctx.m, &ctx.hw, PLAN_CHECK_DISTINCT, NULL);
        (void)r;
    }
    free(text);
    return 0;
}

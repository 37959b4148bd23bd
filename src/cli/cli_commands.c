/*
 * cli_commands: the commands other than `report` and `check`
 * (cli_check.c): eval (one plan's breakdown), compare (the recommended
 * plan per model and cluster), schema (the data files' keys) and import
 * (nccl-tests output). Each reads its inputs through cli.c, calls the library
 * and prints; none computes anything itself.
 */
#include "cli.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives.h"
#include "cost.h"
#include "eval_out.h"
#include "figures.h"
#include "fit.h"
#include "hf_config.h"
#include "nccl_import.h"
#include "plan.h"
#include "rank.h"
#include "scenario.h"
#include "trace_classify.h"
#include "validation.h"
#include "xlsx_compare.h"
#include "validate.h"

/* compare's one file, in its output directory. */
#define COMPARE_BOOK "compare.xlsx"

/* What eval's range reads: data/validation's runs and their inputs, and
 * their expected steps (fit_transfer's table); on the heap. */
struct range_work {
    struct validation_runs runs;
    struct validation_inputs *in; /* [runs.n]: the first nin loaded */
    struct fit_result table;
    size_t nin;
};

/*
 * The published runs' band for the calibration `in` reads (validation_band
 * over the data directory's validation runs, each on its own inputs and
 * stack, as the report's Validation sheet predicts them, with its own
 * calibration's group). A bad run file is an input error, as for `report`.
 */
static enum status expected_band(const struct cli_config *cfg,
                                 const struct cli_inputs *in,
                                 struct validation_band *band,
                                 struct diag *d)
{
    struct range_work *w = calloc(1, sizeof *w);
    struct validation_point *pts = NULL;
    char data_dir[1024], buf[1300];
    const char *recipe;
    size_t i, k, n = 0;
    memset(band, 0, sizeof *band);
    if (!w)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    cli_data_directory(data_dir, sizeof data_dir);
    recipe = cli_training_path(cfg, buf, sizeof buf); /* -t's, or buf */
    if (validation_load_dir(data_dir, &w->runs, d) == STATUS_OK &&
        !(w->in = calloc(w->runs.n ? w->runs.n : 1, sizeof *w->in)))
        diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; d->status == STATUS_OK && i < w->runs.n; i++) {
        if (validation_load_inputs(&w->runs.run[i], recipe, data_dir, &in->m,
                                   &in->hw, &w->in[i], d) != STATUS_OK)
            break;
        w->nin = i + 1;
    }
    /* no run is the fitted one: every run with a measurement is a row */
    w->table.factor = STACK_COMPUTE_OVERHEAD;
    w->table.value = 1;
    if (d->status == STATUS_OK)
        fit_transfer(&w->table, w->runs.run, w->in, w->nin, cfg->comm, d);
    if (d->status == STATUS_OK &&
        !(pts = calloc(w->table.nrows + 1, sizeof *pts)))
        diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; d->status == STATUS_OK && i < w->table.nrows; i++) {
        const struct fit_row *row = &w->table.rows[i];
        if (!(row->default_s > 0))
            continue;
        for (k = 0; k < w->nin; k++)
            if (strcmp(w->runs.run[k].path, row->path) == 0)
                break;
        if (k < w->nin)
            validation_band_key(w->in[k].hw->cal, w->in[k].stack, pts[n].group,
                                sizeof pts[n].group);
        pts[n++].ratio = row->measured_s / row->default_s;
    }
    if (d->status == STATUS_OK) {
        char key[VALIDATION_GROUP_MAX];
        validation_band_key(in->hw.cal, in->have_stack ? &in->stack : NULL, key,
                            sizeof key);
        validation_band_fit(pts, n, key, band);
    }
    free(pts);
    for (i = 0; i < w->nin; i++)
        validation_inputs_release(&w->in[i]);
    free(w->in);
    validation_runs_release(&w->runs);
    fit_result_release(&w->table);
    free(w);
    return d->status;
}

/* The plan's expected step under the other communication model (0 when
 * it cannot be evaluated there). */
static double other_model_step(const struct cli_config *cfg,
                               const struct cli_inputs *in,
                               const struct plan *p)
{
    struct cost_ctx other;
    struct cost_result c;
    struct diag d;
    double x = 0;
    diag_init(&d);
    if (cost_ctx_init(&other, &in->m, &in->hw,
                      cfg->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO,
                      &d) == STATUS_OK &&
        cost_ctx_prepare_plan(&other, p, &d) == STATUS_OK) {
        other.stack = in->have_stack ? &in->stack : NULL;
        cost_evaluate(&other, p, COST_FLOOR | COST_EXPECTED, NULL, &c);
        x = c.work.x.known ? c.t.expected : 0;
    }
    cost_ctx_release(&other);
    return x;
}

/* The training recipe a config.json model runs with, on stderr (sf: the
 * sweep, where it may name the batch; NULL: none). */
static void say_recipe(const struct cli_config *cfg,
                       const struct model *m,
                       const struct sweep_file *sf)
{
    char recipe[1600];
    if (cli_recipe_words(cfg, m, sf, recipe, sizeof recipe) != CLI_RECIPE_OWN)
        fprintf(stderr, "%s: %s: training recipe %s\n", CLI_PROG, m->meta.path,
                recipe);
}

/* eval's PLAN arguments on in's model and cluster into *p: parsed over
 * the sweep's [defaults] and checked (a dp given must be the one
 * derived); false with the message printed. */
static bool eval_plan(const struct cli_inputs *in,
                      char **args,
                      size_t nargs,
                      struct plan *p)
{
    struct plan defaults;
    struct diag d;
    long given_dp = 0;
    diag_init(&d);
    sweep_defaults(&in->sweep, &in->m, &in->hw, &defaults);
    if (plan_parse(args, nargs, &defaults, p, &given_dp, &d) != STATUS_OK) {
        cli_print_diag(&d);
        fprintf(stderr, "%s: try '%s --help'\n", CLI_PROG, CLI_PROG);
        return false;
    }
    if (plan_check(p, &in->m, &in->hw, PLAN_CHECK_RUNNABLE, &d) != PLAN_OK) {
        fprintf(stderr, "%s: PLAN: %s\n", CLI_PROG, d.msg);
        return false;
    }
    if (given_dp && given_dp != p->dp) {
        fprintf(stderr,
                "%s: PLAN token 'dp=%ld': gpus/(tp*pp*cp) = %ld/%ld = %ld\n",
                CLI_PROG, given_dp, p->gpus, p->tp * p->pp * p->cp, p->dp);
        return false;
    }
    return true;
}

/* The evaluated plan on stdout, as text or JSON; 0, else the exit code. */
static int eval_print(const struct cli_config *cfg, const struct eval_view *v)
{
    char recipe[CLI_RECIPE_TEXT];
    if (cfg->json) {
        eval_out_json(stdout, v);
    } else {
        /* the recipe first, as report prints it: the PLAN and the sweep's
         * [defaults], not its [space] (say_recipe) */
        cli_recipe_words(cfg, v->m, NULL, recipe, sizeof recipe);
        cli_print_recipe(recipe);
        eval_out_text(stdout, v);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror(CLI_PROG ": stdout");
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

int cli_cmd_eval(struct cli_config *cfg, char **args, size_t nargs)
{
    struct cli_inputs in;
    struct diag d;
    struct plan p;
    struct cost_ctx ctx;
    struct cost_result r;
    struct comm_collective coll[COMM_LIST_MAX];
    struct eval_view view;
    size_t ncoll = 0, i;
    int rc = 0;
    struct memory *rank_mem = NULL;
    struct replay replay;

    diag_init(&d);
    for (i = 0; i < nargs && strspn(args[i], " \t,") == strlen(args[i]); i++)
        ;
    if (i == nargs) /* no argument, or only empty ones */
        return cli_usage_error("eval: %s",
                               "missing PLAN (e.g. tp=1 pp=16 ep=64)");
    if (cli_load_inputs(cfg, &in, &d) != STATUS_OK) {
        cli_print_diag(&d);
        cli_release_inputs(&in);
        return cli_exit_code(d.status, CLI_IO_INPUT);
    }
    say_recipe(cfg, &in.m, NULL); /* the PLAN and [defaults], not [space] */
    if (!eval_plan(&in, args, nargs, &p)) {
        cli_release_inputs(&in);
        return CLI_EXIT_INPUT;
    }
    if (cost_ctx_init(&ctx, &in.m, &in.hw, cfg->comm, &d) != STATUS_OK ||
        cost_ctx_prepare_plan(&ctx, &p, &d) != STATUS_OK) {
        cli_print_diag(&d);
        cost_ctx_release(&ctx);
        cli_release_inputs(&in);
        return cli_exit_code(d.status, CLI_IO_INPUT);
    }
    ctx.stack = in.have_stack ? &in.stack : NULL;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    ncoll = cost_collectives(&ctx, &r, coll, COMM_LIST_MAX);
    plan_family(&p, r.family, sizeof r.family);
    /* everything eval shows, evaluated here: the writer lays it out */
    comm_collective_times(coll, ncoll, &in.hw);
    rank_mem = calloc((size_t)p.pp, sizeof *rank_mem);
    if (!rank_mem) {
        fprintf(stderr, "%s: out of memory\n", CLI_PROG);
        cost_ctx_release(&ctx);
        cli_release_inputs(&in);
        return CLI_EXIT_RUNTIME;
    }
    for (i = 0; i < (size_t)p.pp; i++)
        cost_rank_memory(&ctx, &r, (long)i, &rank_mem[i]);
    replay_fill(&r, &in.m, &in.hw, &replay);
    memset(&view, 0, sizeof view);
    view.m = ctx.m;
    view.hw = ctx.hw;
    view.comm = ctx.comm;
    view.r = &r;
    view.coll = coll;
    view.ncoll = ncoll;
    view.rank_mem = rank_mem;
    view.nrank_mem = (size_t)p.pp;
    view.part = cost_result_partition(&ctx, &r);
    view.replay = &replay;
    view.stack = ctx.stack;
    if (r.work.x.known &&
        expected_band(cfg, &in, &view.band, &d) != STATUS_OK) {
        cli_print_diag(&d);
        free(rank_mem);
        cost_ctx_release(&ctx);
        cli_release_inputs(&in);
        return cli_exit_code(d.status, CLI_IO_INPUT);
    }
    scenario_eval(&r.work, &r.t, &in.hw, &in.m, p.precision,
                  view.band.all_runs ? &view.band : NULL, &view.sc);
    if (r.work.x.known)
        scenario_add(&view.sc, SCENARIO_OTHER_COMM,
                     other_model_step(cfg, &in, &p));
    rc = eval_print(cfg, &view);
    free(rank_mem);
    cost_ctx_release(&ctx);
    cli_release_inputs(&in);
    return rc;
}

/* compare: the recommended plan of each (model, hardware) pair into
 * <out>/compare.xlsx, committed as a report is. */
/*
 * compare with several clusters: --calibration is for the clusters whose
 * GPU it names; false, with the message, when it names none of them (or
 * does not load). A hardware file that does not load counts as a match:
 * its own load reports it.
 */
static bool calibration_for_a_cluster(struct cli_config *cfg,
                                      const char *const *hws,
                                      size_t nh,
                                      struct diag *d)
{
    struct calibration cal;
    bool any = false;
    size_t j;
    char where[600];
    long fi;
    if (calibration_load(cfg->calibration_path, &cal, cfg->sets, cfg->nsets,
                         d) != STATUS_OK)
        return false;
    for (j = 0; j < nh && !any; j++) {
        struct hardware hw;
        struct diag hd;
        diag_init(&hd);
        if (hardware_load(hws[j], &hw, cfg->sets, cfg->nsets, &hd) !=
            STATUS_OK) {
            any = true;
            continue;
        }
        any = calibration_for_gpu(&cal, &hw);
        hardware_release(&hw);
    }
    if (!any) {
        fi = datafile_field_index(calibration_schema(), "calibration",
                                  "hardware_gpu");
        datafile_meta_where(&cal.meta, (size_t)fi, where, sizeof where);
        diag_set(d, STATUS_RANGE,
                 "%s: \"%s\" is the GPU of none "
                 "of the %zu clusters compared (-g): --calibration times the "
                 "clusters whose gpu.name it names",
                 where, cal.spec.hardware_gpu, nh);
    }
    calibration_release(&cal);
    return any;
}

/*
 * Sweeps sf on ctx's model and cluster (threads as for rank_run) and
 * fills row with the pair's recommended plan: rank_run with the report's
 * default (its ties are among its Plans sheet), the rows' ranges as the
 * report has them (the other communication model's step of the fitting
 * rows with `other`, the scenarios with the runs' band `band`: the
 * recommended plan is the one whose range holds), figures_recommend, then
 * compare_row_recommend. A pair where no combination is valid is not an
 * error: row->any is false and row->why says why. Returns STATUS_NOMEM
 * or STATUS_IO (the sweep's failures), else STATUS_OK.
 */
static enum status compare_pair(struct compare_row *row,
                                struct cost_ctx *ctx,
                                struct cost_ctx *other,
                                const struct sweep_file *sf,
                                const struct validation_band *band,
                                size_t threads,
                                struct diag *d)
{
    struct ranking *rank = calloc(1, sizeof *rank); /* large: the heap */
    struct report_inputs in;
    struct views v;
    struct rank_options opt;
    struct diag why;
    enum status st;

    compare_row_init(row, ctx->m, ctx->hw);
    if (!rank)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    memset(&in, 0, sizeof in);
    in.m = ctx->m;
    in.hw = ctx->hw;
    in.sweep = sf;
    in.comm = ctx->comm;
    memset(&v, 0, sizeof v);
    memset(&opt, 0, sizeof opt);
    opt.top = 0; /* as the report: its ties are among its Plans sheet */
    opt.threads = threads;
    diag_init(&why);
    st = rank_run(rank, ctx, sf, &opt, &why);
    if (st == STATUS_OK)
        st = rank_finish_other_best(rank, sf, other, &why);
    if (st == STATUS_OK)
        st = rank_finish_scenarios(rank, ctx, band, &why);
    if (st == STATUS_OK)
        st = figures_recommend(&in, rank, &v, &why);
    if (st == STATUS_OK) {
        compare_row_recommend(row, &v);
    } else if (st == STATUS_RANGE) { /* nothing valid: say why, go on */
        diag_snprintf(row->why, sizeof row->why, "%s", why.msg);
        st = STATUS_OK;
    } else {
        diag_set(d, st, "%s", why.msg);
    }
    views_free(&v);
    ranking_free(rank);
    free(rank);
    return st;
}

static int compare_pairs(struct cli_config *cfg,
                         struct compare_row *rows,
                         size_t *n,
                         struct diag *d)
{
    const char *const *models = cfg->models, *const *hws = cfg->hws;
    size_t nm = cfg->nmodels, nh = cfg->nhws, i, j;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cfg->threads ? cfg->threads : cpus > 0 ? (size_t)cpus : 1;
    const char *none[1] = {NULL}; /* the default file */
    if (nm == 0) {
        models = none;
        nm = 1;
    }
    if (nh == 0) {
        hws = none;
        nh = 1;
    }
    if (nm * nh > COMPARE_PAIRS_MAX) {
        diag_set(d, STATUS_USAGE, "compare: %zu pairs; at most %d", nm * nh,
                 COMPARE_PAIRS_MAX);
        return CLI_EXIT_INPUT;
    }
    cfg->calibration_matching_only = nh > 1;
    cfg->calibration_applied = 0;
    if (nh > 1 && cfg->calibration_path &&
        !calibration_for_a_cluster(cfg, hws, nh, d))
        return cli_exit_code(d->status, CLI_IO_INPUT);
    *n = 0;
    for (i = 0; i < nm; i++)
        for (j = 0; j < nh; j++) {
            struct cli_inputs in;
            struct cost_ctx ctx, other;
            struct validation_band band;
            enum status st;
            size_t k;
            cfg->model_path = models[i];
            cfg->hw_path = hws[j];
            for (k = 0; k < cfg->nsets; k++) /* each load marks its own */
                cfg->sets[k].used = false;
            if (cli_load_inputs(cfg, &in, d) != STATUS_OK) {
                cli_release_inputs(&in);
                return cli_exit_code(d->status, CLI_IO_INPUT);
            }
            /* each model at its own batch (the model file's, or its
             * recipe's) unless the sweep names one, as in a report */
            say_recipe(cfg, &in.m, &in.sweep);
            memset(&other, 0, sizeof other);
            st = cost_ctx_init(&ctx, &in.m, &in.hw, cfg->comm, d);
            ctx.stack = in.have_stack ? &in.stack : NULL;
            if (st == STATUS_OK)
                st = cost_ctx_init(
                    &other, &in.m, &in.hw,
                    cfg->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO, d);
            other.stack = ctx.stack;
            if (st == STATUS_OK)
                st = expected_band(cfg, &in, &band, d);
            if (st == STATUS_OK)
                st = compare_pair(&rows[*n], &ctx, &other, &in.sweep, &band,
                                  threads, d);
            cli_recipe_words(cfg, &in.m, &in.sweep, rows[*n].recipe,
                             sizeof rows[*n].recipe);
            cost_ctx_release(&other);
            cost_ctx_release(&ctx);
            cli_release_inputs(&in);
            if (st != STATUS_OK)
                return cli_exit_code(st, CLI_IO_OUTPUT);
            if (!cfg->quiet)
                fprintf(stderr, "%s: %s on %ld x %s: %s\n", CLI_PROG,
                        rows[*n].model, rows[*n].gpus, rows[*n].gpu,
                        rows[*n].any ? rows[*n].recommended.family
                                     : "no valid plan");
            (*n)++;
        }
    return 0;
}

/* "v (lo-hi)" with `decimals` decimals into buf, or v alone without a
 * range. */
static void range_text(double v,
                       bool ranged,
                       const struct compare_row *r,
                       int decimals,
                       char *buf,
                       size_t size)
{
    if (ranged)
        snprintf(buf, size, "%.*f (%.*f-%.*f)", decimals, v, decimals,
                 v * r->range_lo, decimals, v * r->range_hi);
    else
        snprintf(buf, size, "%.*f", decimals, v);
}

/* The pairs on stdout, model by model (each with its recipe), each
 * model's clusters ranked by the expected cost where the pair has a
 * calibration and a stack, with the range; the others apart, at the
 * speed of light only. */
static void print_pairs(const struct compare_row *rows, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const struct compare_row *r = &rows[i];
        const struct cost_times *t = &r->recommended.t;
        bool x = r->calibrated;
        char xs[16] = "-", rank[16] = "-", days[48], cost[48];
        if (i == 0 || r->group != rows[i - 1].group) {
            /* the model, its recipe as report prints it, the header */
            printf("%s%s (%s)\n", i ? "\n" : "", r->model, r->model_path);
            cli_print_recipe(r->recipe);
            printf("%-5s %-30s %6s %-16s %10s %9s %19s %23s  %s\n", "rank",
                   "GPU", "GPUs", "recommended", "expected s", "SOL s",
                   "days (range)", "cost $M (range)", "fits");
        }
        if (!r->any) {
            printf("%-5s %-30.*s %6ld %s\n", rank, diag_utf8_prec(r->gpu, 30),
                   r->gpu, r->gpus, r->why);
            continue;
        }
        snprintf(rank, sizeof rank, "%s%ld", x ? "" : "SOL ", r->rank);
        if (x)
            snprintf(xs, sizeof xs, "%.3f", t->expected);
        range_text(x ? t->x_days : t->days, x && r->has_range, r, 1, days,
                   sizeof days);
        range_text((x ? t->x_cost : t->cost_usd) / 1e6, x && r->has_range, r, 2,
                   cost, sizeof cost);
        printf("%-5s %-30.*s %6ld %-16s %10s %9.3f %19s %23s  %s%s\n", rank,
               diag_utf8_prec(r->gpu, 30), r->gpu, r->gpus,
               r->recommended.family, xs, t->step, days, cost,
               r->recommended.fits ? "yes" : "no",
               x ? "" : "  (no calibration: speed of light, a floor)");
    }
}

int cli_cmd_compare(struct cli_config *cfg, char **args, size_t nargs)
{
    static const char *const files[] = {COMPARE_BOOK};
    struct compare_row *rows;
    struct out_dir out;
    struct cli_guard g;
    struct diag d;
    int64_t when;
    char path[OUT_DIR_MAX + 64];
    size_t n = 0;
    int rc;

    if (nargs > 0)
        return cli_usage_error("compare: unexpected argument '%s'", args[0]);
    if (cfg->out_dir[0] == '\0')
        return cli_usage_error("--out %s: expected a directory name", "\"\"");
    diag_init(&d);
    if (!cli_generation_time(&when, &d)) {
        cli_print_diag(&d);
        return CLI_EXIT_INPUT;
    }
    rows = calloc(COMPARE_PAIRS_MAX, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "%s: out of memory\n", CLI_PROG);
        return CLI_EXIT_RUNTIME;
    }
    memset(&out, 0, sizeof out);
    out.lock_fd = -1;
    cli_guard_start(&g);
    rc = compare_pairs(cfg, rows, &n, &d);
    if (rc == 0)
        compare_rank(rows, n);
    if (rc == 0) {
        cli_guard_set(&g, &out, NULL); /* before its staging directory */
        if (cli_out_open(cfg, &out, &d) != STATUS_OK) {
            rc = cli_exit_code(d.status, CLI_IO_OUTPUT);
        } else {
            out_dir_path(&out, COMPARE_BOOK, path, sizeof path);
            if (xlsx_compare_write(rows, n, path, when, cfg->command_line,
                                   &d) != STATUS_OK)
                rc = CLI_EXIT_RUNTIME;
            pthread_mutex_lock(&g.lock);
            if (rc == 0 && out_dir_commit(&out, files, 1, &d) != STATUS_OK)
                rc = CLI_EXIT_RUNTIME;
            pthread_mutex_unlock(&g.lock);
        }
    }
    if (rc == 0) {
        print_pairs(rows, n);
        if (!cfg->quiet)
            fprintf(stderr, "%s: wrote %s/" COMPARE_BOOK "\n", CLI_PROG,
                    cfg->out_dir);
    } else if (d.status != STATUS_OK) {
        cli_unstage(&d, &out);
        cli_print_diag(&d);
    }
    pthread_mutex_lock(&g.lock);
    g.out = NULL;
    out_dir_close(&out);
    pthread_mutex_unlock(&g.lock);
    cli_guard_stop(&g);
    free(rows);
    if (rc == 0)
        rc = cli_flush_stdout();
    return rc;
}

/* data/README.md's tables: every kind of data file's keys. */
int cli_cmd_schema(void)
{
    const struct {
        const char *title;
        const struct datafile_schema *schema;
    } kinds[] = {
        {"Model files (data/models/NAME.ini)", model_schema()},
        {"Hardware files (data/hardware/NAME.ini)", hardware_schema()},
        {"Sweep files (data/sweeps/NAME.ini)", sweep_schema()},
        {"Calibration files (data/calibration/NAME.ini)", calibration_schema()},
        {"Collectives files (data/collectives/NAME.ini)", collectives_schema()},
        {"Stack files (data/stacks/NAME.ini)", stack_schema()},
        {"Validation runs (data/validation/NAME.ini)", validation_schema()},
        {"The default inputs (data/defaults.ini)", cli_defaults_schema()},
    };
    size_t i;
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        printf("%s### %s\n\n", i ? "\n" : "", kinds[i].title);
        datafile_schema_markdown(kinds[i].schema, stdout);
    }
    printf("\n### Kernel classes (data/kernels.ini, for `import trace`)\n\n");
    trace_classify_markdown(stdout);
    return cli_flush_stdout();
}

/*
 * `import nccl [--intra|--inter] [--collective NAME] FILE...`: nccl-tests
 * output to a calibration file's [network_*] sections on stdout.
 */
int cli_cmd_import(struct cli_config *cfg, char **args, size_t nargs)
{
    struct nccl_import *imp;
    struct diag d;
    size_t i, files = 0;
    int rc = 0;
    if (nargs > 0 && strcmp(args[0], "trace") == 0)
        return cli_cmd_import_trace(cfg, args + 1, nargs - 1);
    if (nargs == 0 || strcmp(args[0], "nccl") != 0)
        return cli_usage_error("import: %s", "expected 'import nccl FILE...' "
                                             "or 'import trace FILE...'");
    imp = calloc(1, sizeof *imp);
    if (!imp) {
        fprintf(stderr, "%s: out of memory\n", CLI_PROG);
        return CLI_EXIT_RUNTIME;
    }
    diag_init(&d);
    for (i = 1; i < nargs && rc == 0; i++) {
        if (nccl_import_read(imp, args[i], cfg->import_link, cfg->import_kind,
                             &d) != STATUS_OK) {
            cli_print_diag(&d);
            rc = cli_exit_code(d.status, CLI_IO_INPUT);
        } else {
            files++;
        }
    }
    if (rc == 0 && files == 0)
        rc = cli_usage_error("import nccl: %s", "missing FILE");
    if (rc == 0 && nccl_import_write(imp, stdout, "stdout", &d) != STATUS_OK) {
        cli_print_diag(&d);
        rc = cli_exit_code(d.status, CLI_IO_INPUT);
    }
    free(imp);
    return rc ? rc : cli_flush_stdout();
}

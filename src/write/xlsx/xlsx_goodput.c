/*
 * xlsx_goodput: failures, checkpoints and energy on the Assumptions sheet
 * (see xlsx_goodput.h). Each row is a name, its formula over the inputs
 * and the earlier rows, goodput.c's value of it, a unit and a meaning:
 * the formula and the C side are goodput.h's model written twice, held
 * together by tests/test_xlsx_goodput.c and the workbook's recalculation
 * in gnumeric and LibreOffice (tests/integration/70_workbook.sh).
 */
#include "xlsx_goodput.h"

#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "goodput.h"
#include "plans_table.h"
#include "xlsx_assumptions.h"

/* The block's columns: the Assumptions sheet's name, value, unit and
 * meaning. */
enum { G_NAME, G_VALUE, G_UNIT, G_MEANING };

struct gp_row {
    const char *name;
    char formula[400]; /* "" for a value */
    double v;
    const char *unit;
    enum xlsx_fmt fmt;
    const char *meaning;
};

#define ROWS_MAX 24

static void add(struct gp_row *rows,
                size_t *n,
                const char *name,
                const char *formula,
                double v,
                const char *unit,
                enum xlsx_fmt fmt,
                const char *meaning)
{
    struct gp_row *w;
    if (*n >= ROWS_MAX)
        return;
    w = &rows[(*n)++];
    w->name = name;
    snprintf(w->formula, sizeof w->formula, "%s", formula);
    w->v = v;
    w->unit = unit;
    w->fmt = fmt;
    w->meaning = meaning;
}

/* The checkpoint, its write and restart, the failures and the interval,
 * the share (goodput_of's steps, in its order). */
static void
reliability(const struct goodput_figures *f, struct gp_row *rows, size_t *n)
{
    const struct goodput *g = &f->g;
    add(rows, n, "GOODPUT_GPUS", "", g->gpus, "", XLSX_FMT_CNT,
        "the recommended plan's GPUs");
    add(rows, n, "CHECKPOINT_GB", "", g->checkpoint_gb, "GB", XLSX_FMT_CNT,
        "one checkpoint: every parameter's weight, master weight and two "
        "Adam moments (the model's weight_bytes, master_bytes, "
        "moment_bytes), once");
    add(rows, n, "CHECKPOINT_WRITE_S",
        "IF(STORAGE_GBPS>0,CHECKPOINT_GB/STORAGE_GBPS,0)", g->write_s, "s",
        XLSX_FMT_SEC, "its write at STORAGE_GBPS (the training waits)");
    add(rows, n, "RESTART_S", "RESTART_MIN*60+CHECKPOINT_WRITE_S", g->restart_s,
        "s", XLSX_FMT_SEC,
        "a restart: RESTART_MIN, then the checkpoint read back at the "
        "same bandwidth");
    add(rows, n, "JOB_FAILURES_PER_H",
        "IF(STORAGE_GBPS>0,FAILURES_PER_MGPU_HOUR*GOODPUT_GPUS/1E+06,0)",
        g->failures_per_h, "/h", XLSX_FMT_NUM,
        "the job's failures per hour: each GPU's rate times its GPUs "
        "(Kokolis et al. 2024, arXiv 2410.21680: MTTF falls as 1/GPUs)");
    add(rows, n, "CHECKPOINT_INTERVAL_MIN",
        "IF(JOB_FAILURES_PER_H>0,SQRT(2*CHECKPOINT_WRITE_S/3600*(RESTART_S/"
        "3600+1/JOB_FAILURES_PER_H))*60,0)",
        g->interval_s / 60, "min", XLSX_FMT_NUM,
        "compute between checkpoints that loses least time: sqrt(2 x write "
        "x (restart + MTBF)), Daly 2006 (FGCS 22(3)), first order; Young "
        "1974 (CACM 17(9)) without the restart");
    add(rows, n, "GOODPUT",
        "IF(JOB_FAILURES_PER_H>0,(1-JOB_FAILURES_PER_H*(RESTART_S/3600+("
        "CHECKPOINT_INTERVAL_MIN/60+CHECKPOINT_WRITE_S/3600)/2))/(1+"
        "CHECKPOINT_WRITE_S/60/CHECKPOINT_INTERVAL_MIN),1)",
        g->share, "", XLSX_FMT_PCT,
        "effective-training share: compute over wall-clock time, each "
        "interval paying its checkpoint and each failure its restart and "
        "half an interval of lost work (Llama 3 reports > 90% on 16K H100)");
}

/* From RECOMMENDED_DAYS to WALL_DAYS, what each loss costs
 * (goodput_losses_of): the wall-clock equation term by term, the lost
 * work what remains, so the four add up to WALL_DAYS. */
static void
losses(const struct goodput_figures *f, struct gp_row *rows, size_t *n)
{
    struct goodput_losses l;
    goodput_losses_of(&f->g, f->days, &l);
    add(rows, n, "DAYS_CHECKPOINT_WRITES",
        "IF(AND(WALL_DAYS>0,CHECKPOINT_INTERVAL_MIN>0),RECOMMENDED_DAYS*"
        "CHECKPOINT_WRITE_S/60/CHECKPOINT_INTERVAL_MIN,0)",
        l.checkpoints, "days", XLSX_FMT_DAYS,
        "days lost to checkpoint writes: one CHECKPOINT_WRITE_S each "
        "CHECKPOINT_INTERVAL_MIN of compute");
    add(rows, n, "DAYS_RESTARTS", "WALL_DAYS*JOB_FAILURES_PER_H*RESTART_S/3600",
        l.restarts, "days", XLSX_FMT_DAYS,
        "days lost to restarts: one RESTART_S (the checkpoint's read "
        "included) per failure over the wall-clock days");
    add(rows, n, "DAYS_LOST_WORK",
        "IF(WALL_DAYS>0,WALL_DAYS-RECOMMENDED_DAYS-DAYS_CHECKPOINT_WRITES-"
        "DAYS_RESTARTS,0)",
        l.lost_work, "days", XLSX_FMT_DAYS,
        "work redone after failures: half an interval and its checkpoint "
        "per failure on average; RECOMMENDED_DAYS + the three days above = "
        "WALL_DAYS");
}

/* The wall-clock days and cost, with the range where the Summary has
 * one, then energy and emissions. */
static void budget(const struct views *r,
                   const struct goodput_figures *f,
                   struct gp_row *rows,
                   size_t *n)
{
    char power[160];
    add(rows, n, "WALL_DAYS", "IF(GOODPUT>0,RECOMMENDED_DAYS/GOODPUT,0)",
        f->wall_days, "days", XLSX_FMT_DAYS,
        "the recommended plan's days for the token budget over GOODPUT: "
        "wall-clock (0: it fails faster than it recovers)");
    if (f->range) {
        add(rows, n, "WALL_DAYS_LOW",
            "IF(GOODPUT>0,RECOMMENDED_DAYS_LOW/GOODPUT,0)", f->wall_lo, "days",
            XLSX_FMT_DAYS, "the low end of its range, wall-clock");
        add(rows, n, "WALL_DAYS_HIGH",
            "IF(GOODPUT>0,RECOMMENDED_DAYS_HIGH/GOODPUT,0)", f->wall_hi, "days",
            XLSX_FMT_DAYS, "the high end, wall-clock");
    }
    add(rows, n, "WALL_COST", "WALL_DAYS*24*GOODPUT_GPUS*GPU_HOUR_USD",
        f->wall_cost, "USD", XLSX_FMT_USD_M,
        "the wall-clock days' GPU-hours at GPU_HOUR_USD");
    if (f->range) {
        add(rows, n, "WALL_COST_LOW",
            "WALL_DAYS_LOW*24*GOODPUT_GPUS*GPU_HOUR_USD", f->wall_cost_lo,
            "USD", XLSX_FMT_USD_M, "the low end");
        add(rows, n, "WALL_COST_HIGH",
            "WALL_DAYS_HIGH*24*GOODPUT_GPUS*GPU_HOUR_USD", f->wall_cost_hi,
            "USD", XLSX_FMT_USD_M, "the high end");
    }
    if (f->g.failures)
        losses(f, rows, n);
    snprintf(power, sizeof power, "IF(NODE_W>0,NODE_W/%ld,BOARD_W)",
             r->in->hw->spec.gpus_per_node);
    add(rows, n, "GPU_POWER_W", power, f->g.gpu_w, "W", XLSX_FMT_CNT,
        "power per GPU: its share of a host's NODE_W (host, NICs, fans "
        "included), else BOARD_W");
    add(rows, n, "ENERGY_MWH",
        "WALL_DAYS*24*GOODPUT_GPUS*GPU_POWER_W*PUE/1E+06", f->mwh, "MWh",
        XLSX_FMT_NUM,
        "energy over the wall-clock days, the data centre's PUE included");
    add(rows, n, "ENERGY_STEP_KWH",
        "RECOMMENDED_STEP_S/3600*GOODPUT_GPUS*GPU_POWER_W*PUE/1000",
        f->step_kwh, "kWh", XLSX_FMT_NUM, "energy of one step");
    add(rows, n, "TCO2E", "ENERGY_MWH*GRID_KG_PER_KWH", f->tco2e, "t CO2e",
        XLSX_FMT_CNT,
        "location-based emissions: the energy at GRID_KG_PER_KWH, as "
        "Llama 3's model card reports its training's");
}

size_t xlsx_goodput_write(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    struct goodput_figures f;
    struct gp_row rows[ROWS_MAX];
    size_t n = 0, i;
    char col[8];

    if (!r->headline.any)
        return row;
    goodput_headline(r, &f);
    reliability(&f, rows, &n);
    budget(r, &f, rows, &n);
    plans_table_col_name(G_VALUE, col, sizeof col);
    xlsx_book_str(b, ws, row++, G_NAME,
                  "Failures, checkpoints and energy of the recommended plan "
                  "(formulas over the inputs above and its days on the "
                  "Summary)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    for (i = 0; i < n; i++, row++) {
        char fx[sizeof rows[i].formula + 2], ref[96];
        xlsx_book_str(b, ws, row, G_NAME, rows[i].name,
                      xlsx_book_fmt(b, XLSX_FMT_TEXT));
        if (rows[i].formula[0]) {
            snprintf(fx, sizeof fx, "=%s", rows[i].formula);
            xlsx_book_formula_num(b, ws, row, G_VALUE, fx, rows[i].v,
                                  xlsx_book_fmt(b, rows[i].fmt));
        } else {
            xlsx_book_num(b, ws, row, G_VALUE, rows[i].v,
                          xlsx_book_fmt(b, rows[i].fmt));
        }
        xlsx_book_str(b, ws, row, G_UNIT, rows[i].unit,
                      xlsx_book_fmt(b, XLSX_FMT_TEXT));
        xlsx_book_str(b, ws, row, G_MEANING, rows[i].meaning,
                      xlsx_book_fmt(b, XLSX_FMT_TEXT));
        snprintf(ref, sizeof ref, "=%s!$%s$%zu", XLSX_ASSUMPTIONS_SHEET, col,
                 row + 1);
        xlsx_book_define(b, rows[i].name, ref);
    }
    return row + 1;
}

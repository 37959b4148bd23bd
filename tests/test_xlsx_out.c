/*
 * test_xlsx_out: the workbook and plans.csv from a small report (a sweep
 * of the default files narrowed by --set-style overrides): writing
 * succeeds, a failed write leaves an existing file and no temporary
 * files, equal reports give equal bytes, formulas of the Memory,
 * Communication and Roofline sheets read back from the file, CSV
 * quoting, the Plans columns' formula templates. (The csv_out and
 * plans_table cases live here until those modules get their own files.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_out.h"
#include "plans_table.h"
#include "rank.h"
#include "views.h"
#include "xlsx_out.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct sweep_file sf;
    struct cost_ctx ctx, other;
    struct util_parts rep;
    char dir[64];
};

/* The narrowed sweep: pure ZeRO and DeepSeek-like PP x EP plans. */
static const char *const sets[] = {"space.tp=1",
                                   "space.pp=1 16",
                                   "space.ep=1 64",
                                   "space.zero=1 3",
                                   "space.schedule=1f1b dualpipe",
                                   "space.precision=bf16 fp8",
                                   "space.recompute=selective",
                                   "space.mbs=1"};

static int setup(void **state)
{
    static struct fixture f;
    struct datafile_set s[sizeof sets / sizeof sets[0]];
    struct diag d;
    size_t i, n = sizeof sets / sizeof sets[0];

    memset(&f, 0, sizeof f);
    diag_init(&d);
    for (i = 0; i < n; i++)
        if (datafile_parse_set(sets[i], &s[i], &d) != STATUS_OK)
            return -1;
    if (model_load("data/models/deepseek-v3.ini", &f.m, NULL, 0, &d) ||
        hardware_load("data/hardware/h800.ini", &f.hw, NULL, 0, &d) ||
        sweep_load("data/sweeps/default.ini", &f.sf, s, n, &d) ||
        cost_ctx_init(&f.ctx, &f.m, &f.hw, COMM_TOPO, &d) ||
        cost_ctx_init(&f.other, &f.m, &f.hw, COMM_FLAT, &d)) {
        fprintf(stderr, "setup: %s\n", d.msg);
        return -1;
    }
    util_report(&f.rep, &f.ctx, &f.other, &f.sf, 0, "data", 1700000000);
    snprintf(f.rep.in.command_line, sizeof f.rep.in.command_line,
             "roofplan report --set space.tp=1 ...");
    snprintf(f.dir, sizeof f.dir, "/tmp/test_xlsx_out.XXXXXX");
    if (!mkdtemp(f.dir))
        return -1;
    *state = &f;
    return 0;
}

/* Removes every file of dir, then dir. */
static void remove_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char path[512];
    if (!dp)
        return;
    while ((e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(dp);
    rmdir(dir);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    remove_dir(f->dir);
    util_parts_free(&f->rep);
    cost_ctx_release(&f->ctx);
    cost_ctx_release(&f->other);
    sweep_release(&f->sf);
    hardware_release(&f->hw);
    model_release(&f->m);
    return 0;
}

/* Entries of dir other than . and .. */
static size_t count_files(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    if (!dp)
        return 0;
    while ((e = readdir(dp)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(dp);
    return n;
}

/* Whole file into a malloc'd buffer; *size its length. */
static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *size = (size_t)n;
    }
    return buf;
}

static void test_xlsx_out_write_smoke(void **state)
{
    struct fixture *f = *state;
    char path[128];
    struct diag d;
    size_t n = 0;
    char *buf;
    diag_init(&d);
    assert_true(f->rep.rank.nrows > 10);
    snprintf(path, sizeof path, "%s/report.xlsx", f->dir);
    assert_int_equal(xlsx_out_write(&f->rep.v, path, NULL, &d), STATUS_OK);
    buf = slurp(path, &n);
    assert_non_null(buf);
    assert_true(n > 10000);
    assert_memory_equal(buf, "PK", 2); /* a zip file */
    free(buf);
    assert_int_equal(count_files(f->dir), 1);
    unlink(path);
}

static void test_xlsx_out_write_is_reproducible(void **state)
{
    struct fixture *f = *state;
    char a[128], b[128];
    struct diag d;
    size_t na = 0, nb = 0;
    char *ba, *bb;
    diag_init(&d);
    snprintf(a, sizeof a, "%s/a.xlsx", f->dir);
    snprintf(b, sizeof b, "%s/b.xlsx", f->dir);
    assert_int_equal(xlsx_out_write(&f->rep.v, a, NULL, &d), STATUS_OK);
    assert_int_equal(xlsx_out_write(&f->rep.v, b, NULL, &d), STATUS_OK);
    ba = slurp(a, &na);
    bb = slurp(b, &nb);
    assert_non_null(ba);
    assert_non_null(bb);
    assert_int_equal(na, nb);
    assert_memory_equal(ba, bb, na);
    free(ba);
    free(bb);
    unlink(a);
    unlink(b);
}

/* A failure inside libxlsxwriter (an "image" that is not one) leaves
 * the previous workbook byte for byte and no temporary file. */
static void test_xlsx_out_write_failure_keeps_old_file(void **state)
{
    struct fixture *f = *state;
    struct xlsx_images img = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    char path[128], png[128], want[256];
    struct diag d;
    size_t n = 0;
    char *buf;
    diag_init(&d);
    snprintf(path, sizeof path, "%s/report.xlsx", f->dir);
    snprintf(png, sizeof png, "%s/roofline-ib.png", f->dir);
    util_write_text(NULL, path, "previous workbook");
    util_write_text(NULL, png, "not a PNG file");
    img.roofline_ib = png;
    assert_int_equal(xlsx_out_write(&f->rep.v, path, &img, &d), STATUS_XLSX);
    snprintf(want, sizeof want,
             "%s: worksheet_insert_image (roofline): ", path);
    assert_memory_equal(d.msg, want, strlen(want));
    buf = slurp(path, &n);
    assert_non_null(buf);
    assert_string_equal(buf, "previous workbook");
    free(buf);
    assert_int_equal(count_files(f->dir), 2);
    unlink(path);
    unlink(png);
}

/* xlsx_out_write_waiting's wait: counts its calls; fails when asked. */
struct waiter {
    int calls;
    bool fail;
};

static enum status waiter(void *user, struct xlsx_images *img, struct diag *d)
{
    struct waiter *w = user;
    w->calls++;
    assert_null(img->roofline_ib); /* zeroed before the call */
    if (w->fail)
        return diag_set(d, STATUS_PLOT, "charts: gnuplot failed");
    return STATUS_OK;
}

/* Writing while the charts are drawn: the same bytes as the workbook
 * written at once; a wait that fails drops the workbook, leaves the
 * previous file and no temporary one, and returns the wait's status. */
static void test_xlsx_out_write_waiting(void **state)
{
    struct fixture *f = *state;
    struct waiter ok = {0, false}, bad = {0, true};
    char a[128], b[128];
    char *x, *y;
    size_t nx = 0, ny = 0;
    struct diag d;
    diag_init(&d);
    snprintf(a, sizeof a, "%s/a.xlsx", f->dir);
    snprintf(b, sizeof b, "%s/b.xlsx", f->dir);
    assert_int_equal(xlsx_out_write(&f->rep.v, a, NULL, &d), STATUS_OK);
    assert_int_equal(xlsx_out_write_waiting(&f->rep.v, b, waiter, &ok, &d),
                     STATUS_OK);
    assert_int_equal(ok.calls, 1);
    x = slurp(a, &nx);
    y = slurp(b, &ny);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    free(x);
    free(y);
    unlink(a);
    util_write_text(NULL, b, "previous workbook");
    assert_int_equal(xlsx_out_write_waiting(&f->rep.v, b, waiter, &bad, &d),
                     STATUS_PLOT);
    assert_int_equal(bad.calls, 1);
    assert_string_equal(d.msg, "charts: gnuplot failed");
    y = slurp(b, &ny);
    assert_non_null(y);
    assert_string_equal(y, "previous workbook");
    free(y);
    assert_int_equal(count_files(f->dir), 1);
    unlink(b);
}

/* A chart that cannot be read is named before anything is written. */
static void test_xlsx_out_write_missing_image(void **state)
{
    struct fixture *f = *state;
    struct xlsx_images img = {NULL, NULL, "/nonexistent/step.png", NULL, NULL,
                              NULL, NULL};
    char path[128], want[256];
    struct diag d;
    diag_init(&d);
    snprintf(path, sizeof path, "%s/report.xlsx", f->dir);
    assert_int_equal(xlsx_out_write(&f->rep.v, path, &img, &d), STATUS_IO);
    snprintf(want, sizeof want,
             "%s: cannot embed /nonexistent/step.png: No such file or "
             "directory",
             path);
    assert_string_equal(d.msg, want);
    assert_int_equal(count_files(f->dir), 0);
}

static void test_xlsx_out_write_unwritable_dir(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    diag_init(&d);
    assert_int_equal(
        xlsx_out_write(&f->rep.v, "/nonexistent-dir/report.xlsx", NULL, &d),
        STATUS_IO);
    assert_string_equal(d.msg, "/nonexistent-dir/report.xlsx: cannot "
                               "write: No such file or directory");
}

/* Without root, a read-only directory refuses the temporary file and
 * the existing workbook stays. */
static void test_xlsx_out_write_read_only_dir(void **state)
{
    struct fixture *f = *state;
    char sub[128], path[160];
    struct diag d;
    size_t n = 0;
    char *buf;
    if (geteuid() == 0)
        skip(); /* root writes anyway */
    diag_init(&d);
    snprintf(sub, sizeof sub, "%s/ro", f->dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(path, sizeof path, "%s/report.xlsx", sub);
    util_write_text(NULL, path, "old");
    assert_int_equal(chmod(sub, 0555), 0);
    assert_int_equal(xlsx_out_write(&f->rep.v, path, NULL, &d), STATUS_IO);
    chmod(sub, 0755);
    buf = slurp(path, &n);
    assert_non_null(buf);
    assert_string_equal(buf, "old");
    free(buf);
    assert_int_equal(count_files(sub), 1);
    unlink(path);
    rmdir(sub);
}

/* The number (value or cached result) of cell ref in a sheet's XML;
 * NAN when the cell is not there. */
static double cell(const char *xml, const char *ref)
{
    char tag[32];
    const char *c, *v;
    snprintf(tag, sizeof tag, "<c r=\"%s\"", ref);
    c = strstr(xml, tag);
    if (!c)
        return NAN;
    v = strstr(c, "<v>");
    if (!v || v > strstr(c, "</c>"))
        return NAN;
    return strtod(v + 3, NULL);
}

/* The formula of cell ref ("" when it has none), into buf. */
static void formula(const char *xml, const char *ref, char *buf, size_t size)
{
    char tag[32];
    const char *c, *f, *end;
    snprintf(tag, sizeof tag, "<c r=\"%s\"", ref);
    buf[0] = '\0';
    c = strstr(xml, tag);
    if (!c)
        return;
    f = strstr(c, "<f>");
    end = strstr(c, "</c>");
    if (!f || !end || f > end)
        return;
    end = strstr(f, "</f>");
    snprintf(buf, size, "%.*s", (int)(end - f - 3), f + 3);
}

/* Memory's Total sums weights, gradients, optimizer state, activations
 * and other: the logits column is "of which" (memory.c counts the logits
 * inside the activations), so a row whose logits are not 0 shows that
 * they are not added twice. Rows 5.. (1-based) are the published plan,
 * then each family's best. */
static void test_xlsx_out_memory_total(void **state)
{
    struct fixture *f = *state;
    char path[128], ref[32], fm[128], want[128];
    struct diag d;
    size_t row, with_logits = 0;
    char *xml;
    diag_init(&d);
    snprintf(path, sizeof path, "%s/report.xlsx", f->dir);
    assert_int_equal(xlsx_out_write(&f->rep.v, path, NULL, &d), STATUS_OK);
    xml = util_zip_part(path, "xl/worksheets/sheet6.xml" /* Memory */);
    for (row = 5; row < 5 + f->rep.rank.nfamilies; row++) {
        double part[7], total;
        int k;
        for (k = 0; k < 7; k++) { /* B..H */
            snprintf(ref, sizeof ref, "%c%zu", 'B' + k, row);
            part[k] = cell(xml, ref);
            assert_true(part[k] == part[k]); /* not NAN: the cell is there */
        }
        snprintf(ref, sizeof ref, "H%zu", row);
        formula(xml, ref, fm, sizeof fm);
        snprintf(want, sizeof want, "B%zu+C%zu+D%zu+E%zu+G%zu", row, row, row,
                 row, row);
        assert_string_equal(fm, want);
        total = part[0] + part[1] + part[2] + part[3] + part[5];
        assert_near(part[6], total, 1e-12);
        if (part[4] > 0) { /* logits: inside activations, not added */
            with_logits++;
            assert_true(part[3] >= part[4]);
            assert_true(fabs(part[6] - (total + part[4])) > 1e-9);
        }
    }
    assert_true(with_logits > 0); /* the pp=1 families hold the head */
    free(xml);
    unlink(path);
}

/* A collective's IB and NVLink times are the registry's link-time
 * templates over the named inputs, and the roofs' ridge stays between its
 * edges. */
static void test_xlsx_out_formulas(void **state)
{
    struct fixture *f = *state;
    char path[128], fm[200];
    struct diag d;
    char *comm, *roof, *book;
    diag_init(&d);
    snprintf(path, sizeof path, "%s/report.xlsx", f->dir);
    assert_int_equal(xlsx_out_write(&f->rep.v, path, NULL, &d), STATUS_OK);
    comm = util_zip_part(path, "xl/worksheets/sheet7.xml");
    roof = util_zip_part(path, "xl/worksheets/sheet8.xml");
    book = util_zip_part(path, "xl/workbook.xml");
    /* row 4: the first collective (J IB GB, K NVLink GB, M its share of
     * the link's rate, N and O its IB latency in in-node and network
     * steps, P its NVLink latency) */
    formula(comm, "Q4", fm, sizeof fm);
    assert_string_equal(fm, "J4/(M4*IB_GBPS)+(N4*COLL_STEP_US+O4*"
                            "COLL_NET_STEP_US)*1E-06");
    formula(comm, "R4", fm, sizeof fm);
    assert_string_equal(fm, "K4/(M4*NVLINK_GBPS)+P4*COLL_STEP_US*1E-06");
    /* rows 101-103: FP8 achievable over IB, 104-106: BF16; left edge,
     * ridge, right edge */
    formula(roof, "C102", fm, sizeof fm);
    assert_string_equal(fm, "MIN(MAX(RIDGE_IB_FP8,C101),C103)");
    formula(roof, "C105", fm, sizeof fm);
    assert_string_equal(fm, "MIN(MAX(RIDGE_IB_BF16,C104),C106)");
    formula(roof, "D105", fm, sizeof fm);
    assert_string_equal(fm, "MIN(BF16_TFLOPS_USED,C105*IB_GBPS/1000)");
    assert_true(cell(roof, "C104") <= cell(roof, "C105"));
    assert_true(cell(roof, "C105") <= cell(roof, "C106"));
    assert_non_null(strstr(book, "<definedName name=\"IB_GBPS\">"
                                 "Assumptions!$B$"));
    free(comm);
    free(roof);
    free(book);
    unlink(path);
}

/* The Summary's names: FASTEST_STEP_S and the rest are defined over Summary
 * cells, the Plans columns over their ranges; the cached values are the C
 * figures: the fastest fitting plan's step, the recommended plan's. */
static void test_xlsx_out_summary_names(void **state)
{
    struct fixture *f = *state;
    static const char *const names[] = {
        "FASTEST_PLAN",    "FASTEST_STEP_S",   "FASTEST_ROW",
        "RECOMMENDED_ROW", "RECOMMENDED_PLAN", "RECOMMENDED_STEP_S",
        "PLANS_PLAN",      "PLANS_RANK_S",     "PLANS_FITS"};
    const struct util_parts *r = &f->rep;
    char path[128], tag[96], ref[16];
    struct diag d;
    char *book, *summary, *at;
    size_t i;
    diag_init(&d);
    assert_true(r->v.sheet_best >= 0);
    snprintf(path, sizeof path, "%s/report.xlsx", f->dir);
    assert_int_equal(xlsx_out_write(&f->rep.v, path, NULL, &d), STATUS_OK);
    book = util_zip_part(path, "xl/workbook.xml");
    summary = util_zip_part(path, "xl/worksheets/sheet1.xml");
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(tag, sizeof tag, "<definedName name=\"%s\">", names[i]);
        if (!strstr(book, tag))
            fail_msg("name %s is not defined", names[i]);
    }
    snprintf(tag, sizeof tag, "<definedName name=\"PLANS_RANK_S\">Plans!$");
    assert_non_null(strstr(book, tag));
    /* FASTEST_STEP_S: Summary!$F$n; its cached value is the C best step */
    at = strstr(book, "<definedName name=\"FASTEST_STEP_S\">Summary!$F$");
    assert_non_null(at);
    snprintf(
        ref, sizeof ref, "F%ld",
        strtol(at + strlen("<definedName name=\"FASTEST_STEP_S\">Summary!$F$"),
               NULL, 10));
    assert_true(cell(summary, ref) ==
                r->rank.rows[r->v.sheet[r->v.sheet_best]].step);
    free(book);
    free(summary);
    unlink(path);
}

/* One field through csv_out_field, as text. */
static void field(const char *in, char *out, size_t size)
{
    FILE *f;
    memset(out, 0, size);
    f = fmemopen(out, size, "w");
    assert_non_null(f);
    assert_true(csv_out_field(f, in));
    fclose(f);
}

static void test_csv_out_field_quotes_when_needed(void **state)
{
    char buf[128];
    (void)state;
    field("ZeRO-1+PP+EP", buf, sizeof buf);
    assert_string_equal(buf, "ZeRO-1+PP+EP");
    field("a,b", buf, sizeof buf);
    assert_string_equal(buf, "\"a,b\"");
    field("say \"hi\"", buf, sizeof buf);
    assert_string_equal(buf, "\"say \"\"hi\"\"\"");
    field("two\nlines", buf, sizeof buf);
    assert_string_equal(buf, "\"two\nlines\"");
    field("=1+1", buf, sizeof buf);
    assert_string_equal(buf, "=1+1");
    field("", buf, sizeof buf);
    assert_string_equal(buf, "");
}

static void test_csv_out_write_rows(void **state)
{
    struct fixture *f = *state;
    char path[128];
    struct diag d;
    size_t n = 0, lines = 0, i;
    char *buf, *p;
    diag_init(&d);
    snprintf(path, sizeof path, "%s/plans.csv", f->dir);
    assert_int_equal(csv_out_write(&f->rep.v, path, CSV_OUT_KEPT, &d),
                     STATUS_OK);
    buf = slurp(path, &n);
    assert_non_null(buf);
    for (i = 0; i < n; i++)
        if (buf[i] == '\n')
            lines++;
    assert_int_equal(lines, f->rep.rank.nrows + 1);
    assert_memory_equal(buf, "Rank,Family,TP,PP,EP,ZeRO,", 26);
    p = strstr(buf, "\r\n1,");
    assert_non_null(p);
    free(buf);
    assert_int_equal(count_files(f->dir), 1);
    unlink(path);
    assert_int_equal(
        csv_out_write(&f->rep.v, "/nonexistent-dir/p.csv", CSV_OUT_KEPT, &d),
        STATUS_IO);
    assert_string_equal(d.msg, "/nonexistent-dir/p.csv: cannot write: No "
                               "such file or directory");
}

static void test_plans_table_col_name(void **state)
{
    char b[8];
    (void)state;
    plans_table_col_name(0, b, sizeof b);
    assert_string_equal(b, "A");
    plans_table_col_name(25, b, sizeof b);
    assert_string_equal(b, "Z");
    plans_table_col_name(26, b, sizeof b);
    assert_string_equal(b, "AA");
    plans_table_col_name(701, b, sizeof b);
    assert_string_equal(b, "ZZ");
    plans_table_col_name(702, b, sizeof b);
    assert_string_equal(b, "AAA");
}

static void test_plans_table_expand(void **state)
{
    static struct plans_formula fm;
    char buf[600], want[64], col[8];
    size_t n, i;
    const struct plans_column *cols = plans_table_columns(&n);
    struct ranking rk; /* the templates, as rank carries them */
    struct diag d;
    (void)state;
    memset(&rk, 0, sizeof rk);
    diag_init(&d);
    assert_int_equal(rank_templates(&rk, &d), STATUS_OK);
    plans_table_col_name((size_t)plans_table_find("ib_gb"), col, sizeof col);
    snprintf(want, sizeof want, "=%s7/IB_GBPS", col);
    assert_true(plans_table_formula_compile("{ib_gb}/IB_GBPS", &fm));
    plans_table_formula_expand(&fm, 7, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_false(plans_table_formula_compile("{nosuch}+1", &fm));
    assert_false(plans_table_formula_compile("{step", &fm));
    for (i = 0; i < n; i++) { /* every template names real columns and
                               * fits at the last row */
        if (!plans_table_formula(&cols[i], &rk))
            continue;
        assert_true(plans_table_formula_compile(
            plans_table_formula(&cols[i], &rk), &fm));
        plans_table_formula_expand(&fm, 1048576, buf, sizeof buf);
        assert_true(strlen(buf) > 1 && strlen(buf) + 1 < sizeof buf);
    }
    ranking_free(&rk);
}

/* The cached value of each formula column is what cost_times() gave. */
static void test_plans_table_value_matches_cost(void **state)
{
    struct fixture *f = *state;
    struct cost_times t;
    struct plans_value v;
    cost_times(&f->rep.rank.rows[0].work, f->rep.in.hw, f->rep.in.m,
               f->rep.rank.rows[0].plan.precision, &t);
    /* rank kept the row with the same times */
    assert_memory_equal(&t, &f->rep.rank.rows[0].t, sizeof t);
    plans_table_value(
        &plans_table_columns(&(size_t){0})[plans_table_find("step")], &f->rep.v,
        0, &t, &v);
    assert_int_equal(v.kind, PLANS_NUMBER);
    assert_true(v.num == f->rep.rank.rows[0].step);
    plans_table_value(
        &plans_table_columns(&(size_t){0})[plans_table_find("bound")],
        &f->rep.v, 0, &t, &v);
    assert_string_equal(v.str, plans_table_bound_label(t.bound));
    plans_table_value(
        &plans_table_columns(&(size_t){0})[plans_table_find("rank")], &f->rep.v,
        4, &t, &v);
    assert_true(v.num == 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_out_write_smoke),
        cmocka_unit_test(test_xlsx_out_write_is_reproducible),
        cmocka_unit_test(test_xlsx_out_write_failure_keeps_old_file),
        cmocka_unit_test(test_xlsx_out_write_missing_image),
        cmocka_unit_test(test_xlsx_out_write_waiting),
        cmocka_unit_test(test_xlsx_out_write_unwritable_dir),
        cmocka_unit_test(test_xlsx_out_write_read_only_dir),
        cmocka_unit_test(test_xlsx_out_memory_total),
        cmocka_unit_test(test_xlsx_out_formulas),
        cmocka_unit_test(test_xlsx_out_summary_names),
        cmocka_unit_test(test_csv_out_field_quotes_when_needed),
        cmocka_unit_test(test_csv_out_write_rows),
        cmocka_unit_test(test_plans_table_col_name),
        cmocka_unit_test(test_plans_table_expand),
        cmocka_unit_test(test_plans_table_value_matches_cost),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * fuzz_trace: the input as a profiler trace, through trace_import_read()
 * and, when it reads and covers a layer, trace_import_summarize() on
 * DeepSeek-V3 and the H800 under the profiled plan, trace_import_table()
 * and trace_import_write(), with the import's bounds lowered (FUZZ_LIMITS)
 * so that inputs of a few KB reach them. It must never crash, leak or hit
 * undefined behaviour; a read that fails must say why in printable text, one
 * that succeeds must say nothing; what is written must be data-file lines
 * (at most 198 bytes, printable text), the calibration one that `check`
 * accepts beside the H800, or nothing with a printable reason.
 *
 * Stage: evaluate (src/evaluate/trace_import.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "trace_import.h"
#include "fuzz_util.h"

/* libFuzzer calls the entry points without a context argument: what every
 * input is read against lives in these statics, loaded once by
 * LLVMFuzzerInitialize() and only read afterwards. */
static struct trace_rules *rules;
static struct model model;
static struct hardware hw;
static struct calibration base;

/* kernels of one file, distinct names, their bytes: a few KB of JSON
 * passes each (the defaults take hundreds of MB) */
#define FUZZ_LIMITS   \
    {                 \
        256, 64, 4096 \
    }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char path[1024];
    struct diag d;
    (void)argc;
    (void)argv;
    diag_init(&d);
    rules =
        trace_rules_load(fuzz_data_path("kernels.ini", path, sizeof path), &d);
    if (!rules ||
        model_load(fuzz_data_path("models/deepseek-v3.ini", path, sizeof path),
                   &model, NULL, 0, &d) != STATUS_OK ||
        hardware_load(fuzz_data_path("hardware/h800.ini", path, sizeof path),
                      &hw, NULL, 0, &d) != STATUS_OK ||
        calibration_load(
            fuzz_data_path("calibration/h800.ini", path, sizeof path), &base,
            NULL, 0, &d) != STATUS_OK) {
        fprintf(stderr, "fuzz_trace: %s\n", d.msg);
        abort();
    }
    return 0;
}

/* Every line of text fits a data-file line and is printable. */
static void need_lines(char *text)
{
    char *line = text;
    while (line && *line) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (strlen(line) > 198)
            abort();
        fuzz_need_text(line, false);
        line = end ? end + 1 : NULL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct trace_import *imp = trace_import_new(rules);
    struct trace_import_summary *s = calloc(1, sizeof *s);
    const struct trace_import_limits limits = FUZZ_LIMITS;
    struct plan p;
    struct diag d;
    char *text = NULL, *cal_text = NULL;
    size_t len = 0, cal_len = 0;
    struct calibration cal;
    enum status st;
    FILE *out;
    if (!imp || !s)
        abort();
    diag_init(&d);
    trace_import_set_limits(imp, &limits);
    if (trace_import_read_mem(imp, data, size, "fuzz.json", &d) != STATUS_OK) {
        if (!d.msg[0])
            abort(); /* a failure must say why */
        fuzz_need_text(d.msg, true);
        goto done;
    }
    if (d.msg[0])
        abort();
    memset(&p, 0, sizeof p);
    p.tp = p.cp = p.mbs = 1;
    p.ep = 64;
    p.precision = MODEL_FP8;
    if (trace_import_summarize(imp, &model, &hw, &p, &base, s, &d) !=
        STATUS_OK) {
        if (!d.msg[0])
            abort();
        goto done;
    }
    out = open_memstream(&text, &len);
    if (!out)
        abort();
    trace_import_table(s, out);
    if (fclose(out) != 0)
        abort();
    need_lines(text);
    out = open_memstream(&cal_text, &cal_len);
    if (!out)
        abort();
    st = trace_import_write(s, &base, "h800.ini", "fuzz", &hw, out, &d);
    if (fclose(out) != 0)
        abort();
    if (st != STATUS_OK) {
        /* refused (rates no calibration may hold): said, nothing written */
        if ((st != STATUS_RANGE && st != STATUS_PARSE) || !d.msg[0] ||
            cal_len != 0)
            abort();
        fuzz_need_text(d.msg, true);
        goto done;
    }
    /* what is written is a calibration check accepts (before
     * need_lines() cuts the text into lines) */
    diag_init(&d);
    if (calibration_load_text("fuzz.ini", cal_text, cal_len, &cal, &d) !=
        STATUS_OK)
        abort();
    if (calibration_check_hardware(&cal, &hw, &d) != STATUS_OK ||
        calibration_check_floor(&cal, &hw, &d) != STATUS_OK)
        abort();
    calibration_release(&cal);
    need_lines(cal_text);
done:
    free(cal_text);
    free(text);
    free(s);
    trace_import_free(imp);
    return 0;
}

/*
 * fuzz_set: the input as --set arguments (one per line) through
 * datafile_parse_set(), then the default cluster, model and sweep loaded
 * with the overrides that parsed. Nothing may crash, leak or hit
 * undefined behaviour; every failure must say why, in text (no control
 * characters, valid UTF-8: the argument may hold anything); what loads
 * must keep its schema's ranges.
 *
 * Stage: input (--set overrides through the data-file readers)
 */
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "diag.h"
#include "fuzz_util.h"
#include "hardware.h"
#include "model.h"
#include "sweep.h"

#define SETS_MAX 8

/* Absolute paths of the default files, built once: libFuzzer's entry
 * points take no context, so they live in this static, written only by
 * LLVMFuzzerInitialize(). */
static struct {
    char model[1024], hw[1024], sweep[1024];
} paths;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_data_path("models/deepseek-v3.ini", paths.model, sizeof paths.model);
    fuzz_data_path("hardware/h800.ini", paths.hw, sizeof paths.hw);
    fuzz_data_path("sweeps/default.ini", paths.sweep, sizeof paths.sweep);
    return 0;
}

/* A failed load must carry a status and a message, in text. */
static void check_failed(const struct diag *d)
{
    if (d->status == STATUS_OK || d->msg[0] == '\0')
        abort();
    fuzz_need_text(d->msg, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    struct datafile_set *sets = calloc(SETS_MAX, sizeof *sets);
    struct model *m = malloc(sizeof *m);
    struct hardware *hw = malloc(sizeof *hw);
    struct sweep_file *sf = malloc(sizeof *sf);
    size_t nsets = 0;
    char *c;
    struct diag d;

    if (!text || !sets || !m || !hw || !sf)
        goto done;
    for (c = text; nsets < SETS_MAX;) {
        char *nl = strchr(c, '\n');
        if (nl)
            *nl = '\0';
        diag_init(&d);
        if (datafile_parse_set(c, &sets[nsets], &d) == STATUS_OK)
            nsets++;
        else if (d.status != STATUS_USAGE || d.msg[0] == '\0')
            abort();
        else
            fuzz_need_text(d.msg, true);
        if (!nl)
            break;
        c = nl + 1;
    }
    diag_init(&d);
    if (hardware_load(paths.hw, hw, sets, nsets, &d) == STATUS_OK)
        {
        fuzz_need_loaded(hardware_schema(), &hw->spec, &hw->meta);
        hardware_release(hw);
    }
    else
        check_failed(&d);
    diag_init(&d);
    if (model_load(paths.model, m, sets, nsets, &d) == STATUS_OK)
        {
        fuzz_need_loaded(model_schema(), &m->spec, &m->meta);
        model_release(m);
    }
    else
        check_failed(&d);
    diag_init(&d);
    if (sweep_load(paths.sweep, sf, sets, nsets, &d) == STATUS_OK)
        {
        fuzz_need_loaded(sweep_schema(), &sf->spec, &sf->meta);
        sweep_release(sf);
    }
    else
        check_failed(&d);
done:
    free(sf);
    free(hw);
    free(m);
    free(sets);
    free(text);
    return 0;
}

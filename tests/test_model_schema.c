/*
 * test_model_schema: the model file's schema (model_schema.c): every
 * field either required or with a default that parses in its own range,
 * and which fields are the training recipe's (what a config.json does
 * not say).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "model.h"
#include "test_util.h"

/* What a config.json does not say is the recipe's: the 11 [training]
 * keys, the 17 [fp8] keys (scaling and amax among them), model.dropout,
 * model.flash_attention and mtp.count_in_mfu, 31 fields; the architecture's
 * (mtp.depth, model.name) and an index past the schema are not. */
static void test_model_field_is_training(void **state)
{
    const struct datafile_schema *s = model_schema();
    size_t i, n = 0;
    (void)state;
    for (i = 0; i < s->n; i++)
        n += model_field_is_training(i);
    assert_int_equal(n, 31);
    assert_true(model_field_is_training(
        (size_t)datafile_field_index(s, "model", "dropout")));
    assert_true(model_field_is_training(
        (size_t)datafile_field_index(s, "mtp", "count_in_mfu")));
    assert_false(model_field_is_training(
        (size_t)datafile_field_index(s, "mtp", "depth")));
    assert_false(model_field_is_training(
        (size_t)datafile_field_index(s, "model", "name")));
    assert_false(model_field_is_training(s->n));
}

/*
 * Every field's default is a value its own check accepts: a number in
 * [min, max] (INT and DOUBLE), one of its choices (ENUM, and each item
 * of a LIST), true or false (BOOL), text that fits its buffer (STRING).
 * A default outside the range would be a value no file may write but
 * every file gets. A required field has no default; every other has one.
 * Spot checks by hand: training.weight_bytes defaults to 2 in
 * 0.125..8; attention.type is required; training.selective is the list
 * "core_attn".
 */
static void test_model_schema_defaults_parse_in_range(void **state)
{
    const struct datafile_schema *s = model_schema();
    size_t i;
    long k;
    (void)state;
    assert_string_equal(s->kind, "model");
    for (i = 0; i < s->n; i++) {
        const struct datafile_field *f = &s->fields[i];
        char why[256] = "";
        bool ok = true;
        if (f->required) {
            if (f->def)
                fail_msg("%s.%s: required, yet a default", f->section, f->key);
            continue;
        }
        if (!f->def)
            fail_msg("%s.%s: optional without a default", f->section, f->key);
        if (f->type == DATAFILE_BOOL) {
            ok = strcmp(f->def, "true") == 0 || strcmp(f->def, "false") == 0;
        } else if (f->type == DATAFILE_STRING) {
            ok = strlen(f->def) < f->size;
        } else if (f->type == DATAFILE_LIST) {
            struct datafile_list l;
            ok = datafile_parse_list(f, f->def, &l, why, sizeof why);
        } else {
            double v;
            ok = datafile_parse_scalar(f, f->def, &v, why, sizeof why);
            if (ok && f->type != DATAFILE_ENUM)
                ok = v >= f->min && v <= f->max;
        }
        if (!ok)
            fail_msg("%s.%s: default \"%s\" not accepted: %s", f->section,
                     f->key, f->def, why);
    }
    k = datafile_field_index(s, "training", "weight_bytes");
    assert_true(k >= 0);
    assert_string_equal(s->fields[k].def, "2");
    assert_true(s->fields[k].min == 0.125 && s->fields[k].max == 8);
    k = datafile_field_index(s, "attention", "type");
    assert_true(k >= 0 && s->fields[k].required);
    k = datafile_field_index(s, "training", "selective");
    assert_true(k >= 0);
    assert_int_equal(s->fields[k].type, DATAFILE_LIST);
    assert_string_equal(s->fields[k].def, "core_attn");
}

/* Each section.key appears once: datafile_field_index finds the first,
 * so a second would never be read. */
static void test_model_schema_keys_unique(void **state)
{
    const struct datafile_schema *s = model_schema();
    size_t i;
    (void)state;
    assert_true(s->n <= DATAFILE_FIELDS_MAX);
    for (i = 0; i < s->n; i++)
        assert_int_equal(
            datafile_field_index(s, s->fields[i].section, s->fields[i].key),
            (long)i);
    assert_int_equal(datafile_field_index(s, "model", "nonesuch"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_field_is_training),
        cmocka_unit_test(test_model_schema_defaults_parse_in_range),
        cmocka_unit_test(test_model_schema_keys_unique),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

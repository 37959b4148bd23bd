/*
 * test_datafile_schema: lookups in a schema and its Markdown table (the
 * schema part of data/README.md), on a schema defined here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "datafile_schema.h"

static const struct datafile_field fields[] = {
    {.section = "gpu",
     .key = "name",
     .type = DATAFILE_STRING,
     .size = 32,
     .required = true,
     .unit = "",
     .help = "GPU name"},
    {.section = "gpu",
     .key = "sms",
     .type = DATAFILE_INT,
     .min = 1,
     .max = 1000,
     .def = "132",
     .unit = "",
     .help = "streaming multiprocessors | SMs"},
    {.section = "cluster",
     .key = "ib_gbps",
     .type = DATAFILE_DOUBLE,
     .min = 0.1,
     .max = 1e6,
     .required = true,
     .unit = "GB/s",
     .help = "InfiniBand per GPU"},
    {.section = "space",
     .key = "pp",
     .type = DATAFILE_LIST,
     .min = 1,
     .max = 64,
     .def = "1 2",
     .unit = "",
     .help = "pipeline stages"},
};
static const struct datafile_schema schema = {"test", fields,
                                              sizeof fields / sizeof *fields};

/* Fields by section and key, in table order; a key of another section
 * is not found. */
static void test_datafile_field_index(void **state)
{
    (void)state;
    assert_int_equal(datafile_field_index(&schema, "gpu", "name"), 0);
    assert_int_equal(datafile_field_index(&schema, "gpu", "sms"), 1);
    assert_int_equal(datafile_field_index(&schema, "space", "pp"), 3);
    assert_int_equal(datafile_field_index(&schema, "cluster", "sms"), -1);
    assert_int_equal(datafile_field_index(&schema, "gpu", "nope"), -1);
}

/* The table by hand: one row per field, what it accepts in words ("list
 * of" for lists), the default or "(required)", and a '|' in a cell
 * escaped so that it does not split the cell. */
static void test_datafile_schema_markdown(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    (void)state;
    assert_non_null(out);
    datafile_schema_markdown(&schema, out);
    assert_int_equal(fclose(out), 0);
    assert_string_equal(
        text, "| section | key | accepts | unit | default | meaning |\n"
              "|---|---|---|---|---|---|\n"
              "| [gpu] | name | text of at most 31 characters |  | "
              "(required) | GPU name |\n"
              "| [gpu] | sms | an integer in 1..1000 |  | 132 | streaming "
              "multiprocessors \\| SMs |\n"
              "| [cluster] | ib_gbps | a number in 0.1..1000000 | GB/s | "
              "(required) | InfiniBand per GPU |\n"
              "| [space] | pp | list of an integer in 1..64 |  | 1 2 | "
              "pipeline stages |\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datafile_field_index),
        cmocka_unit_test(test_datafile_schema_markdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * fuzz_hardware: the input as a hardware file, through hardware_load(). It must
 * never crash, leak or hit undefined behaviour; a file that loads must say
 * nothing in its diag, one that does not must say why.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "hardware.h"
#include "fuzz_util.h"

/* libFuzzer calls the entry points without a context argument: the
 * in-memory input file lives in this static, set once by
 * LLVMFuzzerInitialize() and only read afterwards. */
static struct fuzz_file input;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_file_init(&input);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hardware *x = malloc(sizeof *x);
    struct diag d;
    if (!x)
        return 0;
    diag_init(&d);
    fuzz_file_write(&input, data, size);
    if (hardware_load(input.path, x, NULL, 0, &d) == STATUS_OK) {
        if (d.msg[0] != '\0')
            abort(); /* success with a message */
        hardware_release(x);
    } else if (d.msg[0] == '\0' || d.status == STATUS_OK) {
        abort(); /* failure without a reason */
    }
    free(x);
    return 0;
}

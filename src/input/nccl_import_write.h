/*
 * nccl_import_write: the runs nccl_import read, written as the
 * [network_<link>_<collective>] sections of a calibration file
 * (calibration.h), for `roofplan import nccl` to print.
 *
 * Owns: the INI fragment's layout, the thinning of a curve to at most
 * NCCL_IMPORT_POINTS sizes and each section's source line. Calls
 * calibration (the section names); reads struct nccl_import, parses
 * nothing.
 */
#ifndef PROJ_NCCL_IMPORT_WRITE_H
#define PROJ_NCCL_IMPORT_WRITE_H

#include <stdio.h>

#include "diag.h"

struct nccl_import;

/*
 * Writes the curves of imp's runs to out as an INI fragment: one
 * [network_<link>_<collective>] section per run with its source, bytes,
 * busbw_gbps, ranks and nodes (calibration.h), intra-node first, then by
 * collective; skipped runs become comments. A run of more than
 * NCCL_IMPORT_POINTS rows is thinned to that many, evenly spaced in log
 * size and keeping the smallest and largest (fewer when a list would not
 * fit a data-file line). Returns STATUS_USAGE when imp holds no curve,
 * STATUS_IO naming `name` when writing fails.
 */
enum status nccl_import_write(const struct nccl_import *imp,
                              FILE *out,
                              const char *name,
                              struct diag *d);

#endif

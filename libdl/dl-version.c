/* dl-version.c: the version of the library loaded at run time.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-version.h"

/**
 * dl_get_major_version:
 *
 * The major version of the libdl that runs, which may differ from the
 * %DL_MAJOR_VERSION of the headers a program was compiled with.
 *
 * Returns: the major version (1 for 1.2.3)
 *
 * Since: 0.1
 */
guint
dl_get_major_version (void)
{
  return DL_MAJOR_VERSION;
}

/**
 * dl_get_minor_version:
 *
 * The minor version of the libdl that runs.
 *
 * Returns: the minor version (2 for 1.2.3)
 *
 * Since: 0.1
 */
guint
dl_get_minor_version (void)
{
  return DL_MINOR_VERSION;
}

/**
 * dl_get_micro_version:
 *
 * The micro version of the libdl that runs.
 *
 * Returns: the micro version (3 for 1.2.3)
 *
 * Since: 0.1
 */
guint
dl_get_micro_version (void)
{
  return DL_MICRO_VERSION;
}

/**
 * dl_get_version:
 *
 * The version of the libdl that runs, as a string: what the Python
 * package reports as `dl.__version__`.
 *
 * Returns: (transfer none): the version ("1.2.3")
 *
 * Since: 0.1
 */
const char *
dl_get_version (void)
{
  return DL_VERSION_S;
}

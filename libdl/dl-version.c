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

/**
 * dl_check_version:
 * @major: a major version
 * @minor: a minor version
 * @micro: a micro version
 *
 * Whether the libdl that runs is version @major.@minor.@micro or newer:
 * the run-time counterpart of the headers' `DL_CHECK_VERSION()`.
 *
 * Returns: %TRUE if it is
 *
 * Since: 0.1
 */
/* major.minor.micro as one number that orders as the versions do */
static guint64
packed_version (guint major, guint minor, guint micro)
{
  return (guint64)major << 42 | (guint64)MIN (minor, 0x1fffff) << 21 | MIN (micro, 0x1fffff);
}

gboolean
dl_check_version (guint major, guint minor, guint micro)
{
  return packed_version (DL_MAJOR_VERSION, DL_MINOR_VERSION, DL_MICRO_VERSION)
         >= packed_version (major, minor, micro);
}

/* dl-error.c
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-error.h"

/**
 * dl_error_quark:
 *
 * Gives the quark of the error domain of libdl, %DL_ERROR. Every #GError
 * that libdl reports is in this domain, with a #DlError code; from Python it
 * is raised as a `GLib.Error` whose `domain` is "dl-error-quark".
 *
 * Returns: the quark of the %DL_ERROR domain
 *
 * Since: 0.1
 */
GQuark
dl_error_quark (void)
{
  return g_quark_from_static_string ("dl-error-quark");
}

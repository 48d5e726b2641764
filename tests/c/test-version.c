/* test-version.c: dl-version.h's macros and the run-time version agree,
 * and DL_CHECK_VERSION orders versions.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

static void
test_version_runtime (void)
{
  g_autofree gchar *joined = g_strdup_printf ("%u.%u.%u", dl_get_major_version (),
                                              dl_get_minor_version (), dl_get_micro_version ());

  g_assert_cmpuint (dl_get_major_version (), ==, DL_MAJOR_VERSION);
  g_assert_cmpuint (dl_get_minor_version (), ==, DL_MINOR_VERSION);
  g_assert_cmpuint (dl_get_micro_version (), ==, DL_MICRO_VERSION);
  g_assert_cmpstr (dl_get_version (), ==, DL_VERSION_S);
  g_assert_cmpstr (joined, ==, DL_VERSION_S);
}

static void
test_version_check (void)
{
  g_assert_true (DL_CHECK_VERSION (DL_MAJOR_VERSION, DL_MINOR_VERSION, DL_MICRO_VERSION));
  g_assert_true (DL_CHECK_VERSION (0, 0, 0));
  g_assert_false (DL_CHECK_VERSION (DL_MAJOR_VERSION, DL_MINOR_VERSION, DL_MICRO_VERSION + 1));
  g_assert_false (DL_CHECK_VERSION (DL_MAJOR_VERSION, DL_MINOR_VERSION + 1, 0));
  g_assert_false (DL_CHECK_VERSION (DL_MAJOR_VERSION + 1, 0, 0));
  /* the run-time check of the library that runs, the same answers */
  g_assert_true (dl_check_version (DL_MAJOR_VERSION, DL_MINOR_VERSION, DL_MICRO_VERSION));
  g_assert_true (dl_check_version (0, 0, 0));
  g_assert_false (dl_check_version (DL_MAJOR_VERSION, DL_MINOR_VERSION, DL_MICRO_VERSION + 1));
  g_assert_false (dl_check_version (DL_MAJOR_VERSION, DL_MINOR_VERSION + 1, 0));
  g_assert_false (dl_check_version (DL_MAJOR_VERSION + 1, 0, 0));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/version/runtime", test_version_runtime);
  g_test_add_func ("/version/check", test_version_check);

  return g_test_run ();
}

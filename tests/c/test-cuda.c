/* test-cuda.c: the CUDA backend module from C. Without a GPU (these
 * tests' usual machine) dl_cuda_is_available() is FALSE, the count is 0
 * and "cuda" is a DL_ERROR_DEVICE naming why: the module was not built,
 * not found, or found no driver or no device. With a GPU, a round trip of
 * bytes through device memory.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "dl-test-utils.h"

/* The reasons this build can give when the module is where libdl looks */
static gboolean
is_no_gpu_reason (const gchar *message)
{
#ifdef DL_HAVE_CUDA_MODULE
  return strstr (message, "no CUDA driver") != NULL || strstr (message, "no CUDA device") != NULL;
#else
  return strstr (message, "was not built") != NULL;
#endif
}

static void
assert_cuda_refused (const gchar *name, gboolean (*reason) (const gchar *message))
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) device = dl_device_get (name, &error);

  g_assert_null (device);
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "is not available: "));
  g_assert_nonnull (strstr (error->message, name));
  if (!reason (error->message))
    g_error ("dl_device_get (\"%s\"): unexpected reason: %s", name, error->message);
}

static void
test_cuda_no_gpu (void)
{
  if (dl_cuda_device_count () > 0)
    {
      g_test_skip ("a GPU is available: nothing to refuse");
      return;
    }
  g_assert_false (dl_cuda_is_available ());
  g_assert_cmpint (dl_cuda_device_count (), ==, 0);
  assert_cuda_refused ("cuda", is_no_gpu_reason);
  assert_cuda_refused ("cuda:0", is_no_gpu_reason);
  /* asked again: the same answer, the module is loaded once */
  assert_cuda_refused ("cuda", is_no_gpu_reason);
  g_assert_false (dl_cuda_is_available ());
}

static gboolean
is_missing_reason (const gchar *message)
{
#ifdef DL_HAVE_CUDA_MODULE
  return strstr (message, "libdl-cuda-1.0.so was not found") != NULL
         && strstr (message, "DL_BACKEND_PATH") != NULL;
#else
  return strstr (message, "libdl-cuda-1.0.so was not built") != NULL;
#endif
}

/* DL_BACKEND_PATH pointing at an empty folder: the module is missing, in
 * a child process, since the module is looked for once per process */
static void
test_cuda_module_missing (void)
{
  if (g_test_subprocess ())
    {
      g_autofree gchar *empty = g_dir_make_tmp ("dl-test-cuda-XXXXXX", NULL);

      g_assert_nonnull (empty);
      g_setenv ("DL_BACKEND_PATH", empty, TRUE);
      g_assert_false (dl_cuda_is_available ());
      g_assert_cmpint (dl_cuda_device_count (), ==, 0);
      assert_cuda_refused ("cuda", is_missing_reason);
      g_rmdir (empty);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_cuda_round_trip (void)
{
  static const gfloat values[] = { 1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f };
  const gint64 shape[] = { 2, 3 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cuda = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", NULL);
  g_autoptr (DlTensor) host = NULL;
  g_autoptr (DlTensor) dev = NULL;
  g_autoptr (DlTensor) back = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize n = 0;
  const gfloat *out;

  if (!dl_cuda_is_available ())
    {
      g_test_skip ("no GPU is available");
      return;
    }
  cuda = dl_device_get ("cuda", &error);
  g_assert_no_error (error);
  host = dl_tensor_new_from_data (values, sizeof values, shape, G_N_ELEMENTS (shape),
                                  DL_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  dev = dl_tensor_to_device (host, cuda, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (dev) == cuda);
  back = dl_tensor_to_device (dev, cpu, &error);
  g_assert_no_error (error);
  bytes = dl_tensor_to_bytes (back, &error);
  g_assert_no_error (error);
  out = g_bytes_get_data (bytes, &n);
  g_assert_cmpmem (out, n, values, sizeof values);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cuda/no-gpu", test_cuda_no_gpu);
  g_test_add_func ("/cuda/module-missing", test_cuda_module_missing);
  g_test_add_func ("/cuda/round-trip", test_cuda_round_trip);
  return g_test_run ();
}

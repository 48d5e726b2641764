/* test-memory.c: memory seen from the outside: in-place writes whose
 * output overlaps an input or itself, and the CPU device's caching
 * allocator through DlDevice's statistics.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

/* In-place ops whose output overlaps an input, or itself */

/* a += a^T: every element reads the other's old value (as if the input
 * were copied first), or the op refuses (PyTorch: "unsupported operation:
 * some elements of the input tensor and the written-to tensor refer to a
 * single memory location"); a result that mixes old and new values is
 * wrong. */
static void
test_inplace_overlap (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble av[] = { 0, 1, 2, 3 };
  g_autoptr (DlTensor) a = dl_test_tensor (av, DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) at = dl_tensor_t (a, &error);
  DlTensor *r = dl_tensor_add_ (a, at, &error);

  if (r == NULL)
    {
      g_assert_true (error->domain == DL_ERROR);
      dl_test_assert_values (a, av, 4, 0);
      return;
    }
  g_assert_no_error (error);
  dl_test_assert_values (a, (gdouble[]){ 0, 3, 3, 6 }, 4, 0);
}

/* An expanded tensor has several elements on one memory location: writing
 * it in place must fail (PyTorch: "unsupported operation: more than one
 * element of the written-to tensor refers to a single memory location"),
 * not add twice. */
static void
test_inplace_expanded (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) base = dl_zeros (DL_TEST_SHAPE (1, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) e = dl_tensor_expand (base, DL_TEST_SHAPE (2, 3), &error);
  DlTensor *r = dl_tensor_add_scalar_ (e, 1, &error);

  if (r != NULL)
    {
      g_autofree gdouble *v = dl_test_values (base);
      g_test_fail_printf ("add_scalar_ on an expanded tensor succeeded; the base now holds "
                          "%g %g %g",
                          v[0], v[1], v[2]);
      return;
    }
  g_assert_true (error->domain == DL_ERROR);
  dl_test_assert_values (base, (gdouble[]){ 0, 0, 0 }, 3, 0);
}

/* In-place ops return their tensor borrowed (transfer none), as
 * g_string_append does: a caller that ignores the result leaks nothing. */
static void
test_inplace_returns_self (void)
{
  g_autoptr (GError) error = NULL;
  DlTensor *t = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) o = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, &error);

  g_assert_true (dl_tensor_add_ (t, o, &error) == t);
  dl_tensor_mul_scalar_ (t, 2, &error);
  dl_tensor_fill_ (t, 1, &error);
  dl_tensor_copy_ (t, o, &error);
  dl_tensor_uniform_ (t, 0, 1, &error);
  dl_tensor_clamp_ (t, o, NULL, &error);
  g_assert_no_error (error);
  g_assert_finalize_object (t); /* no reference left behind */
}

/* Memory: the CPU device's caching allocator, seen through DlDevice */

static void
test_memory_device_stats (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", &error);
  const gint64 n = 1 << 18; /* 1 MiB of float32, above the cached minimum */
  DlTensor *t[3];
  guint64 base_alloc, base_reserved, after;
  guintptr ptrs[3];

  g_assert_no_error (error);
  dl_device_empty_cache (cpu);
  base_alloc = dl_device_get_memory_allocated (cpu);
  base_reserved = dl_device_get_memory_reserved (cpu);
  g_assert_cmpuint (base_reserved, ==, base_alloc);

  for (gint i = 0; i < 3; i++)
    {
      t[i] = dl_empty (&n, 1, DL_DTYPE_FLOAT32, cpu, &error);
      g_assert_no_error (error);
      ptrs[i] = dl_tensor_get_data_ptr (t[i]);
    }
  after = dl_device_get_memory_allocated (cpu);
  g_assert_cmpuint (after - base_alloc, ==, 3 * 4 * (guint64)n);
  g_assert_cmpuint (dl_device_get_max_memory_allocated (cpu), >=, after);

  /* freed tensors' blocks stay reserved in the cache ... */
  for (gint i = 0; i < 3; i++)
    g_object_unref (t[i]);
  g_assert_cmpuint (dl_device_get_memory_allocated (cpu), ==, base_alloc);
  g_assert_cmpuint (dl_device_get_memory_reserved (cpu), ==, base_reserved + 3 * 4 * (guint64)n);

  /* ... and serve the next tensors of that size */
  for (gint i = 0; i < 3; i++)
    {
      t[i] = dl_zeros (&n, 1, DL_DTYPE_FLOAT32, cpu, &error);
      g_assert_no_error (error);
      g_assert_true (dl_tensor_get_data_ptr (t[i]) == ptrs[0]
                     || dl_tensor_get_data_ptr (t[i]) == ptrs[1]
                     || dl_tensor_get_data_ptr (t[i]) == ptrs[2]);
    }
  g_assert_cmpuint (dl_device_get_memory_reserved (cpu), ==, base_reserved + 3 * 4 * (guint64)n);
  for (gint i = 0; i < 3; i++)
    g_object_unref (t[i]);

  dl_device_empty_cache (cpu);
  g_assert_cmpuint (dl_device_get_memory_reserved (cpu), ==, base_reserved);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tensor/inplace/overlap", test_inplace_overlap);
  g_test_add_func ("/tensor/inplace/expanded", test_inplace_expanded);
  g_test_add_func ("/tensor/inplace/returns-self", test_inplace_returns_self);
  g_test_add_func ("/tensor/memory/device-stats", test_memory_device_stats);

  return g_test_run ();
}

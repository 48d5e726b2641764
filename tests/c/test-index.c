/* test-index.c: the index kernels (gather, scatter, masked copy, nonzero)
 * and the ops over them (index_select, where, masked_select, index,
 * index_put_, cat, flip, roll, tril), each compared with a plain loop over
 * arrays of doubles, in every dtype; and the errors bad indices give.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

static const DlDType all_dtypes[] = {
  DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16,
  DL_DTYPE_INT32,   DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL,
};

/* small integers survive every dtype exactly (bool: 0 or 1) */
static gdouble *
small_values (gint64 n, DlDType dtype)
{
  gdouble *v = g_new (gdouble, MAX (n, 1));

  for (gint64 i = 0; i < n; i++)
    v[i] = dtype == DL_DTYPE_BOOL ? g_test_rand_int_range (0, 2) : g_test_rand_int_range (0, 50);
  return v;
}

static DlTensor *
index_tensor (const gint64 *idx, const gint64 *shape, gsize n_dims)
{
  gint64 n = dl_test_numel (shape, n_dims);
  g_autofree gdouble *v = g_new (gdouble, MAX (n, 1));

  for (gint64 i = 0; i < n; i++)
    v[i] = idx[i];
  return dl_test_tensor (v, shape, n_dims, DL_DTYPE_INT64);
}

/* gather along dim 1 of a [3, 5] tensor with a [3, 4] index, and along
 * dim 0 of its transpose (a strided input) */
static void
test_gather (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (all_dtypes); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree gdouble *a = small_values (15, all_dtypes[k]);
      gint64 idx[12];
      gdouble expected[12], expected_t[12];
      g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (3, 5), all_dtypes[k]);
      g_autoptr (DlTensor) xt = dl_tensor_t (x, &error);
      g_autoptr (DlTensor) it = NULL;
      g_autoptr (DlTensor) g = NULL;
      g_autoptr (DlTensor) gt = NULL;
      g_autoptr (DlTensor) itt = NULL;

      for (gint i = 0; i < 3; i++)
        for (gint j = 0; j < 4; j++)
          {
            idx[i * 4 + j] = g_test_rand_int_range (0, 5);
            expected[i * 4 + j] = a[i * 5 + idx[i * 4 + j]];
          }
      it = index_tensor (idx, DL_TEST_SHAPE (3, 4));
      g = dl_tensor_gather (x, 1, it, &error);
      g_assert_no_error (error);
      dl_test_assert_shape (g, DL_TEST_SHAPE (3, 4));
      dl_test_assert_values (g, expected, 12, 0);

      /* xt is [5, 3]; gather along dim 0 with itt [4, 3] = it^T */
      itt = dl_tensor_t (it, &error);
      gt = dl_tensor_gather (xt, 0, itt, &error);
      g_assert_no_error (error);
      for (gint i = 0; i < 4; i++)
        for (gint j = 0; j < 3; j++)
          expected_t[i * 3 + j] = a[j * 5 + idx[j * 4 + i]];
      dl_test_assert_values (gt, expected_t, 12, 0);
    }
}

/* scatter_add with repeated indices and scatter with distinct ones */
static void
test_scatter (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (all_dtypes); k++)
    {
      DlDType dt = all_dtypes[k];
      g_autoptr (GError) error = NULL;
      g_autofree gdouble *a = small_values (8, dt);
      g_autofree gdouble *s = small_values (12, dt);
      gint64 idx[12], perm_idx[8];
      gdouble expected[8], expected2[8];
      g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (2, 4), dt);
      g_autoptr (DlTensor) src = dl_test_tensor (s, DL_TEST_SHAPE (3, 4), dt);
      g_autoptr (DlTensor) it = NULL;
      g_autoptr (DlTensor) pt = NULL;
      g_autoptr (DlTensor) r = NULL;
      g_autoptr (DlTensor) r2 = NULL;

      memcpy (expected, a, sizeof expected);
      for (gint i = 0; i < 3; i++)
        for (gint j = 0; j < 4; j++)
          {
            gint64 t = g_test_rand_int_range (0, 2);
            idx[i * 4 + j] = t;
            expected[t * 4 + j] += s[i * 4 + j];
          }
      for (gint i = 0; i < 8; i++)
        {
          if (dt == DL_DTYPE_BOOL)
            expected[i] = expected[i] != 0;
          else if (dt == DL_DTYPE_UINT8)
            expected[i] = fmod (expected[i], 256);
        }
      it = index_tensor (idx, DL_TEST_SHAPE (3, 4));
      r = dl_tensor_scatter_add (x, 0, it, src, &error);
      g_assert_no_error (error);
      dl_test_assert_values (r, expected, 8, dt == DL_DTYPE_BFLOAT16 ? 1e-2 : 1e-3);

      /* scatter along dim 1 with a permutation per row */
      memcpy (expected2, a, sizeof expected2);
      for (gint i = 0; i < 2; i++)
        for (gint j = 0; j < 4; j++)
          {
            perm_idx[i * 4 + j] = (j + i + 1) % 4;
            expected2[i * 4 + perm_idx[i * 4 + j]] = s[i * 4 + j];
          }
      pt = index_tensor (perm_idx, DL_TEST_SHAPE (2, 4));
      r2 = dl_tensor_scatter (x, 1, pt, src, &error);
      g_assert_no_error (error);
      dl_test_assert_values (r2, expected2, 8, 0);
      /* the input is untouched */
      dl_test_assert_values (x, a, 8, 0);
    }
}

/* big enough for the threaded gather: index_select of 700 rows of 500 */
static void
test_gather_threaded (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 rows = 600, cols = 500, n = 700;
  g_autofree gdouble *a = dl_test_random_values (rows * cols);
  g_autofree gint64 *idx = g_new (gint64, n);
  g_autofree gdouble *expected = g_new (gdouble, n * cols);
  g_autoptr (DlTensor) x = dl_test_tensor (a, (gint64[]){ rows, cols }, 2, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) it = NULL;
  g_autoptr (DlTensor) r = NULL;

  for (gint64 i = 0; i < n; i++)
    {
      idx[i] = g_test_rand_int_range (0, rows);
      for (gint64 j = 0; j < cols; j++)
        expected[i * cols + j] = a[idx[i] * cols + j];
    }
  it = index_tensor (idx, (gint64[]){ n }, 1);
  r = dl_tensor_index_select (x, 0, it, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (r, (gint64[]){ n, cols }, 2);
  dl_test_assert_values (r, expected, n * cols, 1e-6);
}

static void
test_where_and_masks (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (all_dtypes); k++)
    {
      DlDType dt = all_dtypes[k];
      g_autoptr (GError) error = NULL;
      g_autofree gdouble *c = small_values (12, DL_DTYPE_BOOL);
      g_autofree gdouble *a = small_values (12, dt);
      g_autofree gdouble *b = small_values (4, dt);
      gdouble expected[12], selected[12];
      gint64 n_sel = 0, coords[24], n_nz = 0;
      g_autoptr (DlTensor) ct = dl_test_tensor (c, DL_TEST_SHAPE (3, 4), DL_DTYPE_BOOL);
      g_autoptr (DlTensor) at = dl_test_tensor (a, DL_TEST_SHAPE (3, 4), dt);
      g_autoptr (DlTensor) bt = dl_test_tensor (b, DL_TEST_SHAPE (4), dt);
      g_autoptr (DlTensor) w = NULL;
      g_autoptr (DlTensor) ms = NULL;
      g_autoptr (DlTensor) nz = NULL;
      gdouble nz_expected[24];

      for (gint i = 0; i < 12; i++)
        {
          expected[i] = c[i] != 0 ? a[i] : b[i % 4];
          if (c[i] != 0)
            selected[n_sel++] = a[i];
          if (a[i] != 0)
            {
              coords[2 * n_nz] = i / 4;
              coords[2 * n_nz + 1] = i % 4;
              n_nz++;
            }
        }
      w = dl_where (ct, at, bt, &error);
      g_assert_no_error (error);
      dl_test_assert_values (w, expected, 12, 0);
      ms = dl_tensor_masked_select (at, ct, &error);
      g_assert_no_error (error);
      dl_test_assert_values (ms, selected, n_sel, 0);
      nz = dl_tensor_nonzero (at, &error);
      g_assert_no_error (error);
      dl_test_assert_shape (nz, (gint64[]){ n_nz, 2 }, 2);
      for (gint64 i = 0; i < 2 * n_nz; i++)
        nz_expected[i] = coords[i];
      dl_test_assert_values (nz, nz_expected, 2 * n_nz, 0);
    }
}

static void
test_index_and_put (void)
{
  g_autoptr (GError) error = NULL;
  gdouble a[12], expected[6], put[12];
  gint64 i0[] = { 2, -3, 1 }, i1[] = { 3, 0, -1 };
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) t0 = index_tensor (i0, DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) t1 = index_tensor (i1, DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) r2 = NULL;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) done = NULL;

  for (gint i = 0; i < 12; i++)
    a[i] = i;
  x = dl_test_tensor (a, DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT32);
  /* x[i0] : rows 2, 0, 1 */
  r = dl_tensor_index (x, (DlTensor *[]){ t0 }, 1, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (r, DL_TEST_SHAPE (3, 4));
  /* x[i0, i1] */
  r2 = dl_tensor_index (x, (DlTensor *[]){ t0, t1 }, 2, &error);
  g_assert_no_error (error);
  for (gint k = 0; k < 3; k++)
    expected[k] = a[((i0[k] + 3) % 3) * 4 + (i1[k] + 4) % 4];
  dl_test_assert_values (r2, expected, 3, 0);

  /* x[i0, i1] += 10, with a repeated index */
  memcpy (put, a, sizeof put);
  v = dl_tensor_new_scalar (10, DL_DTYPE_FLOAT32);
  for (gint k = 0; k < 3; k++)
    put[((i0[k] + 3) % 3) * 4 + (i1[k] + 4) % 4] += 10;
  done = dl_tensor_index_put_ (x, (DlTensor *[]){ t0, t1 }, 2, v, TRUE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (x, put, 12, 0);
}

static void
test_cat_flip_roll_tril (void)
{
  g_autoptr (GError) error = NULL;
  gdouble a[6] = { 1, 2, 3, 4, 5, 6 }, b[3] = { 7, 8, 9 };
  gdouble cat_expected[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  gdouble cat1_expected[8] = { 1, 2, 3, 7, 4, 5, 6, 8 };
  gdouble flip_expected[6] = { 6, 5, 4, 3, 2, 1 };
  gdouble roll_expected[6] = { 3, 1, 2, 6, 4, 5 };
  gdouble tril_expected[6] = { 1, 0, 0, 4, 5, 0 };
  gdouble c2[2] = { 7, 8 };
  g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (2, 3), DL_DTYPE_INT32);
  g_autoptr (DlTensor) y = dl_test_tensor (b, DL_TEST_SHAPE (1, 3), DL_DTYPE_INT64);
  g_autoptr (DlTensor) z = dl_test_tensor (c2, DL_TEST_SHAPE (2, 1), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) c = dl_cat ((DlTensor *[]){ x, y }, 2, 0, &error);
  g_autoptr (DlTensor) c1 = NULL;
  g_autoptr (DlTensor) f = NULL;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) tl = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (c), ==, DL_DTYPE_INT64);
  dl_test_assert_values (c, cat_expected, 9, 0);
  c1 = dl_cat ((DlTensor *[]){ x, z }, 2, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (c1), ==, DL_DTYPE_FLOAT32);
  dl_test_assert_values (c1, cat1_expected, 8, 0);
  f = dl_tensor_flip (x, (gint[]){ 0, 1 }, 2, &error);
  g_assert_no_error (error);
  dl_test_assert_values (f, flip_expected, 6, 0);
  r = dl_tensor_roll (x, (gint64[]){ 1 }, 1, (gint[]){ 1 }, 1, &error);
  g_assert_no_error (error);
  dl_test_assert_values (r, roll_expected, 6, 0);
  tl = dl_tensor_tril (x, 0, &error);
  g_assert_no_error (error);
  dl_test_assert_values (tl, tril_expected, 6, 0);
}

static void
test_split_views (void)
{
  g_autoptr (GError) error = NULL;
  gdouble a[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (5, 2), DL_DTYPE_FLOAT32);
  gsize n = 0;
  DlTensor **parts;

  parts = dl_tensor_split (x, 2, 0, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 3);
  dl_test_assert_shape (parts[2], DL_TEST_SHAPE (1, 2));
  dl_test_assert_values (parts[1], a + 4, 4, 0);
  /* views: they share x's storage */
  g_assert_true (dl_tensor_get_storage (parts[1]) == dl_tensor_get_storage (x));
  for (gsize i = 0; i < n; i++)
    g_object_unref (parts[i]);
  g_free (parts);

  parts = dl_tensor_unbind (x, 1, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 2);
  dl_test_assert_values (parts[1], (gdouble[]){ 1, 3, 5, 7, 9 }, 5, 0);
  for (gsize i = 0; i < n; i++)
    g_object_unref (parts[i]);
  g_free (parts);

  parts = dl_tensor_chunk (x, 3, 0, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 3);
  for (gsize i = 0; i < n; i++)
    g_object_unref (parts[i]);
  g_free (parts);

  parts = dl_tensor_split_with_sizes (x, (gint64[]){ 1, 2 }, 2, 0, &n, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_null (parts);
  g_assert_cmpuint (n, ==, 0);
}

static void
test_errors (void)
{
  gdouble a[6] = { 0 };
  gint64 bad[] = { 3 }, neg[] = { -4 };
  g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (3, 2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) ib = index_tensor (bad, DL_TEST_SHAPE (1, 1));
  g_autoptr (DlTensor) ib1 = index_tensor (bad, DL_TEST_SHAPE (1));
  g_autoptr (DlTensor) in1 = index_tensor (neg, DL_TEST_SHAPE (1));
  g_autoptr (DlTensor) fl = dl_test_tensor (a, DL_TEST_SHAPE (1, 1), DL_DTYPE_FLOAT32);
  struct
  {
    DlTensor *result;
    gint code;
    const gchar *needle;
  } cases[5];
  GError *errors[5] = { NULL };

  cases[0].result = dl_tensor_gather (x, 0, ib, &errors[0]);
  cases[0].code = DL_ERROR_INDEX;
  cases[0].needle = "gather(): index 3 is out of bounds for dimension 0 with size 3";
  cases[1].result = dl_tensor_index_select (x, 0, ib1, &errors[1]);
  cases[1].code = DL_ERROR_INDEX;
  cases[1].needle = "index_select";
  cases[2].result = dl_tensor_index (x, (DlTensor *[]){ in1 }, 1, &errors[2]);
  cases[2].code = DL_ERROR_INDEX;
  cases[2].needle = "index -4 is out of bounds for dimension 0 with size 3";
  cases[3].result = dl_tensor_gather (x, 0, fl, &errors[3]);
  cases[3].code = DL_ERROR_DTYPE;
  cases[3].needle = "Expected dtype int64";
  cases[4].result = dl_cat (NULL, 0, 0, &errors[4]);
  cases[4].code = DL_ERROR_ARGUMENT;
  cases[4].needle = "non-empty";
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_null (cases[i].result);
      g_assert_error (errors[i], DL_ERROR, cases[i].code);
      g_assert_nonnull (strstr (errors[i]->message, cases[i].needle));
      g_error_free (errors[i]);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/index/gather", test_gather);
  g_test_add_func ("/index/scatter", test_scatter);
  g_test_add_func ("/index/gather-threaded", test_gather_threaded);
  g_test_add_func ("/index/where-masks-nonzero", test_where_and_masks);
  g_test_add_func ("/index/index-put", test_index_and_put);
  g_test_add_func ("/index/cat-flip-roll-tril", test_cat_flip_roll_tril);
  g_test_add_func ("/index/split-views", test_split_views);
  g_test_add_func ("/index/errors", test_errors);
  return g_test_run ();
}

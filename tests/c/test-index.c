/* test-index.c: the index kernels (gather, scatter, the reducing scatters,
 * masked copy, nonzero) and the ops over them (scatter_reduce,
 * index_select, where, masked_select, index, index_put_, cat, flip, roll,
 * tril, unique along a dim), each compared with a plain loop over arrays of
 * doubles, in every dtype; the gradients of scatter_reduce; and the errors
 * bad indices give.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-gradcheck.h"

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

static const gchar *const reductions[] = { "sum", "prod", "mean", "amax", "amin" };

/* What a value of @dtype holds when it is given the exact result v:
 * integers wrap, bool is v != 0. */
static gdouble
wrap_to (gdouble v, DlDType dtype)
{
  if (dtype == DL_DTYPE_BOOL)
    return v != 0;
  if (dtype == DL_DTYPE_UINT8)
    return fmod (fmod (v, 256) + 256, 256);
  return v;
}

/* The reference scatter_reduce along dim 0 of a [rows, cols] @self with a
 * [n, cols] index and src, in doubles: each place reduces self's value
 * (with @include_self) and every src value the index sends there. */
static void
reference_scatter_reduce (const gdouble *self,
                          gint64 rows,
                          gint64 cols,
                          const gdouble *src,
                          const gint64 *idx,
                          gint64 n,
                          const gchar *reduce,
                          gboolean include_self,
                          DlDType dtype,
                          gdouble *out)
{
  g_autofree gint64 *count = g_new0 (gint64, rows * cols);

  for (gint64 p = 0; p < rows * cols; p++)
    {
      out[p] = self[p];
      count[p] = include_self;
    }
  for (gint64 i = 0; i < n; i++)
    for (gint64 j = 0; j < cols; j++)
      {
        gint64 p = idx[i * cols + j] * cols + j;
        gdouble v = src[i * cols + j];

        if (count[p] == 0)
          out[p] = v;
        else if (g_str_equal (reduce, "sum") || g_str_equal (reduce, "mean"))
          out[p] += v;
        else if (g_str_equal (reduce, "prod"))
          out[p] *= v;
        else if (g_str_equal (reduce, "amax"))
          out[p] = MAX (out[p], v);
        else
          out[p] = MIN (out[p], v);
        count[p]++;
      }
  for (gint64 p = 0; p < rows * cols; p++)
    {
      out[p] = wrap_to (out[p], dtype);
      if (g_str_equal (reduce, "mean") && count[p] > 0)
        out[p] = dl_dtype_is_floating_point (dtype) ? out[p] / count[p] : floor (out[p] / count[p]);
    }
}

/* scatter_reduce of a [6, 4] src into a [3, 4] self with repeated indices,
 * every reduction with and without self, every dtype; and the same along
 * dim 1 of a transposed (strided) self */
static void
test_scatter_reduce (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (all_dtypes); k++)
    for (gsize r = 0; r < G_N_ELEMENTS (reductions); r++)
      for (gint include_self = 0; include_self < 2; include_self++)
        {
          DlDType dt = all_dtypes[k];
          const gchar *reduce = reductions[r];
          gboolean is_prod = g_str_equal (reduce, "prod");
          gdouble tol = dt == DL_DTYPE_BFLOAT16 ? 1e-2 : (dt == DL_DTYPE_FLOAT16 ? 1e-3 : 1e-6);
          g_autoptr (GError) error = NULL;
          g_autofree gdouble *a = small_values (12, dt);
          g_autofree gdouble *s = small_values (24, dt);
          gint64 idx[24], idx_t[24];
          gdouble expected[12], expected_t[12];
          g_autoptr (DlTensor) x = NULL;
          g_autoptr (DlTensor) xt_base = NULL;
          g_autoptr (DlTensor) xt = NULL;
          g_autoptr (DlTensor) src = NULL;
          g_autoptr (DlTensor) src_t_base = NULL;
          g_autoptr (DlTensor) src_t = NULL;
          g_autoptr (DlTensor) it = NULL;
          g_autoptr (DlTensor) it_t_base = NULL;
          g_autoptr (DlTensor) it_t = NULL;
          g_autoptr (DlTensor) out = NULL;
          g_autoptr (DlTensor) out_t = NULL;
          g_autoptr (DlTensor) out_tt = NULL;
          gdouble at[12], st[24];

          if (is_prod)
            for (gint i = 0; i < 24; i++)
              {
                /* products of small factors stay exact in float16 */
                s[i] = fmod (s[i], 4);
                if (i < 12)
                  a[i] = fmod (a[i], 4);
              }
          for (gint i = 0; i < 24; i++)
            idx[i] = g_test_rand_int_range (0, 3);
          x = dl_test_tensor (a, DL_TEST_SHAPE (3, 4), dt);
          src = dl_test_tensor (s, DL_TEST_SHAPE (6, 4), dt);
          it = index_tensor (idx, DL_TEST_SHAPE (6, 4));
          out = dl_tensor_scatter_reduce (x, 0, it, src, reduce, include_self, &error);
          if (dt == DL_DTYPE_BOOL && g_str_equal (reduce, "mean"))
            {
              g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
              g_assert_null (out);
              continue;
            }
          g_assert_no_error (error);
          reference_scatter_reduce (a, 3, 4, s, idx, 6, reduce, include_self, dt, expected);
          dl_test_assert_shape (out, DL_TEST_SHAPE (3, 4));
          dl_test_assert_values (out, expected, 12, tol);
          /* the input is untouched */
          dl_test_assert_values (x, a, 12, 0);

          /* along dim 1 of transposes: self [4, 3] from a [3, 4] base,
           * src [4, 6] and index [4, 6] likewise */
          for (gint i = 0; i < 3; i++)
            for (gint j = 0; j < 4; j++)
              at[i * 4 + j] = a[i * 4 + j];
          for (gint i = 0; i < 24; i++)
            {
              st[i] = s[i];
              idx_t[i] = idx[i];
            }
          xt_base = dl_test_tensor (at, DL_TEST_SHAPE (3, 4), dt);
          xt = dl_tensor_t (xt_base, &error);
          src_t_base = dl_test_tensor (st, DL_TEST_SHAPE (6, 4), dt);
          src_t = dl_tensor_t (src_t_base, &error);
          it_t_base = index_tensor (idx_t, DL_TEST_SHAPE (6, 4));
          it_t = dl_tensor_t (it_t_base, &error);
          g_assert_no_error (error);
          out_t = dl_tensor_scatter_reduce (xt, 1, it_t, src_t, reduce, include_self, &error);
          g_assert_no_error (error);
          /* out_t is the transpose of the dim-0 result */
          out_tt = dl_tensor_t (out_t, &error);
          g_assert_no_error (error);
          memcpy (expected_t, expected, sizeof expected_t);
          dl_test_assert_values (out_tt, expected_t, 12, tol);
        }
}

/* scatter with reduce= ("add", "multiply"), of a tensor and of a number,
 * out of place and in place, against the same reference */
static void
test_scatter_with_reduce (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (all_dtypes); k++)
    for (gint mul = 0; mul < 2; mul++)
      {
        DlDType dt = all_dtypes[k];
        g_autoptr (GError) error = NULL;
        g_autofree gdouble *a = small_values (8, dt);
        g_autofree gdouble *s = small_values (12, dt);
        gdouble value[12], expected[8], expected_v[8];
        gint64 idx[12];
        g_autoptr (DlTensor) x = NULL;
        g_autoptr (DlTensor) src = NULL;
        g_autoptr (DlTensor) it = NULL;
        g_autoptr (DlTensor) out = NULL;
        g_autoptr (DlTensor) out_v = NULL;
        DlTensor *same = NULL;
        gdouble tol = dt == DL_DTYPE_BFLOAT16 ? 1e-2 : 1e-3;

        for (gint i = 0; i < 12; i++)
          {
            idx[i] = g_test_rand_int_range (0, 2);
            value[i] = dt == DL_DTYPE_BOOL ? 1 : 3;
            if (mul)
              s[i] = fmod (s[i], 4);
          }
        for (gint i = 0; i < 8 && mul; i++)
          a[i] = fmod (a[i], 4);
        x = dl_test_tensor (a, DL_TEST_SHAPE (2, 4), dt);
        src = dl_test_tensor (s, DL_TEST_SHAPE (3, 4), dt);
        it = index_tensor (idx, DL_TEST_SHAPE (3, 4));
        reference_scatter_reduce (a, 2, 4, s, idx, 3, mul ? "prod" : "sum", TRUE, dt, expected);
        reference_scatter_reduce (a, 2, 4, value, idx, 3, mul ? "prod" : "sum", TRUE, dt,
                                  expected_v);
        out = dl_tensor_scatter_with_reduce (x, 0, it, src, mul ? "multiply" : "add", &error);
        g_assert_no_error (error);
        dl_test_assert_values (out, expected, 8, tol);
        out_v = dl_tensor_scatter_value_with_reduce (x, 0, it, value[0], mul ? "multiply" : "add",
                                                     &error);
        g_assert_no_error (error);
        dl_test_assert_values (out_v, expected_v, 8, tol);
        /* in place */
        same = dl_tensor_scatter_with_reduce_ (x, 0, it, src, mul ? "multiply" : "add", &error);
        g_assert_no_error (error);
        g_assert_true (same == x);
        dl_test_assert_values (x, expected, 8, tol);
      }
}

/* the reducing scatters' identities: without self, int64 amin and amax
 * start from the extremes of the type, and places no index names keep
 * self's value */
static void
test_scatter_reduce_extremes (void)
{
  g_autoptr (GError) error = NULL;
  gint64 big[3] = { G_MAXINT64, G_MININT64, 7 };
  gint64 idx[2] = { 0, 1 };
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) src = NULL;
  g_autoptr (DlTensor) it = index_tensor (idx, DL_TEST_SHAPE (2));
  g_autoptr (DlTensor) mx = NULL;
  g_autoptr (DlTensor) mn = NULL;
  g_autoptr (GBytes) bmx = NULL;
  g_autoptr (GBytes) bmn = NULL;
  const gint64 *vmx, *vmn;

  g_autoptr (GBytes) bx = g_bytes_new_static (big, sizeof big);
  g_autoptr (GBytes) bs = g_bytes_new_static (big, 2 * sizeof (gint64));

  x = dl_tensor_new_from_bytes (bx, DL_TEST_SHAPE (3), DL_DTYPE_INT64, &error);
  g_assert_no_error (error);
  src = dl_tensor_new_from_bytes (bs, DL_TEST_SHAPE (2), DL_DTYPE_INT64, &error);
  g_assert_no_error (error);
  mx = dl_tensor_scatter_reduce (x, 0, it, src, "amax", FALSE, &error);
  g_assert_no_error (error);
  mn = dl_tensor_scatter_reduce (x, 0, it, src, "amin", FALSE, &error);
  g_assert_no_error (error);
  bmx = dl_tensor_to_bytes (mx, &error);
  bmn = dl_tensor_to_bytes (mn, &error);
  g_assert_no_error (error);
  vmx = g_bytes_get_data (bmx, NULL);
  vmn = g_bytes_get_data (bmn, NULL);
  g_assert_cmpint (vmx[0], ==, G_MAXINT64);
  g_assert_cmpint (vmx[1], ==, G_MININT64);
  g_assert_cmpint (vmx[2], ==, 7);
  g_assert_cmpint (vmn[0], ==, G_MAXINT64);
  g_assert_cmpint (vmn[1], ==, G_MININT64);
  g_assert_cmpint (vmn[2], ==, 7);
}

/* NaN wins amax and amin, as in PyTorch */
static void
test_scatter_reduce_nan (void)
{
  g_autoptr (GError) error = NULL;
  gdouble a[2] = { 1, NAN }, s[3] = { NAN, 5, 2 };
  gint64 idx[3] = { 0, 1, 0 };
  g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) src = dl_test_tensor (s, DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) it = index_tensor (idx, DL_TEST_SHAPE (3));

  for (gsize r = 3; r < 5; r++)
    {
      g_autoptr (DlTensor) out
          = dl_tensor_scatter_reduce (x, 0, it, src, reductions[r], TRUE, &error);
      g_autofree gdouble *v = NULL;

      g_assert_no_error (error);
      v = dl_test_values (out);
      g_assert_true (isnan (v[0]) && isnan (v[1]));
    }
}

/* scatter_reduce's gradients against finite differences: a [3, 4] self,
 * a [5, 4] src and a fixed index with repeats and an untouched place */
static const gint64 grad_index[20] = {
  0, 1, 2, 0, 1, 1, 0, 0, 2, 1, 0, 0, 0, 1, 2, 0, 2, 1, 0, 0,
};

static DlTensor *
scatter_reduce_case (DlTensor **x, const gchar *reduce, gboolean include_self, GError **error)
{
  g_autoptr (DlTensor) it = index_tensor (grad_index, DL_TEST_SHAPE (5, 4));

  return dl_tensor_scatter_reduce (x[0], 0, it, x[1], reduce, include_self, error);
}

#define SCATTER_REDUCE_CASE(fn, reduce, include_self)                                              \
  static DlTensor *fn (DlTensor **x, GError **error)                                               \
  {                                                                                                \
    return scatter_reduce_case (x, reduce, include_self, error);                                   \
  }

SCATTER_REDUCE_CASE (sr_sum, "sum", TRUE)
SCATTER_REDUCE_CASE (sr_sum_ex, "sum", FALSE)
SCATTER_REDUCE_CASE (sr_prod, "prod", TRUE)
SCATTER_REDUCE_CASE (sr_prod_ex, "prod", FALSE)
SCATTER_REDUCE_CASE (sr_mean, "mean", TRUE)
SCATTER_REDUCE_CASE (sr_mean_ex, "mean", FALSE)
SCATTER_REDUCE_CASE (sr_amax, "amax", TRUE)
SCATTER_REDUCE_CASE (sr_amax_ex, "amax", FALSE)
SCATTER_REDUCE_CASE (sr_amin, "amin", TRUE)
SCATTER_REDUCE_CASE (sr_amin_ex, "amin", FALSE)

#define SR_GRAD(name, fn)                                                                          \
  {                                                                                                \
    name, fn, 2, { { 3, 4 }, { 5, 4 } }, { 2, 2 }, 0.1, FALSE                                      \
  }

static const DlTestGradCase scatter_reduce_grads[] = {
  SR_GRAD ("sum", sr_sum),   SR_GRAD ("sum-exclude-self", sr_sum_ex),
  SR_GRAD ("prod", sr_prod), SR_GRAD ("prod-exclude-self", sr_prod_ex),
  SR_GRAD ("mean", sr_mean), SR_GRAD ("mean-exclude-self", sr_mean_ex),
  SR_GRAD ("amax", sr_amax), SR_GRAD ("amax-exclude-self", sr_amax_ex),
  SR_GRAD ("amin", sr_amin), SR_GRAD ("amin-exclude-self", sr_amin_ex),
};

/* scatter with reduce= records a node whose backward fails, as PyTorch's */
static void
test_scatter_with_reduce_no_grad (void)
{
  g_autoptr (GError) error = NULL;
  gdouble a[4] = { 1, 2, 3, 4 };
  gint64 idx[2] = { 0, 0 };
  g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (4), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) it = index_tensor (idx, DL_TEST_SHAPE (2));
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) loss = NULL;

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  out = dl_tensor_scatter_value_with_reduce (x, 0, it, 2, "multiply", &error);
  g_assert_no_error (error);
  loss = dl_tensor_sum (out, &error);
  g_assert_no_error (error);
  g_assert_false (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "scatter(reduce='multiply')"));
}

/* unique slices along a dim and unique_consecutive along a dim, against
 * a reference that compares rows of doubles */
static gint
compare_rows (const gdouble *a, const gdouble *b, gint64 m)
{
  for (gint64 j = 0; j < m; j++)
    if (a[j] != b[j])
      return a[j] < b[j] ? -1 : 1;
  return 0;
}

static void
test_unique_dim (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (all_dtypes); k++)
    for (gint dim = 0; dim < 2; dim++)
      {
        DlDType dt = all_dtypes[k];
        g_autoptr (GError) error = NULL;
        const gint64 n = 7, m = 3;
        gdouble a[21], rows[21], sorted[21], expected[21];
        gint64 order[7], inv_expected[7], counts_expected[7], n_groups = 0;
        g_autoptr (DlTensor) x = NULL;
        g_autoptr (DlTensor) u = NULL;
        g_autoptr (DlTensor) inv = NULL;
        g_autoptr (DlTensor) cnt = NULL;
        g_autoptr (DlTensor) uc = NULL;
        g_autoptr (DlTensor) invc = NULL;
        g_autoptr (DlTensor) cntc = NULL;
        g_autofree gdouble *uv = NULL;
        g_autofree gdouble *iv = NULL;
        g_autofree gdouble *cv = NULL;
        g_autofree gdouble *icv = NULL;
        g_autofree gdouble *ccv = NULL;

        /* 7 slices of 3 values drawn from few, so that slices repeat */
        for (gint64 i = 0; i < n; i++)
          {
            gint64 copy = i > 0 && g_test_rand_bit () ? g_test_rand_int_range (0, i) : -1;
            for (gint64 j = 0; j < m; j++)
              rows[i * m + j] = copy >= 0 ? rows[copy * m + j]
                                          : (dt == DL_DTYPE_BOOL ? g_test_rand_int_range (0, 2)
                                                                 : g_test_rand_int_range (0, 3));
          }
        /* x is [7, 3] for dim 0, [3, 7] for dim 1 */
        for (gint64 i = 0; i < n; i++)
          for (gint64 j = 0; j < m; j++)
            a[dim == 0 ? i * m + j : j * n + i] = rows[i * m + j];
        x = dim == 0 ? dl_test_tensor (a, DL_TEST_SHAPE (7, 3), dt)
                     : dl_test_tensor (a, DL_TEST_SHAPE (3, 7), dt);

        /* the reference: an insertion sort of the row numbers (stable) */
        for (gint64 i = 0; i < n; i++)
          {
            gint64 p = i;
            while (p > 0 && compare_rows (rows + order[p - 1] * m, rows + i * m, m) > 0)
              {
                order[p] = order[p - 1];
                p--;
              }
            order[p] = i;
          }
        for (gint64 i = 0; i < n; i++)
          {
            memcpy (sorted + i * m, rows + order[i] * m, m * sizeof (gdouble));
            if (i == 0 || compare_rows (sorted + (i - 1) * m, sorted + i * m, m) != 0)
              {
                memcpy (expected + n_groups * m, sorted + i * m, m * sizeof (gdouble));
                counts_expected[n_groups++] = 0;
              }
            counts_expected[n_groups - 1]++;
            inv_expected[order[i]] = n_groups - 1;
          }

        u = dl_tensor_unique_dim (x, dim, &inv, &cnt, &error);
        g_assert_no_error (error);
        uv = dl_test_values (u);
        iv = dl_test_values (inv);
        cv = dl_test_values (cnt);
        g_assert_cmpint (dl_tensor_numel (cnt), ==, n_groups);
        g_assert_cmpint (dl_tensor_get_size (u, dim, NULL), ==, n_groups);
        for (gint64 g = 0; g < n_groups; g++)
          {
            g_assert_cmpfloat (cv[g], ==, counts_expected[g]);
            for (gint64 j = 0; j < m; j++)
              g_assert_cmpfloat (uv[dim == 0 ? g * m + j : j * n_groups + g], ==,
                                 expected[g * m + j]);
          }
        for (gint64 i = 0; i < n; i++)
          g_assert_cmpfloat (iv[i], ==, inv_expected[i]);

        /* unique_consecutive: runs of equal neighbours in the given order */
        uc = dl_tensor_unique_consecutive_dim (x, dim, &invc, &cntc, &error);
        g_assert_no_error (error);
        icv = dl_test_values (invc);
        ccv = dl_test_values (cntc);
        for (gint64 i = 0, g = -1; i < n; i++)
          {
            if (i == 0 || compare_rows (rows + (i - 1) * m, rows + i * m, m) != 0)
              g++;
            g_assert_cmpfloat (icv[i], ==, g);
            if (i == n - 1)
              g_assert_cmpint (dl_tensor_numel (cntc), ==, g + 1);
          }
        g_assert_cmpint (dl_tensor_get_size (uc, dim, NULL), ==, dl_tensor_numel (cntc));
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
  DlTensor *done = NULL;

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
  g_assert_true (done == x);
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
  f = dl_tensor_flip (x, (gint64[]){ 0, 1 }, 2, &error);
  g_assert_no_error (error);
  dl_test_assert_values (f, flip_expected, 6, 0);
  r = dl_tensor_roll (x, (gint64[]){ 1 }, 1, (gint64[]){ 1 }, 1, &error);
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

/* the errors of scatter_reduce, scatter with reduce= and unique with dim */
static void
test_reduce_errors (void)
{
  gdouble a[6] = { 0 };
  gint64 bad[] = { 3 }, ok[] = { 0, 1, 2, 0, 1 };
  g_autoptr (DlTensor) x = dl_test_tensor (a, DL_TEST_SHAPE (3, 2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) xd = dl_test_tensor (a, DL_TEST_SHAPE (3, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) ib = index_tensor (bad, DL_TEST_SHAPE (1, 1));
  g_autoptr (DlTensor) wide = index_tensor (ok, DL_TEST_SHAPE (1, 5));
  g_autoptr (DlTensor) flat = index_tensor (ok, DL_TEST_SHAPE (5));
  g_autoptr (DlTensor) empty_cols = dl_test_tensor (a, DL_TEST_SHAPE (3, 0), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) scalar = dl_test_tensor (a, NULL, 0, DL_DTYPE_FLOAT32);
  struct
  {
    DlTensor *result;
    gint code;
    const gchar *needle;
  } cases[9];
  GError *errors[9] = { NULL };

  cases[0].result = dl_tensor_scatter_reduce (x, 0, ib, x, "sum", TRUE, &errors[0]);
  cases[0].code = DL_ERROR_INDEX;
  cases[0].needle = "scatter_reduce(): index 3 is out of bounds for dimension 0 with size 3";
  cases[1].result = dl_tensor_scatter_reduce (x, 0, ib, x, "max", TRUE, &errors[1]);
  cases[1].code = DL_ERROR_ARGUMENT;
  cases[1].needle = "sum, prod, mean, amax or amin, not 'max'";
  cases[2].result = dl_tensor_scatter_with_reduce (x, 0, ib, x, "sum", &errors[2]);
  cases[2].code = DL_ERROR_ARGUMENT;
  cases[2].needle = "scatter(): reduce argument must be either add or multiply, not 'sum'";
  cases[3].result = dl_tensor_scatter_reduce (x, 0, wide, x, "amax", TRUE, &errors[3]);
  cases[3].code = DL_ERROR_SHAPE;
  cases[3].needle = "scatter_reduce(): Size does not match at dimension 1";
  cases[4].result = dl_tensor_scatter_reduce (x, 0, ib, xd, "prod", FALSE, &errors[4]);
  cases[4].code = DL_ERROR_DTYPE;
  cases[4].needle = "float32 and float64";
  cases[5].result = dl_tensor_scatter_reduce (x, 2, ib, x, "mean", TRUE, &errors[5]);
  cases[5].code = DL_ERROR_INDEX;
  cases[5].needle = "dimension out of range";
  cases[6].result = dl_tensor_scatter_value_with_reduce_ (x, 0, flat, 1, "add", &errors[6]);
  cases[6].code = DL_ERROR_SHAPE;
  cases[6].needle = "same number of dimensions";
  cases[7].result = dl_tensor_unique_dim (empty_cols, 0, NULL, NULL, &errors[7]);
  cases[7].code = DL_ERROR_SHAPE;
  cases[7].needle = "unique(): There are 0 sized dimensions";
  cases[8].result = dl_tensor_unique_consecutive_dim (scalar, 0, NULL, NULL, &errors[8]);
  cases[8].code = DL_ERROR_INDEX;
  cases[8].needle = "no dimensions";
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_null (cases[i].result);
      g_assert_error (errors[i], DL_ERROR, cases[i].code);
      if (!strstr (errors[i]->message, cases[i].needle))
        g_error ("case %" G_GSIZE_FORMAT ": '%s' lacks '%s'", i, errors[i]->message,
                 cases[i].needle);
      g_error_free (errors[i]);
    }
}

/* searchsorted: rows of boundaries, left and right, a sorter, errors */
static void
test_searchsorted (void)
{
  const gdouble bnd[] = { 1, 3, 3, 7, /* */ 0, 2, 4, 6 };
  const gdouble vals[] = { 3, 8, /* */ -1, 4 };
  const gdouble left[] = { 1, 4, 0, 2 }, right[] = { 3, 4, 0, 3 };
  const gdouble unsorted[] = { 7, 1, 3 }, order[] = { 1, 2, 0 }, found[] = { 1, 3 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) b = dl_test_tensor (bnd, DL_TEST_SHAPE (2, 4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) v = dl_test_tensor (vals, DL_TEST_SHAPE (2, 2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) l = dl_searchsorted (b, v, FALSE, FALSE, NULL, &error);
  g_autoptr (DlTensor) r = dl_searchsorted (b, v, TRUE, TRUE, NULL, &error);
  g_autoptr (DlTensor) u = dl_test_tensor (unsorted, DL_TEST_SHAPE (3), DL_DTYPE_INT64);
  g_autoptr (DlTensor) o = dl_test_tensor (order, DL_TEST_SHAPE (3), DL_DTYPE_INT64);
  g_autoptr (DlTensor) q = dl_test_tensor (vals, DL_TEST_SHAPE (2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) s = dl_searchsorted (u, q, FALSE, FALSE, o, &error);

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (l), ==, DL_DTYPE_INT64);
  g_assert_cmpint (dl_tensor_get_dtype (r), ==, DL_DTYPE_INT32);
  dl_test_assert_values (l, left, 4, 0);
  dl_test_assert_values (r, right, 4, 0);
  dl_test_assert_values (s, found, 2, 0);
  g_assert_null (dl_searchsorted (b, q, FALSE, FALSE, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_null (dl_searchsorted (u, q, FALSE, FALSE, v, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/index/gather", test_gather);
  g_test_add_func ("/index/scatter", test_scatter);
  g_test_add_func ("/index/scatter-reduce", test_scatter_reduce);
  g_test_add_func ("/index/scatter-with-reduce", test_scatter_with_reduce);
  g_test_add_func ("/index/scatter-reduce-extremes", test_scatter_reduce_extremes);
  g_test_add_func ("/index/scatter-reduce-nan", test_scatter_reduce_nan);
  g_test_add_func ("/index/scatter-with-reduce-no-grad", test_scatter_with_reduce_no_grad);
  for (gsize i = 0; i < G_N_ELEMENTS (scatter_reduce_grads); i++)
    {
      g_autofree gchar *path
          = g_strdup_printf ("/index/scatter-reduce-grad/%s", scatter_reduce_grads[i].name);
      g_test_add_data_func (path, &scatter_reduce_grads[i], dl_test_gradcheck);
    }
  g_test_add_func ("/index/unique-dim", test_unique_dim);
  g_test_add_func ("/index/gather-threaded", test_gather_threaded);
  g_test_add_func ("/index/where-masks-nonzero", test_where_and_masks);
  g_test_add_func ("/index/index-put", test_index_and_put);
  g_test_add_func ("/index/cat-flip-roll-tril", test_cat_flip_roll_tril);
  g_test_add_func ("/index/split-views", test_split_views);
  g_test_add_func ("/index/errors", test_errors);
  g_test_add_func ("/index/reduce-errors", test_reduce_errors);
  g_test_add_func ("/index/searchsorted", test_searchsorted);
  return g_test_run ();
}

/* dl-cpu-scan.c: cumulative sums and products, stable sorts, row scatters
 * and the grouping of a sorted array, over contiguous rows.
 *
 * Reference semantics, for each row r of n elements:
 *   scan:    x[r, j] = x[r, 0] op ... op x[r, j]  (floats accumulate in
 *            double, integers in int64)
 *   sort:    a stable merge sort of the row, NaN greater than every number;
 *            indices[r, j] = the original position of the j-th element;
 *            asked for only the k first, a quickselect moves them to the
 *            front and sorts them, or only puts the k-th in place (the row
 *            stays a permutation)
 *   scatter: out[r, index[r, j]] = src[r, j] (or +=)
 *   cummax:  x[r, j] = max (x[r, 0..j]), NaN winning, the last on ties
 *   gather:  out[r, j] = src[r, index[r, j]]
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <omp.h>

#include "dl-cpu-private.h"

void
dl_cpu_scan (DlBackendContext *ctx, DlScanOp op, void *data, gint64 n_rows, gint64 n, DlDType dt)
{
  gsize es = dl_dtype_get_size (dt);
  gboolean fp = dl_dtype_is_floating_point (dt);

  DL_CPU_FOR_IF (
      n_rows > 1 && n_rows * n >= DL_CPU_GRAIN, for (gint64 r = 0; r < n_rows; r++) {
        char *row = (char *)data + r * n * es;

        if (fp)
          {
            gdouble acc = op == DL_SCAN_CUMSUM ? 0 : 1;
            for (gint64 j = 0; j < n; j++)
              {
                gdouble v = dl_cpu_load_f (row + j * es, dt);
                acc = op == DL_SCAN_CUMSUM ? acc + v : acc * v;
                dl_cpu_store_f (row + j * es, dt, acc);
              }
          }
        else
          {
            gint64 acc = op == DL_SCAN_CUMSUM ? 0 : 1;
            for (gint64 j = 0; j < n; j++)
              {
                gint64 v = dl_cpu_load_i (row + j * es, dt);
                acc = op == DL_SCAN_CUMSUM ? (gint64)((guint64)acc + (guint64)v)
                                           : (gint64)((guint64)acc * (guint64)v);
                dl_cpu_store_i (row + j * es, dt, acc);
              }
          }
      });
}

/* A key and the position it came from: sorting the pairs keeps the reads
 * sequential. Integer keys are kept exact in i; float keys in f. */
typedef struct
{
  union
  {
    gdouble f;
    gint64 i;
  } key;
  gint64 pos;
} SortItem;

/* Whether item a goes strictly before item b (NaN greatest). */
static inline gboolean
before (const SortItem *a, const SortItem *b, gboolean fp, gboolean desc)
{
  if (fp)
    {
      gdouble x = a->key.f, y = b->key.f;
      gboolean xn = isnan (x), yn = isnan (y);

      if (desc)
        return (xn && !yn) || x > y;
      return (!xn && yn) || x < y;
    }
  return desc ? a->key.i > b->key.i : a->key.i < b->key.i;
}

#define SORT_RUN 16

/* Stable sort of items[0..n): insertion sort of short runs, then bottom-up
 * merges that take from the left run on ties; tmp has room for n items. */
static void
stable_sort (SortItem *items, SortItem *tmp, gint64 n, gboolean fp, gboolean desc)
{
  SortItem *src = items, *dst = tmp;

  for (gint64 lo = 0; lo < n; lo += SORT_RUN)
    {
      gint64 hi = MIN (lo + SORT_RUN, n);
      for (gint64 i = lo + 1; i < hi; i++)
        {
          SortItem it = items[i];
          gint64 j = i;
          while (j > lo && before (&it, &items[j - 1], fp, desc))
            {
              items[j] = items[j - 1];
              j--;
            }
          items[j] = it;
        }
    }
  for (gint64 width = SORT_RUN; width < n; width *= 2)
    {
      for (gint64 lo = 0; lo < n; lo += 2 * width)
        {
          gint64 mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n);
          gint64 i = lo, j = mid, k = lo;

          while (i < mid && j < hi)
            dst[k++] = before (&src[j], &src[i], fp, desc) ? src[j++] : src[i++];
          while (i < mid)
            dst[k++] = src[i++];
          while (j < hi)
            dst[k++] = src[j++];
        }
      {
        SortItem *t = src;
        src = dst;
        dst = t;
      }
    }
  if (src != items)
    memcpy (items, src, n * sizeof (SortItem));
}

/* The strict order of items with positions breaking ties: the order a
 * stable sort gives. */
static inline gboolean
before_lex (const SortItem *a, const SortItem *b, gboolean fp, gboolean desc)
{
  if (before (a, b, fp, desc))
    return TRUE;
  if (before (b, a, fp, desc))
    return FALSE;
  return a->pos < b->pos;
}

/* Moves the k first items (in before_lex order) to items[0..k), the k-th
 * of them to items[k - 1] and the others in some order: quickselect with
 * Hoare partitions. */
static void
select_first (SortItem *items, gint64 n, gint64 k, gboolean fp, gboolean desc)
{
  gint64 lo = 0, hi = n - 1, target = k - 1;

  while (lo < hi)
    {
      SortItem p = items[lo + (hi - lo) / 2];
      gint64 i = lo, j = hi;

      while (i <= j)
        {
          while (before_lex (&items[i], &p, fp, desc))
            i++;
          while (before_lex (&p, &items[j], fp, desc))
            j--;
          if (i <= j)
            {
              SortItem t = items[i];
              items[i] = items[j];
              items[j] = t;
              i++;
              j--;
            }
        }
      if (target <= j)
        hi = j;
      else if (target >= i)
        lo = i;
      else
        break;
    }
}

static int
cmp_pos (const void *a, const void *b)
{
  gint64 x = ((const SortItem *)a)->pos, y = ((const SortItem *)b)->pos;

  return (x > y) - (x < y);
}

void
dl_cpu_sort (DlBackendContext *ctx,
             void *data,
             void *indices,
             gint64 n_rows,
             gint64 n,
             gint64 k,
             gboolean kth_only,
             DlDType dt,
             gboolean descending)
{
  gsize es = dl_dtype_get_size (dt);
  gboolean fp = dl_dtype_is_floating_point (dt);
  gboolean partial = k < n && n > 64 && (kth_only || k * 4 < n * 3);

  if (n == 0)
    return;
  DL_CPU_PARALLEL_IF (n_rows > 1 && n_rows * n >= DL_CPU_GRAIN / 4, {
    char *orig = g_malloc (n * es);
    SortItem *items = g_new (SortItem, n);
    SortItem *tmp = g_new (SortItem, n);

    _Pragma ("omp for schedule(static)") for (gint64 r = 0; r < n_rows; r++)
    {
      char *row = (char *)data + r * n * es;
      gint64 *idx = (gint64 *)indices + r * n;

      memcpy (orig, row, n * es);
      for (gint64 j = 0; j < n; j++)
        {
          items[j].pos = j;
          if (fp)
            items[j].key.f = dl_cpu_load_f (orig + j * es, dt);
          else
            items[j].key.i = dl_cpu_load_i (orig + j * es, dt);
        }
      if (partial)
        {
          /* the k first, back in their original order, then sorted
           * stably: the same as a full stable sort's prefix */
          select_first (items, n, k, fp, descending);
          if (!kth_only)
            {
              qsort (items, k, sizeof (SortItem), cmp_pos);
              stable_sort (items, tmp, k, fp, descending);
            }
        }
      else
        stable_sort (items, tmp, n, fp, descending);
      for (gint64 j = 0; j < n; j++)
        {
          idx[j] = items[j].pos;
          memcpy (row + j * es, orig + items[j].pos * es, es);
        }
    }
    g_free (orig);
    g_free (items);
    g_free (tmp);
  });
}

void
dl_cpu_scan_extremum (DlBackendContext *ctx,
                      void *data,
                      void *indices,
                      gint64 n_rows,
                      gint64 n,
                      DlDType dt,
                      gboolean is_max)
{
  gsize es = dl_dtype_get_size (dt);
  gboolean fp = dl_dtype_is_floating_point (dt);

  DL_CPU_FOR_IF (
      n_rows > 1 && n_rows * n >= DL_CPU_GRAIN, for (gint64 r = 0; r < n_rows; r++) {
        char *row = (char *)data + r * n * es;
        gint64 *idx = (gint64 *)indices + r * n;
        gint64 at = 0;

        if (fp)
          {
            gdouble best = n > 0 ? dl_cpu_load_f (row, dt) : 0;
            for (gint64 j = 0; j < n; j++)
              {
                gdouble v = dl_cpu_load_f (row + j * es, dt);
                if (isnan (v) || (!isnan (best) && (is_max ? v >= best : v <= best)))
                  {
                    best = v;
                    at = j;
                  }
                dl_cpu_store_f (row + j * es, dt, best);
                idx[j] = at;
              }
          }
        else
          {
            gint64 best = n > 0 ? dl_cpu_load_i (row, dt) : 0;
            for (gint64 j = 0; j < n; j++)
              {
                gint64 v = dl_cpu_load_i (row + j * es, dt);
                if (is_max ? v >= best : v <= best)
                  {
                    best = v;
                    at = j;
                  }
                dl_cpu_store_i (row + j * es, dt, best);
                idx[j] = at;
              }
          }
      });
}

void
dl_cpu_scatter_rows (DlBackendContext *ctx,
                     void *out,
                     const void *src,
                     const void *index,
                     gint64 n_rows,
                     gint64 n_src,
                     gint64 n_out,
                     DlDType dt,
                     gboolean accumulate)
{
  gsize es = dl_dtype_get_size (dt);
  gboolean fp = dl_dtype_is_floating_point (dt);

  DL_CPU_FOR_IF (
      n_rows > 1 && n_rows * n_src >= DL_CPU_GRAIN,
      for (gint64 r = 0; r < n_rows; r++) for (gint64 j = 0; j < n_src; j++) {
        gint64 k = ((const gint64 *)index)[r * n_src + j];
        char *o = (char *)out + (r * n_out + k) * es;
        const char *x = (const char *)src + (r * n_src + j) * es;

        if (k < 0 || k >= n_out)
          continue;
        if (!accumulate)
          memcpy (o, x, es);
        else if (fp)
          dl_cpu_store_f (o, dt, dl_cpu_load_f (o, dt) + dl_cpu_load_f (x, dt));
        else
          dl_cpu_store_i (o, dt, dl_cpu_load_i (o, dt) + dl_cpu_load_i (x, dt));
      });
}

void
dl_cpu_gather_rows (DlBackendContext *ctx,
                    void *out,
                    const void *src,
                    const void *index,
                    gint64 n_rows,
                    gint64 n_out,
                    gint64 n_src,
                    DlDType dt)
{
  gsize es = dl_dtype_get_size (dt);

  DL_CPU_FOR_IF (
      n_rows > 1 && n_rows * n_out >= DL_CPU_GRAIN,
      for (gint64 r = 0; r < n_rows; r++) for (gint64 j = 0; j < n_out; j++) {
        gint64 k = ((const gint64 *)index)[r * n_out + j];
        if (k >= 0 && k < n_src)
          memcpy ((char *)out + (r * n_out + j) * es, (const char *)src + (r * n_src + k) * es, es);
      });
}

void
dl_cpu_unique_sorted (DlBackendContext *ctx,
                      const void *sorted,
                      gint64 n,
                      DlDType dt,
                      void *values,
                      void *counts_out,
                      void *group_out,
                      gint64 *n_groups)
{
  gsize es = dl_dtype_get_size (dt);
  gboolean fp = dl_dtype_is_floating_point (dt);
  const char *p = sorted;
  gint64 *counts = counts_out, *group = group_out;
  gint64 g = -1;

  for (gint64 i = 0; i < n; i++)
    {
      gboolean same
          = i > 0
            && (fp ? dl_cpu_load_f (p + i * es, dt) == dl_cpu_load_f (p + (i - 1) * es, dt)
                   : dl_cpu_load_i (p + i * es, dt) == dl_cpu_load_i (p + (i - 1) * es, dt));
      if (!same)
        {
          g++;
          memcpy ((char *)values + g * es, p + i * es, es);
          counts[g] = 0;
        }
      counts[g]++;
      group[i] = g;
    }
  *n_groups = g + 1;
}

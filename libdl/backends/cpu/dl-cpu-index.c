/* dl-cpu-index.c: gather/scatter along a dim (plain, or reducing with a
 * sum, product, max or min) and nonzero.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

/* The loop nest over the index tensor's shape runs as rows of its last
 * dim: row_start() finds a row's first elements, the inner loops stride. */
typedef struct
{
  const DlIndexArgs *a;
  gint nd;
  gint64 n_inner;
  gint64 s_inner, o_inner, i_inner; /* byte strides along the last dim */
  gint64 istride;                   /* self's stride along the indexed dim */
  gboolean inner_is_dim;            /* the last dim is the indexed one */
} Rows;

static void
rows_init (Rows *r, const DlIndexArgs *a)
{
  gint last = a->ndim - 1;

  r->a = a;
  r->nd = a->ndim;
  r->n_inner = a->ndim > 0 ? a->shape[last] : 1;
  r->inner_is_dim = last == a->dim;
  r->s_inner = a->ndim > 0 && !r->inner_is_dim ? a->self_strides[last] : 0;
  r->o_inner = a->ndim > 0 ? a->other_strides[last] : 0;
  r->i_inner = a->ndim > 0 ? a->index_strides[last] : 0;
  r->istride = a->self_strides[a->dim];
}

static void
row_start (const Rows *r, gint64 row, gint64 *so, gint64 *oo, gint64 *io)
{
  const DlIndexArgs *a = r->a;

  *so = *oo = *io = 0;
  for (gint d = r->nd - 2; d >= 0; d--)
    {
      gint64 p = row % a->shape[d];
      row /= a->shape[d];
      if (d != a->dim)
        *so += p * a->self_strides[d];
      *oo += p * a->other_strides[d];
      *io += p * a->index_strides[d];
    }
}

static gint64
rows_count (const Rows *r)
{
  gint64 n = 1;

  for (gint d = 0; d < r->nd - 1; d++)
    n *= r->a->shape[d];
  return r->n_inner == 0 ? 0 : n;
}

static gboolean
check_rows (const Rows *r, gint64 n_rows, gint64 *bad)
{
  for (gint64 row = 0; row < n_rows; row++)
    {
      gint64 so, oo, io;
      const char *ip;

      row_start (r, row, &so, &oo, &io);
      ip = r->a->index + io;
      for (gint64 j = 0; j < r->n_inner; j++)
        {
          gint64 i = *(const gint64 *)(ip + j * r->i_inner);
          if (G_UNLIKELY (i < 0 || i >= r->a->dim_size))
            {
              *bad = i;
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* one row of a gather (SCATTER false) or scatter of elements of type T,
 * over the columns [j0, j1) */
#define MOVE_ROW(T, SCATTER)                                                                       \
  for (gint64 j = j0; j < j1; j++)                                                                 \
    {                                                                                              \
      gint64 i = *(const gint64 *)(ip + j * r->i_inner);                                           \
      T *sp = (T *)(sb + j * r->s_inner + i * r->istride);                                         \
      T *op = (T *)(ob + j * r->o_inner);                                                          \
      if (SCATTER)                                                                                 \
        *sp = *op;                                                                                 \
      else                                                                                         \
        *op = *sp;                                                                                 \
    }

static void
move_rows_part (const Rows *r,
                gint64 begin,
                gint64 end,
                gint64 j0,
                gint64 j1,
                gsize es,
                gboolean scatter)
{
  for (gint64 row = begin; row < end; row++)
    {
      gint64 so, oo, io;
      char *sb, *ob;
      const char *ip;

      row_start (r, row, &so, &oo, &io);
      sb = r->a->self + so;
      ob = r->a->other + oo;
      ip = r->a->index + io;
      switch (es)
        {
          case 1:
            if (scatter)
              {
                MOVE_ROW (guint8, TRUE)
              }
            else
              {
                MOVE_ROW (guint8, FALSE)
              }
            break;
          case 2:
            if (scatter)
              {
                MOVE_ROW (guint16, TRUE)
              }
            else
              {
                MOVE_ROW (guint16, FALSE)
              }
            break;
          case 4:
            if (scatter)
              {
                MOVE_ROW (guint32, TRUE)
              }
            else
              {
                MOVE_ROW (guint32, FALSE)
              }
            break;
          default:
            if (scatter)
              {
                MOVE_ROW (guint64, TRUE)
              }
            else
              {
                MOVE_ROW (guint64, FALSE)
              }
            break;
        }
    }
}

static void
move_rows (const Rows *r, gint64 begin, gint64 end, gsize es, gboolean scatter)
{
  move_rows_part (r, begin, end, 0, r->n_inner, es, scatter);
}

static void
add_element (char *dst, const char *src, DlDType dtype)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        *(float *)dst += *(const float *)src;
        break;
      case DL_DTYPE_FLOAT64:
        *(double *)dst += *(const double *)src;
        break;
      case DL_DTYPE_FLOAT16:
        *(dl_half *)dst = (dl_half)((float)*(dl_half *)dst + (float)*(const dl_half *)src);
        break;
      case DL_DTYPE_BFLOAT16:
        *(dl_bf16 *)dst = dl_float_to_bf16 (dl_bf16_to_float (*(dl_bf16 *)dst)
                                            + dl_bf16_to_float (*(const dl_bf16 *)src));
        break;
      case DL_DTYPE_INT32:
        *(gint32 *)dst = (gint32)((guint32) * (gint32 *)dst + (guint32) * (const gint32 *)src);
        break;
      case DL_DTYPE_INT64:
        *(gint64 *)dst = (gint64)((guint64) * (gint64 *)dst + (guint64) * (const gint64 *)src);
        break;
      case DL_DTYPE_UINT8:
        *(guint8 *)dst += *(const guint8 *)src;
        break;
      case DL_DTYPE_BOOL:
        *(guint8 *)dst = *(guint8 *)dst || *(const guint8 *)src;
        break;
    }
}

/* A float result, rounded to float first for a 16-bit float, as the
 * 16-bit kernels round through float. */
static inline void
store_float (char *p, DlDType dtype, gdouble v)
{
  dl_cpu_store_f (p, dtype, dtype == DL_DTYPE_FLOAT16 ? (gdouble)(float)v : v);
}

/* dst = dst (op) src for one element of a reducing scatter. The float ops
 * run in double, exact for the product of two floats and rounded once
 * more for a sum, which gives the float result (double has more than
 * 2 * 24 + 2 bits); bool's 0 and 1 make product, max and min the logic
 * and, or, and. */
static void
reduce_element (DlIndexOp op, char *dst, const char *src, DlDType dtype)
{
  if (op == DL_INDEX_SCATTER_ADD)
    add_element (dst, src, dtype);
  else if (dl_dtype_is_floating_point (dtype))
    {
      gdouble a = dl_cpu_load_f (dst, dtype), b = dl_cpu_load_f (src, dtype);

      if (op == DL_INDEX_SCATTER_MUL)
        a *= b;
      else if (isnan (b) || (op == DL_INDEX_SCATTER_AMAX ? b > a : b < a))
        a = b; /* once a is NaN, no comparison replaces it */
      store_float (dst, dtype, a);
    }
  else
    {
      gint64 a = dl_cpu_load_i (dst, dtype), b = dl_cpu_load_i (src, dtype);

      if (op == DL_INDEX_SCATTER_MUL)
        a = (gint64)((guint64)a * (guint64)b);
      else if (op == DL_INDEX_SCATTER_AMAX ? b > a : b < a)
        a = b;
      dl_cpu_store_i (dst, dtype, (guint64)a);
    }
}

/* The value x with x (op) y = y for every y of the dtype. */
static void
store_identity (DlIndexOp op, char *dst, DlDType dtype)
{
  gint64 lowest = 0, highest = 1;

  if (dl_dtype_is_floating_point (dtype))
    {
      store_float (dst, dtype,
                   op == DL_INDEX_SCATTER_ADD    ? 0
                   : op == DL_INDEX_SCATTER_MUL  ? 1
                   : op == DL_INDEX_SCATTER_AMAX ? -INFINITY
                                                 : INFINITY);
      return;
    }
  switch (dtype)
    {
      case DL_DTYPE_INT32:
        lowest = G_MININT32;
        highest = G_MAXINT32;
        break;
      case DL_DTYPE_INT64:
        lowest = G_MININT64;
        highest = G_MAXINT64;
        break;
      case DL_DTYPE_UINT8:
        highest = G_MAXUINT8;
        break;
      default: /* bool */
        break;
    }
  dl_cpu_store_i (dst, dtype,
                  (guint64)(op == DL_INDEX_SCATTER_ADD    ? 0
                            : op == DL_INDEX_SCATTER_MUL  ? 1
                            : op == DL_INDEX_SCATTER_AMAX ? lowest
                                                          : highest));
}

/* A reducing scatter, element by element in the index's order. With
 * exclude_self, a first pass puts the identity at every place the index
 * names. */
static void
reduce_rows (const Rows *r, gint64 n_rows, DlIndexOp op, DlDType dtype)
{
  const DlIndexArgs *a = r->a;

  for (gint pass = a->exclude_self ? 0 : 1; pass < 2; pass++)
    for (gint64 row = 0; row < n_rows; row++)
      {
        gint64 so, oo, io;

        row_start (r, row, &so, &oo, &io);
        for (gint64 j = 0; j < r->n_inner; j++)
          {
            gint64 i = *(const gint64 *)(a->index + io + j * r->i_inner);
            char *dst = a->self + so + j * r->s_inner + i * r->istride;

            if (pass == 0)
              store_identity (op, dst, dtype);
            else
              reduce_element (op, dst, a->other + oo + j * r->o_inner, dtype);
          }
      }
}

/* The reference kernel: one pass checks every index, a second moves the
 * elements. Gathers write each output once and run threaded above
 * DL_CPU_GRAIN elements; scatters may write one place several times and
 * run on one thread. */
void
dl_cpu_index (DlBackendContext *ctx,
              DlIndexOp op,
              const DlIndexArgs *args,
              DlDType dtype,
              DlKernelStatus *status)
{
  gsize es = dl_dtype_get_size (dtype);
  Rows r;
  gint64 n_rows, bad;

  rows_init (&r, args);
  n_rows = rows_count (&r);
  if (!check_rows (&r, n_rows, &bad))
    {
      if (status->error == DL_KERNEL_OK)
        {
          status->error = DL_KERNEL_INDEX_OUT_OF_BOUNDS;
          status->value = bad;
        }
      return;
    }
  switch (op)
    {
      case DL_INDEX_GATHER:
        {
          gint64 total = n_rows * r.n_inner;
          gint nt = total >= DL_CPU_GRAIN ? dl_cpu_team_threads () : 1;

          if (nt <= 1)
            move_rows (&r, 0, n_rows, es, FALSE);
          else if (n_rows >= nt)
            {
#pragma omp parallel for num_threads(nt) schedule(static, 1)
              for (gint t = 0; t < nt; t++)
                move_rows (&r, n_rows * t / nt, n_rows * (t + 1) / nt, es, FALSE);
            }
          else
            {
              /* few long rows (a 1-d gather): split each row's columns */
              for (gint64 row = 0; row < n_rows; row++)
                {
#pragma omp parallel for num_threads(nt) schedule(static, 1)
                  for (gint t = 0; t < nt; t++)
                    move_rows_part (&r, row, row + 1, r.n_inner * t / nt, r.n_inner * (t + 1) / nt,
                                    es, FALSE);
                }
            }
        }
        break;
      case DL_INDEX_SCATTER:
        move_rows (&r, 0, n_rows, es, TRUE);
        break;
      case DL_INDEX_SCATTER_ADD:
      case DL_INDEX_SCATTER_MUL:
      case DL_INDEX_SCATTER_AMAX:
      case DL_INDEX_SCATTER_AMIN:
        reduce_rows (&r, n_rows, op, dtype);
        break;
    }
}

static inline gboolean
is_nonzero (const char *p, DlDType dtype)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        return *(const float *)p != 0;
      case DL_DTYPE_FLOAT64:
        return *(const double *)p != 0;
      case DL_DTYPE_FLOAT16:
        return (float)*(const dl_half *)p != 0;
      case DL_DTYPE_BFLOAT16:
        return dl_bf16_to_float (*(const dl_bf16 *)p) != 0;
      case DL_DTYPE_INT32:
        return *(const gint32 *)p != 0;
      case DL_DTYPE_INT64:
        return *(const gint64 *)p != 0;
      case DL_DTYPE_UINT8:
      case DL_DTYPE_BOOL:
        return *(const guint8 *)p != 0;
    }
  return FALSE;
}

/* Counts (and lists, in row-major order) the nonzero elements: rows of
 * the last dim, with the coordinates of the outer dims kept as a counter. */
static gint64
nonzero (const char *data,
         DlDType dtype,
         gint ndim,
         const gint64 *shape,
         const gint64 *strides,
         gint64 *out)
{
  gint64 pos[DL_MAX_DIMS] = { 0 };
  gint64 rows = 1, count = 0, n_inner, s_inner;
  gint last = ndim - 1;

  if (ndim == 0)
    {
      if (is_nonzero (data, dtype))
        count = 1;
      return count;
    }
  for (gint d = 0; d < last; d++)
    rows *= shape[d];
  n_inner = shape[last];
  s_inner = strides[last];
  if (n_inner == 0)
    return 0;
  for (gint64 row = 0; row < rows; row++)
    {
      const char *p = data;

      for (gint d = 0; d < last; d++)
        p += pos[d] * strides[d];
      if (out == NULL && (dtype == DL_DTYPE_BOOL || dtype == DL_DTYPE_UINT8))
        {
          /* counting only: branch-free */
          for (gint64 j = 0; j < n_inner; j++)
            count += *(const guint8 *)(p + j * s_inner) != 0;
        }
      else if (dtype == DL_DTYPE_BOOL || dtype == DL_DTYPE_UINT8)
        {
          /* branch-free compaction of the positions through a small buffer
           * (one slot of slack for the unconditional store): a random mask
           * would mispredict every other branch */
          gint64 buf[1025];

          for (gint64 j0 = 0; j0 < n_inner; j0 += 1024)
            {
              gint64 j1 = MIN (j0 + 1024, n_inner), k = 0;

              for (gint64 j = j0; j < j1; j++)
                {
                  buf[k] = j;
                  k += *(const guint8 *)(p + j * s_inner) != 0;
                }
              for (gint64 q = 0; q < k; q++)
                {
                  gint64 *o = out + (count + q) * ndim;
                  for (gint d = 0; d < last; d++)
                    o[d] = pos[d];
                  o[last] = buf[q];
                }
              count += k;
            }
        }
      else
        for (gint64 j = 0; j < n_inner; j++)
          if (is_nonzero (p + j * s_inner, dtype))
            {
              if (out)
                {
                  gint64 *o = out + count * ndim;
                  for (gint d = 0; d < last; d++)
                    o[d] = pos[d];
                  o[last] = j;
                }
              count++;
            }
      for (gint d = last - 1; d >= 0; d--)
        {
          if (++pos[d] < shape[d])
            break;
          pos[d] = 0;
        }
    }
  return count;
}

void
dl_cpu_nonzero (DlBackendContext *ctx,
                const char *data,
                DlDType dtype,
                gint ndim,
                const gint64 *shape,
                const gint64 *strides,
                gint64 *count,
                gint64 *out)
{
  gint64 n = nonzero (data, dtype, ndim, shape, strides, out);

  if (out == NULL)
    *count = n;
}

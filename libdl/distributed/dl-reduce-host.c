/* dl-reduce-host.c: element-wise reductions of host buffers, for the
 * engines that lack a dtype (float16 and bfloat16 in MPI) and for AVG.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled into libdl and into each engine module (whose copies stay
 * hidden), like dl-stream-allocator.c in the CUDA module.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "backends/cpu/dl-cpu-private.h"
#include "distributed/dl-distributed-private.h"

const gchar *
dl_reduce_op_kind_name (DlReduceOpKind op)
{
  switch (op)
    {
      case DL_REDUCE_OP_KIND_SUM:
        return "sum";
      case DL_REDUCE_OP_KIND_PRODUCT:
        return "product";
      case DL_REDUCE_OP_KIND_MIN:
        return "min";
      case DL_REDUCE_OP_KIND_MAX:
        return "max";
      case DL_REDUCE_OP_KIND_AVG:
        return "avg";
    }
  return "unknown";
}

/* x = x op y on one C type; NaN propagates through min and max as in
 * torch (a NaN on either rank gives NaN) */
#define REDUCE_LOOP(T, OP, io, in, n)                                                              \
  G_STMT_START                                                                                     \
  {                                                                                                \
    T *x_ = (T *)(io);                                                                             \
    const T *y_ = (const T *)(in);                                                                 \
    for (gsize i_ = 0; i_ < (n); i_++)                                                             \
      {                                                                                            \
        T a = x_[i_], b = y_[i_];                                                                  \
        x_[i_] = OP;                                                                               \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

#define REDUCE_TYPED(T, op, io, in, n, ok)                                                         \
  G_STMT_START                                                                                     \
  {                                                                                                \
    switch (op)                                                                                    \
      {                                                                                            \
        case DL_REDUCE_OP_KIND_SUM:                                                                \
          REDUCE_LOOP (T, a + b, io, in, n);                                                       \
          break;                                                                                   \
        case DL_REDUCE_OP_KIND_PRODUCT:                                                            \
          REDUCE_LOOP (T, a *b, io, in, n);                                                        \
          break;                                                                                   \
        case DL_REDUCE_OP_KIND_MIN:                                                                \
          REDUCE_LOOP (T, (a != a || a < b) ? a : b, io, in, n);                                   \
          break;                                                                                   \
        case DL_REDUCE_OP_KIND_MAX:                                                                \
          REDUCE_LOOP (T, (a != a || a > b) ? a : b, io, in, n);                                   \
          break;                                                                                   \
        default:                                                                                   \
          ok = FALSE;                                                                              \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

static gboolean
reduce_bf16 (DlReduceOpKind op, dl_bf16 *x, const dl_bf16 *y, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      float a = dl_bf16_to_float (x[i]), b = dl_bf16_to_float (y[i]), r;

      switch (op)
        {
          case DL_REDUCE_OP_KIND_SUM:
            r = a + b;
            break;
          case DL_REDUCE_OP_KIND_PRODUCT:
            r = a * b;
            break;
          case DL_REDUCE_OP_KIND_MIN:
            r = (isnan (a) || a < b) ? a : b;
            break;
          case DL_REDUCE_OP_KIND_MAX:
            r = (isnan (a) || a > b) ? a : b;
            break;
          default:
            return FALSE;
        }
      x[i] = dl_float_to_bf16 (r);
    }
  return TRUE;
}

gboolean
dl_reduce_host (DlDType dtype, DlReduceOpKind op, gpointer inout, gconstpointer in, gsize count)
{
  gboolean ok = TRUE;

  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        REDUCE_TYPED (float, op, inout, in, count, ok);
        break;
      case DL_DTYPE_FLOAT64:
        REDUCE_TYPED (double, op, inout, in, count, ok);
        break;
      case DL_DTYPE_FLOAT16:
        REDUCE_TYPED (dl_half, op, inout, in, count, ok);
        break;
      case DL_DTYPE_BFLOAT16:
        return reduce_bf16 (op, inout, in, count);
      case DL_DTYPE_INT32:
        /* wrapping, as the engines' integer sums wrap */
        if (op == DL_REDUCE_OP_KIND_SUM)
          REDUCE_LOOP (gint32, (gint32)((guint32)a + (guint32)b), inout, in, count);
        else if (op == DL_REDUCE_OP_KIND_PRODUCT)
          REDUCE_LOOP (gint32, (gint32)((guint32)a * (guint32)b), inout, in, count);
        else
          REDUCE_TYPED (gint32, op, inout, in, count, ok);
        break;
      case DL_DTYPE_INT64:
        if (op == DL_REDUCE_OP_KIND_SUM)
          REDUCE_LOOP (gint64, (gint64)((guint64)a + (guint64)b), inout, in, count);
        else if (op == DL_REDUCE_OP_KIND_PRODUCT)
          REDUCE_LOOP (gint64, (gint64)((guint64)a * (guint64)b), inout, in, count);
        else
          REDUCE_TYPED (gint64, op, inout, in, count, ok);
        break;
      case DL_DTYPE_UINT8:
        REDUCE_TYPED (guint8, op, inout, in, count, ok);
        break;
      case DL_DTYPE_BOOL:
        if (op == DL_REDUCE_OP_KIND_SUM || op == DL_REDUCE_OP_KIND_MAX)
          REDUCE_LOOP (guint8, (a || b) ? 1 : 0, inout, in, count);
        else if (op == DL_REDUCE_OP_KIND_PRODUCT || op == DL_REDUCE_OP_KIND_MIN)
          REDUCE_LOOP (guint8, (a && b) ? 1 : 0, inout, in, count);
        else
          ok = FALSE;
        break;
      default:
        ok = FALSE;
    }
  return ok;
}

gboolean
dl_reduce_host_divide (DlDType dtype, gpointer buf, gsize count, gint divisor)
{
  /* by a power of two the product with its inverse is exact, the same
   * value as the quotient: AVG over 2, 4, 8 ... ranks multiplies, which is
   * several times faster than dividing; over one rank nothing changes */
  gboolean exact_inverse = (divisor & (divisor - 1)) == 0;
  const float inv32 = 1.0f / (float)divisor;
  const double inv64 = 1.0 / (double)divisor;

  g_return_val_if_fail (divisor > 0, FALSE);
  if (divisor == 1)
    count = 0; /* only the dtype's check below */
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        if (exact_inverse)
          for (gsize i = 0; i < count; i++)
            ((float *)buf)[i] *= inv32;
        else
          for (gsize i = 0; i < count; i++)
            ((float *)buf)[i] /= (float)divisor;
        return TRUE;
      case DL_DTYPE_FLOAT64:
        if (exact_inverse)
          for (gsize i = 0; i < count; i++)
            ((double *)buf)[i] *= inv64;
        else
          for (gsize i = 0; i < count; i++)
            ((double *)buf)[i] /= (double)divisor;
        return TRUE;
      case DL_DTYPE_FLOAT16:
        for (gsize i = 0; i < count; i++)
          ((dl_half *)buf)[i] = (dl_half)((float)((dl_half *)buf)[i] / (float)divisor);
        return TRUE;
      case DL_DTYPE_BFLOAT16:
        for (gsize i = 0; i < count; i++)
          ((dl_bf16 *)buf)[i]
              = dl_float_to_bf16 (dl_bf16_to_float (((dl_bf16 *)buf)[i]) / (float)divisor);
        return TRUE;
      case DL_DTYPE_INT32:
        for (gsize i = 0; i < count; i++)
          ((gint32 *)buf)[i] /= divisor;
        return TRUE;
      case DL_DTYPE_INT64:
        for (gsize i = 0; i < count; i++)
          ((gint64 *)buf)[i] /= divisor;
        return TRUE;
      case DL_DTYPE_UINT8:
        for (gsize i = 0; i < count; i++)
          ((guint8 *)buf)[i] = (guint8)(((guint8 *)buf)[i] / divisor);
        return TRUE;
      default:
        return FALSE;
    }
}

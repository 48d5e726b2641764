/* dl-cpu-index.c: gather/scatter along a dim, masked copy and nonzero.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

/* Walks the index tensor's shape with an odometer; calls body with the
 * byte offsets of self (without the indexed dim), other and index. */
#define DL_INDEX_LOOP(args, BODY)                                              \
  G_STMT_START                                                                 \
  {                                                                            \
    gint64 pos_[DL_MAX_DIMS] = { 0 };                                          \
    gint64 total_ = 1;                                                         \
    gint nd_ = (args)->ndim;                                                   \
    for (gint d_ = 0; d_ < nd_; d_++)                                          \
      total_ *= (args)->shape[d_];                                             \
    for (gint64 it_ = 0; it_ < total_; it_++)                                  \
      {                                                                        \
        gint64 so = 0, oo = 0, io = 0;                                         \
        for (gint d_ = 0; d_ < nd_; d_++)                                      \
          {                                                                    \
            if (d_ != (args)->dim)                                             \
              so += pos_[d_] * (args)->self_strides[d_];                       \
            oo += pos_[d_] * (args)->other_strides[d_];                        \
            io += pos_[d_] * (args)->index_strides[d_];                        \
          }                                                                    \
        BODY;                                                                  \
        for (gint d_ = nd_ - 1; d_ >= 0; d_--)                                 \
          {                                                                    \
            if (++pos_[d_] < (args)->shape[d_])                                \
              break;                                                           \
            pos_[d_] = 0;                                                      \
          }                                                                    \
      }                                                                        \
  }                                                                            \
  G_STMT_END

static void
add_element (char       *dst,
             const char *src,
             DlDType     dtype)
{
  switch (dtype)
    {
    case DL_DTYPE_FLOAT32: *(float *) dst += *(const float *) src; break;
    case DL_DTYPE_FLOAT64: *(double *) dst += *(const double *) src; break;
    case DL_DTYPE_FLOAT16: *(dl_half *) dst = (dl_half) ((float) *(dl_half *) dst
                                                         + (float) *(const dl_half *) src); break;
    case DL_DTYPE_BFLOAT16:
      *(dl_bf16 *) dst = dl_float_to_bf16 (dl_bf16_to_float (*(dl_bf16 *) dst)
                                           + dl_bf16_to_float (*(const dl_bf16 *) src));
      break;
    case DL_DTYPE_INT32:
      *(gint32 *) dst = (gint32) ((guint32) *(gint32 *) dst + (guint32) *(const gint32 *) src);
      break;
    case DL_DTYPE_INT64:
      *(gint64 *) dst = (gint64) ((guint64) *(gint64 *) dst + (guint64) *(const gint64 *) src);
      break;
    case DL_DTYPE_UINT8: *(guint8 *) dst += *(const guint8 *) src; break;
    case DL_DTYPE_BOOL: *(guint8 *) dst = *(guint8 *) dst || *(const guint8 *) src; break;
    }
}

/* The reference kernel: one pass checks every index, a second moves the
 * elements (single-threaded: scatters may write one place several times). */
gboolean
dl_cpu_index (DlIndexOp          op,
              const DlIndexArgs *args,
              DlDType            dtype,
              gint64            *bad)
{
  gsize es = dl_dtype_get_size (dtype);
  gint64 istride = args->self_strides[args->dim];

  DL_INDEX_LOOP (args, {
    gint64 i = *(const gint64 *) (args->index + io);
    (void) so;
    (void) oo;
    if (i < 0 || i >= args->dim_size)
      {
        *bad = i;
        return FALSE;
      }
  });
  switch (op)
    {
    case DL_INDEX_GATHER:
      DL_INDEX_LOOP (args, {
        gint64 i = *(const gint64 *) (args->index + io);
        memcpy (args->other + oo, args->self + so + i * istride, es);
      });
      break;
    case DL_INDEX_SCATTER:
      DL_INDEX_LOOP (args, {
        gint64 i = *(const gint64 *) (args->index + io);
        memcpy (args->self + so + i * istride, args->other + oo, es);
      });
      break;
    case DL_INDEX_SCATTER_ADD:
      DL_INDEX_LOOP (args, {
        gint64 i = *(const gint64 *) (args->index + io);
        add_element (args->self + so + i * istride, args->other + oo, dtype);
      });
      break;
    }
  return TRUE;
}

static void
masked_copy_loop (char         **data,
                  const gint64  *strides,
                  gint64         n,
                  gpointer       ctx)
{
  gsize es = GPOINTER_TO_SIZE (ctx);
  char *out = data[0];
  const char *mask = data[1], *src = data[2];

  for (gint64 i = 0; i < n; i++)
    if (*(const guint8 *) (mask + i * strides[1]))
      memcpy (out + i * strides[0], src + i * strides[2], es);
}

/* out = mask ? src : out */
void
dl_cpu_masked_copy (DlIter  *iter,
                    DlDType  dtype)
{
  dl_cpu_iter_for_each (iter, masked_copy_loop, GSIZE_TO_POINTER (dl_dtype_get_size (dtype)));
}

static gboolean
is_nonzero (const char *p,
            DlDType     dtype)
{
  switch (dtype)
    {
    case DL_DTYPE_FLOAT32: return *(const float *) p != 0;
    case DL_DTYPE_FLOAT64: return *(const double *) p != 0;
    case DL_DTYPE_FLOAT16: return (float) *(const dl_half *) p != 0;
    case DL_DTYPE_BFLOAT16: return dl_bf16_to_float (*(const dl_bf16 *) p) != 0;
    case DL_DTYPE_INT32: return *(const gint32 *) p != 0;
    case DL_DTYPE_INT64: return *(const gint64 *) p != 0;
    case DL_DTYPE_UINT8:
    case DL_DTYPE_BOOL: return *(const guint8 *) p != 0;
    }
  return FALSE;
}

/* Counts (and lists, in row-major order) the nonzero elements. */
gint64
dl_cpu_nonzero (const char   *data,
                DlDType       dtype,
                gint          ndim,
                const gint64 *shape,
                const gint64 *strides,
                gint64       *out)
{
  gint64 pos[DL_MAX_DIMS] = { 0 };
  gint64 total = 1, count = 0;

  for (gint d = 0; d < ndim; d++)
    total *= shape[d];
  for (gint64 it = 0; it < total; it++)
    {
      gint64 off = 0;

      for (gint d = 0; d < ndim; d++)
        off += pos[d] * strides[d];
      if (is_nonzero (data + off, dtype))
        {
          if (out)
            for (gint d = 0; d < ndim; d++)
              out[count * ndim + d] = pos[d];
          count++;
        }
      for (gint d = ndim - 1; d >= 0; d--)
        {
          if (++pos[d] < shape[d])
            break;
          pos[d] = 0;
        }
    }
  return count;
}

/* dl-meta-backend.c: the meta device, whose tensors have a shape, a dtype
 * and strides but no data.
 *
 * Every op above the backend runs as on any device: it checks shapes,
 * dtypes and devices, works out its output's geometry, allocates it and
 * records autograd; here the allocation takes no memory (the storage
 * records its size and has no data pointer, see dl_storage_new) and each
 * kernel returns at once. What would read values back to the host (item,
 * printing's values, to_bytes, the counts of nonzero and unique) the ops
 * layer refuses for a meta backend (DlBackend.meta), so no slot here ever
 * touches memory. The slots that size an output from values (nonzero,
 * unique_sorted) and the draws whose checks need values (multinomial) stay
 * NULL: those ops fail with DL_ERROR_NOT_SUPPORTED, as PyTorch's do on
 * meta tensors.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "backends/dl-backend.h"

/* memory: never called for tensor storage (dl_storage_new makes none on a
 * meta device); a raw allocation that someone does ask for fails */
static gpointer
meta_raw_alloc (DlBackendContext *ctx, gsize nbytes)
{
  return NULL;
}

static void
meta_raw_free (DlBackendContext *ctx, gpointer ptr, gsize nbytes)
{
}

/* writes to the device (a factory's values, a copy from the CPU) have
 * nowhere to go; reads from it are refused above (dl_tensor_copy_to_host) */
static void
meta_copy_bytes (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
}

/* the kernels: each computes nothing */

static void
meta_copy (DlBackendContext *ctx, DlIter *iter, DlDType dst_dtype, DlDType src_dtype)
{
}

static void
meta_fill (DlBackendContext *ctx, DlIter *iter, DlDType dtype, gdouble value)
{
}

static void
meta_unary (DlBackendContext *ctx, DlUnaryOp op, DlIter *iter, DlDType dtype)
{
}

static void
meta_binary (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype, gdouble alpha)
{
}

static void
meta_unary_params (DlBackendContext *ctx,
                   DlUnaryOp op,
                   DlIter *iter,
                   DlDType dtype,
                   const gdouble *params)
{
}

static void
meta_ternary (DlBackendContext *ctx,
              DlTernaryOp op,
              DlIter *iter,
              DlDType dtype,
              const gdouble *params)
{
}

static void
meta_reduce (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dtype)
{
}

static void
meta_gemm_batched (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *args)
{
}

static void
meta_index (DlBackendContext *ctx,
            DlIndexOp op,
            const DlIndexArgs *args,
            DlDType dtype,
            DlKernelStatus *status)
{
}

static void
meta_scan (DlBackendContext *ctx, DlScanOp op, void *data, gint64 n_rows, gint64 n, DlDType dtype)
{
}

static void
meta_sort (DlBackendContext *ctx,
           void *data,
           void *indices,
           gint64 n_rows,
           gint64 n,
           gint64 k,
           gboolean kth_only,
           DlDType dtype,
           gboolean descending)
{
}

static void
meta_scan_extremum (DlBackendContext *ctx,
                    void *data,
                    void *indices,
                    gint64 n_rows,
                    gint64 n,
                    DlDType dtype,
                    gboolean is_max)
{
}

static void
meta_scatter_rows (DlBackendContext *ctx,
                   void *out,
                   const void *src,
                   const void *index,
                   gint64 n_rows,
                   gint64 n_src,
                   gint64 n_out,
                   DlDType dtype,
                   gboolean accumulate)
{
}

static void
meta_gather_rows (DlBackendContext *ctx,
                  void *out,
                  const void *src,
                  const void *index,
                  gint64 n_rows,
                  gint64 n_out,
                  gint64 n_src,
                  DlDType dtype)
{
}

static void
meta_random (DlBackendContext *ctx,
             DlRandomOp op,
             void *data,
             gint64 n,
             DlDType dtype,
             const DlRandomDraw *draw,
             gdouble a,
             gdouble b)
{
}

static void
meta_random_params (DlBackendContext *ctx,
                    DlRandomParamsOp op,
                    const gdouble *a,
                    const gdouble *b,
                    void *data,
                    gint64 n,
                    DlDType dtype,
                    const DlRandomDraw *draw)
{
}

static void
meta_softmax (DlBackendContext *ctx,
              const void *in,
              void *out,
              gint64 n_rows,
              gint64 n,
              DlDType dtype,
              gboolean log)
{
}

static void
meta_im2col (DlBackendContext *ctx,
             const DlConvGeometry *g,
             const void *image,
             void *cols,
             DlDType dtype)
{
}

static void
meta_optim_step (DlBackendContext *ctx, const DlOptimStepArgs *args, DlDType dtype)
{
}

static void
meta_max_pool2d (DlBackendContext *ctx,
                 const DlConvGeometry *g,
                 const void *image,
                 void *out,
                 gint64 *indices,
                 DlDType dtype)
{
}

static void
meta_norm (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
}

static void
meta_max_pool2d_backward (DlBackendContext *ctx,
                          const DlConvGeometry *g,
                          const void *grad_out,
                          const gint64 *indices,
                          void *grad_in,
                          DlDType dtype)
{
}

static void
meta_resample (DlBackendContext *ctx,
               const DlResampleArgs *a,
               const void *in,
               void *out,
               DlDType dtype)
{
}

static void
meta_resample_max (DlBackendContext *ctx,
                   const DlResampleArgs *a,
                   const void *in,
                   void *out,
                   gint64 *indices,
                   DlDType dtype)
{
}

static void
meta_dropout (DlBackendContext *ctx,
              const void *in,
              void *out,
              guint8 *mask,
              gint64 n,
              gdouble p,
              DlDType dtype,
              const DlRandomDraw *draw)
{
}

static void
meta_conv2d (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype)
{
}

static void
meta_attention (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype)
{
}

static void
meta_attention_dropout_mask (DlBackendContext *ctx,
                             const DlAttentionArgs *args,
                             void *mask,
                             DlDType dtype)
{
}

static void
meta_rnn (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype)
{
}

static const DlBackend meta_backend = {
  .name = "meta",
  .host_memory = FALSE,
  .meta = TRUE,
  .raw_alloc = meta_raw_alloc,
  .raw_free = meta_raw_free,
  .copy_to_host = meta_copy_bytes,
  .copy_from_host = meta_copy_bytes,
  .copy = meta_copy,
  .fill = meta_fill,
  .unary = meta_unary,
  .binary = meta_binary,
  .unary_params = meta_unary_params,
  .ternary = meta_ternary,
  .reduce = meta_reduce,
  .gemm_batched = meta_gemm_batched,
  .index = meta_index,
  .scan = meta_scan,
  .sort = meta_sort,
  .scan_extremum = meta_scan_extremum,
  .scatter_rows = meta_scatter_rows,
  .gather_rows = meta_gather_rows,
  .random = meta_random,
  .random_params = meta_random_params,
  .softmax = meta_softmax,
  /* col2im has im2col's signature with the roles swapped */
  .im2col = meta_im2col,
  .col2im = meta_im2col,
  .optim_step = meta_optim_step,
  .max_pool2d = meta_max_pool2d,
  .norm_forward = meta_norm,
  .norm_backward = meta_norm,
  .max_pool2d_backward = meta_max_pool2d_backward,
  .resample = meta_resample,
  .resample_adjoint = meta_resample,
  .resample_max = meta_resample_max,
  .dropout = meta_dropout,
  .conv2d_forward = meta_conv2d,
  .conv2d_backward = meta_conv2d,
  .attention_forward = meta_attention,
  .attention_backward = meta_attention,
  .attention_dropout_mask = meta_attention_dropout_mask,
  .rnn_forward = meta_rnn,
  .rnn_backward = meta_rnn,
};

/* "meta": one unnumbered device, no per-device state, nothing cached */
void
dl_meta_get_device_type_info (DlDeviceTypeInfo *info)
{
  *info = (DlDeviceTypeInfo){
    .type = "meta",
    .device_type = DL_DEVICE_TYPE_META,
    .backend = &meta_backend,
    .indexed = FALSE,
  };
}

/* dl-cpu-norm.c: batch, group and layer normalisation (see DlNormArgs).
 *
 * Forward, per set of m elements that share statistics (a channel over the
 * batch for batch norm, a sample's group of channels for group norm, a row
 * for layer norm), two passes over data that stays in cache, the sums in
 * eight lanes and added up in double (PyTorch's CPU kernels accumulate
 * float32 in double too), then one pass for the output:
 *   mean = sum x / m,  var = sum (x - mean)^2 / m,  rstd = 1 / sqrt (var + eps)
 *   y = x * scale + shift,  scale = rstd w,  shift = b - mean scale
 * Backward (PyTorch's native_batch_norm_backward / native_layer_norm_backward
 * / native_group_norm_backward), from the sums of dy and dy (x - mean):
 *   xhat = (x - mean) rstd
 *   dx = rstd (w dy - mean (w dy) - xhat mean (w dy xhat))
 *      = w rstd dy + c2 x + c3  (c2, c3 constant over the set)
 *   dweight = sum dy xhat,  dbias = sum dy  (over everything but the channel)
 * In eval mode batch norm's statistics are constants: dx = w rstd dy.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

/* channels per block of batch norm over [n, c] (one value per channel and
 * sample) */
#define NORM_BLOCK 64

#define T float
#define SFX(name) name##_f32
#include "dl-cpu-norm-body.h"
#undef T
#undef SFX

#define T double
#define SFX(name) name##_f64
#include "dl-cpu-norm-body.h"
#undef T
#undef SFX

void
dl_cpu_norm_forward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (dtype == DL_DTYPE_FLOAT64)
    norm_forward_f64 (args);
  else
    norm_forward_f32 (args);
}

void
dl_cpu_norm_backward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (dtype == DL_DTYPE_FLOAT64)
    norm_backward_f64 (args);
  else
    norm_backward_f32 (args);
}

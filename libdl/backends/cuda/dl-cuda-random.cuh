/* dl-cuda-random.cuh: the per-thread work of the CUDA module's random
 * slots (dl-cuda-random.cu), as inline functions that nvcc compiles for
 * the device and g++ for the host (tests/c/test-cuda-random.cpp runs them
 * over host memory and compares them with the CPU backend's slots).
 *
 * The numbers are dl-philox.h's, the functions the CPU backend draws
 * from; this file only decides which thread computes what and stores it
 * as the CPU does (dl_cuda_store rounds to the 16-bit floats as the CPU's
 * conversions do). One thread computes one Philox block: the 2 or 4
 * elements that the block's numbers fill, as the CPU's loop does.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "backends/dl-philox.h"
#include "dl-cuda-kernels.cuh"

/* the Philox blocks that a request of n numbers of dtype @dt uses */
DL_HD int64_t
dl_cuda_random_blocks (int64_t n, DlDType dt)
{
  const int per_block = dl_philox_per_block (dt == DL_DTYPE_FLOAT64);

  return (n + per_block - 1) / per_block;
}

/* block @blk of a random request (uniform, normal or bernoulli) into the
 * contiguous @data of n elements of a float dtype */
DL_HD void
dl_cuda_random_block (DlRandomOp op,
                      DlDType dt,
                      char *data,
                      int64_t n,
                      uint64_t seed,
                      uint64_t offset,
                      int64_t blk,
                      double a,
                      double b)
{
  const int wide = dt == DL_DTYPE_FLOAT64;
  const int per_block = dl_philox_per_block (wide);
  const int64_t base = blk * per_block;
  const int64_t es = dt == DL_DTYPE_FLOAT64 ? 8 : dt == DL_DTYPE_FLOAT32 ? 4 : 2;
  double u[4];

  dl_philox_block ((DlPhiloxKind)op, seed, offset, blk, wide, a, b, u);
  for (int j = 0; j < per_block && base + j < n; j++)
    dl_cuda_store (data + (base + j) * es, dt, u[j]);
}

/* block @blk of a dropout of n contiguous elements (float or double):
 * out = in * scale where kept, 0 elsewhere; mask nullable */
template <typename T>
DL_HD void
dl_cuda_dropout_block (const T *in,
                       T *out,
                       uint8_t *mask,
                       int64_t n,
                       double p,
                       T scale,
                       uint64_t seed,
                       uint64_t offset,
                       int64_t blk)
{
  const int wide = sizeof (T) == 8;
  const int per_block = dl_philox_per_block (wide);
  const int64_t base = blk * per_block;
  int keep[4];

  dl_philox_dropout_block (seed, offset, blk, wide, p, keep);
  for (int j = 0; j < per_block && base + j < n; j++)
    {
      out[base + j] = keep[j] ? in[base + j] * scale : (T)0;
      if (mask)
        mask[base + j] = (uint8_t)keep[j];
    }
}

/* the dropout's scale of the kept elements, as the CPU computes it */
template <typename T>
DL_HD T
dl_cuda_dropout_scale (double p)
{
  return p < 1.0 ? (T)(1.0 / (1.0 - p)) : (T)0;
}

/* element @i of the attention dropout mask [n_batch, l, s] (contiguous):
 * the scale dl_philox_attention_scale gives it, in T */
template <typename T>
DL_HD void
dl_cuda_attention_mask_elem (T *mask, int64_t s, uint64_t seed, uint64_t offset, double p, int64_t i)
{
  mask[i] = (T)dl_philox_attention_scale (seed, offset, s, i / s, i % s, p);
}

/* element i of a random_params request (DlRandomParamsOp @op, parameters
 * a[i] and b[i], b NULL but for binomial) into the contiguous @data of a
 * float dtype: its own Philox stream, as the CPU draws it */
DL_HD void
dl_cuda_random_params_elem (int op,
                            DlDType dt,
                            char *data,
                            const double *a,
                            const double *b,
                            uint64_t seed,
                            uint64_t offset,
                            int64_t i)
{
  const int64_t es = dt == DL_DTYPE_FLOAT64 ? 8 : dt == DL_DTYPE_FLOAT32 ? 4 : 2;
  const double tiny = dl_philox_tiny (dt == DL_DTYPE_FLOAT64, dt == DL_DTYPE_FLOAT16);

  dl_cuda_store (data + i * es, dt,
                 dl_philox_params_elem (op, seed, offset, i, a[i], b ? b[i] : 0, tiny));
}

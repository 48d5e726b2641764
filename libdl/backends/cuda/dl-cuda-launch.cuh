/* dl-cuda-launch.cuh: how the kernels of the
 * CUDA module spread their items over threads: blocks of
 * DL_CUDA_LAUNCH_THREADS threads, at most 65535 of them, each thread
 * taking items i, i + the grid's threads, ... (a grid-stride loop).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>

#define DL_CUDA_LAUNCH_THREADS 256

/* the blocks to launch for @items items */
static inline unsigned
dl_cuda_launch_blocks (int64_t items)
{
  const int64_t most = 65535;
  int64_t blocks = (items + DL_CUDA_LAUNCH_THREADS - 1) / DL_CUDA_LAUNCH_THREADS;

  return (unsigned)(blocks < most ? blocks : most);
}

/* a launch's grid and block sizes for @items items:
 *   kernel<<<DL_CUDA_GRID (n), 0, stream>>> (...) */
#define DL_CUDA_GRID(items) dl_cuda_launch_blocks (items), DL_CUDA_LAUNCH_THREADS

/* the items of [0, items) that the calling thread takes */
#define DL_CUDA_EACH(i, items)                                                                     \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (items);                    \
       i += (int64_t)blockDim.x * gridDim.x)

#ifdef __CUDACC__
/* The kernel of every launch that runs one item per thread: each thread
 * calls Body (args..., i) for its items i of [0, items). Body is a
 * per-item function of the kernel bodies' headers (host-tested there):
 *   dl_cuda_each<dl_cuda_im2col_elem<T>>
 *       <<<DL_CUDA_GRID (total), 0, stream>>> (total, g, image, cols); */
template <auto Body, typename... Args>
__global__ void
dl_cuda_each (int64_t items, Args... args)
{
  DL_CUDA_EACH (i, items)
  Body (args..., i);
}
#endif

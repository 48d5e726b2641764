/* dl-cuda-blas.c: the CUDA module's gemm_batched slot, through cuBLAS
 * (float32, float64, float16, bfloat16; the 16-bit floats accumulate in
 * float32, float32 in full float32 precision: no TF32). cuBLAS has no
 * integer GEMM of these types: int32, int64 and uint8 go to a kernel of
 * one thread an output (dl_cuda_gemm_int in dl-cuda-kernels.cu).
 *
 * How each product maps onto a column-major cuBLAS call is
 * dl_cuda_gemm_plan() (dl-cuda-gemm-plan.h), which the host test checks.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <cublas_v2.h>
#include <gmodule.h>
#include <string.h>

#include "dl-error.h"

#include "dl-cuda-gemm-plan.h"
#include "dl-cuda-kernels.h"
#include "dl-cuda-private.h"

/* cuBLAS is opened when the module finds a device (dl_cuda_blas_load),
 * not linked: a machine without a GPU never maps its 700 MB, and the
 * module loads where the driver is missing (libcublas' $ORIGIN runpath
 * also trips valgrind's checks of ld.so). The functions used: */
static struct
{
  __typeof__ (cublasCreate_v2) *create;
  __typeof__ (cublasDestroy_v2) *destroy;
  __typeof__ (cublasSetStream_v2) *set_stream;
  __typeof__ (cublasSetMathMode) *set_math_mode;
  __typeof__ (cublasGetStatusString) *status_string;
  __typeof__ (cublasGemmStridedBatchedEx_64) *gemm;
} cublas;

#define CUBLAS_SONAME "libcublas.so." G_STRINGIFY (CUBLAS_VER_MAJOR)

gboolean
dl_cuda_blas_load (GError **error)
{
  static const struct
  {
    const gchar *name;
    gsize offset;
  } symbols[] = {
    { "cublasCreate_v2", G_STRUCT_OFFSET (__typeof__ (cublas), create) },
    { "cublasDestroy_v2", G_STRUCT_OFFSET (__typeof__ (cublas), destroy) },
    { "cublasSetStream_v2", G_STRUCT_OFFSET (__typeof__ (cublas), set_stream) },
    { "cublasSetMathMode", G_STRUCT_OFFSET (__typeof__ (cublas), set_math_mode) },
    { "cublasGetStatusString", G_STRUCT_OFFSET (__typeof__ (cublas), status_string) },
    { "cublasGemmStridedBatchedEx_64", G_STRUCT_OFFSET (__typeof__ (cublas), gemm) },
  };
  GModule *module;

  if (cublas.gemm)
    return TRUE;
  /* the loader's path first, then the toolkit the module was built with */
  module = g_module_open (CUBLAS_SONAME, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    module = g_module_open (DL_CUDA_LIBDIR G_DIR_SEPARATOR_S CUBLAS_SONAME, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "cuBLAS (%s) cannot be loaded: %s",
                   CUBLAS_SONAME, g_module_error ());
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (symbols); i++)
    if (!g_module_symbol (module, symbols[i].name,
                          (gpointer *)G_STRUCT_MEMBER_P (&cublas, symbols[i].offset))
        || G_STRUCT_MEMBER (gpointer, &cublas, symbols[i].offset) == NULL)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "cuBLAS (%s) has no %s", CUBLAS_SONAME,
                     symbols[i].name);
        memset (&cublas, 0, sizeof cublas);
        g_module_close (module);
        return FALSE;
      }
  /* kept open for the process's life, as a linked library is */
  return TRUE;
}

/* one cuBLAS handle per device, made on the device's first product */
#define MAX_DEVICES 64
static cublasHandle_t handles[MAX_DEVICES];
static GMutex handles_lock;

static cublasHandle_t
get_handle (gint device)
{
  cublasHandle_t h;

  g_return_val_if_fail (device >= 0 && device < MAX_DEVICES, NULL);
  g_mutex_lock (&handles_lock);
  if (handles[device] == NULL)
    {
      cublasStatus_t st = cublas.create (&handles[device]);

      if (st != CUBLAS_STATUS_SUCCESS)
        {
          g_warning ("cublasCreate on device %d: %s", device, cublas.status_string (st));
          handles[device] = NULL;
        }
      else
        /* the default; pinned here so that float32 never drops to TF32 */
        cublas.set_math_mode (handles[device], CUBLAS_DEFAULT_MATH);
    }
  h = handles[device];
  g_mutex_unlock (&handles_lock);
  return h;
}

void
dl_cuda_blas_clear (gint device)
{
  g_mutex_lock (&handles_lock);
  if (device >= 0 && device < MAX_DEVICES && handles[device])
    {
      cublas.destroy (handles[device]);
      handles[device] = NULL;
    }
  g_mutex_unlock (&handles_lock);
}

void
dl_cuda_gemm_batched (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *g)
{
  cudaDataType_t type;
  cublasComputeType_t compute;
  gsize es = dl_dtype_get_size (dtype);
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void *one = &one_f, *zero = &zero_f;
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  DlCudaGemmPlan p;
  gint64 idx[DL_MAX_DIMS] = { 0 };
  cublasHandle_t handle;

  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        type = CUDA_R_32F;
        compute = CUBLAS_COMPUTE_32F;
        break;
      case DL_DTYPE_FLOAT64:
        type = CUDA_R_64F;
        compute = CUBLAS_COMPUTE_64F;
        one = &one_d;
        zero = &zero_d;
        break;
      case DL_DTYPE_FLOAT16:
        type = CUDA_R_16F;
        compute = CUBLAS_COMPUTE_32F;
        break;
      case DL_DTYPE_BFLOAT16:
        type = CUDA_R_16BF;
        compute = CUBLAS_COMPUTE_32F;
        break;
      case DL_DTYPE_INT32:
      case DL_DTYPE_INT64:
      case DL_DTYPE_UINT8:
        dl_cuda_gemm_int (ctx, dtype, g);
        return;
      default:
        g_return_if_reached (); /* matmul refuses bool */
    }
  for (gint d = 0; d < g->batch_ndim; d++)
    if (g->batch_shape[d] == 0)
      return;
  if (g->m == 0 || g->n == 0)
    return;
  handle = get_handle (ctx->device_index);
  if (handle == NULL)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  cublas.set_stream (handle, stream);

  dl_cuda_gemm_plan (g, &p);
  for (gint64 i = 0; i < p.n_outer; i++)
    {
      gint64 oa = 0, ob = 0, oc = 0;
      cublasStatus_t st = CUBLAS_STATUS_SUCCESS;

      for (gint d = 0; d < p.outer_ndim; d++)
        {
          oa += idx[d] * g->a_batch_strides[d];
          ob += idx[d] * g->b_batch_strides[d];
          oc += idx[d] * g->c_batch_strides[d];
        }
      if (g->k == 0 && g->accumulate)
        ; /* an empty sum added to C */
      else if (g->k == 0)
        /* an empty sum: every product of the batch is zeros */
        for (gint64 j = 0; j < p.count; j++)
          DL_CUDA_CHECK (cudaMemset2DAsync (g->c + (oc + j * p.sc) * es, p.ldc * es, 0, g->n * es,
                                            g->m, stream));
      else
        st = cublas.gemm (handle, p.trans_x ? CUBLAS_OP_T : CUBLAS_OP_N,
                          p.trans_y ? CUBLAS_OP_T : CUBLAS_OP_N, p.m, p.n, p.k, one, g->b + ob * es,
                          type, p.ldx, p.sx, g->a + oa * es, type, p.ldy, p.sy,
                          g->accumulate ? one : zero, g->c + oc * es, type, p.ldc, p.sc, p.count,
                          compute, CUBLAS_GEMM_DEFAULT);
      if (st != CUBLAS_STATUS_SUCCESS)
        g_warning ("cublasGemmStridedBatchedEx (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                   " x %" G_GINT64_FORMAT "): %s",
                   g->m, g->n, g->k, cublas.status_string (st));
      for (gint d = p.outer_ndim - 1; d >= 0; d--)
        {
          if (++idx[d] < g->batch_shape[d])
            break;
          idx[d] = 0;
        }
    }
}

void
dl_cuda_gemm_ex (DlBackendContext *ctx, DlDType dtype, const DlCudaGemmEx *g)
{
  const gboolean wide = dtype == DL_DTYPE_FLOAT64;
  const cudaDataType_t type = wide ? CUDA_R_64F : CUDA_R_32F;
  const gsize es = wide ? 8 : 4;
  const float one_f = 1, beta_f = (float)g->beta;
  const double one_d = 1;
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  cublasHandle_t handle;
  cublasStatus_t st;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || wide);
  if (g->m == 0 || g->n == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (g->k == 0)
    {
      /* an empty sum: c = beta c */
      if (g->beta == 0)
        DL_CUDA_CHECK (cudaMemset2DAsync (g->c, g->ldc * es, 0, g->n * es, g->m, stream));
      return;
    }
  handle = get_handle (ctx->device_index);
  if (handle == NULL)
    return;
  cublas.set_stream (handle, stream);
  /* row-major c is column-major c^T = op (b)^T op (a)^T: b first, its
   * row-major storage read column-major being its transpose */
  st = cublas.gemm (handle, g->tb ? CUBLAS_OP_T : CUBLAS_OP_N, g->ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                    g->n, g->m, g->k, wide ? (const void *)&one_d : (const void *)&one_f, g->b,
                    type, g->ldb, 0, g->a, type, g->lda, 0,
                    wide ? (const void *)&g->beta : (const void *)&beta_f, g->c, type, g->ldc, 0, 1,
                    wide ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS)
    g_warning ("cublasGemmStridedBatchedEx (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
               " x %" G_GINT64_FORMAT "): %s",
               g->m, g->n, g->k, cublas.status_string (st));
}

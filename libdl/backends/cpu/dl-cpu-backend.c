/* dl-cpu-backend.c: the CPU backend's vtable, memory, and loop driver.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <omp.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "dl-cpu-private.h"

gint64 dl_cpu_grain = 32768;
DlCpuIsa dl_cpu_isa = DL_CPU_ISA_BASELINE;

/* The best x86-64 level this CPU runs (baseline elsewhere), whatever
 * DL_CPU_ISA says */
DlCpuIsa
dl_cpu_hardware_isa (void)
{
  DlCpuIsa isa = DL_CPU_ISA_BASELINE;

#ifdef DL_CPU_ISA_LEVELS
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("x86-64-v4"))
    isa = DL_CPU_ISA_V4;
  else if (__builtin_cpu_supports ("x86-64-v3"))
    isa = DL_CPU_ISA_V3;
#endif
  return isa;
}

static DlCpuIsa
detect_isa (void)
{
  DlCpuIsa isa = dl_cpu_hardware_isa ();
  const gchar *cap = g_getenv ("DL_CPU_ISA");

  if (g_strcmp0 (cap, "x86-64") == 0)
    isa = DL_CPU_ISA_BASELINE;
  else if (g_strcmp0 (cap, "x86-64-v3") == 0)
    isa = MIN (isa, DL_CPU_ISA_V3);
  return isa;
}

#define HUGE_PAGE ((gsize)2 << 20)

static gpointer
cpu_raw_alloc (DlBackendContext *ctx, gsize nbytes)
{
  void *p = NULL;
  gsize align = nbytes >= HUGE_PAGE ? HUGE_PAGE : 64;

  if (posix_memalign (&p, align, MAX (nbytes, 64)) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  if (align == HUGE_PAGE)
    madvise (p, nbytes / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
  return p;
}

static void
cpu_raw_free (DlBackendContext *ctx, gpointer ptr, gsize nbytes)
{
  free (ptr);
}

static void
cpu_memcpy (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  memcpy (dst, src, nbytes);
}

/* The threads of the calling thread's parallel regions: OpenMP's count,
 * which the OpenMP OpenBLAS libdl calls follows too */
gint
dl_cpu_get_num_threads (void)
{
  return omp_get_max_threads ();
}

void
dl_cpu_set_num_threads (gint n)
{
  omp_set_num_threads (n);
}

/* MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6) bits */
#define DL_MXCSR_FTZ_DAZ 0x8040u

/* Sets or clears FTZ and DAZ in the calling thread and in the threads of
 * its OpenMP pool: every thread of the region, the calling one included,
 * sets its own register (threads the pool starts later begin from the
 * calling thread's floating-point environment, as POSIX threads inherit
 * it). FALSE where the CPU has no MXCSR. */
gboolean
dl_cpu_set_flush_denormal (gboolean on)
{
#if defined(__SSE__) || defined(__x86_64__)
  gint nt = omp_get_max_threads ();

#pragma omp parallel num_threads(nt)
  {
    guint csr = _mm_getcsr ();
    _mm_setcsr (on ? csr | DL_MXCSR_FTZ_DAZ : csr & ~DL_MXCSR_FTZ_DAZ);
  }
  return TRUE;
#else
  (void)on;
  return FALSE;
#endif
}

/* Runs loop over the flat index range [begin, end) of iter. */
static void
run_range (const DlIter *it, gint64 begin, gint64 end, DlCpuLoop loop, gpointer ctx)
{
  gint nd = it->ndim, nops = it->n_operands;
  gint64 idx[DL_MAX_DIMS];
  gint64 inner_strides[nops];
  char *base[nops];
  gint64 rem = begin;

  for (gint k = 0; k < nops; k++)
    inner_strides[k] = it->strides[k][nd - 1];
  if (nd == 1)
    {
      /* one loop (the common case once dims coalesce): no index to keep */
      for (gint k = 0; k < nops; k++)
        base[k] = it->data[k] + begin * inner_strides[k];
      loop (base, inner_strides, end - begin, ctx);
      return;
    }
  for (gint d = nd - 1; d >= 0; d--)
    {
      idx[d] = rem % it->shape[d];
      rem /= it->shape[d];
    }

  while (begin < end)
    {
      gint64 n = MIN (it->shape[nd - 1] - idx[nd - 1], end - begin);

      for (gint k = 0; k < nops; k++)
        {
          char *p = it->data[k];
          for (gint d = 0; d < nd; d++)
            p += idx[d] * it->strides[k][d];
          base[k] = p;
        }
      loop (base, inner_strides, n, ctx);
      begin += n;
      idx[nd - 1] += n;
      for (gint d = nd - 1; d > 0 && idx[d] >= it->shape[d]; d--)
        {
          idx[d] = 0;
          idx[d - 1]++;
        }
    }
}

void
dl_cpu_iter_for_each (const DlIter *it, DlCpuLoop loop, gpointer ctx)
{
  dl_cpu_iter_for_each_cost (it, loop, ctx, 1);
}

void
dl_cpu_iter_for_each_cost (const DlIter *it, DlCpuLoop loop, gpointer ctx, guint cost)
{
  gint64 total = dl_iter_numel (it), work;
  DlCpuTeamClock clock;
  gint nt;

  if (total == 0)
    return;
  /* the grain counts elements of a cheap op; an element of @cost weighs
   * that many (bench/grain.py) */
  work = total * (gint64)MAX (cost, 1);
  nt = work >= DL_CPU_GRAIN ? dl_cpu_team_threads () : 1;
  nt = (gint)MIN ((gint64)nt, work / (DL_CPU_GRAIN / 2) + 1);
  nt = (gint)MIN ((gint64)nt, total / 64 + 1);
  if (nt <= 1)
    {
      run_range (it, 0, total, loop, ctx);
      return;
    }
  dl_cpu_team_fork (&clock, nt);
#pragma omp parallel for num_threads(nt) schedule(static, 1)
  for (gint t = 0; t < nt; t++)
    {
      /* split on 64-element boundaries so threads never share a cache line
       * of a contiguous output */
      gint64 b = total * t / nt, e = total * (t + 1) / nt;
      dl_cpu_team_arrive (&clock, t);
      b = t == 0 ? 0 : b & ~(gint64)63;
      e = t == nt - 1 ? total : e & ~(gint64)63;
      if (b < e)
        run_range (it, b, e, loop, ctx);
    }
  dl_cpu_team_join (&clock);
}

static const DlBackend cpu_backend = {
  .name = "cpu",
  .host_memory = TRUE,
  .raw_alloc = cpu_raw_alloc,
  .raw_free = cpu_raw_free,
  .copy_to_host = cpu_memcpy,
  .copy_from_host = cpu_memcpy,
  .synchronize = NULL,
  .copy = dl_cpu_copy,
  .fill = dl_cpu_fill,
  .unary = dl_cpu_unary,
  .binary = dl_cpu_binary,
  .unary_params = dl_cpu_math_unary,
  .ternary = dl_cpu_ternary,
  .reduce = dl_cpu_reduce,
  .scan = dl_cpu_scan,
  .sort = dl_cpu_sort,
  .scan_extremum = dl_cpu_scan_extremum,
  .scatter_rows = dl_cpu_scatter_rows,
  .gather_rows = dl_cpu_gather_rows,
  .unique_sorted = dl_cpu_unique_sorted,
  .softmax = dl_cpu_softmax,
  .im2col = dl_cpu_im2col,
  .col2im = dl_cpu_col2im,
  .max_pool2d = dl_cpu_max_pool2d,
  .norm_forward = dl_cpu_norm_forward,
  .norm_backward = dl_cpu_norm_backward,
  .max_pool2d_backward = dl_cpu_max_pool2d_backward,
  .resample = dl_cpu_resample,
  .resample_adjoint = dl_cpu_resample_adjoint,
  .resample_max = dl_cpu_resample_max,
  .dropout = dl_cpu_dropout,
  .optim_step = dl_cpu_optim_step,
  .gemm_batched = dl_cpu_gemm_batched,
  .lapack = dl_cpu_lapack,
  .random = dl_cpu_random,
  .random_params = dl_cpu_random_params,
  .multinomial = dl_cpu_multinomial,
  .index = dl_cpu_index,
  .nonzero = dl_cpu_nonzero,
  .conv2d_forward = dl_cpu_conv2d_forward,
  .conv2d_backward = dl_cpu_conv2d_backward,
  .attention_forward = dl_cpu_attention_forward,
  .attention_backward = dl_cpu_attention_backward,
  .attention_dropout_mask = dl_cpu_attention_dropout_mask,
  .rnn_forward = dl_cpu_rnn_forward,
  .rnn_backward = dl_cpu_rnn_backward,
};

/* The CPU device's context: no state of its own; opening it picks the
 * BLAS and the instruction set level. */
static gboolean
cpu_context_init (DlBackendContext *ctx, GError **error)
{
  dl_cpu_blas_init ();
  dl_cpu_isa = detect_isa ();
  return TRUE;
}

/* The CPU as Linux describes it: its model name (the first "model name"
 * line of /proc/cpuinfo, "cpu" where there is none), the physical memory
 * and the logical processors. */
static void
cpu_get_info (const DlBackendContext *ctx, DlDeviceInfo *info)
{
  g_autofree gchar *text = NULL;
  g_auto (GStrv) lines = NULL;
  glong pages = sysconf (_SC_PHYS_PAGES), page_size = sysconf (_SC_PAGESIZE);

  if (g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL))
    lines = g_strsplit (text, "\n", -1);
  for (gchar **l = lines; l && *l; l++)
    {
      gchar *colon = strchr (*l, ':');

      if (g_str_has_prefix (*l, "model name") && colon)
        {
          g_strlcpy (info->product_name, g_strstrip (colon + 1), sizeof info->product_name);
          break;
        }
    }
  info->total_memory = pages > 0 && page_size > 0 ? (guint64)pages * (guint64)page_size : 0;
  info->multi_processor_count = (gint)g_get_num_processors ();
}

static guint64
cpu_cache_limit (void)
{
  const gchar *env = g_getenv ("DL_CPU_CACHE_LIMIT");

  if (env)
    return g_ascii_strtoull (env, NULL, 10);
  return (guint64)2 << 30;
}

/* "cpu": one unnumbered device; blocks from 256 KiB up are cached (a
 * fresh large block costs a page fault per 4 KiB on first touch), up to
 * DL_CPU_CACHE_LIMIT bytes (2 GiB). */
void
dl_cpu_get_device_type_info (DlDeviceTypeInfo *info)
{
  *info = (DlDeviceTypeInfo){
    .type = "cpu",
    .device_type = DL_DEVICE_TYPE_CPU,
    .backend = &cpu_backend,
    .indexed = FALSE,
    .context_init = cpu_context_init,
    .get_info = cpu_get_info,
    .min_cached_size = 256 * 1024,
    .cache_limit = cpu_cache_limit (),
  };
}

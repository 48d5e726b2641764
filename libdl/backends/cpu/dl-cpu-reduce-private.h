/* dl-cpu-reduce-private.h: what the reduction driver (dl-cpu-reduce.c)
 * and its vector kernels of one run or one block of rows
 * (dl-cpu-reduce-runs.c, one set per x86-64 level) share.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cpu-private.h"

G_BEGIN_DECLS

/* a reduction's running value: a float's in f, an integer's in i, and
 * for max and min the position of the best element */
typedef struct
{
  gdouble f;
  gint64 i;
  gint64 index;
} Acc;

#define GT(a, b) ((a) > (b))
#define LT(a, b) ((a) < (b))

/* The kernels of one ISA level: contiguous float32 and float64 runs (sum,
 * product, max and min with their index) and the column kernels that add
 * or pick over blocks of rows lane by lane. */
typedef struct
{
  gdouble (*sum_f32) (const float *x, gint64 n);
  void (*sum2_f32) (const float *x, const float *y, gint64 n, gdouble *sx, gdouble *sy);
  gdouble (*sum_f64) (const double *x, gint64 n);
  gdouble (*prod_f32) (const float *x, gint64 n);
  gdouble (*prod_f64) (const double *x, gint64 n);
  Acc (*max_f32) (const float *x, gint64 n, gboolean want_index);
  Acc (*min_f32) (const float *x, gint64 n, gboolean want_index);
  Acc (*max_f64) (const double *x, gint64 n, gboolean want_index);
  Acc (*min_f64) (const double *x, gint64 n, gboolean want_index);
  void (*col_sum_f32) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_prod_f32) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_sum_f64) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_prod_f64) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_max_f32) (const char *const *rows, gint64 nr, gint64 w, float *acc);
  void (*col_min_f32) (const char *const *rows, gint64 nr, gint64 w, float *acc);
  void (*col_max_f64) (const char *const *rows, gint64 nr, gint64 w, double *acc);
  void (*col_min_f64) (const char *const *rows, gint64 nr, gint64 w, double *acc);
} RunKernels;

/* the kernels of the best level the CPU runs (dl_cpu_isa) */
const RunKernels *dl_cpu_reduce_run_kernels (void);

G_END_DECLS

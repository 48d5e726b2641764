/* dl-iter.h: DlIter, the strided loop nest every elementwise kernel runs,
 * and its pure geometry (broadcasting, dim ordering, coalescing).
 *
 * This sits below the tensor layer: it sees raw pointers, sizes, strides
 * and element sizes, never a DlTensor (the glue that takes DlTensors is
 * dl_iter_init() in ops/dl-iter-private.h). Backends run a DlIter; the CPU
 * one with dl_cpu_iter_for_each(), a GPU one by copying shape, data and
 * strides into its launch arguments.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define DL_MAX_DIMS 32

/* Operands whose pointers and strides a DlIter keeps inline; more than this
 * many go to one heap block that dl_iter_clear() frees. */
#define DL_ITER_INLINE_OPERANDS 4

/* A strided loop nest over any number of operands, the output first (a
 * kernel that writes several outputs says which in its slot's comment).
 *
 * shape has ndim entries, the innermost last; data[k] points at operand k's
 * first element and strides[k][d] is its stride along dim d, in bytes, so
 * an operand broadcast along a dim has stride 0 there. Kernels read
 * iter->data[k] and iter->strides[k][d] directly.
 *
 * data and strides point into the struct itself for up to
 * DL_ITER_INLINE_OPERANDS operands, so never copy a DlIter by value; set
 * one up in place with dl_iter_init_operands() (or the tensor glue) and
 * release it with dl_iter_clear(), most simply as
 *
 *   g_auto (DlIter) iter = DL_ITER_INIT;
 *   dl_iter_init_operands (&iter, n, operands, shape, ndim);
 *
 * An iterator of at most DL_ITER_INLINE_OPERANDS operands holds no heap
 * memory: hot paths with a fixed small operand count may declare a plain
 * `DlIter iter;` and skip the clear (and the zeroing of DL_ITER_INIT).
 * Initialising an iterator that holds heap memory again leaks it: clear
 * it first. */
typedef struct _DlIter DlIter;

struct _DlIter
{
  gint ndim;
  gint n_operands;
  gint64 shape[DL_MAX_DIMS];
  char **data;                    /* n_operands pointers */
  gint64 (*strides)[DL_MAX_DIMS]; /* n_operands rows of DL_MAX_DIMS byte strides */

  /*< private >*/
  char *inline_data[DL_ITER_INLINE_OPERANDS];
  gint64 inline_strides[DL_ITER_INLINE_OPERANDS][DL_MAX_DIMS];
};

#define DL_ITER_INIT                                                                               \
  {                                                                                                \
    0                                                                                              \
  }

/* One operand for dl_iter_init_operands(): its first element, its sizes
 * and strides (in elements, ndim of each, right-aligned against the loop
 * shape as broadcasting aligns them) and its element size in bytes. */
typedef struct
{
  char *data;
  const gint64 *sizes;
  const gint64 *strides;
  gint ndim;
  gint element_size;
} DlIterOperand;

void dl_iter_reserve (DlIter *iter, gint n_operands);
void dl_iter_init_operands (DlIter *iter,
                            gint n_operands,
                            const DlIterOperand *operands,
                            const gint64 *shape,
                            gint ndim);
void dl_iter_coalesce (DlIter *iter);
gint64 dl_iter_numel (const DlIter *iter);
void dl_iter_clear (DlIter *iter);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DlIter, dl_iter_clear)

G_END_DECLS

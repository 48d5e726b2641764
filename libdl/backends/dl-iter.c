/* dl-iter.c: the geometry of DlIter: broadcasting operands to a loop
 * shape, ordering the dims by stride and merging the dims that are
 * contiguous in every operand. Raw sizes and strides only (see dl-iter.h).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-iter.h"

/* Points data and strides at room for @n_operands operands: the inline
 * arrays, or one heap block beyond DL_ITER_INLINE_OPERANDS. */
void
dl_iter_reserve (DlIter *iter, gint n_operands)
{
  iter->n_operands = n_operands;
  if (G_LIKELY (n_operands <= DL_ITER_INLINE_OPERANDS))
    {
      iter->data = iter->inline_data;
      iter->strides = iter->inline_strides;
      return;
    }
  /* strides first: the block is 8-byte aligned for both arrays */
  iter->strides = g_malloc (n_operands * (sizeof (gint64[DL_MAX_DIMS]) + sizeof (char *)));
  iter->data = (char **)(iter->strides + n_operands);
}

void
dl_iter_clear (DlIter *iter)
{
  if (iter->n_operands > DL_ITER_INLINE_OPERANDS)
    g_free (iter->strides);
  iter->data = NULL;
  iter->strides = NULL;
  iter->n_operands = 0;
}

gint64
dl_iter_numel (const DlIter *iter)
{
  gint64 total = 1;

  for (gint d = 0; d < iter->ndim; d++)
    total *= iter->shape[d];
  return total;
}

/* Orders the dims by the output's strides, largest first (by the next
 * operand's where the output broadcasts), so that the innermost loop runs
 * along the smallest stride: a transposed output then walks memory in
 * order. Stable, so contiguous layouts keep their order. Then merges dim i
 * into the dim before it where every operand is contiguous across both. */
static void
order_and_coalesce (DlIter *iter, gint d)
{
  gint n = iter->n_operands, out = 0;
  gint64 (*strides)[DL_MAX_DIMS] = iter->strides;

  for (gint i = 1; i < d; i++)
    for (gint j = i; j > 0; j--)
      {
        gint k = 0;
        gint64 t;

        while (k < n - 1 && strides[k][j] == 0 && strides[k][j - 1] == 0)
          k++;
        if (strides[k][j] <= strides[k][j - 1])
          break;
        t = iter->shape[j];
        iter->shape[j] = iter->shape[j - 1];
        iter->shape[j - 1] = t;
        for (gint m = 0; m < n; m++)
          {
            t = strides[m][j];
            strides[m][j] = strides[m][j - 1];
            strides[m][j - 1] = t;
          }
      }

  for (gint i = 1; i < d; i++)
    {
      gboolean can = TRUE;

      for (gint k = 0; k < n && can; k++)
        can = strides[k][out] == strides[k][i] * iter->shape[i];
      if (can)
        iter->shape[out] *= iter->shape[i];
      else
        iter->shape[++out] = iter->shape[i];
      for (gint k = 0; k < n; k++)
        strides[k][out] = strides[k][i];
    }
  iter->ndim = out + 1;
}

/* Sets up @iter over @shape (@ndim dims) for @n_operands operands, the
 * output first: each is broadcast to @shape (right-aligned; its size-1
 * dims get stride 0), size-1 dims of the loop are dropped, the dims are
 * ordered by stride and merged where every operand is contiguous across
 * them. A 0-d or single-element loop is one dim of size 1. The caller has
 * checked that the shapes broadcast. */
void
dl_iter_init_operands (DlIter *iter,
                       gint n_operands,
                       const DlIterOperand *operands,
                       const gint64 *shape,
                       gint ndim)
{
  gint n = n_operands, d = 0;

  dl_iter_reserve (iter, n);
  for (gint k = 0; k < n; k++)
    iter->data[k] = operands[k].data;

  /* broadcast strides (bytes), dropping size-1 dims */
  for (gint i = 0; i < ndim; i++)
    {
      if (shape[i] == 1)
        continue;
      iter->shape[d] = shape[i];
      for (gint k = 0; k < n; k++)
        {
          const DlIterOperand *op = &operands[k];
          gint ti = op->ndim - ndim + i;

          iter->strides[k][d]
              = (ti >= 0 && op->sizes[ti] != 1) ? op->strides[ti] * op->element_size : 0;
        }
      d++;
    }
  if (d == 0)
    {
      iter->shape[0] = 1;
      for (gint k = 0; k < n; k++)
        iter->strides[k][0] = 0;
      d = 1;
    }
  order_and_coalesce (iter, d);
}

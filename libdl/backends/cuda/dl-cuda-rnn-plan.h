/* dl-cuda-rnn-plan.h: the order of work of the CUDA module's rnn_forward
 * and rnn_backward slots (dl-cuda-rnn.c), written once over a table of
 * operations: on the device, cuBLAS products and the kernels of
 * dl-cuda-rnn.cu; in tests/c/test-cuda-nn.cpp, host loops and the same
 * kernel bodies (dl-cuda-rnn.cuh), compared with the CPU backend's slots.
 *
 * The steps are the CPU's (dl-cpu-rnn.c): the input projection of every
 * step one GEMM (x w_ih^T into the gates buffer); per step the previous
 * states copied into hprev (and cprev), one GEMM of them by w_hh^T, one
 * pointwise pass of the cells (biases, gate nonlinearities, new c and h,
 * activated gates written over the projection), and with a projection a
 * GEMM of m by w_hr^T. Backward through time per step (last to first):
 * dh += dy, the projection's GEMM, the cells' pointwise backward, one
 * GEMM for the previous state's gradient (added for a GRU, whose
 * pointwise pass leaves the direct part in dh); then dx, dw_ih, dw_hh and
 * dw_hr as single GEMMs over all rows, the biases' gradients as column
 * sums.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"
#include "dl-cuda-gemm-plan.h"

G_BEGIN_DECLS

/* What the plan runs, each on arrays of the element type (es bytes) in
 * the memory the slots' arguments live in. */
typedef struct
{
  gpointer user;
  /* one product (see DlCudaGemmEx) */
  void (*gemm) (gpointer user, const DlCudaGemmEx *g);
  void (*copy) (gpointer user, void *dst, const void *src, gsize bytes);
  void (*zero) (gpointer user, void *dst, gsize bytes);
  /* scratch memory, NULL when there is none */
  gpointer (*alloc) (gpointer user, gsize bytes);
  void (*release) (gpointer user, gpointer p, gsize bytes);
  /* the summed biases: bias [G h] (b_ih + b_hh, a GRU's n gate b_ih
   * only) and bhn [h] (a GRU's b_hn) */
  void (*biases) (gpointer user, const DlRnnArgs *a, void *bias, void *bhn);
  /* the cells of one step's rows [0, bs) whose first row is @o (the
   * arguments of dl_cuda_rnn_cell) */
  void (*cells) (gpointer user,
                 const DlRnnArgs *a,
                 gint64 bs,
                 gint64 o,
                 const void *gh,
                 const void *bias,
                 const void *bhn,
                 void *h,
                 void *c);
  /* their backward (dl_cuda_rnn_cell_backward) */
  void (*cells_backward) (gpointer user,
                          const DlRnnArgs *a,
                          gint64 bs,
                          gint64 o,
                          void *dh,
                          const void *dm,
                          void *dc);
  /* dst[0 .. n) += src[0 .. n) */
  void (*add) (gpointer user, void *dst, const void *src, gint64 n);
  /* dst[c] = the sum of column c of src [rows, cols] */
  void (*colsum) (gpointer user, void *dst, const void *src, gint64 rows, gint64 cols);
} DlCudaRnnOps;

static inline gint64
dl_cuda_rnn_gates (DlRnnCellKind cell)
{
  return cell == DL_RNN_CELL_LSTM ? 4 : cell == DL_RNN_CELL_GRU ? 3 : 1;
}

/* the first row of each of a's steps and the total: steps + 1 entries */
static inline gint64 *
dl_cuda_rnn_offsets (const DlRnnArgs *a)
{
  gint64 *off = g_new (gint64, a->steps + 1);

  off[0] = 0;
  for (gint64 t = 0; t < a->steps; t++)
    off[t + 1] = off[t] + a->batch_sizes[t];
  return off;
}

#define DL_CUDA_RNN_AT(p, elems) ((char *)(p) + (gsize)(elems)*es)

/* ops->gemm of a DlCudaGemmEx of the arguments, in its fields' order */
#define DL_CUDA_RNN_GEMM(...)                                                                      \
  G_STMT_START                                                                                     \
  {                                                                                                \
    const DlCudaGemmEx gemm_ = { __VA_ARGS__ };                                                    \
    ops->gemm (ops->user, &gemm_);                                                                 \
  }                                                                                                \
  G_STMT_END

static inline void
dl_cuda_rnn_plan_forward (const DlCudaRnnOps *ops, const DlRnnArgs *a, gsize es)
{
  const gint64 B = a->batch, I = a->input_size, H = a->hidden_size;
  const gint64 P = a->proj_size, HO = P ? P : H, GH = dl_cuda_rnn_gates (a->cell) * H;
  const gboolean lstm = a->cell == DL_RNN_CELL_LSTM;
  gint64 *off = dl_cuda_rnn_offsets (a);
  const gsize bytes = (gsize)(MAX (B * GH, 1) + GH + H) * es;
  char *gh = (char *)ops->alloc (ops->user, bytes), *bias, *bhn;

  if (gh == NULL)
    {
      g_free (off);
      return;
    }
  bias = DL_CUDA_RNN_AT (gh, MAX (B * GH, 1));
  bhn = DL_CUDA_RNN_AT (bias, GH);
  ops->biases (ops->user, a, bias, bhn);
  ops->copy (ops->user, a->h_n, a->h0, (gsize)(B * HO) * es);
  if (lstm)
    ops->copy (ops->user, a->c_n, a->c0, (gsize)(B * H) * es);
  DL_CUDA_RNN_GEMM (FALSE, TRUE, off[a->steps], GH, I, a->x, I, a->w_ih, I, 0.0, a->gates, GH);
  for (gint64 s = 0; s < a->steps; s++)
    {
      const gint64 t = a->reverse ? a->steps - 1 - s : s;
      const gint64 bs = a->batch_sizes[t], o = off[t];
      void *hp = DL_CUDA_RNN_AT (a->hprev, o * HO);
      void *y = DL_CUDA_RNN_AT (a->y, o * HO);

      ops->copy (ops->user, hp, a->h_n, (gsize)(bs * HO) * es);
      if (lstm)
        ops->copy (ops->user, DL_CUDA_RNN_AT (a->cprev, o * H), a->c_n, (gsize)(bs * H) * es);
      DL_CUDA_RNN_GEMM (FALSE, TRUE, bs, GH, HO, hp, HO, a->w_hh, HO, 0.0, gh, GH);
      ops->cells (ops->user, a, bs, o, gh, bias, bhn, a->h_n, a->c_n);
      if (P)
        {
          DL_CUDA_RNN_GEMM (FALSE, TRUE, bs, P, H, DL_CUDA_RNN_AT (a->m, o * H), H, a->w_hr, H, 0.0,
                            y, P);
          ops->copy (ops->user, a->h_n, y, (gsize)(bs * P) * es);
        }
    }
  ops->release (ops->user, gh, bytes);
  g_free (off);
}

static inline void
dl_cuda_rnn_plan_backward (const DlCudaRnnOps *ops, const DlRnnArgs *a, gsize es)
{
  const gint64 B = a->batch, I = a->input_size, H = a->hidden_size;
  const gint64 P = a->proj_size, HO = P ? P : H, GH = dl_cuda_rnn_gates (a->cell) * H;
  const gboolean lstm = a->cell == DL_RNN_CELL_LSTM, gru = a->cell == DL_RNN_CELL_GRU;
  gint64 *off = dl_cuda_rnn_offsets (a);
  const gint64 N = off[a->steps];
  /* scratch: dh (without dh0), dc (LSTM without dc0), dm (projection) */
  const gint64 n_dh = a->dh0 ? 0 : B * HO, n_dc = lstm && !a->dc0 ? B * H : 0;
  const gint64 n_dm = P ? B * H : 0;
  const gsize bytes = (gsize)MAX (n_dh + n_dc + n_dm, 1) * es;
  char *scratch = (char *)ops->alloc (ops->user, bytes);
  void *dh, *dc, *dm_own;
  const void *dgh = gru ? a->dgh : a->dgx;

  if (scratch == NULL)
    {
      g_free (off);
      return;
    }
  dh = a->dh0 ? a->dh0 : (void *)scratch;
  dc = lstm ? (a->dc0 ? a->dc0 : (void *)DL_CUDA_RNN_AT (scratch, n_dh)) : NULL;
  dm_own = DL_CUDA_RNN_AT (scratch, n_dh + n_dc);
  if (a->dh_n)
    ops->copy (ops->user, dh, a->dh_n, (gsize)(B * HO) * es);
  else
    ops->zero (ops->user, dh, (gsize)(B * HO) * es);
  if (lstm && a->dc_n)
    ops->copy (ops->user, dc, a->dc_n, (gsize)(B * H) * es);
  else if (lstm)
    ops->zero (ops->user, dc, (gsize)(B * H) * es);
  for (gint64 s = a->steps - 1; s >= 0; s--)
    {
      const gint64 t = a->reverse ? a->steps - 1 - s : s;
      const gint64 bs = a->batch_sizes[t], o = off[t];
      const void *dm = dh;

      if (a->dy)
        ops->add (ops->user, dh, DL_CUDA_RNN_AT (a->dy, o * HO), bs * HO);
      if (P)
        {
          ops->copy (ops->user, DL_CUDA_RNN_AT (a->dhs, o * P), dh, (gsize)(bs * P) * es);
          DL_CUDA_RNN_GEMM (FALSE, FALSE, bs, H, P, dh, P, a->w_hr, H, 0.0, dm_own, H);
          dm = dm_own;
        }
      ops->cells_backward (ops->user, a, bs, o, dh, dm, dc);
      DL_CUDA_RNN_GEMM (FALSE, FALSE, bs, HO, GH, DL_CUDA_RNN_AT (dgh, o * GH), GH, a->w_hh, HO,
                        gru ? 1.0 : 0.0, dh, HO);
    }
  if (a->dx)
    DL_CUDA_RNN_GEMM (FALSE, FALSE, N, I, GH, a->dgx, GH, a->w_ih, I, 0.0, a->dx, I);
  if (a->dw_ih)
    DL_CUDA_RNN_GEMM (TRUE, FALSE, GH, I, N, a->dgx, GH, a->x, I, 0.0, a->dw_ih, I);
  if (a->dw_hh)
    DL_CUDA_RNN_GEMM (TRUE, FALSE, GH, HO, N, dgh, GH, a->hprev, HO, 0.0, a->dw_hh, HO);
  if (a->dw_hr)
    DL_CUDA_RNN_GEMM (TRUE, FALSE, P, H, N, a->dhs, P, a->m, H, 0.0, a->dw_hr, H);
  if (a->db_ih)
    ops->colsum (ops->user, a->db_ih, a->dgx, N, GH);
  if (a->db_hh)
    ops->colsum (ops->user, a->db_hh, dgh, N, GH);
  ops->release (ops->user, scratch, bytes);
  g_free (off);
}

#undef DL_CUDA_RNN_AT
#undef DL_CUDA_RNN_GEMM

G_END_DECLS

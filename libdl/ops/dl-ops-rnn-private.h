/* dl-ops-rnn-private.h: one recurrent layer in one direction, the op the
 * recurrent modules (nn/dl-rnn.c) stack. Internal: the modules check the
 * shapes and dtypes first, so the op only asserts them.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-tensor.h"
#include "dl-ops-rnn.h"

G_BEGIN_DECLS

/* The weights of one layer in one direction, PyTorch's: w_ih [G h, in],
 * w_hh [G h, ho], b_ih and b_hh [G h] (nullable), w_hr [proj, h]
 * (nullable: no projection). */
typedef struct
{
  DlTensor *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
} DlRnnLayerWeights;

/* How one layer runs: its cell, its direction (reverse runs the steps
 * backwards) and the packed sequence's steps, step t having
 * batch_sizes[t] rows (non-increasing, host memory). */
typedef struct
{
  DlRnnMode mode;
  gboolean reverse;
  gint64 steps;
  const gint64 *batch_sizes;
} DlRnnLayerSpec;

/* The layer over the packed sequence @x [n, in] (n the sum of the batch
 * sizes), from the states @h0 [batch, ho] and @c0 [batch, h] (LSTM only;
 * NULL otherwise). Returns y [n, ho], the final states into @h_n and
 * (LSTM) @c_n. Differentiable (RnnLayerBackward0, on the backend's fused
 * kernels; a backward recorded with create_graph differentiates the chain
 * of ops that DL_RNN=composite runs instead). */
DlTensor *dl_rnn_op_layer (const DlRnnLayerSpec *spec,
                           DlTensor *x,
                           const DlRnnLayerWeights *w,
                           DlTensor *h0,
                           DlTensor *c0,
                           DlTensor **h_n,
                           DlTensor **c_n,
                           GError **error);

/* One step of a cell: @x [b, in], @h [b, h], @c [b, h] (LSTM); the new h,
 * and the new c into @c_out (LSTM). */
DlTensor *dl_rnn_op_cell (DlRnnMode mode,
                          DlTensor *x,
                          const DlRnnLayerWeights *w,
                          DlTensor *h,
                          DlTensor *c,
                          DlTensor **c_out,
                          GError **error);

G_END_DECLS

/* dl-ops-rnn.h: the kinds of recurrent cells (the layers are nn/dl-rnn.h;
 * their op, internal, is dl-ops-rnn-private.h).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-types.h"

G_BEGIN_DECLS

/**
 * DlRnnMode:
 * @DL_RNN_MODE_RNN_TANH: an Elman RNN with tanh (PyTorch's 'RNN_TANH')
 * @DL_RNN_MODE_RNN_RELU: an Elman RNN with relu ('RNN_RELU')
 * @DL_RNN_MODE_LSTM: a long short-term memory ('LSTM'), gates i, f, g, o
 * @DL_RNN_MODE_GRU: a gated recurrent unit ('GRU'), gates r, z, n
 *
 * The cell a recurrent layer runs at each step.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_RNN_MODE_RNN_TANH,
  DL_RNN_MODE_RNN_RELU,
  DL_RNN_MODE_LSTM,
  DL_RNN_MODE_GRU,
} DlRnnMode;

/**
 * DlRnnNonlinearity:
 * @DL_RNN_NONLINEARITY_TANH: tanh (PyTorch's nonlinearity='tanh')
 * @DL_RNN_NONLINEARITY_RELU: relu ('relu')
 *
 * The nonlinearity of a #DlRnn or #DlRnnCell.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_RNN_NONLINEARITY_TANH,
  DL_RNN_NONLINEARITY_RELU,
} DlRnnNonlinearity;

G_END_DECLS

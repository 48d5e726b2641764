/* dl-rnn.h: the recurrent layers (DlRnn, DlLstm, DlGru over DlRnnBase)
 * and their cells (DlRnnCell, DlLstmCell, DlGruCell).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-module.h"
#include "ops/dl-ops-rnn.h"

G_BEGIN_DECLS

#define DL_TYPE_RNN_BASE (dl_rnn_base_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlRnnBase, dl_rnn_base, DL, RNN_BASE, DlModule)

/**
 * DlRnnBaseClass:
 * @parent_class: the parent class
 *
 * The class of #DlRnnBase, the abstract base of #DlRnn, #DlLstm and
 * #DlGru (PyTorch's nn.RNNBase).
 *
 * Since: 0.1
 */
struct _DlRnnBaseClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlTensor *dl_rnn_base_forward_state (DlRnnBase *self,
                                     DlTensor *input,
                                     DlTensor *hx,
                                     DlTensor *cx,
                                     DlTensor **h_n,
                                     DlTensor **c_n,
                                     GError **error);
DL_EXPORT
DlTensor *dl_rnn_base_forward_packed (DlRnnBase *self,
                                      DlTensor *data,
                                      DlTensor *batch_sizes,
                                      DlTensor *hx,
                                      DlTensor *cx,
                                      DlTensor **h_n,
                                      DlTensor **c_n,
                                      GError **error);
DL_EXPORT
DlRnnMode dl_rnn_base_get_mode (DlRnnBase *self);

#define DL_TYPE_RNN (dl_rnn_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlRnn, dl_rnn, DL, RNN, DlRnnBase)

/**
 * DlRnnClass:
 * @parent_class: the parent class
 *
 * The class of #DlRnn. Derivable, as PyTorch users subclass nn.RNN.
 *
 * Since: 0.1
 */
struct _DlRnnClass
{
  DlRnnBaseClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlRnn *dl_rnn_new (gint64 input_size,
                   gint64 hidden_size,
                   gint64 num_layers,
                   DlRnnNonlinearity nonlinearity,
                   gboolean bias,
                   gboolean batch_first,
                   gdouble dropout,
                   gboolean bidirectional,
                   GError **error);

#define DL_TYPE_LSTM (dl_lstm_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlLstm, dl_lstm, DL, LSTM, DlRnnBase)

/**
 * DlLstmClass:
 * @parent_class: the parent class
 *
 * The class of #DlLstm. Derivable, as PyTorch users subclass nn.LSTM.
 *
 * Since: 0.1
 */
struct _DlLstmClass
{
  DlRnnBaseClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlLstm *dl_lstm_new (gint64 input_size,
                     gint64 hidden_size,
                     gint64 num_layers,
                     gboolean bias,
                     gboolean batch_first,
                     gdouble dropout,
                     gboolean bidirectional,
                     gint64 proj_size,
                     GError **error);

#define DL_TYPE_GRU (dl_gru_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlGru, dl_gru, DL, GRU, DlRnnBase)

/**
 * DlGruClass:
 * @parent_class: the parent class
 *
 * The class of #DlGru. Derivable, as PyTorch users subclass nn.GRU.
 *
 * Since: 0.1
 */
struct _DlGruClass
{
  DlRnnBaseClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlGru *dl_gru_new (gint64 input_size,
                   gint64 hidden_size,
                   gint64 num_layers,
                   gboolean bias,
                   gboolean batch_first,
                   gdouble dropout,
                   gboolean bidirectional,
                   GError **error);

#define DL_TYPE_RNN_CELL (dl_rnn_cell_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlRnnCell, dl_rnn_cell, DL, RNN_CELL, DlModule)

DL_EXPORT
DlRnnCell *dl_rnn_cell_new (gint64 input_size,
                            gint64 hidden_size,
                            gboolean bias,
                            DlRnnNonlinearity nonlinearity,
                            GError **error);
DL_EXPORT
DlTensor *dl_rnn_cell_step (DlRnnCell *self, DlTensor *input, DlTensor *hx, GError **error);

#define DL_TYPE_LSTM_CELL (dl_lstm_cell_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlLstmCell, dl_lstm_cell, DL, LSTM_CELL, DlModule)

DL_EXPORT
DlLstmCell *dl_lstm_cell_new (gint64 input_size, gint64 hidden_size, gboolean bias, GError **error);
DL_EXPORT
DlTensor *dl_lstm_cell_step (DlLstmCell *self,
                             DlTensor *input,
                             DlTensor *hx,
                             DlTensor *cx,
                             DlTensor **c_out,
                             GError **error);

#define DL_TYPE_GRU_CELL (dl_gru_cell_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlGruCell, dl_gru_cell, DL, GRU_CELL, DlModule)

DL_EXPORT
DlGruCell *dl_gru_cell_new (gint64 input_size, gint64 hidden_size, gboolean bias, GError **error);
DL_EXPORT
DlTensor *dl_gru_cell_step (DlGruCell *self, DlTensor *input, DlTensor *hx, GError **error);

G_END_DECLS

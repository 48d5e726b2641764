/* dl-attention.h: DlMultiheadAttention, torch.nn.MultiheadAttention, and
 * dl_multi_head_attention_forward(), its functional form.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-module.h"

G_BEGIN_DECLS

#define DL_TYPE_MULTIHEAD_ATTENTION (dl_multihead_attention_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlMultiheadAttention,
                          dl_multihead_attention,
                          DL,
                          MULTIHEAD_ATTENTION,
                          DlModule)

/**
 * DlMultiheadAttentionClass:
 * @parent_class: the parent class
 *
 * The class of #DlMultiheadAttention. Derivable, as PyTorch users subclass
 * nn.MultiheadAttention.
 *
 * Since: 0.1
 */
struct _DlMultiheadAttentionClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlMultiheadAttention *dl_multihead_attention_new (gint64 embed_dim,
                                                  gint64 num_heads,
                                                  gdouble dropout,
                                                  gboolean bias,
                                                  gboolean add_bias_kv,
                                                  gboolean add_zero_attn,
                                                  gint64 kdim,
                                                  gint64 vdim,
                                                  gboolean batch_first,
                                                  GError **error);
DL_EXPORT
DlTensor *dl_multihead_attention_attend (DlMultiheadAttention *self,
                                         DlTensor *query,
                                         DlTensor *key,
                                         DlTensor *value,
                                         DlTensor *key_padding_mask,
                                         gboolean need_weights,
                                         DlTensor *attn_mask,
                                         gboolean average_attn_weights,
                                         gboolean is_causal,
                                         DlTensor **attn_weights,
                                         GError **error);
DL_EXPORT
gint64 dl_multihead_attention_get_embed_dim (DlMultiheadAttention *self);
DL_EXPORT
gint64 dl_multihead_attention_get_num_heads (DlMultiheadAttention *self);

DL_EXPORT
DlTensor *dl_multi_head_attention_forward (DlTensor *query,
                                           DlTensor *key,
                                           DlTensor *value,
                                           gint64 embed_dim_to_check,
                                           gint64 num_heads,
                                           DlTensor *in_proj_weight,
                                           DlTensor *in_proj_bias,
                                           DlTensor *bias_k,
                                           DlTensor *bias_v,
                                           gboolean add_zero_attn,
                                           gdouble dropout_p,
                                           DlTensor *out_proj_weight,
                                           DlTensor *out_proj_bias,
                                           gboolean training,
                                           DlTensor *key_padding_mask,
                                           gboolean need_weights,
                                           DlTensor *attn_mask,
                                           gboolean use_separate_proj_weight,
                                           DlTensor *q_proj_weight,
                                           DlTensor *k_proj_weight,
                                           DlTensor *v_proj_weight,
                                           DlTensor *static_k,
                                           DlTensor *static_v,
                                           gboolean average_attn_weights,
                                           gboolean is_causal,
                                           DlTensor **attn_weights,
                                           GError **error);

G_END_DECLS

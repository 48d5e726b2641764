/* dl-transformer.h: the Transformer family of torch.nn: encoder and
 * decoder layers, their stacks, and the whole model.
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

/**
 * DlTransformerActivation:
 * @DL_TRANSFORMER_ACTIVATION_RELU: relu (torch's default, "relu")
 * @DL_TRANSFORMER_ACTIVATION_GELU: the exact gelu ("gelu")
 *
 * The activation of a Transformer layer's feed-forward block.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_TRANSFORMER_ACTIVATION_RELU,
  DL_TRANSFORMER_ACTIVATION_GELU,
} DlTransformerActivation;

#define DL_TYPE_TRANSFORMER_ENCODER_LAYER (dl_transformer_encoder_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlTransformerEncoderLayer,
                          dl_transformer_encoder_layer,
                          DL,
                          TRANSFORMER_ENCODER_LAYER,
                          DlModule)

/**
 * DlTransformerEncoderLayerClass:
 * @parent_class: the parent class
 *
 * The class of #DlTransformerEncoderLayer.
 *
 * Since: 0.1
 */
struct _DlTransformerEncoderLayerClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_TRANSFORMER_DECODER_LAYER (dl_transformer_decoder_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlTransformerDecoderLayer,
                          dl_transformer_decoder_layer,
                          DL,
                          TRANSFORMER_DECODER_LAYER,
                          DlModule)

/**
 * DlTransformerDecoderLayerClass:
 * @parent_class: the parent class
 *
 * The class of #DlTransformerDecoderLayer.
 *
 * Since: 0.1
 */
struct _DlTransformerDecoderLayerClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_TRANSFORMER_ENCODER (dl_transformer_encoder_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlTransformerEncoder,
                          dl_transformer_encoder,
                          DL,
                          TRANSFORMER_ENCODER,
                          DlModule)

/**
 * DlTransformerEncoderClass:
 * @parent_class: the parent class
 *
 * The class of #DlTransformerEncoder.
 *
 * Since: 0.1
 */
struct _DlTransformerEncoderClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_TRANSFORMER_DECODER (dl_transformer_decoder_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlTransformerDecoder,
                          dl_transformer_decoder,
                          DL,
                          TRANSFORMER_DECODER,
                          DlModule)

/**
 * DlTransformerDecoderClass:
 * @parent_class: the parent class
 *
 * The class of #DlTransformerDecoder.
 *
 * Since: 0.1
 */
struct _DlTransformerDecoderClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_TRANSFORMER (dl_transformer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlTransformer, dl_transformer, DL, TRANSFORMER, DlModule)

/**
 * DlTransformerClass:
 * @parent_class: the parent class
 *
 * The class of #DlTransformer.
 *
 * Since: 0.1
 */
struct _DlTransformerClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlTransformerEncoderLayer *dl_transformer_encoder_layer_new (gint64 d_model,
                                                             gint64 nhead,
                                                             gint64 dim_feedforward,
                                                             gdouble dropout,
                                                             DlTransformerActivation activation,
                                                             gdouble layer_norm_eps,
                                                             gboolean batch_first,
                                                             gboolean norm_first,
                                                             GError **error);
DL_EXPORT
DlTensor *dl_transformer_encoder_layer_encode (DlTransformerEncoderLayer *self,
                                               DlTensor *src,
                                               DlTensor *src_mask,
                                               DlTensor *src_key_padding_mask,
                                               gboolean is_causal,
                                               GError **error);

DL_EXPORT
DlTransformerDecoderLayer *dl_transformer_decoder_layer_new (gint64 d_model,
                                                             gint64 nhead,
                                                             gint64 dim_feedforward,
                                                             gdouble dropout,
                                                             DlTransformerActivation activation,
                                                             gdouble layer_norm_eps,
                                                             gboolean batch_first,
                                                             gboolean norm_first,
                                                             GError **error);
DL_EXPORT
DlTensor *dl_transformer_decoder_layer_decode (DlTransformerDecoderLayer *self,
                                               DlTensor *tgt,
                                               DlTensor *memory,
                                               DlTensor *tgt_mask,
                                               DlTensor *memory_mask,
                                               DlTensor *tgt_key_padding_mask,
                                               DlTensor *memory_key_padding_mask,
                                               gboolean tgt_is_causal,
                                               gboolean memory_is_causal,
                                               GError **error);

DL_EXPORT
DlTransformerEncoder *dl_transformer_encoder_new (DlModule *encoder_layer,
                                                  gint64 num_layers,
                                                  DlModule *norm,
                                                  GError **error);
DL_EXPORT
DlTensor *dl_transformer_encoder_encode (DlTransformerEncoder *self,
                                         DlTensor *src,
                                         DlTensor *mask,
                                         DlTensor *src_key_padding_mask,
                                         gboolean is_causal,
                                         GError **error);

DL_EXPORT
DlTransformerDecoder *dl_transformer_decoder_new (DlModule *decoder_layer,
                                                  gint64 num_layers,
                                                  DlModule *norm,
                                                  GError **error);
DL_EXPORT
DlTensor *dl_transformer_decoder_decode (DlTransformerDecoder *self,
                                         DlTensor *tgt,
                                         DlTensor *memory,
                                         DlTensor *tgt_mask,
                                         DlTensor *memory_mask,
                                         DlTensor *tgt_key_padding_mask,
                                         DlTensor *memory_key_padding_mask,
                                         gboolean tgt_is_causal,
                                         gboolean memory_is_causal,
                                         GError **error);

DL_EXPORT
DlTransformer *dl_transformer_new (gint64 d_model,
                                   gint64 nhead,
                                   gint64 num_encoder_layers,
                                   gint64 num_decoder_layers,
                                   gint64 dim_feedforward,
                                   gdouble dropout,
                                   DlTransformerActivation activation,
                                   gdouble layer_norm_eps,
                                   gboolean batch_first,
                                   gboolean norm_first,
                                   GError **error);
DL_EXPORT
DlTensor *dl_transformer_transform (DlTransformer *self,
                                    DlTensor *src,
                                    DlTensor *tgt,
                                    DlTensor *src_mask,
                                    DlTensor *tgt_mask,
                                    DlTensor *memory_mask,
                                    DlTensor *src_key_padding_mask,
                                    DlTensor *tgt_key_padding_mask,
                                    DlTensor *memory_key_padding_mask,
                                    gboolean src_is_causal,
                                    gboolean tgt_is_causal,
                                    gboolean memory_is_causal,
                                    GError **error);
DL_EXPORT
DlTensor *dl_transformer_generate_square_subsequent_mask (gint64 sz, GError **error);

G_END_DECLS

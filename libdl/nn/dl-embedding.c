/* dl-embedding.c: embedding lookup (rows of a weight picked by index),
 * with PyTorch's padding_idx (that row gets no gradient) and max_norm
 * (the looked-up rows renormalised in place first), and the DlEmbedding
 * layer over it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-embedding.h"
#include "dl-error.h"
#include "dl-layer-props-private.h"
#include "dl-module-private.h"
#include "dl-node-private.h"
#include "dl-node.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-index.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-private.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-scan.h"
#include "ops/dl-ops-shape.h"

/* PyTorch's embedding_renorm_: each row of @weight that @flat names whose
 * norm exceeds @max_norm scaled by max_norm / (norm + 1e-7), in place
 * and outside autograd */
static gboolean
renorm_rows (DlTensor *weight, DlTensor *flat, gdouble max_norm, gdouble norm_type, GError **error)
{
  const gboolean grad = dl_is_grad_enabled ();
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (DlTensor) uniq = NULL;
  g_autoptr (DlTensor) norms = NULL;
  g_autoptr (DlTensor) big = NULL;
  g_autoptr (DlTensor) denom = NULL;
  g_autoptr (DlTensor) shrink = NULL;
  g_autoptr (DlTensor) ones = NULL;
  g_autoptr (DlTensor) scale = NULL;
  g_autoptr (DlTensor) scaled = NULL;
  gboolean ok;

  dl_set_grad_enabled (FALSE);
  ok = (uniq = dl_tensor_unique (flat, NULL, NULL, error))
       && (rows = dl_tensor_index_select (weight, 0, uniq, error))
       && (norms = dl_tensor_norm (rows, norm_type, (gint64[]){ 1 }, 1, TRUE, error))
       && (big = dl_tensor_gt_scalar (norms, max_norm, error))
       && (denom = dl_tensor_add_scalar (norms, 1e-7, error))
       && (shrink = dl_tensor_reciprocal (denom, error))
       && dl_tensor_mul_scalar_ (shrink, max_norm, error)
       && (ones = dl_empty_like (shrink, dl_tensor_get_dtype (shrink), DL_MEMORY_FORMAT_CONTIGUOUS,
                                 error))
       && dl_tensor_fill_ (ones, 1, error) && (scale = dl_where (big, shrink, ones, error))
       && (scaled = dl_tensor_mul (rows, scale, error))
       && dl_tensor_index_put_ (weight, &uniq, 1, scaled, FALSE, error);
  dl_set_grad_enabled (grad);
  return ok;
}

typedef struct
{
  DlSavedTensor flat; /* the indices, int64, flattened */
  gint64 num_weights, padding_idx;
} EmbeddingState;

/* torch's embedding_backward: row i of the weight's gradient is the sum of
 * the output gradient's rows whose index is i, padding_idx's row zero.
 * Written with differentiable ops, so that a create_graph backward records
 * it. */
static gboolean
embedding_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  EmbeddingState *s = dl_node_state (node);
  const gint64 dim = go[0]->ndim > 0 ? go[0]->sizes[go[0]->ndim - 1] : 1;
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (DlTensor) keep = NULL;
  g_autoptr (DlTensor) keep1 = NULL;
  g_autoptr (DlTensor) kept = NULL;
  g_autoptr (DlTensor) zeros = NULL;
  DlTensor *flat, *src;

  if (!dl_node_needs_input_grad (node, 0))
    return TRUE;
  TRY (flat = dl_node_saved (node, &s->flat, error));
  TRY (rows = dl_nn_reshape (go[0], (gint64[]){ -1, dim }, 2, error));
  src = rows;
  if (s->padding_idx >= 0)
    {
      TRY (keep = dl_tensor_ne_scalar (flat, (gdouble)s->padding_idx, error));
      TRY (keep1 = dl_tensor_unsqueeze (keep, -1, error));
      TRY (kept = dl_tensor_mul (rows, keep1, error));
      src = kept;
    }
  TRY (zeros = dl_zeros ((gint64[]){ s->num_weights, dim }, 2, go[0]->dtype,
                         dl_tensor_get_device (go[0]), error));
  TRY (gi[0] = dl_tensor_index_put (zeros, &flat, 1, src, TRUE, error));
  return TRUE;
}

/**
 * dl_embedding:
 * @input: indices (int64 or int32) of any shape
 * @weight: the embedding matrix [num_embeddings, embedding_dim]
 * @padding_idx: a row that gets no gradient, or -1 for none (a negative
 *   PyTorch padding_idx counts from the end: pass num_embeddings + it)
 * @max_norm: when > 0, each looked-up row whose @norm_type norm exceeds it
 *   is first scaled down to it, in @weight itself (as PyTorch does, under
 *   no_grad)
 * @norm_type: the p of the norm for @max_norm (PyTorch's default 2)
 * @error: return location for a #GError
 *
 * The rows of @weight that @input names, as torch.nn.functional.embedding()
 * picks them: the result has @input's shape with embedding_dim appended.
 * Differentiable in @weight.
 *
 * Returns: (transfer full): the embeddings, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_embedding (DlTensor *input,
              DlTensor *weight,
              gint64 padding_idx,
              gdouble max_norm,
              gdouble norm_type,
              GError **error)
{
  const gboolean grad = dl_is_grad_enabled ();
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) flat64 = NULL;
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autofree gint64 *shape = NULL;
  gboolean ok;
  gsize nd, wd;
  const gint64 *in_shape, *w_shape;
  DlDType dt;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  dt = dl_tensor_get_dtype (input);
  in_shape = dl_tensor_get_shape (input, &nd);
  w_shape = dl_tensor_get_shape (weight, &wd);
  if (dt != DL_DTYPE_INT64 && dt != DL_DTYPE_INT32)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "embedding: Expected tensor for argument #1 'indices' to have one of the "
                   "following scalar types: Long, Int; but got %s instead",
                   dl_dtype_get_name (dt));
      return NULL;
    }
  if (wd != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "embedding: 'weight' must be 2-D, got a %" G_GSIZE_FORMAT "-D weight", wd);
      return NULL;
    }
  if (padding_idx >= w_shape[0] || padding_idx < -1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "embedding: padding_idx %" G_GINT64_FORMAT
                   " must be within num_embeddings %" G_GINT64_FORMAT " (or -1 for none)",
                   padding_idx, w_shape[0]);
      return NULL;
    }
  if (!(flat = dl_nn_reshape (input, (gint64[]){ -1 }, 1, error))
      || !(flat64 = dl_cast_nograd (flat, DL_DTYPE_INT64, error)))
    return NULL;
  if (max_norm > 0 && !renorm_rows (weight, flat64, max_norm, norm_type, error))
    return NULL;
  shape = g_new (gint64, nd + 1);
  for (gsize d = 0; d < nd; d++)
    shape[d] = in_shape[d];
  shape[nd] = w_shape[1];
  /* the lookup itself outside autograd: one EmbeddingBackward0 node, as in
   * torch, rather than the history of the ops it is made of */
  dl_set_grad_enabled (FALSE);
  ok = (rows = dl_tensor_index_select (weight, 0, flat64, error))
       && (out = dl_unsafe_view (rows, shape, nd + 1, error));
  dl_set_grad_enabled (grad);
  if (!ok)
    return NULL;
  if (dl_autograd_any_requires (1, &weight))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("EmbeddingBackward0", embedding_backward, 1, &weight);
      EmbeddingState *s = DL_NODE_NEW_STATE (node, EmbeddingState);

      s->num_weights = w_shape[0];
      s->padding_idx = padding_idx;
      dl_node_save (node, &s->flat, flat64, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/**
 * DlEmbedding:
 *
 * A lookup table of #DlEmbedding:num-embeddings vectors of size
 * #DlEmbedding:embedding-dim, as torch.nn.Embedding: its "weight" is drawn
 * from N(0, 1), with the #DlEmbedding:padding-idx row zeroed; forward is
 * dl_embedding().
 *
 * Since: 0.1
 */
struct _DlEmbedding
{
  DlModule parent_instance;
  gint64 num_embeddings, embedding_dim, padding_idx;
  gdouble max_norm, norm_type;
};

/**
 * DlEmbeddingClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlEmbedding. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlEmbedding, dl_embedding_layer, DL_TYPE_MODULE)

#define EM(f) G_STRUCT_OFFSET (DlEmbedding, f)
static const DlLayerProp embedding_props[] = {
  /**
   * DlEmbedding:num-embeddings:
   *
   * The number of vectors (required, >= 0).
   *
   * Since: 0.1
   */
  { "num-embeddings", G_TYPE_INT64, EM (num_embeddings), -1 },
  /**
   * DlEmbedding:embedding-dim:
   *
   * The size of each vector (required, >= 0).
   *
   * Since: 0.1
   */
  { "embedding-dim", G_TYPE_INT64, EM (embedding_dim), -1 },
  /**
   * DlEmbedding:padding-idx:
   *
   * The row that starts at zero and gets no gradient; -1 (default): none.
   *
   * Since: 0.1
   */
  { "padding-idx", G_TYPE_INT64, EM (padding_idx), -1 },
  /**
   * DlEmbedding:max-norm:
   *
   * When > 0, rows looked up with a larger norm are scaled down to it in
   * place (default 0: never).
   *
   * Since: 0.1
   */
  { "max-norm", G_TYPE_DOUBLE, EM (max_norm), 0 },
  /**
   * DlEmbedding:norm-type:
   *
   * The p of the norm for #DlEmbedding:max-norm (default 2).
   *
   * Since: 0.1
   */
  { "norm-type", G_TYPE_DOUBLE, EM (norm_type), 2 },
};

static DlTensor *
embedding_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlEmbedding *self = DL_EMBEDDING (module);
  DlTensor *w = dl_module_get_parameter (module, "weight");

  if (w == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Embedding: the layer has no weight");
      return NULL;
    }
  return dl_embedding (input, w, self->padding_idx, self->max_norm, self->norm_type, error);
}

static void
embedding_constructed (GObject *object)
{
  DlEmbedding *self = DL_EMBEDDING (object);
  g_autoptr (DlTensor) w = NULL;
  GError *error = NULL;

  G_OBJECT_CLASS (dl_embedding_layer_parent_class)->constructed (object);
  if (self->num_embeddings < 0 || self->embedding_dim < 0)
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "Embedding: num_embeddings and embedding_dim must be sizes >= 0, got %"
                         G_GINT64_FORMAT " and %" G_GINT64_FORMAT,
                         self->num_embeddings, self->embedding_dim);
  else if (self->padding_idx < -1 || self->padding_idx >= self->num_embeddings)
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "Embedding: Padding_idx must be within num_embeddings, got %"
                         G_GINT64_FORMAT " for %" G_GINT64_FORMAT " embeddings",
                         self->padding_idx, self->num_embeddings);
  else if ((w = dl_randn ((gint64[]){ self->num_embeddings, self->embedding_dim }, 2,
                          dl_module_get_factory_dtype (DL_MODULE (self)),
                          dl_module_get_factory_device (DL_MODULE (self)), &error)))
    {
      if (self->padding_idx >= 0)
        {
          g_autoptr (DlTensor) row = dl_tensor_select (w, 0, self->padding_idx, &error);
          if (row)
            dl_tensor_fill_ (row, 0, &error);
        }
      if (!error && dl_tensor_set_requires_grad (w, TRUE, &error))
        dl_module_register_parameter (DL_MODULE (self), "weight", w);
    }
  if (error)
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_embedding_layer_class_init (DlEmbeddingClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = embedding_constructed;
  DL_MODULE_CLASS (klass)->forward = embedding_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), embedding_props,
                          G_N_ELEMENTS (embedding_props));
}

static void
dl_embedding_layer_init (DlEmbedding *self)
{
  dl_layer_props_init (self, embedding_props, G_N_ELEMENTS (embedding_props));
}

/**
 * dl_embedding_layer_new:
 * @num_embeddings: the number of vectors
 * @embedding_dim: the size of each vector
 * @padding_idx: the row that starts at zero and gets no gradient, or -1
 * @error: return location for a #GError
 *
 * A #DlEmbedding (g_initable_new() with the properties; max-norm and
 * norm-type keep their defaults).
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlEmbedding *
dl_embedding_layer_new (gint64 num_embeddings,
                        gint64 embedding_dim,
                        gint64 padding_idx,
                        GError **error)
{
  return g_initable_new (DL_TYPE_EMBEDDING, NULL, error, "num-embeddings", num_embeddings,
                         "embedding-dim", embedding_dim, "padding-idx", padding_idx, NULL);
}

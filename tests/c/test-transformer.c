/* test-transformer.c: DlMultiheadAttention and the Transformer family from
 * C: parameters in torch's names, the fused and the materialised attention
 * agreeing, masks against what they mean, gradients, the stacks, the
 * model, and the errors. (Values against PyTorch: tests/python.)
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dl.h>

#include "dl-test-utils.h"

static DlTensor *
random_tensor (const gint64 *shape, gsize n_dims)
{
  g_autofree gdouble *v = dl_test_random_values (dl_test_numel (shape, n_dims));

  return dl_test_tensor (v, shape, n_dims, DL_DTYPE_FLOAT64);
}

static DlMultiheadAttention *
new_mha (gint64 e, gint64 h, gint64 kdim, gint64 vdim, gboolean add_bias_kv)
{
  g_autoptr (GError) error = NULL;
  DlMultiheadAttention *m
      = dl_multihead_attention_new (e, h, 0.0, TRUE, add_bias_kv, FALSE, kdim, vdim, FALSE, &error);

  g_assert_no_error (error);
  g_assert_true (dl_module_to_dtype (DL_MODULE (m), DL_DTYPE_FLOAT64, &error));
  g_assert_no_error (error);
  return m;
}

static void
assert_close (DlTensor *a, DlTensor *b, gdouble tol)
{
  g_autofree gdouble *vb = dl_test_values (b);

  g_assert_cmpint (dl_tensor_numel (a), ==, dl_tensor_numel (b));
  dl_test_assert_values (a, vb, dl_tensor_numel (b), tol);
}

static void
test_mha_parameters (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlMultiheadAttention) m = new_mha (8, 2, 0, 0, TRUE);
  g_autoptr (DlMultiheadAttention) s = new_mha (8, 4, 6, 5, FALSE);
  g_auto (GStrv) names = NULL;
  g_autoptr (GPtrArray) params = dl_module_named_parameters (DL_MODULE (m), TRUE, &names);
  g_auto (GStrv) snames = NULL;
  g_autoptr (GPtrArray) sparams = dl_module_named_parameters (DL_MODULE (s), TRUE, &snames);
  const gchar *const expected[] = { "in_proj_weight",  "in_proj_bias",  "bias_k", "bias_v",
                                    "out_proj.weight", "out_proj.bias", NULL };
  const gchar *const sexpected[] = { "q_proj_weight",
                                     "k_proj_weight",
                                     "v_proj_weight",
                                     "in_proj_bias",
                                     "out_proj.weight",
                                     "out_proj.bias",
                                     NULL };
  g_autofree gdouble *bias = NULL;

  g_assert_cmpstrv (names, expected);
  g_assert_cmpstrv (snames, sexpected);
  dl_test_assert_shape (params->pdata[0], DL_TEST_SHAPE (24, 8));
  dl_test_assert_shape (params->pdata[2], DL_TEST_SHAPE (1, 1, 8));
  dl_test_assert_shape (sparams->pdata[1], DL_TEST_SHAPE (4 * 2, 6));
  dl_test_assert_shape (sparams->pdata[2], DL_TEST_SHAPE (8, 5));
  g_assert_cmpint (dl_multihead_attention_get_embed_dim (m), ==, 8);
  g_assert_cmpint (dl_multihead_attention_get_num_heads (s), ==, 4);
  bias = dl_test_values (params->pdata[1]);
  for (gint i = 0; i < 24; i++)
    g_assert_cmpfloat (bias[i], ==, 0.0);
}

/* the fused path (no weights) and the materialised one give one output;
 * the weights are rows of probabilities */
static void
test_mha_paths (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlMultiheadAttention) m = new_mha (8, 2, 0, 0, FALSE);
  g_autoptr (DlTensor) x = random_tensor (DL_TEST_SHAPE (5, 3, 8));
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) wh = NULL;
  g_autoptr (DlTensor) out_w = NULL;
  g_autoptr (DlTensor) out_f = NULL;
  g_autoptr (DlTensor) out_h = NULL;
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr (GPtrArray) outputs = NULL;
  g_autofree gdouble *r = NULL;

  out_w = dl_multihead_attention_attend (m, x, x, x, NULL, TRUE, NULL, TRUE, FALSE, &w, &error);
  g_assert_no_error (error);
  out_f = dl_multihead_attention_attend (m, x, x, x, NULL, FALSE, NULL, TRUE, FALSE, NULL, &error);
  g_assert_no_error (error);
  out_h = dl_multihead_attention_attend (m, x, x, x, NULL, TRUE, NULL, FALSE, FALSE, &wh, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (out_f, DL_TEST_SHAPE (5, 3, 8));
  dl_test_assert_shape (w, DL_TEST_SHAPE (3, 5, 5));
  dl_test_assert_shape (wh, DL_TEST_SHAPE (3, 2, 5, 5));
  assert_close (out_f, out_w, 1e-12);
  assert_close (out_h, out_w, 1e-12);
  rows = dl_tensor_sum_dims (wh, (gint64[]){ -1 }, 1, FALSE, &error);
  g_assert_no_error (error);
  r = dl_test_values (rows);
  for (gint i = 0; i < 30; i++)
    g_assert_cmpfloat_with_epsilon (r[i], 1.0, 1e-12);

  /* forward_many: [q, k, v] -> [output, averaged weights] */
  g_ptr_array_add (inputs, x);
  g_ptr_array_add (inputs, x);
  g_ptr_array_add (inputs, x);
  outputs = dl_module_forward_many (DL_MODULE (m), inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 2);
  assert_close (outputs->pdata[0], out_w, 1e-12);
  assert_close (outputs->pdata[1], w, 1e-12);
  g_ptr_array_set_free_func (outputs, g_object_unref);
}

/* a key masked out by key_padding_mask is a key that is not there; a bool
 * attn_mask is the float mask of -inf where it is TRUE */
static void
test_mha_masks (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlMultiheadAttention) m = new_mha (4, 2, 0, 0, FALSE);
  g_autoptr (DlTensor) q = random_tensor (DL_TEST_SHAPE (3, 1, 4));
  g_autoptr (DlTensor) k = random_tensor (DL_TEST_SHAPE (5, 1, 4));
  g_autoptr (DlTensor) k4 = dl_tensor_narrow (k, 0, 0, 4, &error);
  g_autoptr (DlTensor) kpm = NULL;
  g_autoptr (DlTensor) masked = NULL;
  g_autoptr (DlTensor) truncated = NULL;
  g_autoptr (DlTensor) bmask = NULL;
  g_autoptr (DlTensor) fmask = NULL;
  g_autoptr (DlTensor) ob = NULL;
  g_autoptr (DlTensor) of = NULL;
  gdouble fm[15];

  g_assert_no_error (error);
  {
    gdouble padv[5] = { 0, 0, 0, 0, 1 };
    g_autoptr (DlTensor) p = dl_test_tensor (padv, DL_TEST_SHAPE (1, 5), DL_DTYPE_FLOAT64);

    kpm = dl_tensor_to_dtype (p, DL_DTYPE_BOOL, &error);
    g_assert_no_error (error);
  }
  masked = dl_multihead_attention_attend (m, q, k, k, kpm, FALSE, NULL, TRUE, FALSE, NULL, &error);
  g_assert_no_error (error);
  truncated
      = dl_multihead_attention_attend (m, q, k4, k4, NULL, FALSE, NULL, TRUE, FALSE, NULL, &error);
  g_assert_no_error (error);
  assert_close (masked, truncated, 1e-12);

  for (gint i = 0; i < 15; i++)
    fm[i] = (i % 5) > (i / 5) + 1 ? -INFINITY : 0.0;
  fmask = dl_test_tensor (fm, DL_TEST_SHAPE (3, 5), DL_DTYPE_FLOAT64);
  bmask = dl_tensor_ne_scalar (fmask, 0.0, &error);
  g_assert_no_error (error);
  ob = dl_multihead_attention_attend (m, q, k, k, NULL, TRUE, bmask, TRUE, FALSE, NULL, &error);
  g_assert_no_error (error);
  of = dl_multihead_attention_attend (m, q, k, k, NULL, FALSE, fmask, TRUE, FALSE, NULL, &error);
  g_assert_no_error (error);
  assert_close (ob, of, 1e-12);
}

static void
test_mha_backward (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlMultiheadAttention) m = new_mha (6, 3, 0, 0, TRUE);
  g_autoptr (DlTensor) x = random_tensor (DL_TEST_SHAPE (4, 2, 6));
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autoptr (GPtrArray) params = NULL;

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  out = dl_multihead_attention_attend (m, x, x, x, NULL, FALSE, NULL, TRUE, FALSE, NULL, &error);
  g_assert_no_error (error);
  loss = dl_tensor_sum (out, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_nonnull (dl_tensor_get_grad (x));
  params = dl_module_named_parameters (DL_MODULE (m), TRUE, NULL);
  for (guint i = 0; i < params->len; i++)
    g_assert_nonnull (dl_tensor_get_grad (params->pdata[i]));
}

static void
test_mha_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlMultiheadAttention) bad
      = dl_multihead_attention_new (10, 3, 0.0, TRUE, FALSE, FALSE, 0, 0, FALSE, &error);
  g_autoptr (DlMultiheadAttention) m = new_mha (8, 2, 0, 0, FALSE);
  g_autoptr (DlTensor) x = random_tensor (DL_TEST_SHAPE (5, 3, 8));
  g_autoptr (DlTensor) y = random_tensor (DL_TEST_SHAPE (5, 3, 6));
  g_autoptr (DlTensor) mask = random_tensor (DL_TEST_SHAPE (4, 4));
  g_autoptr (DlTensor) imask = NULL;
  DlTensor *out;

  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "embed_dim must be divisible by num_heads"));
  g_clear_error (&error);

  out = dl_multihead_attention_attend (m, x, x, x, NULL, FALSE, mask, TRUE, FALSE, NULL, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "The shape of the 2D attn_mask is [4, 4]"));
  g_clear_error (&error);

  out = dl_multihead_attention_attend (m, y, y, y, NULL, FALSE, NULL, TRUE, FALSE, NULL, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "was expecting embedding dimension of 8, but got 6"));
  g_clear_error (&error);

  imask = dl_zeros (DL_TEST_SHAPE (5, 5), DL_DTYPE_INT64, NULL, &error);
  g_assert_no_error (error);
  out = dl_multihead_attention_attend (m, x, x, x, NULL, FALSE, imask, TRUE, FALSE, NULL, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "not int64"));
  g_clear_error (&error);

  out = dl_multihead_attention_attend (m, x, x, x, NULL, FALSE, NULL, TRUE, TRUE, NULL, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_FAILED);
}

static void
test_encoder_layer (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTransformerEncoderLayer) layer = dl_transformer_encoder_layer_new (
      8, 2, 16, 0.0, DL_TRANSFORMER_ACTIVATION_GELU, 1e-5, TRUE, TRUE, &error);
  g_auto (GStrv) children = NULL;
  const gchar *const expected[] = { "self_attn", "linear1",  "dropout",  "linear2", "norm1",
                                    "norm2",     "dropout1", "dropout2", NULL };
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) out2 = NULL;
  g_autoptr (DlTensor) loss = NULL;
  DlTransformerActivation act;

  g_assert_no_error (error);
  children = dl_module_children_names (DL_MODULE (layer));
  g_assert_cmpstrv (children, expected);
  g_object_get (layer, "activation", &act, NULL);
  g_assert_cmpint (act, ==, DL_TRANSFORMER_ACTIVATION_GELU);
  x = random_tensor (DL_TEST_SHAPE (2, 5, 8));
  g_assert_true (dl_module_to_dtype (DL_MODULE (layer), DL_DTYPE_FLOAT64, &error));
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  out = dl_transformer_encoder_layer_encode (layer, x, NULL, NULL, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (out, DL_TEST_SHAPE (2, 5, 8));
  out2 = dl_module_forward (DL_MODULE (layer), x, &error);
  g_assert_no_error (error);
  assert_close (out2, out, 0);
  loss = dl_tensor_sum (out, &error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_nonnull (dl_tensor_get_grad (x));
}

static void
test_stacks_and_model (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTransformerEncoderLayer) layer = dl_transformer_encoder_layer_new (
      8, 2, 16, 0.0, DL_TRANSFORMER_ACTIVATION_RELU, 1e-5, FALSE, FALSE, &error);
  g_autoptr (DlLayerNorm) norm = dl_layer_norm_layer_new ((gint64[]){ 8 }, 1, 1e-5, TRUE, &error);
  g_autoptr (DlTransformerEncoder) enc = NULL;
  g_autoptr (DlTransformer) model = NULL;
  g_autoptr (DlTensor) x = random_tensor (DL_TEST_SHAPE (5, 2, 8));
  g_autoptr (DlTensor) tgt = random_tensor (DL_TEST_SHAPE (3, 2, 8));
  g_autoptr (DlTensor) mask = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) manual = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensorDict) state = NULL;
  g_autoptr (GPtrArray) layers = NULL;
  const gdouble expected_mask[] = { 0, -INFINITY, -INFINITY, 0, 0, -INFINITY, 0, 0, 0 };

  g_assert_no_error (error);
  g_assert_true (dl_module_to_dtype (DL_MODULE (layer), DL_DTYPE_FLOAT64, &error));
  g_assert_true (dl_module_to_dtype (DL_MODULE (norm), DL_DTYPE_FLOAT64, &error));
  enc = dl_transformer_encoder_new (DL_MODULE (layer), 2, DL_MODULE (norm), &error);
  g_assert_no_error (error);
  state = dl_module_state_dict (DL_MODULE (enc));
  g_assert_nonnull (dl_tensor_dict_lookup (state, "layers.1.self_attn.in_proj_weight"));
  g_assert_nonnull (dl_tensor_dict_lookup (state, "norm.weight"));

  /* the stack is its layers in turn, then the norm */
  mask = dl_transformer_generate_square_subsequent_mask (5, &error);
  g_assert_no_error (error);
  {
    g_autoptr (DlTensor) m64 = dl_tensor_to_dtype (mask, DL_DTYPE_FLOAT64, &error);

    y = dl_transformer_encoder_encode (enc, x, m64, NULL, FALSE, &error);
    g_assert_no_error (error);
    layers = dl_module_children (dl_module_get_module (DL_MODULE (enc), "layers"));
    manual = g_object_ref (x);
    for (guint i = 0; i < layers->len; i++)
      {
        DlTensor *next = dl_transformer_encoder_layer_encode (layers->pdata[i], manual, m64, NULL,
                                                              FALSE, &error);
        g_assert_no_error (error);
        g_object_unref (manual);
        manual = next;
      }
    {
      g_autoptr (DlTensor) normed = dl_module_forward (DL_MODULE (norm), manual, &error);

      g_assert_no_error (error);
      assert_close (y, normed, 1e-12);
    }
  }
  {
    g_autoptr (DlTensor) m3 = dl_transformer_generate_square_subsequent_mask (3, &error);
    g_autofree gdouble *v = dl_test_values (m3);

    g_assert_cmpint (dl_tensor_get_dtype (m3), ==, DL_DTYPE_FLOAT32);
    for (gint i = 0; i < 9; i++)
      g_assert_cmpfloat (v[i], ==, expected_mask[i]);
  }

  model = dl_transformer_new (8, 2, 1, 2, 16, 0.0, DL_TRANSFORMER_ACTIVATION_RELU, 1e-5, FALSE,
                              FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (dl_module_to_dtype (DL_MODULE (model), DL_DTYPE_FLOAT64, &error));
  out = dl_transformer_transform (model, x, tgt, NULL, NULL, NULL, NULL, NULL, NULL, FALSE, FALSE,
                                  FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (out, DL_TEST_SHAPE (3, 2, 8));
  {
    g_autoptr (DlTensor) bad = random_tensor (DL_TEST_SHAPE (3, 4, 8));
    DlTensor *o = dl_transformer_transform (model, x, bad, NULL, NULL, NULL, NULL, NULL, NULL,
                                            FALSE, FALSE, FALSE, &error);

    g_assert_null (o);
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_clear_error (&error);
  }
  g_assert_finalize_object (g_steal_pointer (&model));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/transformer/mha/parameters", test_mha_parameters);
  g_test_add_func ("/transformer/mha/paths", test_mha_paths);
  g_test_add_func ("/transformer/mha/masks", test_mha_masks);
  g_test_add_func ("/transformer/mha/backward", test_mha_backward);
  g_test_add_func ("/transformer/mha/errors", test_mha_errors);
  g_test_add_func ("/transformer/encoder-layer", test_encoder_layer);
  g_test_add_func ("/transformer/stacks-and-model", test_stacks_and_model);
  return g_test_run ();
}

/* test-layer-dtype.c: DlModule:dtype, the dtype in which each layer makes
 * its floating parameters and buffers (torch's factory argument dtype=):
 * every layer that makes tensors, built in float64, has every floating
 * parameter and buffer in float64 and its integer buffers unchanged, and
 * runs a forward in float64 that agrees with the float32 layer of the same
 * weights; an integer dtype is the construction's error; not given, the
 * dtype is the default dtype at construction. DlModule:device, given or
 * the thread's default, composes with it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

typedef DlModule *(*BuildFunc) (gint dtype, GError **error);

/* a builder of each layer from its construct properties and "dtype" */
#define BUILDER(fn, type, ...)                                                                     \
  static DlModule *fn (gint dtype, GError **error)                                                 \
  {                                                                                                \
    return g_initable_new (type, NULL, error, __VA_ARGS__, "dtype", dtype, NULL);                  \
  }

/* clang-format off */
BUILDER (build_linear, DL_TYPE_LINEAR, "in-features", (gint64)3, "out-features", (gint64)4)
BUILDER (build_conv1d, DL_TYPE_CONV1D, "in-channels", (gint64)2, "out-channels", (gint64)3,
         "kernel-size", (gint64)3)
BUILDER (build_conv2d, DL_TYPE_CONV2D, "in-channels", (gint64)2, "out-channels", (gint64)3,
         "kernel-height", (gint64)3, "kernel-width", (gint64)2)
BUILDER (build_conv_t2d, DL_TYPE_CONV_TRANSPOSE2D, "in-channels", (gint64)2,
         "out-channels", (gint64)3, "kernel-height", (gint64)3, "kernel-width", (gint64)3)
BUILDER (build_embedding, DL_TYPE_EMBEDDING, "num-embeddings", (gint64)10,
         "embedding-dim", (gint64)4, "padding-idx", (gint64)2)
BUILDER (build_bn1d, DL_TYPE_BATCH_NORM1D, "num-features", (gint64)3)
BUILDER (build_bn2d, DL_TYPE_BATCH_NORM2D, "num-features", (gint64)2)
BUILDER (build_group_norm, DL_TYPE_GROUP_NORM, "num-groups", (gint64)2,
         "num-channels", (gint64)4)
BUILDER (build_rnn_cell, DL_TYPE_RNN_CELL, "input-size", (gint64)3, "hidden-size", (gint64)4)
BUILDER (build_lstm_cell, DL_TYPE_LSTM_CELL, "input-size", (gint64)3, "hidden-size", (gint64)4)
BUILDER (build_gru_cell, DL_TYPE_GRU_CELL, "input-size", (gint64)3, "hidden-size", (gint64)4)
BUILDER (build_rnn, DL_TYPE_RNN, "input-size", (gint64)3, "hidden-size", (gint64)4)
BUILDER (build_lstm, DL_TYPE_LSTM, "input-size", (gint64)3, "hidden-size", (gint64)4,
         "num-layers", (gint64)2, "proj-size", (gint64)2)
BUILDER (build_gru, DL_TYPE_GRU, "input-size", (gint64)3, "hidden-size", (gint64)4,
         "bidirectional", TRUE)
BUILDER (build_mha, DL_TYPE_MULTIHEAD_ATTENTION, "embed-dim", (gint64)4,
         "num-heads", (gint64)2, "add-bias-kv", TRUE)
BUILDER (build_encoder_layer, DL_TYPE_TRANSFORMER_ENCODER_LAYER, "d-model", (gint64)4,
         "nhead", (gint64)2, "dim-feedforward", (gint64)8)
BUILDER (build_decoder_layer, DL_TYPE_TRANSFORMER_DECODER_LAYER, "d-model", (gint64)4,
         "nhead", (gint64)2, "dim-feedforward", (gint64)8)
BUILDER (build_transformer, DL_TYPE_TRANSFORMER, "d-model", (gint64)4, "nhead", (gint64)2,
         "dim-feedforward", (gint64)8, "num-encoder-layers", (gint64)2,
         "num-decoder-layers", (gint64)1)
/* clang-format on */

static DlModule *
build_layer_norm (gint dtype, GError **error)
{
  const gint64 shape[] = { 3, 4 };

  return g_initable_new (
      DL_TYPE_LAYER_NORM, NULL, error, "normalized-shape",
      g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, shape, 2, sizeof (gint64)), "dtype", dtype,
      NULL);
}

/* A layer, the shapes of its inputs (up to three, of up to four dims) and
 * whether they are indices (an embedding's) */
typedef struct
{
  const gchar *name;
  BuildFunc build;
  guint n_inputs;
  gsize n_dims;
  gint64 shapes[3][4];
  gboolean indices;
} Layer;

static const Layer layers[] = {
  { "Linear", build_linear, 1, 2, { { 2, 3 } } },
  { "Conv1d", build_conv1d, 1, 3, { { 2, 2, 6 } } },
  { "Conv2d", build_conv2d, 1, 4, { { 1, 2, 5, 4 } } },
  { "ConvTranspose2d", build_conv_t2d, 1, 4, { { 1, 2, 3, 3 } } },
  { "Embedding", build_embedding, 1, 2, { { 2, 5 } }, TRUE },
  { "BatchNorm1d", build_bn1d, 1, 2, { { 4, 3 } } },
  { "BatchNorm2d", build_bn2d, 1, 4, { { 2, 2, 3, 3 } } },
  { "GroupNorm", build_group_norm, 1, 3, { { 2, 4, 3 } } },
  { "LayerNorm", build_layer_norm, 1, 3, { { 2, 3, 4 } } },
  { "RNNCell", build_rnn_cell, 1, 2, { { 2, 3 } } },
  { "LSTMCell", build_lstm_cell, 1, 2, { { 2, 3 } } },
  { "GRUCell", build_gru_cell, 1, 2, { { 2, 3 } } },
  { "RNN", build_rnn, 1, 3, { { 5, 2, 3 } } },
  { "LSTM", build_lstm, 1, 3, { { 5, 2, 3 } } },
  { "GRU", build_gru, 1, 3, { { 5, 2, 3 } } },
  { "MultiheadAttention", build_mha, 3, 3, { { 3, 2, 4 }, { 5, 2, 4 }, { 5, 2, 4 } } },
  { "TransformerEncoderLayer", build_encoder_layer, 1, 3, { { 3, 2, 4 } } },
  { "TransformerDecoderLayer", build_decoder_layer, 2, 3, { { 3, 2, 4 }, { 5, 2, 4 } } },
  { "Transformer", build_transformer, 2, 3, { { 5, 2, 4 }, { 3, 2, 4 } } },
};

static DlModule *
build (const Layer *layer, gint dtype)
{
  g_autoptr (GError) error = NULL;
  DlModule *m = layer->build (dtype, &error);

  g_assert_no_error (error);
  g_assert_nonnull (m);
  return m;
}

/* every parameter of @m (its children's too) is @dtype, and so is every
 * floating buffer; integer buffers are int64 */
static void
check_members (DlModule *m, DlDType dtype)
{
  g_autoptr (GPtrArray) params = dl_module_named_parameters (m, TRUE, NULL);
  g_autoptr (GPtrArray) buffers = dl_module_named_buffers (m, TRUE, NULL);

  g_assert_cmpuint (params->len, >, 0);
  for (guint i = 0; i < params->len; i++)
    g_assert_cmpint (dl_tensor_get_dtype (params->pdata[i]), ==, dtype);
  for (guint i = 0; i < buffers->len; i++)
    {
      DlDType dt = dl_tensor_get_dtype (buffers->pdata[i]);

      g_assert_cmpint (dt, ==, dl_dtype_is_floating_point (dt) ? dtype : DL_DTYPE_INT64);
    }
}

static GPtrArray *
inputs (const Layer *layer, DlDType dtype, guint seed)
{
  GPtrArray *in = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < layer->n_inputs; i++)
    {
      gint64 n = dl_test_numel (layer->shapes[i], layer->n_dims);
      g_autofree gdouble *v = g_new (gdouble, n);
      GRand *rand = g_rand_new_with_seed (seed + i);

      for (gint64 k = 0; k < n; k++)
        v[k] = layer->indices ? g_rand_int_range (rand, 0, 10) : g_rand_double_range (rand, -1, 1);
      g_rand_free (rand);
      g_ptr_array_add (in, dl_test_tensor (v, layer->shapes[i], layer->n_dims,
                                           layer->indices ? DL_DTYPE_INT64 : dtype));
    }
  return in;
}

/* The layer in float64 has float64 members and computes what the float32
 * layer of the same weights computes, in float64 */
static void
test_float64 (gconstpointer data)
{
  const Layer *layer = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) m32 = build (layer, DL_DTYPE_FLOAT32);
  g_autoptr (DlModule) m64 = build (layer, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensorDict) state = dl_module_state_dict (m32);
  g_autoptr (GPtrArray) x32 = inputs (layer, DL_DTYPE_FLOAT32, 7);
  g_autoptr (GPtrArray) x64 = inputs (layer, DL_DTYPE_FLOAT64, 7);
  g_autoptr (GPtrArray) y32 = NULL;
  g_autoptr (GPtrArray) y64 = NULL;
  gint read_back = -1;

  check_members (m32, DL_DTYPE_FLOAT32);
  check_members (m64, DL_DTYPE_FLOAT64);
  g_object_get (m64, "dtype", &read_back, NULL);
  g_assert_cmpint (read_back, ==, DL_DTYPE_FLOAT64);

  g_assert_true (dl_module_load_state_dict (m64, state, TRUE, NULL, NULL, &error));
  g_assert_no_error (error);
  check_members (m64, DL_DTYPE_FLOAT64);
  dl_module_set_training (m32, FALSE);
  dl_module_set_training (m64, FALSE);
  y32 = dl_module_forward_many (m32, x32, &error);
  g_assert_no_error (error);
  y64 = dl_module_forward_many (m64, x64, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (y64->len, ==, y32->len);
  for (guint i = 0; i < y64->len; i++)
    {
      g_autoptr (DlTensor) y = NULL;

      if (y64->pdata[i] == NULL)
        continue;
      g_assert_cmpint (dl_tensor_get_dtype (y64->pdata[i]), ==, DL_DTYPE_FLOAT64);
      g_assert_cmpint (dl_tensor_get_dtype (y32->pdata[i]), ==, DL_DTYPE_FLOAT32);
      y = dl_tensor_to_dtype (y32->pdata[i], DL_DTYPE_FLOAT64, &error);
      g_assert_no_error (error);
      g_assert_true (dl_tensor_allclose (y64->pdata[i], y, 1e-4, 1e-5, FALSE, &error));
      g_assert_no_error (error);
    }
}

/* an integer or unknown dtype is the construction's DL_ERROR_DTYPE */
static void
test_integer_refused (gconstpointer data)
{
  const Layer *layer = data;
  static const gint bad[] = { DL_DTYPE_INT64, DL_DTYPE_INT32, DL_DTYPE_UINT8, DL_DTYPE_BOOL, 99 };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlModule) m = layer->build (bad[i], &error);

      g_assert_null (m);
      g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
      g_assert_nonnull (strstr (error->message, "dtype"));
      if (bad[i] != 99)
        g_assert_nonnull (strstr (error->message, dl_dtype_get_name (bad[i])));
    }
}

/* float16 and bfloat16 layers: their parameters, as torch's */
static void
test_half (gconstpointer data)
{
  const Layer *layer = data;
  g_autoptr (DlModule) h = build (layer, DL_DTYPE_FLOAT16);
  g_autoptr (DlModule) b = build (layer, DL_DTYPE_BFLOAT16);

  check_members (h, DL_DTYPE_FLOAT16);
  check_members (b, DL_DTYPE_BFLOAT16);
}

/* not given, the dtype is the default dtype when the layer is built; a
 * given float32 stays float32 under another default */
static void
test_default_dtype (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) before = NULL;
  g_autoptr (DlModule) after = NULL;
  g_autoptr (DlModule) given = NULL;
  gint read_back = -1;

  before = DL_MODULE (dl_linear_new (2, 3, TRUE, &error));
  g_assert_no_error (error);
  dl_set_default_dtype (DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  after = DL_MODULE (dl_linear_new (2, 3, TRUE, &error));
  g_assert_no_error (error);
  given = build_linear (DL_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  dl_set_default_dtype (DL_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);

  check_members (before, DL_DTYPE_FLOAT32);
  check_members (after, DL_DTYPE_FLOAT64);
  check_members (given, DL_DTYPE_FLOAT32);
  g_object_get (after, "dtype", &read_back, NULL);
  g_assert_cmpint (read_back, ==, DL_DTYPE_FLOAT64);
  g_object_get (before, "dtype", &read_back, NULL);
  g_assert_cmpint (read_back, ==, DL_DTYPE_FLOAT32);
}

/* on the meta device, in float64: the two factory arguments compose */
static void
test_meta_device (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) meta = dl_device_get ("meta", &error);
  g_autoptr (DlModule) m = NULL;
  g_autoptr (GPtrArray) params = NULL;

  g_assert_no_error (error);
  dl_set_default_device (meta);
  m = build_encoder_layer (DL_DTYPE_FLOAT64, &error);
  dl_set_default_device (NULL);
  g_assert_no_error (error);
  check_members (m, DL_DTYPE_FLOAT64);
  params = dl_module_named_parameters (m, TRUE, NULL);
  for (guint i = 0; i < params->len; i++)
    g_assert_cmpint (dl_device_get_device_type (dl_tensor_get_device (params->pdata[i])), ==,
                     DL_DEVICE_TYPE_META);
}

/* every parameter and buffer of @m is on a device of @type */
static void
check_device (DlModule *m, DlDeviceType type)
{
  g_autoptr (GPtrArray) params = dl_module_named_parameters (m, TRUE, NULL);
  g_autoptr (GPtrArray) buffers = dl_module_named_buffers (m, TRUE, NULL);

  g_ptr_array_extend_and_steal (params, g_steal_pointer (&buffers));
  g_assert_cmpuint (params->len, >, 0);
  for (guint i = 0; i < params->len; i++)
    g_assert_cmpint (dl_device_get_device_type (dl_tensor_get_device (params->pdata[i])), ==, type);
}

/* DlModule:device, the other factory argument: a layer built on the meta
 * device through the property (the transformer layers' children too), in
 * float64; not given, the thread's default device, read back */
static void
test_device_property (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) meta = dl_device_get ("meta", &error);
  g_autoptr (DlDevice) read_back = NULL;
  g_autoptr (DlModule) bn = NULL;
  g_autoptr (DlModule) tf = NULL;
  g_autoptr (DlModule) cpu = NULL;

  g_assert_no_error (error);
  bn = g_initable_new (DL_TYPE_BATCH_NORM1D, NULL, &error, "num-features", (gint64)3, "device",
                       meta, "dtype", DL_DTYPE_FLOAT64, NULL);
  g_assert_no_error (error);
  check_device (bn, DL_DEVICE_TYPE_META);
  check_members (bn, DL_DTYPE_FLOAT64);
  g_object_get (bn, "device", &read_back, NULL);
  g_assert_true (read_back == meta);
  g_clear_object (&read_back);

  tf = g_initable_new (DL_TYPE_TRANSFORMER, NULL, &error, "d-model", (gint64)4, "nhead", (gint64)2,
                       "dim-feedforward", (gint64)8, "num-encoder-layers", (gint64)1,
                       "num-decoder-layers", (gint64)1, "device", meta, NULL);
  g_assert_no_error (error);
  check_device (tf, DL_DEVICE_TYPE_META);
  check_members (tf, DL_DTYPE_FLOAT32);

  cpu = build_linear (-1, &error);
  g_assert_no_error (error);
  check_device (cpu, DL_DEVICE_TYPE_CPU);
  g_object_get (cpu, "device", &read_back, NULL);
  g_assert_cmpint (dl_device_get_device_type (read_back), ==, DL_DEVICE_TYPE_CPU);
}

/* a layer with no tensors of its own takes the property and ignores it;
 * an integer dtype is refused there too */
static void
test_layer_without_parameters (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) relu
      = g_initable_new (DL_TYPE_RELU, NULL, &error, "dtype", DL_DTYPE_FLOAT64, NULL);
  g_autoptr (DlModule) bad = NULL;
  g_autoptr (GPtrArray) params = NULL;

  g_assert_no_error (error);
  params = dl_module_parameters (relu);
  g_assert_cmpuint (params->len, ==, 0);
  bad = g_initable_new (DL_TYPE_RELU, NULL, &error, "dtype", DL_DTYPE_INT64, NULL);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
}

/* Two threads build layers of different dtypes at once: each gets its own
 * (the property changes nothing that threads share) */
static gpointer
build_many (gpointer data)
{
  DlDType dtype = GPOINTER_TO_INT (data);

  for (gint i = 0; i < 200; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlModule) m = build_linear (dtype, &error);
      g_autoptr (DlModule) n = build_bn1d (dtype, &error);

      g_assert_no_error (error);
      if (dl_tensor_get_dtype (dl_module_get_parameter (m, "weight")) != dtype
          || dl_tensor_get_dtype (dl_module_get_buffer (n, "running_var")) != dtype)
        return GINT_TO_POINTER (FALSE);
    }
  return GINT_TO_POINTER (TRUE);
}

static void
test_threads (void)
{
  GThread *a = g_thread_new ("f64", build_many, GINT_TO_POINTER (DL_DTYPE_FLOAT64));
  GThread *b = g_thread_new ("f16", build_many, GINT_TO_POINTER (DL_DTYPE_FLOAT16));

  g_assert_true (GPOINTER_TO_INT (g_thread_join (a)));
  g_assert_true (GPOINTER_TO_INT (g_thread_join (b)));
  g_assert_cmpint (dl_get_default_dtype (), ==, DL_DTYPE_FLOAT32);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  dl_manual_seed (0);
  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      g_autofree gchar *f64 = g_strdup_printf ("/layer-dtype/float64/%s", layers[i].name);
      g_autofree gchar *half = g_strdup_printf ("/layer-dtype/half/%s", layers[i].name);
      g_autofree gchar *bad = g_strdup_printf ("/layer-dtype/integer-refused/%s", layers[i].name);

      g_test_add_data_func (f64, &layers[i], test_float64);
      g_test_add_data_func (half, &layers[i], test_half);
      g_test_add_data_func (bad, &layers[i], test_integer_refused);
    }
  g_test_add_func ("/layer-dtype/default-dtype", test_default_dtype);
  g_test_add_func ("/layer-dtype/meta-device", test_meta_device);
  g_test_add_func ("/layer-dtype/device-property", test_device_property);
  g_test_add_func ("/layer-dtype/no-parameters", test_layer_without_parameters);
  g_test_add_func ("/layer-dtype/threads", test_threads);
  return g_test_run ();
}

/* test-nn.c: DlModule subclassed in C, parameter names and order, Linear's
 * initialisation and forward, cross-entropy, SGD against a hand-written
 * update, and a small model that learns.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

/* MyNet: scale * fc2 (relu (fc1 (x))), with its own parameter "scale"
 * registered after the two children. */

#define MY_TYPE_NET (my_net_get_type ())
G_DECLARE_FINAL_TYPE (MyNet, my_net, MY, NET, DlModule)

struct _MyNet
{
  DlModule parent_instance;
  DlLinear *fc1;   /* (owned) */
  DlLinear *fc2;   /* (owned) */
  DlTensor *scale; /* (owned) */
  guint n_forward;
};

G_DEFINE_FINAL_TYPE (MyNet, my_net, DL_TYPE_MODULE)

static DlTensor *
my_net_forward (DlModule *module, DlTensor *input, GError **error)
{
  MyNet *self = MY_NET (module);
  g_autoptr (DlTensor) h = NULL;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) o = NULL;

  self->n_forward++;
  if (!(h = dl_module_forward (DL_MODULE (self->fc1), input, error))
      || !(r = dl_tensor_relu (h, error))
      || !(o = dl_module_forward (DL_MODULE (self->fc2), r, error)))
    return NULL;
  return dl_tensor_mul (o, self->scale, error);
}

static void
my_net_dispose (GObject *object)
{
  MyNet *self = MY_NET (object);

  g_clear_object (&self->fc1);
  g_clear_object (&self->fc2);
  g_clear_object (&self->scale);
  G_OBJECT_CLASS (my_net_parent_class)->dispose (object);
}

static void
my_net_class_init (MyNetClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = my_net_dispose;
  DL_MODULE_CLASS (klass)->forward = my_net_forward;
}

static void
my_net_init (MyNet *self)
{
}

static MyNet *
my_net_new (gint64 in, gint64 hidden, gint64 out)
{
  g_autoptr (GError) error = NULL;
  MyNet *self = g_object_new (MY_TYPE_NET, NULL);

  self->fc1 = dl_linear_new (in, hidden, TRUE, &error);
  g_assert_no_error (error);
  self->fc2 = dl_linear_new (hidden, out, TRUE, &error);
  g_assert_no_error (error);
  self->scale = dl_ones (DL_TEST_SHAPE (1), DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  dl_tensor_set_requires_grad (self->scale, TRUE, &error);
  dl_module_register_module (DL_MODULE (self), "fc1", DL_MODULE (self->fc1));
  dl_module_register_module (DL_MODULE (self), "fc2", DL_MODULE (self->fc2));
  dl_module_register_parameter (DL_MODULE (self), "scale", self->scale);
  return self;
}

static void
test_module_subclass (void)
{
  g_autoptr (GError) error = NULL;
  MyNet *net = my_net_new (4, 8, 3);
  g_autoptr (GPtrArray) params = dl_module_parameters (DL_MODULE (net));
  g_auto (GStrv) names = dl_module_parameter_names (DL_MODULE (net));
  g_auto (GStrv) child_names = dl_module_children_names (DL_MODULE (net));
  g_autoptr (GPtrArray) children = dl_module_children (DL_MODULE (net));
  const gchar *expected[] = { "scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", NULL };
  g_autoptr (DlTensor) x = dl_randn (DL_TEST_SHAPE (5, 4), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  gpointer fc1_weak = net->fc1;

  /* own parameters first, then the children's, depth first (PyTorch) */
  g_assert_cmpstrv (names, expected);
  g_assert_cmpuint (params->len, ==, 5);
  g_assert_true (g_ptr_array_index (params, 0) == net->scale);
  g_assert_true (g_ptr_array_index (params, 1)
                 == dl_module_get_parameter (DL_MODULE (net->fc1), "weight"));
  g_assert_true (g_ptr_array_index (params, 4)
                 == dl_module_get_parameter (DL_MODULE (net->fc2), "bias"));
  for (guint i = 0; i < params->len; i++)
    g_assert_true (dl_tensor_get_requires_grad (g_ptr_array_index (params, i)));
  g_assert_cmpstrv (child_names, ((const gchar *[]){ "fc1", "fc2", NULL }));
  g_assert_cmpuint (children->len, ==, 2);
  g_assert_true (dl_module_get_module (DL_MODULE (net), "fc2") == DL_MODULE (net->fc2));
  g_assert_null (dl_module_get_module (DL_MODULE (net), "fc3"));
  g_assert_null (dl_module_get_parameter (DL_MODULE (net), "weight"));

  /* dl_module_forward runs the C override */
  y = dl_module_forward (DL_MODULE (net), x, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (net->n_forward, ==, 1);
  dl_test_assert_shape (y, DL_TEST_SHAPE (5, 3));
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (y)), ==, "MulBackward0");

  /* eval/train reaches the children */
  dl_module_set_training (DL_MODULE (net), FALSE);
  g_assert_false (dl_module_get_training (DL_MODULE (net->fc1)));
  dl_module_set_training (DL_MODULE (net), TRUE);
  g_assert_true (dl_module_get_training (DL_MODULE (net->fc2)));

  /* an error inside forward comes out of the invoker */
  {
    g_autoptr (DlTensor) bad = dl_randn (DL_TEST_SHAPE (5, 7), DL_DTYPE_FLOAT32, NULL, NULL);
    g_autoptr (DlTensor) out = dl_module_forward (DL_MODULE (net), bad, &error);

    g_assert_null (out);
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_clear_error (&error);
  }

  g_clear_pointer (&children, g_ptr_array_unref);
  g_clear_pointer (&params, g_ptr_array_unref);
  g_clear_object (&y);
  g_object_add_weak_pointer (fc1_weak, &fc1_weak);
  g_assert_finalize_object (net);
  g_assert_null (fc1_weak);
}

static void
test_module_shared_and_replaced (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) m = g_object_new (DL_TYPE_MODULE, NULL);
  g_autoptr (DlLinear) l = dl_linear_new (2, 2, FALSE, &error);
  g_autoptr (DlTensor) a = dl_zeros (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) b = dl_zeros (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (GPtrArray) params = NULL;
  g_auto (GStrv) names = NULL;
  g_autoptr (DlTensor) out = NULL;

  g_assert_no_error (error);
  /* a tensor registered twice (weight tying) is listed once */
  dl_module_register_parameter (m, "a", a);
  dl_module_register_module (m, "lin", DL_MODULE (l));
  dl_module_register_parameter (DL_MODULE (l), "tied", a);
  names = dl_module_parameter_names (m);
  g_assert_cmpstrv (names, ((const gchar *[]){ "a", "lin.weight", NULL }));
  g_clear_pointer (&names, g_strfreev);
  /* registering a name again replaces the tensor in place */
  dl_module_register_parameter (m, "a", b);
  g_assert_true (dl_module_get_parameter (m, "a") == b);
  params = dl_module_parameters (m);
  g_assert_cmpuint (params->len, ==, 3);
  g_assert_true (g_ptr_array_index (params, 0) == b);
  g_assert_true (g_ptr_array_index (params, 2) == a);

  /* DlModule itself has no forward */
  out = dl_module_forward (m, a, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
}

/* dl_module_register_parameter (nullable) documents that NULL registers an
 * absent parameter (PyTorch's register_parameter (name, None)); the module
 * must then be freed without criticals. */
static void
test_module_null_parameter (void)
{
  if (g_test_subprocess ())
    {
      DlModule *m = g_object_new (DL_TYPE_MODULE, NULL);
      g_autoptr (GPtrArray) params = NULL;

      dl_module_register_parameter (m, "absent", NULL);
      params = dl_module_parameters (m);
      g_assert_cmpuint (params->len, ==, 0);
      g_assert_null (dl_module_get_parameter (m, "absent"));
      g_assert_finalize_object (m);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  if (!g_test_trap_has_passed ())
    g_test_fail_printf ("a module with a NULL parameter did not finalize cleanly "
                        "(libdl bug: dl_module_dispose unrefs the NULL entry)");
  else
    g_test_trap_assert_stderr_unmatched ("*CRITICAL*");
}

/* MyPair implements the general form: (a, b, [scale]) -> (a + b, a * b),
 * both times scale when it is given; b defaults to a. MySum adds up its
 * inputs into one output. */

#define MY_TYPE_PAIR (my_pair_get_type ())
G_DECLARE_FINAL_TYPE (MyPair, my_pair, MY, PAIR, DlModule)

struct _MyPair
{
  DlModule parent_instance;
  gboolean return_nothing; /* a broken override: no outputs, no error */
};

G_DEFINE_FINAL_TYPE (MyPair, my_pair, DL_TYPE_MODULE)

static void
my_pair_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlTensor *a, *b, *scale;
  g_autoptr (DlTensor) sum = NULL;
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_object_unref);

  if (MY_PAIR (module)->return_nothing)
    return;
  if (inputs->len < 1 || inputs->len > 3 || g_ptr_array_index (inputs, 0) == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "MyPair: takes (a, [b], [scale])");
      return;
    }
  a = g_ptr_array_index (inputs, 0);
  b = inputs->len > 1 && g_ptr_array_index (inputs, 1) ? g_ptr_array_index (inputs, 1) : a;
  scale = inputs->len > 2 ? g_ptr_array_index (inputs, 2) : NULL;
  if (!(sum = dl_tensor_add (a, b, error)) || !(prod = dl_tensor_mul (a, b, error)))
    return;
  if (scale)
    {
      g_ptr_array_add (out, dl_tensor_mul (sum, scale, error));
      g_ptr_array_add (out, dl_tensor_mul (prod, scale, error));
    }
  else
    {
      g_ptr_array_add (out, g_steal_pointer (&sum));
      g_ptr_array_add (out, g_steal_pointer (&prod));
    }
  *outputs = g_steal_pointer (&out);
}

static void
my_pair_class_init (MyPairClass *klass)
{
  DL_MODULE_CLASS (klass)->forward_many = my_pair_forward_many;
}

static void
my_pair_init (MyPair *self)
{
}

#define MY_TYPE_SUM (my_sum_get_type ())
G_DECLARE_FINAL_TYPE (MySum, my_sum, MY, SUM, DlModule)

struct _MySum
{
  DlModule parent_instance;
};

G_DEFINE_FINAL_TYPE (MySum, my_sum, DL_TYPE_MODULE)

static void
my_sum_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  g_autoptr (DlTensor) total = NULL;

  for (guint i = 0; i < inputs->len; i++)
    {
      DlTensor *t = g_ptr_array_index (inputs, i);

      if (t == NULL)
        continue;
      if (total == NULL)
        total = g_object_ref (t);
      else
        {
          DlTensor *next = dl_tensor_add (total, t, error);

          if (next == NULL)
            return;
          g_object_unref (total);
          total = next;
        }
    }
  if (total == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "MySum: no inputs");
      return;
    }
  *outputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (*outputs, g_steal_pointer (&total));
}

static void
my_sum_class_init (MySumClass *klass)
{
  DL_MODULE_CLASS (klass)->forward_many = my_sum_forward_many;
}

static void
my_sum_init (MySum *self)
{
}

static GPtrArray *
tensor_array (DlTensor *first, ...)
{
  GPtrArray *array = g_ptr_array_new ();
  va_list ap;

  g_ptr_array_add (array, first);
  va_start (ap, first);
  for (DlTensor *t = va_arg (ap, DlTensor *); t != (gpointer)-1; t = va_arg (ap, DlTensor *))
    g_ptr_array_add (array, t);
  va_end (ap);
  return array;
}
#define TENSORS(...) tensor_array (__VA_ARGS__, (gpointer)-1)

/* The two forms of forward reach each other: a module implementing either
 * answers both dl_module_forward and dl_module_forward_many. */
static void
test_module_forward_many (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MyPair) pair = g_object_new (MY_TYPE_PAIR, NULL);
  g_autoptr (MySum) sum = g_object_new (MY_TYPE_SUM, NULL);
  g_autoptr (DlModule) base = g_object_new (DL_TYPE_MODULE, NULL);
  MyNet *net = my_net_new (2, 3, 2);
  g_autoptr (DlTensor) a
      = dl_test_tensor ((gdouble[]){ 1, 2 }, DL_TEST_SHAPE (1, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b
      = dl_test_tensor ((gdouble[]){ 3, 5 }, DL_TEST_SHAPE (1, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) s = dl_test_tensor ((gdouble[]){ 10 }, DL_TEST_SHAPE (1), DL_DTYPE_FLOAT64);
  g_autoptr (GPtrArray) in = NULL;
  g_autoptr (GPtrArray) out = NULL;
  g_autoptr (DlTensor) y = NULL;

  g_assert_true (G_IS_INITABLE (pair));
  g_assert_true (g_initable_init (G_INITABLE (pair), NULL, &error));
  g_assert_no_error (error);

  /* two inputs, two outputs */
  in = TENSORS (a, b);
  out = dl_module_forward_many (DL_MODULE (pair), in, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (out->len, ==, 2);
  dl_test_assert_values (g_ptr_array_index (out, 0), (gdouble[]){ 4, 7 }, 2, 0);
  dl_test_assert_values (g_ptr_array_index (out, 1), (gdouble[]){ 3, 10 }, 2, 0);
  g_clear_pointer (&in, g_ptr_array_unref);
  g_clear_pointer (&out, g_ptr_array_unref);

  /* an optional input left out in the middle (NULL) and one given after it */
  in = TENSORS (a, NULL, s);
  out = dl_module_forward_many (DL_MODULE (pair), in, &error);
  g_assert_no_error (error);
  dl_test_assert_values (g_ptr_array_index (out, 0), (gdouble[]){ 20, 40 }, 2, 0);
  dl_test_assert_values (g_ptr_array_index (out, 1), (gdouble[]){ 10, 40 }, 2, 0);
  g_clear_pointer (&in, g_ptr_array_unref);
  g_clear_pointer (&out, g_ptr_array_unref);

  /* the subclass's own error */
  in = g_ptr_array_new ();
  out = dl_module_forward_many (DL_MODULE (pair), in, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_clear_pointer (&in, g_ptr_array_unref);

  /* forward on a module that gives two outputs: a clear error */
  y = dl_module_forward (DL_MODULE (pair), a, &error);
  g_assert_null (y);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "MyPair gave 2 outputs"));
  g_clear_error (&error);

  /* forward on a forward_many module with one output */
  y = dl_module_forward (DL_MODULE (sum), a, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, (gdouble[]){ 1, 2 }, 2, 0);
  g_clear_object (&y);
  in = TENSORS (a, b, NULL);
  out = dl_module_forward_many (DL_MODULE (sum), in, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (out->len, ==, 1);
  dl_test_assert_values (g_ptr_array_index (out, 0), (gdouble[]){ 4, 7 }, 2, 0);
  g_clear_pointer (&in, g_ptr_array_unref);
  g_clear_pointer (&out, g_ptr_array_unref);

  /* forward_many on a forward module: one input, one output */
  g_clear_object (&y);
  y = dl_tensor_to_dtype (a, DL_DTYPE_FLOAT32, &error);
  in = TENSORS (y);
  out = dl_module_forward_many (DL_MODULE (net), in, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (out->len, ==, 1);
  dl_test_assert_shape (g_ptr_array_index (out, 0), DL_TEST_SHAPE (1, 2));
  g_assert_cmpuint (net->n_forward, ==, 1);
  g_clear_pointer (&in, g_ptr_array_unref);
  g_clear_pointer (&out, g_ptr_array_unref);
  in = TENSORS (a, b);
  out = dl_module_forward_many (DL_MODULE (net), in, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_clear_pointer (&in, g_ptr_array_unref);

  /* a module implementing neither */
  in = TENSORS (a);
  out = dl_module_forward_many (base, in, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "neither forward nor forward_many"));
  g_clear_error (&error);

  /* an override that gives nothing and sets no error */
  pair->return_nothing = TRUE;
  out = dl_module_forward_many (DL_MODULE (pair), in, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_null (dl_module_forward (DL_MODULE (pair), a, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_FAILED);
  g_assert_finalize_object (net);
}

static void
test_linear_init (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLinear) l = dl_linear_new (50, 40, TRUE, &error);
  DlTensor *w, *b;
  g_autofree gdouble *wv = NULL;
  g_autofree gdouble *bv = NULL;
  gdouble bound = 1 / sqrt (50.0), lo = 1, hi = -1;

  g_assert_no_error (error);
  g_assert_cmpint (dl_linear_get_in_features (l), ==, 50);
  g_assert_cmpint (dl_linear_get_out_features (l), ==, 40);
  w = dl_module_get_parameter (DL_MODULE (l), "weight");
  b = dl_module_get_parameter (DL_MODULE (l), "bias");
  dl_test_assert_shape (w, DL_TEST_SHAPE (40, 50));
  dl_test_assert_shape (b, DL_TEST_SHAPE (40));
  g_assert_cmpint (dl_tensor_get_dtype (w), ==, DL_DTYPE_FLOAT32);
  g_assert_true (dl_tensor_get_requires_grad (w));
  g_assert_true (dl_tensor_is_leaf (w));
  wv = dl_test_values (w);
  bv = dl_test_values (b);
  for (gint i = 0; i < 2000; i++)
    {
      g_assert_cmpfloat (fabs (wv[i]), <=, bound);
      lo = MIN (lo, wv[i]);
      hi = MAX (hi, wv[i]);
    }
  for (gint i = 0; i < 40; i++)
    g_assert_cmpfloat (fabs (bv[i]), <=, bound);
  /* uniform over the whole range, not a corner of it */
  g_assert_cmpfloat (lo, <, -0.9 * bound);
  g_assert_cmpfloat (hi, >, 0.9 * bound);

  g_clear_object (&l);
  l = dl_linear_new (-1, 3, TRUE, &error);
  g_assert_null (l);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* Construct properties: the GObject way to build a layer, checked by
 * GInitable; a missing or bad value is an error, never a 0x0 layer. */
static void
test_linear_properties (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLinear) l = NULL;
  g_autoptr (DlLinear) broken = NULL;
  g_autoptr (DlTensor) x = dl_zeros (DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) y = NULL;
  gint64 in, out;
  gboolean bias;

  l = g_initable_new (DL_TYPE_LINEAR, NULL, &error, "in-features", (gint64)4, "out-features",
                      (gint64)2, "bias", FALSE, NULL);
  g_assert_no_error (error);
  g_object_get (l, "in-features", &in, "out-features", &out, "bias", &bias, NULL);
  g_assert_cmpint (in, ==, 4);
  g_assert_cmpint (out, ==, 2);
  g_assert_false (bias);
  g_assert_null (dl_module_get_parameter (DL_MODULE (l), "bias"));
  dl_test_assert_shape (dl_module_get_parameter (DL_MODULE (l), "weight"), DL_TEST_SHAPE (2, 4));
  y = dl_module_forward (DL_MODULE (l), x, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (3, 2));
  g_clear_object (&y);
  g_clear_object (&l);

  /* bias defaults to TRUE */
  l = g_object_new (DL_TYPE_LINEAR, "in-features", (gint64)4, "out-features", (gint64)0, NULL);
  g_assert_true (g_initable_init (G_INITABLE (l), NULL, &error));
  g_object_get (l, "bias", &bias, NULL);
  g_assert_true (bias);
  dl_test_assert_shape (dl_module_get_parameter (DL_MODULE (l), "bias"), DL_TEST_SHAPE (0));

  /* g_initable_new reports a missing size */
  g_assert_null (g_initable_new (DL_TYPE_LINEAR, NULL, &error, "in-features", (gint64)4, NULL));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Linear: out_features is missing"));
  g_clear_error (&error);

  /* g_object_new, as the bindings construct, gives an object whose init
   * and forward report the mistake */
  broken
      = g_object_new (DL_TYPE_LINEAR, "in-features", (gint64)-2, "out-features", (gint64)3, NULL);
  g_assert_false (g_initable_init (G_INITABLE (broken), NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "Linear: in_features must be a size >= 0, got -2");
  g_clear_error (&error);
  y = dl_module_forward (DL_MODULE (broken), x, &error);
  g_assert_null (y);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "Linear: in_features must be a size >= 0, got -2");
  g_clear_error (&error);
  {
    g_autoptr (GPtrArray) in_array = g_ptr_array_new ();
    g_autoptr (GPtrArray) out_array = NULL;
    g_autoptr (GPtrArray) params = dl_module_parameters (DL_MODULE (broken));

    g_ptr_array_add (in_array, x);
    out_array = dl_module_forward_many (DL_MODULE (broken), in_array, &error);
    g_assert_null (out_array);
    g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
    g_assert_cmpuint (params->len, ==, 0);
  }
}

static void
test_linear_forward (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLinear) l = dl_linear_new (3, 2, TRUE, &error);
  g_autofree gdouble *xv = dl_test_random_values (12);
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (2, 2, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (l), x, &error);
  g_autofree gdouble *wv = dl_test_values (dl_module_get_parameter (DL_MODULE (l), "weight"));
  g_autofree gdouble *bv = dl_test_values (dl_module_get_parameter (DL_MODULE (l), "bias"));
  gdouble ref[8];

  g_assert_no_error (error);
  for (gint n = 0; n < 4; n++)
    for (gint o = 0; o < 2; o++)
      {
        ref[n * 2 + o] = bv[o];
        for (gint i = 0; i < 3; i++)
          ref[n * 2 + o] += xv[n * 3 + i] * wv[o * 3 + i];
      }
  dl_test_assert_shape (y, DL_TEST_SHAPE (2, 2, 2));
  dl_test_assert_values (y, ref, 8, 1e-5);
}

static void
assert_same_values (DlTensor *got, DlTensor *expected, gdouble tol)
{
  g_autofree gdouble *v = dl_test_values (expected);

  dl_test_assert_values (got, v, dl_tensor_numel (expected), tol);
}

static void
test_activation_modules (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble xv[] = { -2, -0.5, 0, 1.5, 3, -1 };
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) x4 = dl_zeros (DL_TEST_SHAPE (2, 3, 4, 5), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlRelu) relu = dl_relu_new (FALSE);
  g_autoptr (DlRelu) relu_ = g_object_new (DL_TYPE_RELU, "inplace", TRUE, NULL);
  g_autoptr (DlSigmoid) sigmoid = dl_sigmoid_new ();
  g_autoptr (DlTanh) tanh_m = g_object_new (DL_TYPE_TANH, NULL);
  g_autoptr (DlIdentity) identity = dl_identity_new ();
  g_autoptr (DlFlatten) flatten = g_object_new (DL_TYPE_FLATTEN, NULL);
  g_autoptr (DlFlatten) flatten_inner = dl_flatten_new (-3, 2);
  g_autoptr (DlFlatten) flatten_far = dl_flatten_new (G_MAXINT64, -1);
  g_autoptr (DlSoftmax) softmax = g_object_new (DL_TYPE_SOFTMAX, "dim", (gint64)1, NULL);
  g_autoptr (DlLogSoftmax) log_softmax = dl_log_softmax_new (-1);
  g_autoptr (DlSoftmax) no_dim = g_object_new (DL_TYPE_SOFTMAX, NULL);
  g_autoptr (DlGelu) gelu = dl_gelu_new (NULL, NULL);
  g_autoptr (DlGelu) gelu_tanh = dl_gelu_new ("tanh", NULL);
  g_autoptr (DlSilu) silu_ = dl_silu_new (TRUE);
  g_autoptr (GError) gelu_error = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) ref = NULL;
  gboolean inplace;
  gint64 start, end, dim;

  y = dl_test_run_module (relu, x);
  dl_test_assert_values (y, (gdouble[]){ 0, 0, 0, 1.5, 3, 0 }, 6, 0);
  g_assert_true (y != x);
  dl_test_assert_values (x, xv, 6, 0);
  g_clear_object (&y);
  g_object_get (relu_, "inplace", &inplace, NULL);
  g_assert_true (inplace && dl_relu_get_inplace (relu_) && !dl_relu_get_inplace (relu));
  {
    g_autoptr (DlTensor) copy = dl_tensor_clone (x, NULL);

    y = dl_test_run_module (relu_, copy);
    g_assert_true (y == copy); /* in place: the input itself */
    dl_test_assert_values (copy, (gdouble[]){ 0, 0, 0, 1.5, 3, 0 }, 6, 0);
    g_clear_object (&y);
  }

  {
    g_autoptr (DlLeakyRelu) leaky = dl_leaky_relu_new (0.2, FALSE);
    g_autoptr (DlLeakyRelu) leaky_ = g_object_new (DL_TYPE_LEAKY_RELU, "inplace", TRUE, NULL);
    g_autoptr (DlTensor) copy = dl_tensor_clone (x, NULL);

    g_assert_cmpfloat (dl_leaky_relu_get_negative_slope (leaky_), ==, 0.01);
    g_assert_true (dl_leaky_relu_get_inplace (leaky_) && !dl_leaky_relu_get_inplace (leaky));
    y = dl_test_run_module (leaky, x);
    dl_test_assert_values (y, (gdouble[]){ -0.4, -0.1, 0, 1.5, 3, -0.2 }, 6, 1e-15);
    g_clear_object (&y);
    y = dl_test_run_module (leaky_, copy);
    g_assert_true (y == copy);
    dl_test_assert_values (copy, (gdouble[]){ -0.02, -0.005, 0, 1.5, 3, -0.01 }, 6, 1e-15);
    g_clear_object (&y);
  }

  y = dl_test_run_module (gelu, x);
  ref = dl_tensor_gelu (x, NULL);
  assert_same_values (y, ref, 0);
  g_clear_object (&y);
  g_clear_object (&ref);
  y = dl_test_run_module (gelu_tanh, x);
  ref = dl_tensor_gelu_tanh (x, NULL);
  assert_same_values (y, ref, 0);
  g_assert_cmpstr (dl_gelu_get_approximate (gelu_tanh), ==, "tanh");
  g_clear_object (&y);
  g_clear_object (&ref);
  g_assert_null (dl_gelu_new ("cubic", &gelu_error));
  g_assert_error (gelu_error, DL_ERROR, DL_ERROR_ARGUMENT);
  {
    g_autoptr (DlTensor) copy = dl_tensor_clone (x, NULL);

    ref = dl_tensor_silu (x, NULL);
    y = dl_test_run_module (silu_, copy);
    g_assert_true (y == copy && dl_silu_get_inplace (silu_));
    assert_same_values (copy, ref, 0);
    g_clear_object (&y);
    g_clear_object (&ref);
  }

  y = dl_test_run_module (sigmoid, x);
  ref = dl_tensor_sigmoid (x, NULL);
  assert_same_values (y, ref, 0);
  g_clear_object (&y);
  g_clear_object (&ref);
  y = dl_test_run_module (tanh_m, x);
  dl_test_assert_values (
      y, (gdouble[]){ tanh (-2), tanh (-0.5), 0, tanh (1.5), tanh (3), tanh (-1) }, 6, 1e-15);
  g_clear_object (&y);
  y = dl_test_run_module (identity, x);
  g_assert_true (y == x);
  g_clear_object (&y);

  /* Flatten: all but the batch dim by default */
  g_object_get (flatten, "start-dim", &start, "end-dim", &end, NULL);
  g_assert_cmpint (start, ==, 1);
  g_assert_cmpint (end, ==, -1);
  y = dl_test_run_module (flatten, x4);
  dl_test_assert_shape (y, DL_TEST_SHAPE (2, 60));
  g_clear_object (&y);
  g_assert_cmpint (dl_flatten_get_start_dim (flatten_inner), ==, -3);
  g_assert_cmpint (dl_flatten_get_end_dim (flatten_inner), ==, 2);
  y = dl_test_run_module (flatten_inner, x4);
  dl_test_assert_shape (y, DL_TEST_SHAPE (2, 12, 5));
  g_clear_object (&y);
  y = dl_module_forward (DL_MODULE (flatten_far), x4, &error);
  g_assert_null (y);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_assert_nonnull (strstr (error->message, "flatten: dimension out of range"));
  g_assert_nonnull (strstr (error->message, "got 9223372036854775807"));
  g_clear_error (&error);

  /* Softmax and LogSoftmax */
  g_object_get (softmax, "dim", &dim, NULL);
  g_assert_cmpint (dim, ==, 1);
  g_assert_cmpint (dl_log_softmax_get_dim (log_softmax), ==, -1);
  y = dl_test_run_module (softmax, x);
  ref = dl_tensor_softmax (x, 1, NULL);
  assert_same_values (y, ref, 0);
  g_clear_object (&y);
  g_clear_object (&ref);
  y = dl_test_run_module (log_softmax, x);
  ref = dl_tensor_log_softmax (x, 1, NULL);
  assert_same_values (y, ref, 0);
  g_clear_object (&y);
  /* a dim is required */
  g_assert_false (g_initable_init (G_INITABLE (no_dim), NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "Softmax: dim is missing: give the dim to normalise over");
  g_clear_error (&error);
  g_assert_null (dl_module_forward (DL_MODULE (no_dim), x, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  /* a dim the input lacks is the op's error */
  g_clear_object (&softmax);
  softmax = dl_softmax_new (2);
  g_assert_null (dl_module_forward (DL_MODULE (softmax), x, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
}

static void
test_sequential (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLinear) fc1 = dl_linear_new (4, 6, TRUE, NULL);
  g_autoptr (DlRelu) relu = dl_relu_new (FALSE);
  g_autoptr (DlLinear) fc2 = dl_linear_new (6, 2, TRUE, NULL);
  g_autoptr (GPtrArray) modules = g_ptr_array_new ();
  g_autoptr (DlSequential) seq = NULL;
  g_autoptr (DlSequential) empty = NULL;
  g_autoptr (DlTensor) x = dl_randn (DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) h1 = NULL;
  g_autoptr (DlTensor) h2 = NULL;
  g_autoptr (DlTensor) ref = NULL;
  g_autoptr (GListModel) back = NULL;
  g_auto (GStrv) names = NULL;
  g_auto (GStrv) child_names = NULL;

  g_ptr_array_add (modules, fc1);
  g_ptr_array_add (modules, relu);
  seq = dl_sequential_new (modules, &error);
  g_assert_no_error (error);
  dl_sequential_append (seq, DL_MODULE (fc2));
  g_assert_cmpuint (dl_sequential_get_length (seq), ==, 3);
  child_names = dl_module_children_names (DL_MODULE (seq));
  g_assert_cmpstrv (child_names, ((const gchar *[]){ "0", "1", "2", NULL }));
  names = dl_module_parameter_names (DL_MODULE (seq));
  g_assert_cmpstrv (names, ((const gchar *[]){ "0.weight", "0.bias", "2.weight", "2.bias", NULL }));
  g_assert_true (dl_sequential_get (seq, 0, &error) == DL_MODULE (fc1));
  g_assert_true (dl_sequential_get (seq, -1, &error) == DL_MODULE (fc2));
  g_assert_true (dl_sequential_get (seq, -3, &error) == DL_MODULE (fc1));
  g_assert_no_error (error);
  g_assert_null (dl_sequential_get (seq, 3, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==, "Sequential: index 3 is out of range for 3 modules");
  g_clear_error (&error);
  g_assert_null (dl_sequential_get (seq, -4, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  g_object_get (seq, "modules", &back, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (back), ==, 3);

  /* forward chains the children */
  y = dl_module_forward (DL_MODULE (seq), x, &error);
  g_assert_no_error (error);
  h1 = dl_module_forward (DL_MODULE (fc1), x, NULL);
  h2 = dl_tensor_relu (h1, NULL);
  ref = dl_module_forward (DL_MODULE (fc2), h2, NULL);
  assert_same_values (y, ref, 0);
  g_clear_object (&y);
  /* an error in a child comes out */
  {
    g_autoptr (DlTensor) bad = dl_randn (DL_TEST_SHAPE (3, 5), DL_DTYPE_FLOAT32, NULL, NULL);

    g_assert_null (dl_module_forward (DL_MODULE (seq), bad, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_clear_error (&error);
  }

  /* empty: forward gives the input */
  empty = g_initable_new (DL_TYPE_SEQUENTIAL, NULL, &error, NULL);
  g_assert_no_error (error);
  g_assert_cmpuint (dl_sequential_get_length (empty), ==, 0);
  y = dl_module_forward (DL_MODULE (empty), x, &error);
  g_assert_true (y == x);
  g_clear_object (&y);
  g_clear_object (&empty);
  empty = dl_sequential_new (NULL, &error);
  g_assert_no_error (error);

  /* not modules */
  g_ptr_array_add (modules, NULL);
  g_assert_null (dl_sequential_new (modules, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  {
    g_autoptr (GListStore) store = g_list_store_new (G_TYPE_OBJECT);

    g_list_store_append (store, x);
    g_assert_null (g_initable_new (DL_TYPE_SEQUENTIAL, NULL, &error, "modules", store, NULL));
    g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
    g_assert_cmpstr (error->message, ==, "Sequential: modules: item 0 is a DlTensor, not a module");
  }
}

static void
test_cross_entropy (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *lv = dl_test_random_values (12);
  g_autoptr (DlTensor) logits = dl_test_tensor (lv, DL_TEST_SHAPE (4, 3), DL_DTYPE_FLOAT64);
  const gdouble tv[] = { 0, 2, 1, 2 };
  g_autoptr (DlTensor) target = dl_test_tensor (tv, DL_TEST_SHAPE (4), DL_DTYPE_INT64);
  g_autoptr (DlTensor) loss = dl_cross_entropy (logits, target, &error);
  g_autoptr (DlTensor) bad_target = NULL;
  gdouble ref = 0;

  g_assert_no_error (error);
  for (gint n = 0; n < 4; n++)
    {
      gdouble z = 0;
      for (gint c = 0; c < 3; c++)
        z += exp (lv[n * 3 + c]);
      ref += (log (z) - lv[n * 3 + (gint)tv[n]]) / 4;
    }
  g_assert_cmpint (dl_tensor_get_ndim (loss), ==, 0);
  g_assert_cmpfloat_with_epsilon (dl_tensor_item (loss, &error), ref, 1e-12);

  /* a class index out of range */
  bad_target = dl_test_tensor ((gdouble[]){ 0, 3, 1, 2 }, DL_TEST_SHAPE (4), DL_DTYPE_INT64);
  g_clear_object (&loss);
  loss = dl_cross_entropy (logits, bad_target, &error);
  g_assert_null (loss);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  /* a batch size that does not match */
  g_clear_object (&bad_target);
  bad_target = dl_test_tensor ((gdouble[]){ 0, 1 }, DL_TEST_SHAPE (2), DL_DTYPE_INT64);
  loss = dl_cross_entropy (logits, bad_target, &error);
  g_assert_null (loss);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

static void
test_loss_modules (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *lv = dl_test_random_values (12);
  g_autoptr (DlTensor) logits = dl_test_tensor (lv, DL_TEST_SHAPE (4, 3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) target
      = dl_test_tensor ((gdouble[]){ 0, 2, 1, 2 }, DL_TEST_SHAPE (4), DL_DTYPE_INT64);
  g_autoptr (DlTensor) log_probs = dl_tensor_log_softmax (logits, 1, NULL);
  g_autoptr (DlCrossEntropyLoss) ce = dl_cross_entropy_loss_new ();
  g_autoptr (DlNllLoss) nll = g_object_new (DL_TYPE_NLL_LOSS, "reduction", DL_REDUCTION_MEAN, NULL);
  g_autoptr (DlCrossEntropyLoss) sum = NULL;
  g_autoptr (GPtrArray) in = g_ptr_array_new ();
  g_autoptr (GPtrArray) out = NULL;
  g_autoptr (DlTensor) ftarget
      = dl_test_tensor ((gdouble[]){ 0, 2, 1, 2 }, DL_TEST_SHAPE (4), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) ref = dl_cross_entropy (logits, target, NULL);
  g_autoptr (DlTensor) ref_sum = dl_tensor_mul_scalar (ref, 4, NULL);
  g_autoptr (DlCrossEntropyLoss) batchmean = NULL;
  DlReduction reduction;

  g_assert_true (g_initable_init (G_INITABLE (ce), NULL, &error));
  g_object_get (ce, "reduction", &reduction, NULL);
  g_assert_cmpint (reduction, ==, DL_REDUCTION_MEAN);
  g_assert_cmpint (dl_nll_loss_get_reduction (nll), ==, DL_REDUCTION_MEAN);

  g_ptr_array_add (in, logits);
  g_ptr_array_add (in, target);
  out = dl_module_forward_many (DL_MODULE (ce), in, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (out->len, ==, 1);
  g_assert_cmpint (dl_tensor_get_ndim (g_ptr_array_index (out, 0)), ==, 0);
  assert_same_values (g_ptr_array_index (out, 0), ref, 0);
  g_clear_pointer (&out, g_ptr_array_unref);

  g_ptr_array_index (in, 0) = log_probs;
  out = dl_module_forward_many (DL_MODULE (nll), in, &error);
  g_assert_no_error (error);
  assert_same_values (g_ptr_array_index (out, 0), ref, 1e-15);
  g_clear_pointer (&out, g_ptr_array_unref);

  /* the function's own errors come through */
  g_ptr_array_index (in, 1) = ftarget;
  g_assert_null (dl_module_forward_many (DL_MODULE (nll), in, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
  /* one input is not enough, through either entry point */
  g_assert_null (dl_module_forward (DL_MODULE (ce), logits, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "CrossEntropyLoss: takes two inputs (input, target), got 1");
  g_clear_error (&error);

  /* 'sum' adds the samples' losses; 'batchmean' is kl_div's only */
  sum = g_object_new (DL_TYPE_CROSS_ENTROPY_LOSS, "reduction", DL_REDUCTION_SUM, NULL);
  g_assert_true (g_initable_init (G_INITABLE (sum), NULL, &error));
  g_ptr_array_index (in, 0) = logits;
  g_ptr_array_index (in, 1) = target;
  out = dl_module_forward_many (DL_MODULE (sum), in, &error);
  g_assert_no_error (error);
  assert_same_values (g_ptr_array_index (out, 0), ref_sum, 1e-14);
  batchmean = g_object_new (DL_TYPE_CROSS_ENTROPY_LOSS, "reduction", DL_REDUCTION_BATCHMEAN, NULL);
  g_assert_false (g_initable_init (G_INITABLE (batchmean), NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "CrossEntropyLoss: batchmean is not a valid value for reduction");
}

/* SGD against torch.optim.SGD's update written out on plain arrays:
 *   g = grad + wd * p; b = g (first step) or m * b + (1 - damp) * g;
 *   g = nesterov ? g + m * b : b; p -= lr * g */
typedef struct
{
  gdouble lr, momentum, dampening, weight_decay;
  gboolean nesterov;
} SgdConfig;

static void
check_sgd (const SgdConfig *c)
{
  g_autoptr (GError) error = NULL;
  const gdouble p0[] = { 1.0, -2.0, 0.5 };
  const gdouble grads[3][3] = { { 0.5, 1.0, -1.5 }, { -0.25, 2.0, 0.0 }, { 1.0, -1.0, 0.75 } };
  gdouble p[3], buf[3];
  g_autoptr (DlTensor) param = dl_test_tensor (p0, DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64);
  g_autoptr (GPtrArray) params = g_ptr_array_new ();
  g_autoptr (DlSgd) sgd = NULL;

  memcpy (p, p0, sizeof p);
  dl_tensor_set_requires_grad (param, TRUE, &error);
  g_ptr_array_add (params, param);
  sgd = dl_sgd_new (params, c->lr, c->momentum, c->dampening, c->weight_decay, c->nesterov, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_optimizer_get_lr (DL_OPTIMIZER (sgd)), ==, c->lr);

  for (gint step = 0; step < 3; step++)
    {
      g_autoptr (DlTensor) g = dl_test_tensor (grads[step], DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64);

      g_assert_true (dl_tensor_set_grad (param, g, NULL));
      g_assert_true (dl_optimizer_step (DL_OPTIMIZER (sgd), &error));
      g_assert_no_error (error);
      for (gint i = 0; i < 3; i++)
        {
          gdouble gi = grads[step][i] + c->weight_decay * p[i];

          if (c->momentum != 0)
            {
              buf[i] = step == 0 ? gi : c->momentum * buf[i] + (1 - c->dampening) * gi;
              gi = c->nesterov ? gi + c->momentum * buf[i] : buf[i];
            }
          p[i] -= c->lr * gi;
        }
      dl_test_assert_values (param, p, 3, 1e-14);
      /* the gradient itself is left alone */
      dl_test_assert_values (g, grads[step], 3, 0);
      /* a step records nothing */
      g_assert_null (dl_tensor_get_grad_fn (param));
      g_assert_true (dl_tensor_is_leaf (param));
    }

  dl_optimizer_zero_grad (DL_OPTIMIZER (sgd), FALSE);
  dl_test_assert_values (dl_tensor_get_grad (param), (gdouble[]){ 0, 0, 0 }, 3, 0);
  dl_optimizer_zero_grad (DL_OPTIMIZER (sgd), TRUE);
  g_assert_null (dl_tensor_get_grad (param));
  /* no gradient: the step skips the parameter */
  g_assert_true (dl_optimizer_step (DL_OPTIMIZER (sgd), &error));
  g_assert_no_error (error);
  dl_test_assert_values (param, p, 3, 1e-14);
}

static void
test_sgd (void)
{
  static const SgdConfig configs[] = {
    { 0.1, 0.0, 0.0, 0.0, FALSE },  { 0.1, 0.9, 0.0, 0.0, FALSE }, { 0.1, 0.9, 0.0, 0.01, FALSE },
    { 0.05, 0.8, 0.3, 0.0, FALSE }, { 0.1, 0.9, 0.0, 0.01, TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (configs); i++)
    check_sgd (&configs[i]);
}

static void
test_sgd_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) empty = g_ptr_array_new ();
  g_autoptr (GPtrArray) params = g_ptr_array_new_with_free_func (g_object_unref);
  DlSgd *sgd;

  g_ptr_array_add (params, dl_zeros (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, NULL, NULL));
  sgd = dl_sgd_new (empty, 0.1, 0, 0, 0, FALSE, &error);
  g_assert_null (sgd);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  sgd = dl_sgd_new (params, -0.1, 0, 0, 0, FALSE, &error);
  g_assert_null (sgd);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  sgd = dl_sgd_new (params, 0.1, 0, 0, 0, TRUE, &error);
  g_assert_null (sgd);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* SGD from construct properties: the parameters as a GListModel, the
 * hyperparameters read back, errors kept for init and step. */
static void
test_sgd_properties (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) p = dl_zeros (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT64, NULL, NULL);
  g_autoptr (DlTensor) g = dl_ones (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT64, NULL, NULL);
  g_autoptr (GListStore) store = g_list_store_new (DL_TYPE_TENSOR);
  g_autoptr (GListStore) not_tensors = g_list_store_new (G_TYPE_OBJECT);
  g_autoptr (GListModel) back = NULL;
  g_autoptr (DlSgd) sgd = NULL;
  g_autoptr (DlSgd) broken = NULL;
  g_autoptr (DlLinear) l = dl_linear_new (1, 1, FALSE, NULL);
  gdouble lr, momentum, dampening, weight_decay;
  gboolean nesterov;

  g_list_store_append (store, p);
  sgd = g_initable_new (DL_TYPE_SGD, NULL, &error, "params", store, "lr", 0.5, "momentum", 0.9,
                        NULL);
  g_assert_no_error (error);
  g_object_get (sgd, "lr", &lr, "momentum", &momentum, "dampening", &dampening, "weight-decay",
                &weight_decay, "nesterov", &nesterov, "params", &back, NULL);
  g_assert_cmpfloat (lr, ==, 0.5);
  g_assert_cmpfloat (momentum, ==, 0.9);
  g_assert_cmpfloat (dampening, ==, 0);
  g_assert_cmpfloat (weight_decay, ==, 0);
  g_assert_false (nesterov);
  g_assert_cmpuint (g_list_model_get_n_items (back), ==, 1);
  g_assert_true (g_ptr_array_index (dl_optimizer_get_params (DL_OPTIMIZER (sgd)), 0) == p);
  dl_tensor_set_grad (p, g, NULL);
  g_assert_true (dl_optimizer_step (DL_OPTIMIZER (sgd), &error));
  dl_test_assert_values (p, (gdouble[]){ -0.5, -0.5 }, 2, 0);

  /* hyperparameters may change between steps; an invalid one fails the
   * step and leaves the parameters alone */
  g_object_set (sgd, "momentum", -1.0, NULL);
  g_assert_false (dl_optimizer_step (DL_OPTIMIZER (sgd), &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "SGD: Invalid momentum value: -1");
  g_clear_error (&error);
  g_object_set (sgd, "momentum", 0.0, NULL);
  dl_optimizer_set_lr (DL_OPTIMIZER (sgd), -0.1);
  g_assert_false (dl_optimizer_step (DL_OPTIMIZER (sgd), &error));
  g_assert_cmpstr (error->message, ==, "SGD: Invalid learning rate: -0.1");
  g_clear_error (&error);
  dl_test_assert_values (p, (gdouble[]){ -0.5, -0.5 }, 2, 0);

  /* no parameters at all: g_initable_new fails */
  g_assert_null (g_initable_new (DL_TYPE_SGD, NULL, &error, "lr", 0.1, NULL));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "SGD: optimizer got an empty parameter list");
  g_clear_error (&error);

  /* something other than tensors, through g_object_new: init and step
   * report it */
  g_list_store_append (not_tensors, l);
  broken = g_object_new (DL_TYPE_SGD, "params", not_tensors, NULL);
  g_assert_false (g_initable_init (G_INITABLE (broken), NULL, &error));
  g_assert_cmpstr (error->message, ==, "SGD: params: item 0 is a DlLinear, not a tensor");
  g_clear_error (&error);
  g_assert_false (dl_optimizer_step (DL_OPTIMIZER (broken), &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_clear_object (&broken);
  broken = g_object_new (DL_TYPE_SGD, "params", store, "nesterov", TRUE, NULL);
  g_assert_false (g_initable_init (G_INITABLE (broken), NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Nesterov"));
}

/* A tiny model learns a separable 3-class problem: the loss must fall. */
static void
test_training (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 n = 64;
  g_autoptr (MyNet) net = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) target = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (DlSgd) sgd = NULL;
  g_autofree gdouble *xv = NULL;
  gdouble tv[64], first = 0, last = 0;

  dl_manual_seed (1);
  net = my_net_new (2, 16, 3);
  xv = dl_test_random_values (n * 2);
  for (gint64 i = 0; i < n; i++) /* class by the sign pattern of x */
    tv[i] = xv[2 * i] < 0 ? 0 : (xv[2 * i + 1] < 0 ? 1 : 2);
  x = dl_test_tensor (xv, DL_TEST_SHAPE (64, 2), DL_DTYPE_FLOAT32);
  target = dl_test_tensor (tv, DL_TEST_SHAPE (64), DL_DTYPE_INT64);
  params = dl_module_parameters (DL_MODULE (net));
  sgd = dl_sgd_new (params, 0.2, 0.9, 0, 0, FALSE, &error);
  g_assert_no_error (error);

  for (gint step = 0; step < 200; step++)
    {
      g_autoptr (DlTensor) logits = dl_module_forward (DL_MODULE (net), x, &error);
      g_autoptr (DlTensor) loss = dl_cross_entropy (logits, target, &error);

      g_assert_no_error (error);
      dl_optimizer_zero_grad (DL_OPTIMIZER (sgd), TRUE);
      g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
      g_assert_true (dl_optimizer_step (DL_OPTIMIZER (sgd), &error));
      g_assert_no_error (error);
      last = dl_tensor_item (loss, &error);
      if (step == 0)
        first = last;
    }
  g_test_message ("loss %.4f -> %.4f", first, last);
  g_assert_cmpfloat (first, >, 0.9);
  g_assert_cmpfloat (last, <, 0.3 * first);
}

/* The real data set, where Debian's dataset-fashion-mnist put it */
static void
test_fashion_mnist (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) images = NULL;
  g_autoptr (DlTensor) labels = NULL;
  g_autoptr (DlTensor) lmin = NULL;
  g_autoptr (DlTensor) lmax = NULL;
  g_autofree gchar *path
      = g_build_filename (DL_FASHION_MNIST_DEFAULT_ROOT, "t10k-labels-idx1-ubyte.gz", NULL);
  g_autofree gdouble *lv = NULL;
  guint counts[10] = { 0 };

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("Fashion-MNIST is not installed in " DL_FASHION_MNIST_DEFAULT_ROOT);
      return;
    }
  g_assert_true (dl_fashion_mnist_load (NULL, FALSE, &images, &labels, &error));
  g_assert_no_error (error);
  dl_test_assert_shape (images, DL_TEST_SHAPE (10000, 28, 28));
  dl_test_assert_shape (labels, DL_TEST_SHAPE (10000));
  g_assert_cmpint (dl_tensor_get_dtype (images), ==, DL_DTYPE_UINT8);
  g_assert_cmpint (dl_tensor_get_dtype (labels), ==, DL_DTYPE_INT64);
  lv = dl_test_values (labels);
  /* the first test image is an ankle boot (9); each class has 1000 */
  g_assert_cmpfloat (lv[0], ==, 9);
  for (gint i = 0; i < 10000; i++)
    {
      g_assert_cmpfloat (lv[i], >=, 0);
      g_assert_cmpfloat (lv[i], <=, 9);
      counts[(gint)lv[i]]++;
    }
  for (gint c = 0; c < 10; c++)
    g_assert_cmpuint (counts[c], ==, 1000);
  lmax = dl_tensor_max (images, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_tensor_item (lmax, NULL), ==, 255);
  lmin = dl_tensor_min (images, &error);
  g_assert_cmpfloat (dl_tensor_item (lmin, NULL), ==, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/nn/module/subclass", test_module_subclass);
  g_test_add_func ("/nn/module/shared-and-replaced", test_module_shared_and_replaced);
  g_test_add_func ("/nn/module/null-parameter", test_module_null_parameter);
  g_test_add_func ("/nn/module/forward-many", test_module_forward_many);
  g_test_add_func ("/nn/linear/init", test_linear_init);
  g_test_add_func ("/nn/linear/properties", test_linear_properties);
  g_test_add_func ("/nn/linear/forward", test_linear_forward);
  g_test_add_func ("/nn/activation-modules", test_activation_modules);
  g_test_add_func ("/nn/sequential", test_sequential);
  g_test_add_func ("/nn/loss/cross-entropy", test_cross_entropy);
  g_test_add_func ("/nn/loss/modules", test_loss_modules);
  g_test_add_func ("/nn/optim/sgd", test_sgd);
  g_test_add_func ("/nn/optim/sgd-errors", test_sgd_errors);
  g_test_add_func ("/nn/optim/sgd-properties", test_sgd_properties);
  g_test_add_func ("/nn/training", test_training);
  g_test_add_func ("/nn/data/fashion-mnist", test_fashion_mnist);

  return g_test_run ();
}

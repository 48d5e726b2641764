/* test-module.c: the DlModule toolkit from C: dotted names of a tree,
 * apply, requires_grad_, zero_grad, to(dtype) keeping parameters, forward
 * hooks and pre-hooks, the printed tree, checked registration and the
 * containers ModuleList, ModuleDict and Unflatten, and parametrized
 * tensors.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

static DlModule *
linear (gint64 in, gint64 out, gboolean bias)
{
  g_autoptr (GError) error = NULL;
  DlLinear *l = dl_linear_new (in, out, bias, &error);

  g_assert_no_error (error);
  return DL_MODULE (l);
}

/* net: features (Sequential: 0 Linear(2,3), 1 ReLU), head Linear(3,1),
 * own parameter "scale", buffer "steps"; "again" is features again */
static DlModule *
make_net (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) mods = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlSequential) features = NULL;
  g_autoptr (DlModule) head = linear (3, 1, TRUE);
  g_autoptr (DlTensor) scale = NULL, steps = NULL;
  DlModule *net = g_object_new (DL_TYPE_MODULE, NULL);
  const gint64 one[] = { 1 };

  g_ptr_array_add (mods, linear (2, 3, TRUE));
  g_ptr_array_add (mods, dl_relu_new (FALSE));
  features = dl_sequential_new (mods, &error);
  g_assert_no_error (error);
  scale = dl_ones (one, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (scale, TRUE, NULL));
  steps = dl_zeros (one, 1, DL_DTYPE_INT64, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (dl_module_add_parameter (net, "scale", scale, &error));
  g_assert_true (dl_module_add_module (net, "features", DL_MODULE (features), &error));
  g_assert_true (dl_module_add_module (net, "head", head, &error));
  g_assert_true (dl_module_add_module (net, "again", DL_MODULE (features), &error));
  g_assert_true (dl_module_add_buffer (net, "steps", steps, TRUE, &error));
  g_assert_no_error (error);
  return net;
}

static void
assert_strv (GStrv got, const gchar *const *want)
{
  g_assert_cmpstrv (got, want);
}

static void
test_names (void)
{
  g_autoptr (DlModule) net = make_net ();
  g_auto (GStrv) pnames = NULL, bnames = NULL, mnames = NULL, mall = NULL, own = NULL;
  g_autoptr (GPtrArray) params = dl_module_named_parameters (net, TRUE, &pnames);
  g_autoptr (GPtrArray) own_params = dl_module_named_parameters (net, FALSE, &own);
  g_autoptr (GPtrArray) bufs = dl_module_named_buffers (net, TRUE, &bnames);
  g_autoptr (GPtrArray) mods = dl_module_named_modules (net, TRUE, &mnames);
  g_autoptr (GPtrArray) all = dl_module_named_modules (net, FALSE, &mall);
  const gchar *const want_p[] = { "scale", "features.0.weight", "features.0.bias",
                                  "head.weight", "head.bias", NULL };
  const gchar *const want_own[] = { "scale", NULL };
  const gchar *const want_b[] = { "steps", NULL };
  const gchar *const want_m[] = { "", "features", "features.0", "features.1", "head", NULL };
  const gchar *const want_all[] = { "",     "features", "features.0", "features.1", "head",
                                    "again", "again.0", "again.1",    NULL };

  assert_strv (pnames, want_p);
  g_assert_cmpuint (params->len, ==, 5);
  assert_strv (own, want_own);
  g_assert_cmpuint (own_params->len, ==, 1);
  assert_strv (bnames, want_b);
  g_assert_cmpuint (bufs->len, ==, 1);
  assert_strv (mnames, want_m);
  g_assert_true (g_ptr_array_index (mods, 0) == (gpointer)net);
  assert_strv (mall, want_all);
  g_assert_cmpuint (all->len, ==, 8);
  for (guint i = 0; i < params->len; i++)
    g_assert_true (dl_tensor_is_parameter (g_ptr_array_index (params, i)));
  g_assert_false (dl_tensor_is_parameter (g_ptr_array_index (bufs, 0)));
  g_assert_cmpstr (dl_module_get_member_kind (net, "scale"), ==, "parameter");
  g_assert_cmpstr (dl_module_get_member_kind (net, "steps"), ==, "buffer");
  g_assert_cmpstr (dl_module_get_member_kind (net, "head"), ==, "module");
  g_assert_null (dl_module_get_member_kind (net, "nothing"));
}

static void
test_bad_names (void)
{
  g_autoptr (DlModule) net = make_net ();
  g_autoptr (DlModule) relu = DL_MODULE (dl_relu_new (FALSE));
  g_autoptr (GError) error = NULL;
  const gchar *bad[] = { "a.b", "", "scale", NULL };

  g_assert_false (dl_module_add_module (net, NULL, relu, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (dl_module_add_module (net, bad[i], relu, &error));
      g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
      g_clear_error (&error);
      if (bad[i] && g_str_equal (bad[i], "scale"))
        continue;
      g_assert_false (dl_module_add_parameter (net, bad[i], NULL, &error));
      g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
      g_clear_error (&error);
      g_assert_false (dl_module_add_buffer (net, bad[i], NULL, TRUE, &error));
      g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
      g_clear_error (&error);
    }
  g_assert_false (dl_module_add_buffer (net, "head", NULL, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "attribute 'head' already exists"));
  g_clear_error (&error);
  g_assert_false (dl_module_add_module (net, "self", net, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  /* removing, and re-registering at the end */
  g_assert_true (dl_module_remove (net, "scale"));
  g_assert_false (dl_module_remove (net, "scale"));
  g_assert_false (dl_module_remove (net, NULL));
  g_assert_true (dl_module_add_parameter (net, "scale", NULL, &error));
  g_assert_no_error (error);
  {
    g_auto (GStrv) own = dl_module_get_own_names (net);
    const gchar *const want[] = { "scale", "steps", "features", "head", "again", NULL };

    g_assert_cmpstrv (own, want);
  }
}

static void
count_module (DlModule *module, gpointer user_data)
{
  GString *s = user_data;

  g_string_append_printf (s, "%s;", G_OBJECT_TYPE_NAME (module));
}

static void
test_apply_requires_grad_zero_grad (void)
{
  g_autoptr (DlModule) net = make_net ();
  g_autoptr (GString) seen = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) params = dl_module_parameters (net);
  g_autoptr (DlTensor) x = NULL, y = NULL, s = NULL;
  const gint64 shape[] = { 4, 2 };
  DlTensor *w = g_ptr_array_index (params, 1), *g;

  dl_module_apply (net, count_module, seen);
  /* children first (features' twice: it is registered twice), then net */
  g_assert_cmpstr (seen->str, ==,
                   "DlLinear;DlRelu;DlSequential;DlLinear;DlLinear;DlRelu;DlSequential;DlModule;");

  x = dl_ones (shape, 2, DL_DTYPE_FLOAT32, NULL, &error);
  y = dl_module_forward (dl_module_get_module (net, "features"), x, &error);
  s = dl_tensor_sum (y, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g = dl_tensor_get_grad (w);
  g_assert_nonnull (g);
  g_object_ref (g);
  g_assert_true (dl_module_zero_grad_full (net, FALSE, &error));
  g_assert_true (dl_tensor_get_grad (w) == g); /* zeroed in place */
  {
    g_autoptr (DlTensor) gs = dl_tensor_sum (g, NULL);

    g_assert_cmpfloat (dl_tensor_item (gs, NULL), ==, 0.0);
  }
  g_object_unref (g);
  g_assert_true (dl_module_zero_grad_full (net, TRUE, &error));
  g_assert_null (dl_tensor_get_grad (w));

  g_assert_true (dl_module_requires_grad_ (net, FALSE, &error));
  for (guint i = 0; i < params->len; i++)
    g_assert_false (dl_tensor_get_requires_grad (g_ptr_array_index (params, i)));
  g_assert_true (dl_module_requires_grad_ (net, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_requires_grad (w));
}

static void
test_to_dtype (void)
{
  g_autoptr (DlModule) net = make_net ();
  g_autoptr (GPtrArray) params = dl_module_parameters (net);
  g_autoptr (GError) error = NULL;
  DlTensor *w = g_ptr_array_index (params, 1);
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", NULL);

  g_assert_true (dl_module_to_dtype (net, DL_DTYPE_FLOAT64, &error));
  g_assert_no_error (error);
  g_assert_true (dl_module_get_parameter (dl_module_get_module (
                     dl_module_get_module (net, "features"), "0"), "weight")
                 == w);
  g_assert_cmpint (dl_tensor_get_dtype (w), ==, DL_DTYPE_FLOAT64);
  g_assert_true (dl_tensor_is_parameter (w));
  g_assert_true (dl_tensor_get_requires_grad (w));
  g_assert_cmpint (dl_tensor_get_dtype (dl_module_get_buffer (net, "steps")), ==,
                   DL_DTYPE_INT64);
  g_assert_false (dl_module_to_dtype (net, DL_DTYPE_INT32, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
  g_assert_false (dl_module_cast (net, DL_DTYPE_INT32, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
  g_assert_true (dl_module_to_device (net, cpu, &error));
  g_assert_true (dl_module_to_device (net, NULL, &error));
  g_assert_true (dl_module_cast (net, DL_DTYPE_FLOAT32, &error));
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (w), ==, DL_DTYPE_FLOAT32);
  g_assert_cmpint (dl_tensor_get_dtype (dl_module_get_buffer (net, "steps")), ==,
                   DL_DTYPE_FLOAT32);
}

typedef struct
{
  GString *log;
  guint destroyed;
} HookData;

static GPtrArray *
pre_double (DlModule *module, GPtrArray *inputs, gpointer user_data, GError **error)
{
  HookData *d = user_data;
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  g_string_append (d->log, "pre;");
  g_ptr_array_add (out, dl_tensor_mul_scalar (g_ptr_array_index (inputs, 0), 2.0, error));
  return out;
}

static GPtrArray *
post_log (DlModule *module, GPtrArray *inputs, GPtrArray *outputs, gpointer user_data,
          GError **error)
{
  HookData *d = user_data;

  g_string_append_printf (d->log, "post %u %u;", inputs->len, outputs->len);
  return NULL;
}

static GPtrArray *
post_fail (DlModule *module, GPtrArray *inputs, GPtrArray *outputs, gpointer user_data,
           GError **error)
{
  g_set_error_literal (error, DL_ERROR, DL_ERROR_FAILED, "hook refused");
  return NULL;
}

static void
hook_destroyed (gpointer user_data)
{
  ((HookData *)user_data)->destroyed++;
}

static void
test_hooks (void)
{
  g_autoptr (DlModule) relu = DL_MODULE (dl_relu_new (FALSE));
  g_autoptr (GPtrArray) mods = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlSequential) seq = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = NULL;
  HookData d = { g_string_new (NULL), 0 };
  const gdouble xv[] = { -1, 2 };
  const gint64 shape[] = { 2 };
  guint pre, post, fail;

  x = dl_test_tensor (xv, shape, 1, DL_DTYPE_FLOAT32);
  g_ptr_array_add (mods, g_object_ref (relu));
  seq = dl_sequential_new (mods, &error);
  pre = dl_module_register_forward_pre_hook (relu, pre_double, &d, hook_destroyed);
  post = dl_module_register_forward_hook (relu, post_log, &d, hook_destroyed);
  g_assert_cmpuint (pre, !=, post);
  g_assert_cmpuint (dl_module_get_n_hooks (relu), ==, 2);
  {
    /* the hooks run when the Sequential calls its child */
    g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (seq), x, &error);
    const gdouble want[] = { 0, 4 };

    g_assert_no_error (error);
    dl_test_assert_values (y, want, 2, 0);
    g_assert_cmpstr (d.log->str, ==, "pre;post 1 1;");
  }
  {
    g_autoptr (GPtrArray) in = g_ptr_array_new ();
    g_autoptr (GPtrArray) out = NULL;

    g_ptr_array_add (in, x);
    out = dl_module_forward_many (relu, in, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (out->len, ==, 1);
    g_assert_cmpstr (d.log->str, ==, "pre;post 1 1;pre;post 1 1;");
  }
  fail = dl_module_register_forward_hook (relu, post_fail, NULL, NULL);
  g_assert_null (dl_module_forward (DL_MODULE (seq), x, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_true (dl_module_remove_hook (relu, fail));
  g_assert_true (dl_module_remove_hook (relu, pre));
  g_assert_false (dl_module_remove_hook (relu, pre));
  g_assert_cmpuint (d.destroyed, ==, 1);
  {
    g_autoptr (DlTensor) y = dl_module_forward (relu, x, &error);
    const gdouble want[] = { 0, 2 };

    dl_test_assert_values (y, want, 2, 0);
  }
  g_clear_object (&seq);
  g_ptr_array_set_size (mods, 0);
  g_assert_true (dl_module_remove_hook (relu, post));
  g_assert_cmpuint (d.destroyed, ==, 2);
  dl_module_register_forward_hook (relu, post_log, &d, hook_destroyed);
  g_clear_object (&relu); /* the module's finalization frees the last hook */
  g_assert_cmpuint (d.destroyed, ==, 3);
  g_string_free (d.log, TRUE);
}

static void
test_to_string (void)
{
  g_autoptr (DlModule) net = make_net ();
  g_autofree gchar *s = NULL;
  g_autoptr (DlUnflatten) u = NULL;
  g_autofree gchar *us = NULL;
  const gint64 sizes[] = { 2, 3 };

  dl_module_remove (net, "again");
  s = dl_module_to_string (net);
  g_assert_cmpstr (s, ==,
                   "Module(\n"
                   "  (features): Sequential(\n"
                   "    (0): Linear(in_features=2, out_features=3, bias=True)\n"
                   "    (1): ReLU()\n"
                   "  )\n"
                   "  (head): Linear(in_features=3, out_features=1, bias=True)\n"
                   ")");
  u = dl_unflatten_new (1, sizes, 2, NULL);
  us = dl_module_to_string (DL_MODULE (u));
  g_assert_cmpstr (us, ==, "Unflatten(dim=1, unflattened_size=(2, 3))");
}

static void
test_module_list (void)
{
  g_autoptr (DlModuleList) list = dl_module_list_new (NULL);
  g_autoptr (DlModule) a = DL_MODULE (dl_relu_new (FALSE));
  g_autoptr (DlModule) b = DL_MODULE (dl_tanh_new ());
  g_autoptr (DlModule) c = linear (1, 1, FALSE);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;
  g_autoptr (GPtrArray) params = NULL;
  const gint64 shape[] = { 1 };
  g_autoptr (DlTensor) x = dl_zeros (shape, 1, DL_DTYPE_FLOAT32, NULL, NULL);

  dl_module_list_append (list, a);
  dl_module_list_append (list, b);
  g_assert_true (dl_module_list_insert (list, 1, c, &error));
  g_assert_cmpuint (dl_module_list_get_length (list), ==, 3);
  g_assert_true (dl_module_list_get (list, 1, &error) == c);
  g_assert_true (dl_module_list_get (list, -1, &error) == b);
  g_assert_null (dl_module_list_get (list, 3, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  g_assert_false (dl_module_list_insert (list, 5, c, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  params = dl_module_named_parameters (DL_MODULE (list), TRUE, &names);
  g_assert_cmpstr (names[0], ==, "1.weight");
  g_assert_true (dl_module_list_remove (list, 0, &error));
  g_assert_true (dl_module_list_get (list, 0, &error) == c);
  g_assert_true (dl_module_list_set (list, 1, a, &error));
  g_assert_true (dl_module_list_get (list, 1, &error) == a);
  g_assert_false (dl_module_list_remove (list, -3, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  /* a list has no forward */
  g_assert_null (dl_module_forward (DL_MODULE (list), x, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
}

static void
test_sequential_insert_remove (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlSequential) seq = dl_sequential_new (NULL, &error);
  g_autoptr (DlModule) a = DL_MODULE (dl_relu_new (FALSE));
  g_autoptr (DlModule) b = DL_MODULE (dl_tanh_new ());
  g_auto (GStrv) names = NULL;
  const gchar *const want[] = { "0", "1", "2", NULL };

  dl_sequential_append (seq, a);
  g_assert_true (dl_sequential_insert (seq, 0, b, &error));
  g_assert_true (dl_sequential_insert (seq, -1, b, &error));
  g_assert_no_error (error);
  names = dl_module_children_names (DL_MODULE (seq));
  g_assert_cmpstrv (names, want);
  g_assert_true (dl_sequential_get (seq, 2, &error) == a);
  g_assert_false (dl_sequential_insert (seq, 4, a, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  g_assert_true (dl_sequential_remove (seq, 0, &error));
  g_assert_true (dl_sequential_get (seq, -1, &error) == a);
  g_assert_cmpuint (dl_sequential_get_length (seq), ==, 2);
  g_assert_false (dl_sequential_remove (seq, 2, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
}

static void
test_module_dict (void)
{
  g_autoptr (DlModuleDict) dict = dl_module_dict_new ();
  g_autoptr (DlModule) a = DL_MODULE (dl_relu_new (FALSE));
  g_autoptr (DlModule) b = DL_MODULE (dl_tanh_new ());
  g_autoptr (DlModule) popped = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) keys = NULL;
  const gchar *const want[] = { "act", "out", NULL };

  g_assert_true (dl_module_dict_insert (dict, "act", a, &error));
  g_assert_true (dl_module_dict_insert (dict, "out", b, &error));
  g_assert_true (dl_module_dict_insert (dict, "act", b, &error)); /* keeps its place */
  keys = dl_module_dict_get_keys (dict);
  g_assert_cmpstrv (keys, want);
  g_assert_true (dl_module_dict_lookup (dict, "act") == b);
  g_assert_null (dl_module_dict_lookup (dict, "none"));
  g_assert_false (dl_module_dict_insert (dict, "a.b", a, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  popped = dl_module_dict_pop (dict, "out", &error);
  g_assert_true (popped == b);
  g_assert_null (dl_module_dict_pop (dict, "out", &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_assert_cmpuint (dl_module_dict_get_length (dict), ==, 1);
  dl_module_dict_clear (dict);
  g_assert_cmpuint (dl_module_dict_get_length (dict), ==, 0);
}

static void
test_unflatten (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 sizes[] = { 2, 3 }, bad[] = { -2 }, shape[] = { 4, 6 };
  g_autoptr (DlUnflatten) u = dl_unflatten_new (-1, sizes, 2, &error);
  g_autoptr (DlTensor) x = dl_zeros (shape, 2, DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (u), x, &error);
  g_autoptr (DlTensor) xt = dl_tensor_transpose (x, 0, 1, NULL);
  const gint64 want[] = { 4, 2, 3 };
  gsize n;

  g_assert_no_error (error);
  dl_test_assert_shape (y, want, 3);
  g_assert_cmpint (dl_unflatten_get_dim (u), ==, -1);
  g_assert_cmpint (dl_unflatten_get_unflattened_size (u, &n)[1], ==, 3);
  g_assert_cmpuint (n, ==, 2);
  g_assert_null (dl_module_forward (DL_MODULE (u), xt, &error)); /* 4 is not 2 * 3 */
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (dl_unflatten_new (0, bad, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_unflatten_new (0, NULL, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  {
    g_autoptr (DlUnflatten) far = dl_unflatten_new (5, sizes, 2, &error);

    g_assert_null (dl_module_forward (DL_MODULE (far), x, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  }
}

static void
test_parameter_new (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 shape[] = { 2 };
  g_autoptr (DlTensor) t = dl_ones (shape, 1, DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) i = dl_ones (shape, 1, DL_DTYPE_INT64, NULL, NULL);
  g_autoptr (DlTensor) p = dl_parameter_new (t, TRUE, &error);
  g_autoptr (DlTensor) d = dl_tensor_detach (p);
  g_autoptr (DlTensor) q = dl_parameter_new (i, FALSE, &error);

  g_assert_no_error (error);
  g_assert_true (dl_tensor_is_parameter (p));
  g_assert_true (dl_tensor_get_requires_grad (p));
  g_assert_false (dl_tensor_is_parameter (t));
  g_assert_false (dl_tensor_is_parameter (d));
  g_assert_true (dl_tensor_is_parameter (q));
  g_assert_null (dl_parameter_new (i, TRUE, &error));
  g_assert_nonnull (error);
}

/* a parametrization: twice its parameter "original" (or, with n_out 2,
 * two outputs, which the forward refuses) */
G_DECLARE_FINAL_TYPE (TestTwice, test_twice, TEST, TWICE, DlModule)

struct _TestTwice
{
  DlModule parent_instance;
  guint n_out;
  guint runs;
};

G_DEFINE_FINAL_TYPE (TestTwice, test_twice, DL_TYPE_MODULE)

static void
test_twice_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  TestTwice *self = TEST_TWICE (module);
  DlTensor *w = dl_module_get_parameter (module, "original");
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert_cmpuint (inputs->len, ==, 0);
  self->runs++;
  for (guint i = 0; i < self->n_out; i++)
    g_ptr_array_add (out, dl_tensor_mul_scalar (w, 2.0, error));
  *outputs = out;
}

static void
test_twice_class_init (TestTwiceClass *klass)
{
  DL_MODULE_CLASS (klass)->forward_many = test_twice_forward_many;
}

static void
test_twice_init (TestTwice *self)
{
  self->n_out = 1;
}

/* A Linear whose weight is twice "original" of a parametrization: the
 * forward reads the computed weight, the gradient reaches original, the
 * value is there during the forward only, and the errors. */
static void
test_parametrization (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) lin = linear (2, 1, FALSE);
  g_autoptr (TestTwice) twice = g_object_new (test_twice_get_type (), NULL);
  const gdouble wv[] = { 0.5, -1.0 }, xv[] = { 1.0, 2.0, 3.0, 4.0 };
  const gint64 wshape[] = { 1, 2 }, xshape[] = { 2, 2 };
  g_autoptr (DlTensor) w = dl_test_tensor (wv, wshape, 2, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) x = dl_test_tensor (xv, xshape, 2, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) y = NULL, loss = NULL;
  DlTensor *lin_weight;
  const gdouble y_want[] = { 2 * (0.5 - 2.0), 2 * (1.5 - 4.0) };
  const gdouble grad_want[] = { 2 * (1.0 + 3.0), 2 * (2.0 + 4.0) };

  g_assert_true (dl_tensor_set_requires_grad (w, TRUE, NULL));
  g_assert_true (dl_module_add_parameter (DL_MODULE (twice), "original", w, &error));
  g_assert_false (dl_module_register_parametrization (lin, "w", lin, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  /* over a parameter that stays: the computed tensor stands in for the
   * forward only */
  lin_weight = dl_module_get_parameter (lin, "weight");
  g_assert_true (dl_module_register_parametrization (lin, "weight", DL_MODULE (twice), &error));
  y = dl_module_forward (lin, x, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, y_want, 2, 1e-6);
  g_assert_true (dl_module_get_parameter (lin, "weight") == lin_weight);
  g_assert_true (dl_module_remove_parametrization (lin, "weight"));
  g_clear_object (&y);
  g_assert_cmpuint (twice->runs, ==, 1);

  /* torch's layout: the original moved to the parametrization */
  g_assert_true (dl_module_remove (lin, "weight"));
  g_assert_true (dl_module_register_parametrization (lin, "weight", DL_MODULE (twice), &error));
  g_assert_no_error (error);
  g_assert_true (dl_module_get_parametrization (lin, "weight") == DL_MODULE (twice));
  g_assert_null (dl_module_get_parametrization (lin, "bias"));
  g_assert_null (dl_module_get_parameter (lin, "weight")); /* outside a forward */

  y = dl_module_forward (lin, x, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, y_want, 2, 1e-6);
  g_assert_cmpuint (twice->runs, ==, 2);
  g_assert_null (dl_module_get_parameter (lin, "weight"));
  loss = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (w), grad_want, 2, 1e-6);

  /* nested scopes compute once; the value is there inside */
  g_assert_true (dl_module_enter_parametrized (lin, &error));
  g_assert_true (dl_module_enter_parametrized (lin, &error));
  g_assert_cmpuint (twice->runs, ==, 3);
  g_assert_nonnull (dl_module_get_parameter (lin, "weight"));
  dl_module_leave_parametrized (lin);
  g_assert_nonnull (dl_module_get_parameter (lin, "weight"));
  dl_module_leave_parametrized (lin);
  g_assert_null (dl_module_get_parameter (lin, "weight"));

  /* a parametrization that does not give one tensor */
  twice->n_out = 2;
  g_clear_object (&y);
  y = dl_module_forward (lin, x, &error);
  g_assert_null (y);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "gave 2 outputs"));
  g_clear_error (&error);

  /* removed: the layer has no weight again */
  g_assert_true (dl_module_remove_parametrization (lin, "weight"));
  g_assert_false (dl_module_remove_parametrization (lin, "weight"));
  g_assert_null (dl_module_forward (lin, x, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/module/names", test_names);
  g_test_add_func ("/module/bad-names", test_bad_names);
  g_test_add_func ("/module/apply-requires-grad-zero-grad", test_apply_requires_grad_zero_grad);
  g_test_add_func ("/module/to-dtype", test_to_dtype);
  g_test_add_func ("/module/hooks", test_hooks);
  g_test_add_func ("/module/to-string", test_to_string);
  g_test_add_func ("/module/module-list", test_module_list);
  g_test_add_func ("/module/module-dict", test_module_dict);
  g_test_add_func ("/module/sequential-insert-remove", test_sequential_insert_remove);
  g_test_add_func ("/module/unflatten", test_unflatten);
  g_test_add_func ("/module/parameter-new", test_parameter_new);
  g_test_add_func ("/module/parametrization", test_parametrization);
  return g_test_run ();
}

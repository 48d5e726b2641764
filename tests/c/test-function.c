/* test-function.c: DlFunction, autograd functions defined in C: their
 * gradients (checked against finite differences), saved tensors, dirty
 * and non-differentiable outputs, the errors of a backward that gives the
 * wrong gradients, double backward, and that neither the graph nor the
 * function outlives its outputs.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-gradcheck.h"

#define TOL 1e-12

/* The arrays the virtual methods give have no free function, as the
 * bindings' have: tensors_new() for building one, tensors_give() to hand
 * it over. */
static GPtrArray *
tensors_new (void)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

static GPtrArray *
tensors_give (GPtrArray **array)
{
  g_ptr_array_set_free_func (*array, NULL);
  return g_steal_pointer (array);
}

/* Apply @fn_type (a new instance) to @inputs; returns output 0, or NULL
 * with @error set. */
static DlTensor *
apply_first (GType fn_type, DlTensor **inputs, gsize n, GError **error)
{
  g_autoptr (DlFunction) fn = g_object_new (fn_type, NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, inputs, n, error);

  return out ? g_object_ref (g_ptr_array_index (out, 0)) : NULL;
}

/* ---- ClampSt: clamp (x, -0.5, 0.5) with a straight-through gradient */

G_DECLARE_FINAL_TYPE (TestClampSt, test_clamp_st, TEST, CLAMP_ST, DlFunction)
struct _TestClampSt
{
  DlFunction parent_instance;
};
G_DEFINE_FINAL_TYPE (TestClampSt, test_clamp_st, DL_TYPE_FUNCTION)

static void
clamp_st_forward (DlFunction *fn, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlTensor *y = dl_tensor_clamp_scalar (g_ptr_array_index (inputs, 0), -0.5, 0.5, error);

  if (y == NULL)
    return;
  *outputs = g_ptr_array_new ();
  g_ptr_array_add (*outputs, y);
}

static void
clamp_st_backward (DlFunction *fn, GPtrArray *go, GPtrArray **gi, GError **error)
{
  *gi = g_ptr_array_new ();
  g_ptr_array_add (*gi, g_object_ref (g_ptr_array_index (go, 0)));
}

static void
test_clamp_st_class_init (TestClampStClass *klass)
{
  DL_FUNCTION_CLASS (klass)->forward = clamp_st_forward;
  DL_FUNCTION_CLASS (klass)->backward = clamp_st_backward;
}

static void
test_clamp_st_init (TestClampSt *self)
{
}

/* ---- MulAdd: (a, b) -> (a * b, a + b), b broadcast to a */

G_DECLARE_FINAL_TYPE (TestMulAdd, test_mul_add, TEST, MUL_ADD, DlFunction)
struct _TestMulAdd
{
  DlFunction parent_instance;
  gboolean saw_null; /* backward got NULL for an output */
};
G_DEFINE_FINAL_TYPE (TestMulAdd, test_mul_add, DL_TYPE_FUNCTION)

static void
mul_add_forward (DlFunction *fn, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlTensor *a = g_ptr_array_index (inputs, 0), *b = g_ptr_array_index (inputs, 1);
  g_autoptr (GPtrArray) out = tensors_new ();
  DlTensor *p, *s;

  g_assert_false (dl_is_grad_enabled ());
  if (!(p = dl_tensor_mul (a, b, error)))
    return;
  g_ptr_array_add (out, p);
  if (!(s = dl_tensor_add (a, b, error)))
    return;
  g_ptr_array_add (out, s);
  dl_function_save_for_backward (fn, (DlTensor *[]){ a, b }, 2);
  *outputs = tensors_give (&out);
}

/* ga = g0 b + g1, gb = g0 a + g1 (summed to b's shape by the function),
 * written with ops so that it can be differentiated again */
static void
mul_add_backward (DlFunction *fn, GPtrArray *go, GPtrArray **gi, GError **error)
{
  g_autoptr (GPtrArray) saved = dl_function_get_saved_tensors (fn, error);
  g_autoptr (GPtrArray) out = tensors_new ();
  DlTensor *g0 = g_ptr_array_index (go, 0), *g1 = g_ptr_array_index (go, 1);
  g_autoptr (DlTensor) t = NULL;
  DlTensor *a, *b, *r;

  if (!saved)
    return;
  a = g_ptr_array_index (saved, 0), b = g_ptr_array_index (saved, 1);
  if (g0 == NULL || g1 == NULL)
    {
      TEST_MUL_ADD (fn)->saw_null = TRUE;
      g0 = g0 ? g0 : g1;
      g1 = g1 ? g1 : g0;
    }
  for (guint i = 0; i < 2; i++)
    {
      if (!(t = dl_tensor_mul (g0, i == 0 ? b : a, error)) || !(r = dl_tensor_add (t, g1, error)))
        return;
      g_clear_object (&t);
      g_ptr_array_add (out, r);
    }
  *gi = tensors_give (&out);
}

static void
test_mul_add_class_init (TestMulAddClass *klass)
{
  DL_FUNCTION_CLASS (klass)->forward = mul_add_forward;
  DL_FUNCTION_CLASS (klass)->backward = mul_add_backward;
}

static void
test_mul_add_init (TestMulAdd *self)
{
}

/* ---- Cube: x^3 saving its input and output; backward 3 y / x * g is
 * avoided (x may be 0): 3 x x g, with ops */

G_DECLARE_FINAL_TYPE (TestCube, test_cube, TEST, CUBE, DlFunction)
struct _TestCube
{
  DlFunction parent_instance;
};
G_DEFINE_FINAL_TYPE (TestCube, test_cube, DL_TYPE_FUNCTION)

static void
cube_forward (DlFunction *fn, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlTensor *x = g_ptr_array_index (inputs, 0);
  DlTensor *y = dl_tensor_pow_scalar (x, 3, error);

  if (y == NULL)
    return;
  /* the output too: saved without its history, no cycle */
  dl_function_save_for_backward (fn, (DlTensor *[]){ x, NULL, y }, 3);
  *outputs = g_ptr_array_new ();
  g_ptr_array_add (*outputs, y);
}

static void
cube_backward (DlFunction *fn, GPtrArray *go, GPtrArray **gi, GError **error)
{
  g_autoptr (GPtrArray) saved = dl_function_get_saved_tensors (fn, error);
  g_autoptr (DlTensor) xx = NULL;
  g_autoptr (DlTensor) t = NULL;
  DlTensor *x, *r;

  if (!saved)
    return;
  g_assert_cmpuint (saved->len, ==, 3);
  g_assert_null (g_ptr_array_index (saved, 1));
  x = g_ptr_array_index (saved, 0);
  if (!(xx = dl_tensor_mul (x, x, error)) || !(t = dl_tensor_mul_scalar (xx, 3, error))
      || !(r = dl_tensor_mul (t, g_ptr_array_index (go, 0), error)))
    return;
  *gi = g_ptr_array_new ();
  g_ptr_array_add (*gi, r);
}

static void
test_cube_class_init (TestCubeClass *klass)
{
  DL_FUNCTION_CLASS (klass)->forward = cube_forward;
  DL_FUNCTION_CLASS (klass)->backward = cube_backward;
}

static void
test_cube_init (TestCube *self)
{
}

/* ---- Bad: a backward that gives the wrong gradients */

typedef enum
{
  BAD_COUNT,
  BAD_SHAPE,
  BAD_TYPE,
  BAD_NOTHING,
} BadKind;

G_DECLARE_FINAL_TYPE (TestBad, test_bad, TEST, BAD, DlFunction)
struct _TestBad
{
  DlFunction parent_instance;
  BadKind kind;
};
G_DEFINE_FINAL_TYPE (TestBad, test_bad, DL_TYPE_FUNCTION)

static void
bad_forward (DlFunction *fn, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  /* an array that frees its elements: apply takes either kind */
  *outputs = tensors_new ();
  g_ptr_array_add (*outputs, dl_tensor_mul_scalar (g_ptr_array_index (inputs, 0), 2, error));
}

static void
bad_backward (DlFunction *fn, GPtrArray *go, GPtrArray **gi, GError **error)
{
  DlTensor *g = g_ptr_array_index (go, 0);

  switch (TEST_BAD (fn)->kind)
    {
    case BAD_COUNT:
      *gi = g_ptr_array_new ();
      g_ptr_array_add (*gi, g_object_ref (g));
      g_ptr_array_add (*gi, g_object_ref (g));
      break;
    case BAD_SHAPE:
      *gi = g_ptr_array_new ();
      g_ptr_array_add (*gi, dl_zeros (DL_TEST_SHAPE (5), DL_DTYPE_FLOAT64, NULL, error));
      break;
    case BAD_TYPE:
      *gi = g_ptr_array_new ();
      g_ptr_array_add (*gi, dl_generator_new (NULL, error));
      break;
    case BAD_NOTHING:
      break;
    }
}

static void
test_bad_class_init (TestBadClass *klass)
{
  DL_FUNCTION_CLASS (klass)->forward = bad_forward;
  DL_FUNCTION_CLASS (klass)->backward = bad_backward;
}

static void
test_bad_init (TestBad *self)
{
}

/* ---- AddOne: x += 1 in place (mark_dirty), gradient 1 */

G_DECLARE_FINAL_TYPE (TestAddOne, test_add_one, TEST, ADD_ONE, DlFunction)
struct _TestAddOne
{
  DlFunction parent_instance;
};
G_DEFINE_FINAL_TYPE (TestAddOne, test_add_one, DL_TYPE_FUNCTION)

static void
add_one_forward (DlFunction *fn, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlTensor *x = g_ptr_array_index (inputs, 0);

  if (!dl_tensor_add_scalar_ (x, 1, error))
    return;
  dl_function_mark_dirty (fn, &x, 1);
  *outputs = g_ptr_array_new ();
  g_ptr_array_add (*outputs, g_object_ref (x));
}

static void
test_add_one_class_init (TestAddOneClass *klass)
{
  DL_FUNCTION_CLASS (klass)->forward = add_one_forward;
  DL_FUNCTION_CLASS (klass)->backward = clamp_st_backward; /* the identity */
}

static void
test_add_one_init (TestAddOne *self)
{
}

/* ---- WithMask: x -> (2 x, x > 0 as a non-differentiable float mask, x
 * itself) */

G_DECLARE_FINAL_TYPE (TestWithMask, test_with_mask, TEST, WITH_MASK, DlFunction)
struct _TestWithMask
{
  DlFunction parent_instance;
};
G_DEFINE_FINAL_TYPE (TestWithMask, test_with_mask, DL_TYPE_FUNCTION)

static void
with_mask_forward (DlFunction *fn, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlTensor *x = g_ptr_array_index (inputs, 0);
  g_autoptr (DlTensor) m = dl_tensor_gt_scalar (x, 0, error);
  DlTensor *mf;

  g_assert_true (dl_function_needs_input_grad (fn, 0));
  mf = dl_tensor_to_dtype (m, DL_DTYPE_FLOAT64, error);
  dl_function_mark_non_differentiable (fn, &mf, 1);
  *outputs = g_ptr_array_new ();
  g_ptr_array_add (*outputs, dl_tensor_mul_scalar (x, 2, error));
  g_ptr_array_add (*outputs, mf);
  g_ptr_array_add (*outputs, g_object_ref (x));
}

/* g0 * 2 + g2; g1 must be zeros */
static void
with_mask_backward (DlFunction *fn, GPtrArray *go, GPtrArray **gi, GError **error)
{
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) s = NULL;

  g_assert_nonnull (g_ptr_array_index (go, 1));
  s = dl_tensor_sum (g_ptr_array_index (go, 1), error);
  g_assert_cmpfloat (dl_tensor_item (s, error), ==, 0);
  t = dl_tensor_mul_scalar (g_ptr_array_index (go, 0), 2, error);
  *gi = g_ptr_array_new ();
  g_ptr_array_add (*gi, dl_tensor_add (t, g_ptr_array_index (go, 2), error));
}

static void
test_with_mask_class_init (TestWithMaskClass *klass)
{
  DL_FUNCTION_CLASS (klass)->forward = with_mask_forward;
  DL_FUNCTION_CLASS (klass)->backward = with_mask_backward;
}

static void
test_with_mask_init (TestWithMask *self)
{
}

/* ---- the tests */

static DlTensor *
random_leaf (const gint64 *shape, gsize nd)
{
  g_autofree gdouble *v = dl_test_random_values (dl_test_numel (shape, nd));
  DlTensor *x = dl_test_tensor (v, shape, nd, DL_DTYPE_FLOAT64);

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, NULL));
  return x;
}

static void
test_clamp_straight_through (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (3, 4));
  g_autoptr (DlTensor) w = random_leaf (DL_TEST_SHAPE (3, 4));
  g_autoptr (DlTensor) y = apply_first (test_clamp_st_get_type (), &x, 1, &error);
  g_autoptr (DlTensor) ref = dl_tensor_clamp_scalar (x, -0.5, 0.5, &error);
  g_autoptr (DlTensor) yw = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autofree gdouble *refv = NULL;
  g_autofree gdouble *wv = NULL;

  g_assert_no_error (error);
  g_assert_true (TEST_IS_CLAMP_ST (dl_tensor_get_grad_fn (y)));
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (y)), ==, "TestClampSt");
  g_assert_null (dl_node_get_next_node (dl_tensor_get_grad_fn (y), 0)); /* a leaf */
  refv = dl_test_values (ref);
  dl_test_assert_values (y, refv, 12, TOL);
  yw = dl_tensor_mul (y, w, &error);
  loss = dl_tensor_sum (yw, &error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  /* straight through: d loss / dx = w, clamped or not */
  wv = dl_test_values (w);
  dl_test_assert_values (dl_tensor_get_grad (x), wv, 12, TOL);
}

static DlTensor *
f_mul_add (DlTensor **x, GError **error)
{
  g_autoptr (DlFunction) fn = g_object_new (test_mul_add_get_type (), NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, x, 2, error);

  if (!out)
    return NULL;
  return dl_tensor_mul (g_ptr_array_index (out, 0), g_ptr_array_index (out, 1), error);
}

static DlTensor *
f_cube (DlTensor **x, GError **error)
{
  return apply_first (test_cube_get_type (), x, 1, error);
}

static const DlTestGradCase mul_add_case = {
  "MulAdd", f_mul_add, 2, { { 3, 4 }, { 4 } }, { 2, 1 }, 0, FALSE, NULL,
};
static const DlTestGradCase cube_case = {
  "Cube", f_cube, 1, { { 2, 3 } }, { 2 }, 0, FALSE, NULL,
};

/* Only one output used: the other one's gradient is zeros, or NULL
 * without materialize_grads. */
static void
test_materialize (void)
{
  for (guint materialize = 0; materialize < 2; materialize++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) a = random_leaf (DL_TEST_SHAPE (3));
      g_autoptr (DlTensor) b = random_leaf (DL_TEST_SHAPE (3));
      g_autoptr (DlFunction) fn = g_object_new (test_mul_add_get_type (), NULL);
      g_autoptr (GPtrArray) out = NULL;
      g_autoptr (DlTensor) loss = NULL;
      g_autofree gdouble *bv = dl_test_values (b);

      g_assert_true (dl_function_get_materialize_grads (fn));
      dl_function_set_materialize_grads (fn, materialize);
      out = dl_function_apply (fn, (DlTensor *[]){ a, b }, 2, &error);
      g_assert_no_error (error);
      loss = dl_tensor_sum (g_ptr_array_index (out, 0), &error);
      g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
      g_assert_no_error (error);
      g_assert_cmpint (TEST_MUL_ADD (fn)->saw_null, ==, !materialize);
      if (materialize)
        dl_test_assert_values (dl_tensor_get_grad (a), bv, 3, TOL); /* g0 b + 0 */
    }
}

static void
assert_autograd_error (GError *error, const gchar *part)
{
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  if (!strstr (error->message, part))
    g_error ("'%s' not in '%s'", part, error->message);
}

static void
test_bad_backward (void)
{
  const gchar *expect[] = {
    "function TestBad returned an incorrect number of gradients (expected 1, got 2)",
    "Function TestBad returned an invalid gradient at index 0 - got [5] but expected shape "
    "compatible with [2, 3]",
    "function TestBad: backward returned DlGenerator at index 0, not a tensor",
    "function TestBad: backward returned nothing",
  };

  for (BadKind k = BAD_COUNT; k <= BAD_NOTHING; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (2, 3));
      g_autoptr (TestBad) fn = g_object_new (test_bad_get_type (), NULL);
      g_autoptr (GPtrArray) out = NULL;
      g_autoptr (DlTensor) loss = NULL;

      fn->kind = k;
      out = dl_function_apply (DL_FUNCTION (fn), &x, 1, &error);
      g_assert_no_error (error);
      loss = dl_tensor_sum (g_ptr_array_index (out, 0), &error);
      g_assert_false (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
      assert_autograd_error (error, expect[k]);
      g_assert_null (dl_tensor_get_grad (x));
    }
}

/* A wider gradient that the input broadcasts to is summed to its shape. */
static void
test_gradient_summed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = random_leaf (DL_TEST_SHAPE (2, 3));
  g_autoptr (DlTensor) b = random_leaf (DL_TEST_SHAPE (1, 3));
  g_autoptr (DlFunction) fn = g_object_new (test_mul_add_get_type (), NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, (DlTensor *[]){ a, b }, 2, &error);
  g_autoptr (DlTensor) loss = dl_tensor_sum (g_ptr_array_index (out, 1), &error);

  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_shape (dl_tensor_get_grad (b), DL_TEST_SHAPE (1, 3));
  dl_test_assert_values (dl_tensor_get_grad (b), (gdouble[]){ 2, 2, 2 }, 3, TOL);
}

static void
test_saved_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = random_leaf (DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) b0 = random_leaf (DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) b = dl_tensor_mul_scalar (b0, 1, &error); /* not a leaf */
  g_autoptr (DlFunction) fn = g_object_new (test_mul_add_get_type (), NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, (DlTensor *[]){ a, b }, 2, &error);
  g_autoptr (DlTensor) loss = dl_tensor_sum (g_ptr_array_index (out, 0), &error);
  g_autoptr (GPtrArray) saved = dl_function_get_saved_tensors (fn, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (saved->len, ==, 2);
  g_assert_true (g_ptr_array_index (saved, 0) == a);
  /* backward twice */
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  assert_autograd_error (error, "Trying to backward through the graph a second time");
  g_clear_error (&error);
  g_assert_null (dl_function_get_saved_tensors (fn, &error));
  assert_autograd_error (error, "TestMulAdd");
  g_clear_error (&error);

  /* a saved input changed in place */
  {
    g_autoptr (DlFunction) fn2 = g_object_new (test_mul_add_get_type (), NULL);
    g_autoptr (GPtrArray) out2 = dl_function_apply (fn2, (DlTensor *[]){ a, b }, 2, &error);
    g_autoptr (DlTensor) loss2 = dl_tensor_sum (g_ptr_array_index (out2, 0), &error);

    g_assert_nonnull (dl_tensor_mul_scalar_ (b, 2, &error));
    g_assert_false (dl_tensor_backward (loss2, NULL, FALSE, FALSE, &error));
    assert_autograd_error (error, "TestMulAdd: one of the variables needed for gradient "
                                  "computation has been modified by an inplace operation");
  }
}

static void
test_apply_twice (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (2));
  g_autoptr (DlFunction) fn = g_object_new (test_clamp_st_get_type (), NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, &x, 1, &error);

  g_assert_no_error (error);
  g_assert_null (dl_function_apply (fn, &x, 1, &error));
  assert_autograd_error (error, "TestClampSt: this Function instance was applied already");
}

/* Without an input that requires grad, or in no_grad mode, nothing is
 * recorded and nothing is needed. */
static void
test_not_recorded (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (2));
  g_autoptr (DlTensor) c = dl_tensor_detach (x);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (DlFunction) fn = g_object_new (test_clamp_st_get_type (), NULL);
      gboolean was = dl_set_grad_enabled (i == 0);
      g_autoptr (GPtrArray) out = dl_function_apply (fn, i == 0 ? &c : &x, 1, &error);

      dl_set_grad_enabled (was);
      g_assert_no_error (error);
      g_assert_false (dl_function_needs_input_grad (fn, 0));
      g_assert_false (dl_tensor_get_requires_grad (g_ptr_array_index (out, 0)));
      g_assert_null (dl_tensor_get_grad_fn (g_ptr_array_index (out, 0)));
    }
}

static void
test_dirty (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) y = dl_tensor_mul_scalar (x, 3, &error);
  g_autoptr (DlFunction) fn = g_object_new (test_add_one_get_type (), NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, &y, 1, &error);
  g_autoptr (DlTensor) loss = NULL;
  g_autofree gdouble *xv = dl_test_values (x);

  g_assert_no_error (error);
  g_assert_true (g_ptr_array_index (out, 0) == y); /* the same tensor */
  g_assert_true (dl_tensor_get_grad_fn (y) == DL_NODE (fn));
  for (guint i = 0; i < 3; i++)
    xv[i] = 3 * xv[i] + 1;
  dl_test_assert_values (y, xv, 3, TOL);
  loss = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 3, 3, 3 }, 3, TOL);

  /* a leaf that requires grad cannot be changed in place */
  {
    g_autoptr (DlFunction) fn2 = g_object_new (test_add_one_get_type (), NULL);

    g_assert_null (dl_function_apply (fn2, &x, 1, &error));
    assert_autograd_error (error, "TestAddOne: a leaf Variable that requires grad is being "
                                  "used in an in-place operation");
  }
}

/* A view changed in place: its base's history records it. */
static void
test_dirty_view (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (2, 3));
  g_autoptr (DlTensor) y = dl_tensor_mul_scalar (x, 2, &error);
  g_autoptr (DlTensor) row = dl_tensor_select (y, 0, 1, &error);
  g_autoptr (DlFunction) fn = g_object_new (test_add_one_get_type (), NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, &row, 1, &error);
  g_autoptr (DlTensor) ys = NULL;
  g_autoptr (DlTensor) loss = NULL;

  g_assert_no_error (error);
  ys = dl_tensor_mul (y, y, &error);
  loss = dl_tensor_sum (ys, &error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  {
    /* d/dx sum (y'^2) = 2 y' * 2, y' = 2x (+1 in row 1) */
    g_autofree gdouble *yv = dl_test_values (y);
    gdouble expect[6];

    for (guint i = 0; i < 6; i++)
      expect[i] = 4 * yv[i];
    dl_test_assert_values (dl_tensor_get_grad (x), expect, 6, 1e-12);
  }
}

static void
test_non_differentiable (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (4));
  g_autoptr (DlFunction) fn = g_object_new (test_with_mask_get_type (), NULL);
  g_autoptr (GPtrArray) out = dl_function_apply (fn, &x, 1, &error);
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) loss = NULL;
  DlTensor *same;

  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_requires_grad (g_ptr_array_index (out, 0)));
  g_assert_false (dl_tensor_get_requires_grad (g_ptr_array_index (out, 1)));
  /* an input returned as it is: a new view of it, with the function's
   * history */
  same = g_ptr_array_index (out, 2);
  g_assert_true (same != x);
  g_assert_true (dl_tensor_get_grad_fn (same) == DL_NODE (fn));
  g_assert_true (dl_tensor_get_storage (same) == dl_tensor_get_storage (x));
  s = dl_tensor_add (g_ptr_array_index (out, 0), same, &error);
  loss = dl_tensor_sum (s, &error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 3, 3, 3, 3 }, 4, TOL);
}

/* d/dx sum (cube (x)) = 3 x^2 through the function's backward, recorded
 * with create_graph; its gradient 6 x runs through the ops of it. */
static void
test_double_backward (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = random_leaf (DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) y = apply_first (test_cube_get_type (), &x, 1, &error);
  g_autoptr (DlTensor) loss = dl_tensor_sum (y, &error);
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) gs = NULL;
  g_autofree gdouble *xv = dl_test_values (x);

  g_assert_true (dl_tensor_backward (loss, NULL, TRUE, TRUE, &error));
  g_assert_no_error (error);
  g = g_object_ref (dl_tensor_get_grad (x));
  g_assert_nonnull (dl_tensor_get_grad_fn (g));
  dl_test_assert_values (g,
                         (gdouble[]){ 3 * xv[0] * xv[0], 3 * xv[1] * xv[1], 3 * xv[2] * xv[2] },
                         3, TOL);
  dl_tensor_set_grad (x, NULL, NULL);
  gs = dl_tensor_sum (g, &error);
  g_assert_true (dl_tensor_backward (gs, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x),
                         (gdouble[]){ 6 * xv[0], 6 * xv[1], 6 * xv[2] }, 3, TOL);
}

/* Neither the function nor its graph outlives the outputs: after a
 * backward pass, and when the outputs go without one. */
static void
test_no_cycles (void)
{
  for (guint run_backward = 0; run_backward < 2; run_backward++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) a = random_leaf (DL_TEST_SHAPE (3));
      DlTensor *b = random_leaf (DL_TEST_SHAPE (3));
      DlTensor *bb = dl_tensor_mul (b, b, &error);
      DlFunction *fn = g_object_new (test_mul_add_get_type (), NULL);
      DlFunction *cube = g_object_new (test_cube_get_type (), NULL);
      GPtrArray *out = dl_function_apply (fn, (DlTensor *[]){ a, bb }, 2, &error);
      GPtrArray *out2 = dl_function_apply (cube, (DlTensor **)&out->pdata[0], 1, &error);
      DlTensor *loss = dl_tensor_sum (g_ptr_array_index (out2, 0), &error);
      DlNode *bb_node = dl_tensor_get_grad_fn (bb);

      g_assert_no_error (error);
      g_object_add_weak_pointer (G_OBJECT (bb_node), (gpointer *)&bb_node);
      g_object_add_weak_pointer (G_OBJECT (fn), (gpointer *)&fn);
      g_object_add_weak_pointer (G_OBJECT (cube), (gpointer *)&cube);
      g_object_unref (fn);
      g_object_unref (cube);
      g_object_unref (bb);
      if (run_backward)
        {
          g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
          g_assert_no_error (error);
        }
      g_ptr_array_unref (out);
      g_ptr_array_unref (out2);
      g_assert_finalize_object (loss);
      g_assert_null (fn);
      g_assert_null (cube);
      g_assert_null (bb_node);
      g_assert_finalize_object (b);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/function/clamp-straight-through", test_clamp_straight_through);
  g_test_add_data_func ("/function/gradcheck/two-in-two-out", &mul_add_case, dl_test_gradcheck);
  g_test_add_data_func ("/function/gradcheck/saved-output", &cube_case, dl_test_gradcheck);
  g_test_add_func ("/function/materialize-grads", test_materialize);
  g_test_add_func ("/function/gradient-summed", test_gradient_summed);
  g_test_add_func ("/function/errors/backward", test_bad_backward);
  g_test_add_func ("/function/errors/saved", test_saved_errors);
  g_test_add_func ("/function/errors/apply-twice", test_apply_twice);
  g_test_add_func ("/function/not-recorded", test_not_recorded);
  g_test_add_func ("/function/dirty", test_dirty);
  g_test_add_func ("/function/dirty-view", test_dirty_view);
  g_test_add_func ("/function/non-differentiable", test_non_differentiable);
  g_test_add_func ("/function/double-backward", test_double_backward);
  g_test_add_func ("/function/no-cycles", test_no_cycles);
  return g_test_run ();
}

/* test-pointwise-table.c: walks the pointwise op table (dl-ops-pointwise.def)
 * the way the library reads it.
 *
 * For every row: the library lists it (dl_pointwise_op_names) with the
 * flags the row declares; exactly the variants the row asks for exist as
 * exported functions; each variant gives what the out-of-place op gives;
 * and every differentiable op passes gradcheck on inputs from its row's
 * domain. Functions are looked up by name, as a binding would.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gmodule.h>

#include "dl-test-gradcheck.h"

typedef enum
{
  DOMAIN_ANY,
  DOMAIN_POSITIVE,
  DOMAIN_NONZERO,
  DOMAIN_FRACTIONAL,
  DOMAIN_UNIT,      /* (-0.9, 0.9) */
  DOMAIN_ABOVE_ONE, /* [1.2, 3.2) */
} Domain;

typedef struct
{
  const gchar *name;
  guint arity;
  const gchar *node;
  Domain domain;
  DlOpFlags variants;
  const gchar *rule;
  const gchar *grad_fn;  /* "NULL": no derivative (a node then fails backward) */
  gboolean has_grad;     /* filled in main () */
  gboolean integer_only; /* the bitwise ops, gcd, shifts; filled in main () */
  DlTestGradCase grad;   /* filled in main () */
} Row;

#define INPLACE DL_OP_FLAGS_INPLACE
#define SCALAR DL_OP_FLAGS_SCALAR
#define REFLECTED DL_OP_FLAGS_REFLECTED
#define ALPHA DL_OP_FLAGS_ALPHA

static Row rows[] = {
#define DL_UNARY_OP(name, KERNEL, RULE, node, grad, SAVES, DOMAIN, VARIANTS, what)                 \
  { #name, 1, node, DOMAIN_##DOMAIN, VARIANTS, #RULE, #grad },
#define DL_BINARY_OP(name, KERNEL, RULE, node, grad, SAVES, DOMAIN, VARIANTS, what)                \
  { #name, 2, node, DOMAIN_##DOMAIN, VARIANTS, #RULE, #grad },
#include "ops/dl-ops-pointwise.def"
#undef DL_UNARY_OP
#undef DL_BINARY_OP
};

static GModule *self_module;

/* dl_tensor_<name><suffix>, or NULL when the library has no such function */
static gpointer
lookup (const gchar *prefix, const gchar *name, const gchar *suffix)
{
  g_autofree gchar *symbol = g_strconcat ("dl_tensor_", prefix, name, suffix, NULL);
  gpointer fn = NULL;

  if (!g_module_symbol (self_module, symbol, &fn))
    return NULL;
  return fn;
}

static gboolean
differentiable (const Row *r)
{
  return r->node != NULL && r->has_grad && !g_str_equal (r->node, "NotImplemented");
}

/* The names the library lists for @flags are exactly the rows with them. */
static void
test_names (void)
{
  const DlOpFlags all[] = {
    DL_OP_FLAGS_NONE,    DL_OP_FLAGS_UNARY,          DL_OP_FLAGS_BINARY,
    DL_OP_FLAGS_INPLACE, DL_OP_FLAGS_SCALAR,         DL_OP_FLAGS_REFLECTED,
    DL_OP_FLAGS_ALPHA,   DL_OP_FLAGS_DIFFERENTIABLE, DL_OP_FLAGS_BINARY | DL_OP_FLAGS_COMPARISON
  };

  for (gsize f = 0; f < G_N_ELEMENTS (all); f++)
    {
      g_auto (GStrv) names = dl_pointwise_op_names (all[f]);
      guint k = 0;

      for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
        {
          const Row *r = &rows[i];
          DlOpFlags has = r->variants | (r->arity == 1 ? DL_OP_FLAGS_UNARY : DL_OP_FLAGS_BINARY);

          if (differentiable (r))
            has |= DL_OP_FLAGS_DIFFERENTIABLE;
          if (g_str_equal (r->rule, "COMPARE"))
            has |= DL_OP_FLAGS_COMPARISON;
          if ((has & all[f]) != all[f])
            continue;
          g_assert_nonnull (names[k]);
          g_assert_cmpstr (names[k], ==, r->name);
          k++;
        }
      g_assert_null (names[k]);
    }
}

/* Each row's variants exist, and no others. */
static void
test_variants_exist (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      const Row *r = &rows[i];
      gboolean binary = r->arity == 2;

      g_assert_nonnull (lookup ("", r->name, ""));
      g_assert_true ((lookup ("", r->name, "_") != NULL) == !!(r->variants & INPLACE));
      if (!binary)
        continue;
      g_assert_true ((lookup ("", r->name, "_scalar") != NULL) == !!(r->variants & SCALAR));
      g_assert_true ((lookup ("", r->name, "_scalar_") != NULL)
                     == ((r->variants & (SCALAR | INPLACE)) == (SCALAR | INPLACE)));
      g_assert_true ((lookup ("r", r->name, "_scalar") != NULL) == !!(r->variants & REFLECTED));
      g_assert_true ((lookup ("", r->name, "_scaled") != NULL) == !!(r->variants & ALPHA));
    }
}

/* Random values for @r's domain, as a tensor (float64, or int64 for the
 * bitwise ops). */
static DlTensor *
domain_tensor (const Row *r, const gint64 *shape, gsize nd)
{
  gint64 n = dl_test_numel (shape, nd);
  g_autofree gdouble *v = dl_test_random_values (n);

  for (gint64 i = 0; i < n; i++)
    {
      if (r->integer_only)
        v[i] = floor (v[i] * 50);
      else if (r->domain == DOMAIN_POSITIVE)
        v[i] = 0.2 + fabs (v[i]);
      else if (r->domain == DOMAIN_UNIT)
        v[i] *= 0.9;
      else if (r->domain == DOMAIN_ABOVE_ONE)
        v[i] = 2.2 + v[i];
      else if (r->domain != DOMAIN_ANY && fabs (v[i]) < 0.25)
        v[i] += v[i] < 0 ? -0.25 : 0.25;
    }
  return dl_test_tensor (v, shape, nd, r->integer_only ? DL_DTYPE_INT64 : DL_DTYPE_FLOAT64);
}

static void
assert_same (DlTensor *got, DlTensor *expected, const gchar *what)
{
  g_autofree gdouble *e = NULL;
  gint64 n = dl_tensor_numel (expected);

  g_assert_nonnull (got);
  g_assert_cmpint (dl_tensor_numel (got), ==, n);
  e = dl_test_values (expected);
  if (g_test_verbose ())
    g_test_message ("%s", what);
  dl_test_assert_values (got, e, n, 1e-12);
}

typedef DlTensor *(*UnaryFn) (DlTensor *, GError **);
typedef DlTensor *(*BinaryFn) (DlTensor *, DlTensor *, GError **);
typedef DlTensor *(*ScalarFn) (DlTensor *, gdouble, GError **);
typedef DlTensor *(*ScaledFn) (DlTensor *, DlTensor *, gdouble, GError **);

/* Every variant of a row against its out-of-place op. */
static void
test_variants_agree (gconstpointer data)
{
  const Row *r = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = domain_tensor (r, DL_TEST_SHAPE (3, 4));
  g_autoptr (DlTensor) y = domain_tensor (r, DL_TEST_SHAPE (4));
  g_autoptr (DlTensor) expected = NULL;
  gdouble number = r->integer_only ? 6 : 0.7;

  if (r->arity == 1)
    {
      g_autoptr (DlTensor) c = NULL;

      expected = ((UnaryFn)lookup ("", r->name, "")) (x, &error);
      g_assert_no_error (error);
      if (r->variants & INPLACE)
        {
          c = dl_tensor_clone (x, &error);
          g_assert_true (((UnaryFn)lookup ("", r->name, "_")) (c, &error) == c);
          g_assert_no_error (error);
          assert_same (c, expected, "in place");
        }
      return;
    }
  expected = ((BinaryFn)lookup ("", r->name, "")) (x, y, &error);
  g_assert_no_error (error);
  if (r->variants & INPLACE)
    {
      g_autoptr (DlTensor) c = dl_tensor_clone (x, &error);
      g_autoptr (DlTensor) e = dl_tensor_to_dtype (expected, dl_tensor_get_dtype (x), &error);

      g_assert_true (((BinaryFn)lookup ("", r->name, "_")) (c, y, &error) == c);
      g_assert_no_error (error);
      assert_same (c, e, "in place");
    }
  if (r->variants & SCALAR)
    {
      g_autoptr (DlTensor) s = dl_tensor_new_wrapped_scalar (
          number, r->integer_only ? DL_DTYPE_INT64 : DL_DTYPE_FLOAT64);
      g_autoptr (DlTensor) want = ((BinaryFn)lookup ("", r->name, "")) (x, s, &error);
      g_autoptr (DlTensor) got = ((ScalarFn)lookup ("", r->name, "_scalar")) (x, number, &error);

      g_assert_no_error (error);
      assert_same (got, want, "scalar");
      if (r->variants & INPLACE)
        {
          g_autoptr (DlTensor) c = dl_tensor_clone (x, &error);
          g_autoptr (DlTensor) w = dl_tensor_to_dtype (want, dl_tensor_get_dtype (x), &error);

          g_assert_true (((ScalarFn)lookup ("", r->name, "_scalar_")) (c, number, &error) == c);
          g_assert_no_error (error);
          assert_same (c, w, "scalar in place");
        }
    }
  if (r->variants & REFLECTED)
    {
      g_autoptr (DlTensor) s = dl_tensor_new_wrapped_scalar (
          number, r->integer_only ? DL_DTYPE_INT64 : DL_DTYPE_FLOAT64);
      g_autoptr (DlTensor) want = ((BinaryFn)lookup ("", r->name, "")) (s, x, &error);
      g_autoptr (DlTensor) got = ((ScalarFn)lookup ("r", r->name, "_scalar")) (x, number, &error);

      g_assert_no_error (error);
      assert_same (got, want, "reflected");
    }
  if (r->variants & ALPHA)
    {
      g_autoptr (DlTensor) ys = dl_tensor_mul_scalar (y, 2.5, &error);
      g_autoptr (DlTensor) want = ((BinaryFn)lookup ("", r->name, "")) (x, ys, &error);
      g_autoptr (DlTensor) got = ((ScaledFn)lookup ("", r->name, "_scaled")) (x, y, 2.5, &error);
      g_autoptr (DlTensor) c = dl_tensor_clone (x, &error);

      g_assert_no_error (error);
      assert_same (got, want, "scaled");
      g_assert_true (((ScaledFn)lookup ("", r->name, "_scaled_")) (c, y, 2.5, &error) == c);
      g_assert_no_error (error);
      assert_same (c, want, "scaled in place");
    }
}

/* floor_divide, heaviside and nextafter record a node whose backward
 * fails, as PyTorch's does */
static void
test_not_implemented (gconstpointer data)
{
  const Row *r = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = domain_tensor (r, DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) y = domain_tensor (r, DL_TEST_SHAPE (3));
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) s = NULL;

  dl_tensor_set_requires_grad (x, TRUE, &error);
  out = ((BinaryFn)lookup ("", r->name, "")) (x, y, &error);
  s = dl_tensor_sum (out, &error);
  g_assert_no_error (error);
  g_assert_false (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  self_module = g_module_open (NULL, 0);
  g_assert_nonnull (self_module);
  g_test_add_func ("/pointwise-table/names", test_names);
  g_test_add_func ("/pointwise-table/variants-exist", test_variants_exist);
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      Row *r = &rows[i];
      g_autofree gchar *vpath = g_strdup_printf ("/pointwise-table/variants/%s", r->name);

      r->has_grad = !g_str_equal (r->grad_fn, "NULL");
      r->integer_only = g_str_equal (r->rule, "BITWISE") || g_str_equal (r->rule, "INTEGER");
      g_test_add_data_func (vpath, r, test_variants_agree);
      if (r->node && (g_str_equal (r->node, "NotImplemented") || !r->has_grad))
        {
          g_autofree gchar *path = g_strdup_printf ("/pointwise-table/backward-fails/%s", r->name);
          g_test_add_data_func (path, r, test_not_implemented);
        }
      if (!differentiable (r))
        continue;
      r->grad = (DlTestGradCase){
        .name = r->name,
        .n_inputs = r->arity,
        .shapes = { { 3, 4 }, { 4 } },
        .n_dims = { 2, 1 },
        .min_abs
        = r->domain == DOMAIN_ANY || r->domain == DOMAIN_UNIT || r->domain == DOMAIN_ABOVE_ONE
              ? 0
              : 0.25,
        .positive = r->domain == DOMAIN_POSITIVE,
        .lo = r->domain == DOMAIN_UNIT        ? -0.9
              : r->domain == DOMAIN_ABOVE_ONE ? 1.2
                                              : 0,
        .hi = r->domain == DOMAIN_UNIT        ? 0.9
              : r->domain == DOMAIN_ABOVE_ONE ? 3.2
                                              : 0,
        .op = lookup ("", r->name, ""),
      };
      {
        g_autofree gchar *path = g_strdup_printf ("/pointwise-table/gradcheck/%s", r->name);
        g_test_add_data_func (path, &r->grad, dl_test_gradcheck);
      }
    }
  return g_test_run ();
}

/* dl-gradcheck.c: torch.autograd.gradcheck and gradgradcheck.
 *
 * gradcheck compares, for every input that requires grad and every
 * output, the Jacobian that backward computes (one vector-Jacobian
 * product per output element, with a one-hot gradient) with central
 * finite differences (f (x + eps) - f (x - eps)) / 2 eps, each input
 * element perturbed in place. The Jacobian of input i and output o has
 * numel (i) rows and numel (o) columns, as in PyTorch, and two elements
 * agree when |analytical - numerical| <= atol + rtol |numerical|.
 *
 * gradgradcheck runs gradcheck on the function that maps (inputs,
 * grad_outputs) to the gradients of the inputs, computed with
 * create_graph: the backward pass must itself be differentiable.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-gradcheck.h"
#include "dl-autograd.h"
#include "dl-error.h"
#include "dl-node.h"
#include "dl-storage-private.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"

/* the node names, generated from the sources (gen-node-names.py) */
extern const gchar *const dl_autograd_node_names_table[];

static void
unref_nullable (gpointer object)
{
  if (object)
    g_object_unref (object);
}

/* One evaluation of the function under test: its outputs, checked. */
static GPtrArray *
call_func (DlGradcheckFunc func,
           gpointer user_data,
           DlTensor **inputs,
           guint n_inputs,
           const gchar *what,
           GError **error)
{
  GError *local = NULL;
  GPtrArray *out = func (inputs, n_inputs, user_data, &local);

  /* (transfer full): the elements are ours, whether or not the array
   * frees them itself (the bindings' arrays do not) */
  if (out)
    g_ptr_array_set_free_func (out, unref_nullable);

  if (local)
    {
      g_clear_pointer (&out, g_ptr_array_unref);
      g_propagate_error (error, local);
      return NULL;
    }
  if (out == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "%s: the function returned no outputs", what);
      return NULL;
    }
  for (guint o = 0; o < out->len; o++)
    if (!DL_IS_TENSOR (g_ptr_array_index (out, o)))
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: output %u of the function is not a tensor", what, o);
        g_ptr_array_unref (out);
        return NULL;
      }
  return out;
}

/* The elements of @t in row-major order, as doubles (g_free). */
static gdouble *
values_of (DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) d = dl_tensor_detach (t);
  g_autoptr (DlTensor) t64 = dl_tensor_to_dtype (d, DL_DTYPE_FLOAT64, error);
  g_autoptr (GBytes) bytes = NULL;
  gsize size;

  if (!t64 || !(bytes = dl_tensor_to_bytes (t64, error)))
    return NULL;
  if (t->numel == 0)
    return g_new0 (gdouble, 1);
  return g_memdup2 (g_bytes_get_data (bytes, &size), t->numel * sizeof (gdouble));
}

/* "[1, 2]": the index of the @k-th element in row-major order of @t */
static gchar *
index_to_string (const DlTensor *t, gint64 k)
{
  gint64 idx[DL_MAX_DIMS];

  for (gint d = t->ndim - 1; d >= 0; d--)
    {
      idx[d] = t->sizes[d] ? k % t->sizes[d] : 0;
      k = t->sizes[d] ? k / t->sizes[d] : 0;
    }
  return dl_shape_to_string (idx, t->ndim);
}

/* A 0-d alias (no history) of the @k-th element of @t in row-major order */
static DlTensor *
element_alias (DlTensor *t, gint64 k)
{
  gint64 offset = t->offset;

  for (gint d = t->ndim - 1; d >= 0; d--)
    {
      offset += (k % t->sizes[d]) * t->strides[d];
      k /= t->sizes[d];
    }
  return dl_tensor_new_view_internal (t, NULL, NULL, 0, offset);
}

/* Writes @value into the 0-d alias @e, as PyTorch writes through .data:
 * unrecorded, and leaving the storage's version as it was, so that graphs
 * that saved the input stay usable once the value is restored. */
static void
poke (DlTensor *e, gdouble value)
{
  gint version = g_atomic_int_get (&e->storage->version);
  gboolean was = dl_set_grad_enabled (FALSE);

  dl_tensor_fill_ (e, value, NULL);
  dl_set_grad_enabled (was);
  g_atomic_int_set (&e->storage->version, version);
}

/* The gradients of @outputs, weighted by @grad_outputs, with respect to
 * @inputs: one entry per input, NULL where none flows (outputs and inputs
 * that do not require grad take no part). */
static GPtrArray *
vjp (GPtrArray *outputs,
     DlTensor **inputs,
     guint n_inputs,
     DlTensor **grad_outputs,
     gboolean create_graph,
     GError **error)
{
  g_autofree DlTensor **outs = g_new0 (DlTensor *, MAX (outputs->len, 1));
  g_autofree DlTensor **gos = g_new0 (DlTensor *, MAX (outputs->len, 1));
  g_autofree DlTensor **ins = g_new0 (DlTensor *, MAX (n_inputs, 1));
  g_autoptr (GPtrArray) grads = g_ptr_array_new_full (n_inputs, unref_nullable);
  g_autoptr (GPtrArray) some = NULL;
  guint n_outs = 0, n_ins = 0, k = 0;

  for (guint o = 0; o < outputs->len; o++)
    {
      DlTensor *y = g_ptr_array_index (outputs, o);

      if (grad_outputs[o] && y->requires_grad)
        {
          outs[n_outs] = y;
          gos[n_outs++] = grad_outputs[o];
        }
    }
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i]->requires_grad)
      ins[n_ins++] = inputs[i];
  if (n_outs && n_ins
      && !(some = dl_autograd_grad (outs, n_outs, ins, n_ins, gos, n_outs, TRUE, create_graph, TRUE,
                                    error)))
    return NULL;
  if (some) /* the elements are ours too (the array has no free function) */
    g_ptr_array_set_free_func (some, unref_nullable);
  for (guint i = 0; i < n_inputs; i++)
    {
      DlTensor *g = some && inputs[i]->requires_grad ? g_ptr_array_index (some, k++) : NULL;

      g_ptr_array_add (grads, g ? g_object_ref (g) : NULL);
    }
  return g_steal_pointer (&grads);
}

typedef struct
{
  DlGradcheckFunc func;
  gpointer user_data;
  DlTensor **inputs;
  guint n_inputs;
  gdouble eps, atol, rtol, nondet_tol;
  gboolean check_undefined_grad;
  const gchar *what; /* "gradcheck" or "gradgradcheck" */
} Check;

/* The numerical Jacobians of every output with respect to input @i:
 * num[o] has numel (i) * numel (o) entries, row-major (input, output). */
static gboolean
numerical_jacobians (const Check *c, guint i, GPtrArray *outputs, gdouble **num, GError **error)
{
  DlTensor *x = c->inputs[i];
  g_autoptr (DlTensor) xd = dl_tensor_detach (x);

  for (gint64 k = 0; k < x->numel; k++)
    {
      g_autoptr (DlTensor) e = element_alias (xd, k);
      g_autofree gdouble *vals[2][2] = { { NULL } };
      gdouble orig = dl_tensor_item (e, NULL);

      for (gint s = 0; s < 2; s++)
        {
          g_autoptr (GPtrArray) out = NULL;

          poke (e, orig + (s ? -c->eps : c->eps));
          out = call_func (c->func, c->user_data, c->inputs, c->n_inputs, c->what, error);
          if (out && out->len != outputs->len)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                           "%s: the function gave %u outputs, then %u", c->what, outputs->len,
                           out->len);
              g_clear_pointer (&out, g_ptr_array_unref);
            }
          if (out)
            for (guint o = 0; o < out->len; o++)
              {
                DlTensor *y = g_ptr_array_index (out, o);
                DlTensor *y0 = g_ptr_array_index (outputs, o);
                g_autofree gdouble *v = NULL;
                gdouble *row = num[o] + k * y0->numel;

                if (y->numel != y0->numel)
                  {
                    g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                                 "%s: output %u changed its number of elements", c->what, o);
                    g_clear_pointer (&out, g_ptr_array_unref);
                    break;
                  }
                if (!(v = values_of (y, error)))
                  {
                    g_clear_pointer (&out, g_ptr_array_unref);
                    break;
                  }
                for (gint64 j = 0; j < y0->numel; j++)
                  row[j] = s ? (row[j] - v[j]) / (2 * c->eps) : v[j];
              }
          if (!out)
            {
              poke (e, orig);
              return FALSE;
            }
        }
      poke (e, orig);
    }
  return TRUE;
}

/* A one-hot gradient for output @y at element @j (or all zeros, j < 0) */
static DlTensor *
one_hot_like (DlTensor *y, gint64 j, GError **error)
{
  g_autoptr (DlTensor) g = dl_zeros (y->sizes, y->ndim, y->dtype, dl_tensor_get_device (y), error);

  if (g && j >= 0)
    {
      g_autoptr (DlTensor) e = element_alias (g, j);

      if (!dl_tensor_fill_ (e, 1, error))
        return NULL;
    }
  return g_steal_pointer (&g);
}

/* The analytical Jacobians of output @o with respect to every checked
 * input: an[i] gets column j for each element j of the output. */
static gboolean
analytical_jacobians (const Check *c,
                      GPtrArray *outputs,
                      guint o,
                      const gboolean *checked,
                      gdouble **an,
                      GError **error)
{
  DlTensor *y = g_ptr_array_index (outputs, o);
  g_autofree DlTensor **gos = g_new0 (DlTensor *, outputs->len);

  for (gint64 j = 0; j < y->numel; j++)
    {
      g_autoptr (DlTensor) g = one_hot_like (y, j, error);
      g_autoptr (GPtrArray) grads = NULL;
      gboolean was;

      if (!g)
        return FALSE;
      gos[o] = g;
      was = dl_set_grad_enabled (FALSE);
      grads = vjp (outputs, c->inputs, c->n_inputs, gos, FALSE, error);
      dl_set_grad_enabled (was);
      if (!grads)
        return FALSE;
      for (guint i = 0; i < c->n_inputs; i++)
        {
          DlTensor *gi = g_ptr_array_index (grads, i);
          DlTensor *x = c->inputs[i];
          g_autofree gdouble *v = NULL;

          if (!checked[i])
            continue;
          if (gi && gi->numel != x->numel)
            {
              g_autofree gchar *gs = dl_shape_to_string (gi->sizes, gi->ndim);
              g_autofree gchar *xs = dl_shape_to_string (x->sizes, x->ndim);
              g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                           "%s: the gradient of input %u has shape %s, the input %s", c->what, i,
                           gs, xs);
              return FALSE;
            }
          if (gi && !(v = values_of (gi, error)))
            return FALSE;
          for (gint64 k = 0; k < x->numel; k++)
            an[i][k * y->numel + j] = v ? v[k] : 0;
        }
    }
  return TRUE;
}

/* The Jacobian as a (numel (x), numel (y)) float64 tensor, printed */
static gchar *
jacobian_to_string (const gdouble *jac, gint64 rows, gint64 cols)
{
  g_autoptr (GBytes) bytes = g_bytes_new (jac, rows * cols * sizeof (gdouble));
  g_autoptr (DlTensor) t
      = dl_tensor_new_from_bytes (bytes, (gint64[]){ rows, cols }, 2, DL_DTYPE_FLOAT64, NULL);

  return t ? dl_tensor_to_string (t) : g_strdup ("?");
}

static gboolean
report_mismatch (const Check *c,
                 GPtrArray *outputs,
                 guint o,
                 guint i,
                 const gdouble *an,
                 const gdouble *num,
                 GError **error)
{
  DlTensor *y = g_ptr_array_index (outputs, o);
  DlTensor *x = c->inputs[i];

  for (gint64 k = 0; k < x->numel; k++)
    for (gint64 j = 0; j < y->numel; j++)
      {
        gdouble a = an[k * y->numel + j], n = num[k * y->numel + j];

        if (!(fabs (a - n) <= c->atol + c->rtol * fabs (n)))
          {
            g_autofree gchar *ns = jacobian_to_string (num, x->numel, y->numel);
            g_autofree gchar *as = jacobian_to_string (an, x->numel, y->numel);
            g_autofree gchar *ys = index_to_string (y, j);
            g_autofree gchar *xs = index_to_string (x, k);

            g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                         "Jacobian mismatch for output %u with respect to input %u,\n"
                         "numerical:%s\nanalytical:%s\n"
                         "first mismatch: d output %u%s / d input %u%s: numerical %.10g, "
                         "analytical %.10g",
                         o, i, ns, as, o, ys, i, xs, n, a);
            return FALSE;
          }
      }
  return TRUE;
}

/* With all-zero output gradients, backward must give zero (or no)
 * input gradients. */
static gboolean
check_zero_grad_outputs (const Check *c, GPtrArray *outputs, GError **error)
{
  g_autoptr (GPtrArray) zeros = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) grads = NULL;
  gboolean was;

  for (guint o = 0; o < outputs->len; o++)
    {
      DlTensor *z = one_hot_like (g_ptr_array_index (outputs, o), -1, error);

      if (!z)
        return FALSE;
      g_ptr_array_add (zeros, z);
    }
  was = dl_set_grad_enabled (FALSE);
  grads = vjp (outputs, c->inputs, c->n_inputs, (DlTensor **)zeros->pdata, FALSE, error);
  dl_set_grad_enabled (was);
  if (!grads)
    return FALSE;
  for (guint i = 0; i < grads->len; i++)
    {
      DlTensor *g = g_ptr_array_index (grads, i);
      g_autofree gdouble *v = NULL;

      if (!g)
        continue;
      if (!(v = values_of (g, error)))
        return FALSE;
      for (gint64 k = 0; k < g->numel; k++)
        if (v[k] != 0)
          {
            g_autofree gchar *ks = index_to_string (g, k);
            g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                         "Expected backward function to handle undefined output grads: with "
                         "zero output gradients, the gradient of input %u%s is %.10g, not 0",
                         i, ks, v[k]);
            return FALSE;
          }
    }
  return TRUE;
}

static gboolean
run_check (const Check *c, gboolean raise_exception, GError **error)
{
  g_autoptr (GPtrArray) outputs = NULL;
  g_autofree gboolean *checked = g_new0 (gboolean, MAX (c->n_inputs, 1));
  g_autoptr (GPtrArray) an = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) an2 = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) num = g_ptr_array_new_with_free_func (g_free);
  GError *mismatch = NULL;
  gboolean any = FALSE, any_out = FALSE;

  for (guint i = 0; i < c->n_inputs; i++)
    {
      DlTensor *x = c->inputs[i];

      if (!x->requires_grad)
        continue;
      if (!dl_dtype_is_float (x->dtype))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                       "%s: input %u requires grad and is of dtype %s, not floating point",
                       c->what, i, dl_dtype_get_name (x->dtype));
          return FALSE;
        }
      for (gint d = 0; d < x->ndim; d++)
        if (x->strides[d] == 0 && x->sizes[d] > 1)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s: the %uth input has a dimension with stride 0. gradcheck only "
                         "supports inputs that are non-overlapping to be able to compute the "
                         "numerical gradients correctly. You should call .contiguous on the "
                         "input before passing it to gradcheck.",
                         c->what, i);
            return FALSE;
          }
      checked[i] = any = TRUE;
    }
  if (!any)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s expects at least one input tensor to require gradient, but none of "
                   "them have requires_grad=True.",
                   c->what);
      return FALSE;
    }

  if (!(outputs = call_func (c->func, c->user_data, c->inputs, c->n_inputs, c->what, error)))
    return FALSE;
  for (guint o = 0; o < outputs->len; o++)
    any_out |= ((DlTensor *)g_ptr_array_index (outputs, o))->requires_grad;

  /* num[o * n_inputs + i], an[...] alike */
  for (guint o = 0; o < outputs->len; o++)
    for (guint i = 0; i < c->n_inputs; i++)
      {
        gsize n = checked[i] ? c->inputs[i]->numel * ((DlTensor *)outputs->pdata[o])->numel : 0;

        g_ptr_array_add (num, g_new0 (gdouble, MAX (n, 1)));
        g_ptr_array_add (an, g_new0 (gdouble, MAX (n, 1)));
        g_ptr_array_add (an2, g_new0 (gdouble, MAX (n, 1)));
      }

  /* analytical, twice (reentrancy), before the inputs are perturbed */
  for (guint o = 0; o < outputs->len; o++)
    {
      DlTensor *y = g_ptr_array_index (outputs, o);

      if (!y->requires_grad)
        continue;
      if (!analytical_jacobians (c, outputs, o, checked, (gdouble **)an->pdata + o * c->n_inputs,
                                 error)
          || !analytical_jacobians (c, outputs, o, checked,
                                    (gdouble **)an2->pdata + o * c->n_inputs, error))
        return FALSE;
    }

  for (guint i = 0; i < c->n_inputs; i++)
    {
      g_autofree gdouble **rows = g_new0 (gdouble *, outputs->len);

      if (!checked[i])
        continue;
      for (guint o = 0; o < outputs->len; o++)
        rows[o] = num->pdata[o * c->n_inputs + i];
      if (!numerical_jacobians (c, i, outputs, rows, error))
        return FALSE;
    }

  for (guint o = 0; o < outputs->len && !mismatch; o++)
    {
      DlTensor *y = g_ptr_array_index (outputs, o);

      for (guint i = 0; i < c->n_inputs && !mismatch; i++)
        {
          const gdouble *nm = num->pdata[o * c->n_inputs + i];
          gsize n = c->inputs[i]->numel * y->numel;

          if (!checked[i])
            continue;
          if (!y->requires_grad)
            {
              /* an output without history must not depend on the inputs */
              if (!any_out)
                for (gsize e = 0; e < n; e++)
                  if (nm[e] != 0)
                    {
                      g_set_error (&mismatch, DL_ERROR, DL_ERROR_AUTOGRAD,
                                   "Numerical gradient for function expected to be zero");
                      break;
                    }
              continue;
            }
          if (!report_mismatch (c, outputs, o, i, an->pdata[o * c->n_inputs + i], nm, &mismatch))
            break;
          for (gsize e = 0; e < n; e++)
            {
              const gdouble *a1 = an->pdata[o * c->n_inputs + i];
              const gdouble *a2 = an2->pdata[o * c->n_inputs + i];

              if (!(fabs (a1[e] - a2[e]) <= c->nondet_tol))
                {
                  g_set_error (&mismatch, DL_ERROR, DL_ERROR_AUTOGRAD,
                               "Backward is not reentrant, i.e., running backward with same "
                               "input and grad_output multiple times gives different values, "
                               "although analytical gradient matches numerical gradient. The "
                               "tolerance for nondeterminism was %g.",
                               c->nondet_tol);
                  break;
                }
            }
        }
    }

  if (!mismatch && any_out && c->check_undefined_grad)
    {
      g_autoptr (GError) local = NULL;

      if (!check_zero_grad_outputs (c, outputs, &local))
        {
          if (!g_error_matches (local, DL_ERROR, DL_ERROR_AUTOGRAD))
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
          mismatch = g_steal_pointer (&local);
        }
    }

  if (mismatch)
    {
      if (raise_exception)
        g_propagate_error (error, mismatch);
      else
        g_error_free (mismatch);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_autograd_gradcheck:
 * @func: (scope call) (closure user_data): the function to check
 * @user_data: data for @func
 * @inputs: (array length=n_inputs): the inputs; those that require grad
 *   (float64 ones, for the differences to be accurate) are checked
 * @n_inputs: the number of inputs
 * @eps: the perturbation of the finite differences (PyTorch: 1e-6)
 * @atol: the absolute tolerance (PyTorch: 1e-5)
 * @rtol: the relative tolerance (PyTorch: 1e-3)
 * @raise_exception: whether a failed check sets @error; if not, it only
 *   returns %FALSE (errors of @func itself are always reported)
 * @nondet_tol: how far two backward passes over the same inputs may
 *   differ (PyTorch: 0)
 * @check_undefined_grad: whether to check that backward with all-zero
 *   output gradients gives zero input gradients (PyTorch: %TRUE)
 * @error: return location for a #GError
 *
 * Checks the gradients that backward computes for @func against central
 * finite differences, as torch.autograd.gradcheck() does: for every
 * input i that requires grad and every output o, the analytical
 * Jacobian (numel (i) rows, numel (o) columns) must match the numerical
 * one elementwise within @atol + @rtol × |numerical|. The inputs are
 * perturbed in place (through their storage, so non-contiguous inputs
 * stay as they are) and restored. A mismatch is a %DL_ERROR_AUTOGRAD
 * error that names the output and input (by their positions), prints
 * both Jacobians and the first element that differs.
 *
 * Returns: %TRUE if the gradients match
 *
 * Since: 0.1
 */
gboolean
dl_autograd_gradcheck (DlGradcheckFunc func,
                       gpointer user_data,
                       DlTensor **inputs,
                       guint n_inputs,
                       gdouble eps,
                       gdouble atol,
                       gdouble rtol,
                       gboolean raise_exception,
                       gdouble nondet_tol,
                       gboolean check_undefined_grad,
                       GError **error)
{
  Check c = { func, user_data, inputs, n_inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
              "gradcheck" };

  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, FALSE);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (DL_IS_TENSOR (inputs[i]), FALSE);
  return run_check (&c, raise_exception, error);
}

/* gradgradcheck's function: (inputs, grad_outputs) -> the gradients of
 * the inputs that require grad, recorded */
typedef struct
{
  DlGradcheckFunc func;
  gpointer user_data;
  guint n_inputs;
  guint n_grad_outputs;
  const gboolean *differentiable; /* [n_inputs] */
} GradFunc;

static GPtrArray *
grad_func (DlTensor **all, guint n_all, gpointer user_data, GError **error)
{
  const GradFunc *gf = user_data;
  g_autoptr (GPtrArray) outputs = NULL;
  g_autoptr (GPtrArray) grads = NULL;
  g_autofree DlTensor **gos = NULL;
  g_autofree DlTensor **diff = g_new0 (DlTensor *, MAX (gf->n_inputs, 1));
  GPtrArray *out;
  guint n_diff = 0;

  if (!(outputs = call_func (gf->func, gf->user_data, all, gf->n_inputs, "gradgradcheck", error)))
    return NULL;
  if (outputs->len != gf->n_grad_outputs)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "gradgradcheck: the function gave %u outputs and there are %u grad_outputs",
                   outputs->len, gf->n_grad_outputs);
      return NULL;
    }
  gos = g_new0 (DlTensor *, MAX (outputs->len, 1));
  for (guint o = 0; o < outputs->len; o++)
    gos[o] = all[gf->n_inputs + o];
  for (guint i = 0; i < gf->n_inputs; i++)
    if (gf->differentiable[i])
      diff[n_diff++] = all[i];
  if (!(grads = vjp (outputs, diff, n_diff, gos, TRUE, error)))
    return NULL;
  out = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < grads->len; i++)
    if (g_ptr_array_index (grads, i))
      g_ptr_array_add (out, g_object_ref (g_ptr_array_index (grads, i)));
  return out;
}

/**
 * dl_autograd_gradgradcheck:
 * @func: (scope call) (closure user_data): the function to check
 * @user_data: data for @func
 * @inputs: (array length=n_inputs): the inputs, as for
 *   dl_autograd_gradcheck()
 * @n_inputs: the number of inputs
 * @grad_outputs: (array length=n_grad_outputs) (nullable): the gradients
 *   of the outputs, one per output; %NULL (or none) for random ones
 *   uniform in [-1, 1) that require grad
 * @n_grad_outputs: the number of gradients (0 or the number of outputs)
 * @eps: the perturbation of the finite differences (PyTorch: 1e-6)
 * @atol: the absolute tolerance (PyTorch: 1e-5)
 * @rtol: the relative tolerance (PyTorch: 1e-3)
 * @gen_non_contig_grad_outputs: whether the random gradients are
 *   non-contiguous
 * @raise_exception: whether a failed check sets @error
 * @nondet_tol: how far two backward passes may differ (PyTorch: 0)
 * @check_undefined_grad: as for dl_autograd_gradcheck()
 * @error: return location for a #GError
 *
 * Checks second derivatives, as torch.autograd.gradgradcheck() does: it
 * runs dl_autograd_gradcheck() on the function that maps the inputs and
 * @grad_outputs to the gradients of the inputs that require grad,
 * computed with create_graph. Input positions in the messages count the
 * inputs, then the gradients of the outputs.
 *
 * Returns: %TRUE if the second derivatives match
 *
 * Since: 0.1
 */
gboolean
dl_autograd_gradgradcheck (DlGradcheckFunc func,
                           gpointer user_data,
                           DlTensor **inputs,
                           guint n_inputs,
                           DlTensor **grad_outputs,
                           guint n_grad_outputs,
                           gdouble eps,
                           gdouble atol,
                           gdouble rtol,
                           gboolean gen_non_contig_grad_outputs,
                           gboolean raise_exception,
                           gdouble nondet_tol,
                           gboolean check_undefined_grad,
                           GError **error)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) outputs = NULL;
  g_autofree gboolean *differentiable = g_new0 (gboolean, MAX (n_inputs, 1));
  GradFunc gf = { func, user_data, n_inputs, 0, differentiable };
  Check c = { grad_func, &gf, NULL, 0, eps, atol, rtol, nondet_tol, check_undefined_grad,
              "gradgradcheck" };

  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, FALSE);
  g_return_val_if_fail (grad_outputs != NULL || n_grad_outputs == 0, FALSE);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (DL_IS_TENSOR (inputs[i]), FALSE);
  for (guint o = 0; o < n_grad_outputs; o++)
    g_return_val_if_fail (DL_IS_TENSOR (grad_outputs[o]), FALSE);

  for (guint i = 0; i < n_inputs; i++)
    {
      differentiable[i] = inputs[i]->requires_grad;
      g_ptr_array_add (all, g_object_ref (inputs[i]));
    }
  if (!(outputs = call_func (func, user_data, inputs, n_inputs, "gradgradcheck", error)))
    return FALSE;
  if (n_grad_outputs && n_grad_outputs != outputs->len)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "gradgradcheck: %u grad_outputs for a function of %u outputs", n_grad_outputs,
                   outputs->len);
      return FALSE;
    }
  for (guint o = 0; o < outputs->len; o++)
    {
      DlTensor *y = g_ptr_array_index (outputs, o);
      DlTensor *g;

      if (n_grad_outputs)
        g = g_object_ref (grad_outputs[o]);
      else
        {
          g_autoptr (DlTensor) r = NULL;
          gint64 sizes[DL_MAX_DIMS];

          memcpy (sizes, y->sizes, y->ndim * sizeof (gint64));
          if (gen_non_contig_grad_outputs && y->ndim)
            sizes[y->ndim - 1] *= 2;
          if (!(r = dl_rand (sizes, y->ndim, y->dtype, dl_tensor_get_device (y), error))
              || !dl_tensor_mul_scalar_ (r, 2, error) || !dl_tensor_sub_scalar_ (r, 1, error))
            return FALSE;
          if (gen_non_contig_grad_outputs && y->ndim)
            {
              g_autoptr (DlTensor) s = NULL;
              if (!(s = dl_tensor_slice (r, y->ndim - 1, 0, sizes[y->ndim - 1], 2, error)))
                return FALSE;
              g = dl_tensor_detach (s);
            }
          else
            g = g_steal_pointer (&r);
          if (dl_dtype_is_float (g->dtype) && !dl_tensor_set_requires_grad (g, TRUE, error))
            {
              g_object_unref (g);
              return FALSE;
            }
        }
      g_ptr_array_add (all, g);
    }
  gf.n_grad_outputs = outputs->len;
  c.inputs = (DlTensor **)all->pdata;
  c.n_inputs = all->len;
  return run_check (&c, raise_exception, error);
}

/**
 * dl_autograd_get_node_names:
 *
 * The names of the autograd nodes the library's ops make (the names
 * dl_node_get_name() returns, as "MulBackward0"), sorted, collected from
 * the sources when the library was built. A test can walk them to check
 * the gradient of every differentiable op.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names
 *
 * Since: 0.1
 */
const gchar *const *
dl_autograd_get_node_names (void)
{
  return dl_autograd_node_names_table;
}

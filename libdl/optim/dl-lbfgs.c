/* dl-lbfgs.c: L-BFGS as torch.optim.LBFGS (1.13) computes it: a two-loop
 * recursion over the last history_size steps gives the direction; the
 * step length is lr (the first time min (1, 1 / |g|_1) lr), or comes from
 * a line search satisfying the strong Wolfe conditions (cubic
 * interpolation, minFunc's). The parameters are seen as one flat vector.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gio.h>

#include "dl-lbfgs.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "dl-node.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-linalg.h"
#include "ops/dl-ops-creation.h"

/**
 * DlLbfgs:
 *
 * The L-BFGS optimizer, as torch.optim.LBFGS: #DlOptimizer:lr (PyTorch's
 * default is 1), #DlLbfgs:max-iter, #DlLbfgs:max-eval,
 * #DlLbfgs:tolerance-grad, #DlLbfgs:tolerance-change,
 * #DlLbfgs:history-size and #DlLbfgs:line-search-fn (%NULL or
 * "strong_wolfe"). It re-evaluates the model several times per step, so
 * it steps with dl_lbfgs_step_closure(), which takes the closure; plain
 * dl_optimizer_step() is an error. One parameter group only.
 *
 * Its state is the first parameter's, as PyTorch keeps it:
 * "func_evals" and "n_iter" (0-d int64), and after the first iteration
 * "d" and "prev_flat_grad" (the flat direction and gradient), "t" and
 * "prev_loss" (0-d float64: Python numbers in PyTorch), "H_diag" (0-d
 * int64 1 until the first update, then in the parameters' dtype),
 * "old_dirs" and "old_stps" (the k remembered updates as the rows of a
 * [k, n] tensor; PyTorch's lists of k tensors), "ro" (a [k] tensor) and,
 * from the second iteration, "al" (a [k] tensor; PyTorch pads its list
 * to history_size with None). dl_optimizer_set_state() restores them, so
 * a saved LBFGS resumes exactly.
 *
 * Since: 0.1
 */
struct _DlLbfgs
{
  DlOptimizer parent_instance;
  gchar *line_search_fn;
  /* PyTorch's state, read from the first parameter's state at the start
   * of a step and written back at its end */
  DlTensor *d;
  DlTensor *prev_flat_grad;
  GPtrArray *old_dirs; /* DlTensor */
  GPtrArray *old_stps; /* DlTensor */
  GArray *ro;          /* gdouble, rounded to the parameters' dtype */
  GArray *al;          /* gdouble, the last iteration's */
  gboolean has_al;
  gdouble t;
  gdouble h_diag;
  gboolean h_diag_set; /* FALSE: PyTorch's int 1 */
  gdouble prev_loss;
  gint64 n_iter;
  gint64 func_evals;
};

/**
 * DlLbfgsClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlLbfgs. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlLbfgs, dl_lbfgs, DL_TYPE_OPTIMIZER)

enum
{
  PROP_LINE_SEARCH_FN = 100,
};

typedef struct
{
  DlLbfgs *self;
  GPtrArray *params;
  DlLossClosure closure;
  gpointer user_data;
} Ctx;

/* ---- the flat vector of the parameters ------------------------------------ */

static DlTensor *
gather_flat_grad (Ctx *c, GError **error)
{
  g_autoptr (GPtrArray) views = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 minus_one = -1;

  for (guint i = 0; i < c->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (c->params, i);
      DlTensor *g = dl_tensor_get_grad (p);
      DlTensor *view;

      if (g == NULL)
        {
          gint64 n = dl_tensor_numel (p);
          view = dl_zeros (&n, 1, dl_tensor_get_dtype (p), dl_tensor_get_device (p), error);
        }
      else
        view = dl_tensor_reshape (g, &minus_one, 1, error);
      if (!view)
        return NULL;
      g_ptr_array_add (views, view);
    }
  return dl_cat ((DlTensor **)views->pdata, views->len, 0, error);
}

/* p += step * update, piece by piece */
static gboolean
add_grad (Ctx *c, gdouble step, DlTensor *update, GError **error)
{
  gint64 offset = 0;

  for (guint i = 0; i < c->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (c->params, i);
      gsize n_dims;
      const gint64 *shape = dl_tensor_get_shape (p, &n_dims);
      gint64 n = dl_tensor_numel (p);
      g_autoptr (DlTensor) piece = dl_tensor_narrow (update, 0, offset, n, error);
      g_autoptr (DlTensor) view = piece ? dl_tensor_reshape (piece, shape, n_dims, error) : NULL;

      if (!view || !dl_tensor_add_scaled_ (p, view, step, error))
        return FALSE;
      offset += n;
    }
  return TRUE;
}

static GPtrArray *
clone_params (Ctx *c, GError **error)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < c->params->len; i++)
    {
      DlTensor *copy = dl_tensor_clone (g_ptr_array_index (c->params, i), error);

      if (!copy)
        return NULL;
      g_ptr_array_add (out, copy);
    }
  return g_steal_pointer (&out);
}

static gboolean
set_params (Ctx *c, GPtrArray *values, GError **error)
{
  for (guint i = 0; i < c->params->len; i++)
    if (!dl_tensor_copy_ (g_ptr_array_index (c->params, i), g_ptr_array_index (values, i), error))
      return FALSE;
  return TRUE;
}

static gdouble
scalar (DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) owned = t;

  return owned ? dl_tensor_item (owned, error) : NAN;
}

static gdouble
abs_max (DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) a = dl_tensor_abs (t, error);

  return a ? scalar (dl_tensor_max (a, error), error) : NAN;
}

static gdouble
dot (DlTensor *a, DlTensor *b, GError **error)
{
  return scalar (dl_tensor_dot (a, b, error), error);
}

/* the closure, with autograd on; its loss as a number. Returns the loss
 * tensor when @keep. */
static gboolean
evaluate (Ctx *c, gdouble *loss, DlTensor **keep, GError **error)
{
  GError *local = NULL;
  gboolean was = dl_set_grad_enabled (TRUE);
  DlTensor *out = c->closure (c->user_data, &local);

  dl_set_grad_enabled (was);
  if (out == NULL)
    {
      if (local == NULL)
        local = g_error_new (DL_ERROR, DL_ERROR_FAILED, "LBFGS: the closure returned no loss");
      g_propagate_error (error, local);
      return FALSE;
    }
  g_clear_error (&local);
  *loss = dl_tensor_item (out, error);
  if (keep)
    *keep = out;
  else
    g_object_unref (out);
  return *error == NULL;
}

static gboolean
directional_evaluate (Ctx *c,
                      GPtrArray *x,
                      gdouble t,
                      DlTensor *d,
                      gdouble *loss,
                      DlTensor **flat_grad,
                      GError **error)
{
  if (!add_grad (c, t, d, error) || !evaluate (c, loss, NULL, error)
      || !(*flat_grad = gather_flat_grad (c, error)))
    return FALSE;
  return set_params (c, x, error);
}

/* ---- the strong Wolfe line search ----------------------------------------- */

static gdouble
cubic_interpolate (gdouble x1,
                   gdouble f1,
                   gdouble g1,
                   gdouble x2,
                   gdouble f2,
                   gdouble g2,
                   const gdouble *bounds)
{
  gdouble lo = bounds ? bounds[0] : MIN (x1, x2), hi = bounds ? bounds[1] : MAX (x1, x2);
  gdouble d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  gdouble d2_square = d1 * d1 - g1 * g2;

  if (d2_square >= 0)
    {
      gdouble d2 = sqrt (d2_square), min_pos;

      if (x1 <= x2)
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2));
      else
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
      return MIN (MAX (min_pos, lo), hi);
    }
  return (lo + hi) / 2.;
}

static void
set_tensor (DlTensor **slot, DlTensor *value)
{
  g_clear_object (slot);
  *slot = value;
}

/* PyTorch's _strong_wolfe: on success *t, *f_out, *g_out (transfer full)
 * and *evals */
static gboolean
strong_wolfe (Ctx *c,
              GPtrArray *x,
              gdouble *t_io,
              DlTensor *d,
              gdouble f,
              DlTensor *g_in,
              gdouble gtd,
              gdouble tolerance_change,
              gdouble *f_out,
              DlTensor **g_out,
              gint64 *evals,
              GError **error)
{
  const gdouble c1 = 1e-4, c2 = 0.9;
  const gint max_ls = 25;
  gdouble t = *t_io, d_norm, f_new, gtd_new, t_prev = 0, f_prev = f, gtd_prev = gtd;
  gdouble bracket[2] = { 0, 0 }, bracket_f[2] = { 0, 0 }, bracket_gtd[2] = { 0, 0 };
  DlTensor *bracket_g[2] = { NULL, NULL };
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) g_new = NULL;
  g_autoptr (DlTensor) g_prev = NULL;
  guint n_bracket = 0, low, high;
  gint ls_iter = 0;
  gboolean done = FALSE, insuf_progress = FALSE, ok = FALSE;

  if ((d_norm = abs_max (d, error), *error != NULL) || !(g = dl_tensor_clone (g_in, error))
      || !directional_evaluate (c, x, t, d, &f_new, &g_new, error)
      || (gtd_new = dot (g_new, d, error), *error != NULL))
    return FALSE;
  *evals = 1;
  g_prev = g_object_ref (g);
  while (ls_iter < max_ls)
    {
      /* PyTorch's order: a bracket by the value, done, a bracket by the
       * slope */
      if (!(f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev))
          && fabs (gtd_new) <= -c2 * gtd)
        {
          bracket[0] = t;
          bracket_f[0] = f_new;
          bracket_g[0] = g_object_ref (g_new);
          n_bracket = 1;
          done = TRUE;
          break;
        }
      if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev) || gtd_new >= 0)
        {
          bracket[0] = t_prev, bracket[1] = t;
          bracket_f[0] = f_prev, bracket_f[1] = f_new;
          bracket_g[0] = g_object_ref (g_prev), bracket_g[1] = dl_tensor_clone (g_new, NULL);
          bracket_gtd[0] = gtd_prev, bracket_gtd[1] = gtd_new;
          n_bracket = 2;
          break;
        }
      {
        gdouble bounds[2] = { t + 0.01 * (t - t_prev), t * 10 };
        gdouble tmp = t;

        t = cubic_interpolate (t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds);
        t_prev = tmp;
      }
      f_prev = f_new;
      set_tensor (&g_prev, dl_tensor_clone (g_new, error));
      gtd_prev = gtd_new;
      g_clear_object (&g_new);
      if (!g_prev || !directional_evaluate (c, x, t, d, &f_new, &g_new, error)
          || (gtd_new = dot (g_new, d, error), *error != NULL))
        goto out;
      ++*evals;
      ls_iter++;
    }
  if (ls_iter == max_ls)
    {
      g_clear_object (&bracket_g[0]);
      g_clear_object (&bracket_g[1]);
      bracket[0] = 0, bracket[1] = t;
      bracket_f[0] = f, bracket_f[1] = f_new;
      bracket_g[0] = g_object_ref (g), bracket_g[1] = g_object_ref (g_new);
      n_bracket = 2;
    }

  low = bracket_f[0] <= bracket_f[n_bracket - 1] ? 0 : 1;
  high = 1 - low;
  while (!done && ls_iter < max_ls)
    {
      gdouble hi_b, lo_b, eps;

      if (fabs (bracket[1] - bracket[0]) * d_norm < tolerance_change)
        break;
      t = cubic_interpolate (bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1],
                             bracket_gtd[1], NULL);
      hi_b = MAX (bracket[0], bracket[1]);
      lo_b = MIN (bracket[0], bracket[1]);
      eps = 0.1 * (hi_b - lo_b);
      if (MIN (hi_b - t, t - lo_b) < eps)
        {
          if (insuf_progress || t >= hi_b || t <= lo_b)
            {
              t = fabs (t - hi_b) < fabs (t - lo_b) ? hi_b - eps : lo_b + eps;
              insuf_progress = FALSE;
            }
          else
            insuf_progress = TRUE;
        }
      else
        insuf_progress = FALSE;
      g_clear_object (&g_new);
      if (!directional_evaluate (c, x, t, d, &f_new, &g_new, error)
          || (gtd_new = dot (g_new, d, error), *error != NULL))
        goto out;
      ++*evals;
      ls_iter++;
      if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low])
        {
          bracket[high] = t;
          bracket_f[high] = f_new;
          set_tensor (&bracket_g[high], dl_tensor_clone (g_new, NULL));
          bracket_gtd[high] = gtd_new;
          low = bracket_f[0] <= bracket_f[1] ? 0 : 1;
          high = 1 - low;
        }
      else
        {
          if (fabs (gtd_new) <= -c2 * gtd)
            done = TRUE;
          else if (gtd_new * (bracket[high] - bracket[low]) >= 0)
            {
              bracket[high] = bracket[low];
              bracket_f[high] = bracket_f[low];
              set_tensor (&bracket_g[high], g_object_ref (bracket_g[low]));
              bracket_gtd[high] = bracket_gtd[low];
            }
          bracket[low] = t;
          bracket_f[low] = f_new;
          set_tensor (&bracket_g[low], dl_tensor_clone (g_new, NULL));
          bracket_gtd[low] = gtd_new;
        }
    }
  *t_io = bracket[low];
  *f_out = bracket_f[low];
  *g_out = g_object_ref (bracket_g[low]);
  ok = TRUE;
out:
  g_clear_object (&bracket_g[0]);
  g_clear_object (&bracket_g[1]);
  return ok;
}

/* ---- the step ------------------------------------------------------------- */

/* @x as PyTorch computes it on 0-d tensors of @dtype (float32 rounds) */
static gdouble
round_as (DlDType dtype, gdouble x)
{
  return dtype == DL_DTYPE_FLOAT32 ? (gdouble)(gfloat)x : x;
}

static gboolean
state_number (GHashTable *state, const gchar *name, gdouble *out, GError **error)
{
  DlTensor *t = g_hash_table_lookup (state, name);

  if (t == NULL)
    return TRUE;
  *out = dl_tensor_item (t, error);
  return *error == NULL;
}

/* the rows of the [k, n] tensor (or k numbers of the [k] tensor) @name */
static gboolean
state_rows (GHashTable *state, const gchar *name, GPtrArray *rows, GArray *numbers, GError **error)
{
  DlTensor *t = g_hash_table_lookup (state, name);
  gsize n_dims;
  const gint64 *shape;

  if (t == NULL)
    return TRUE;
  shape = dl_tensor_get_shape (t, &n_dims);
  if (n_dims >= 1 && shape[0] == 0)
    return TRUE;
  if (n_dims != (rows ? 2u : 1u))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "LBFGS: state \"%s\" should have %u dimensions, got %" G_GSIZE_FORMAT, name,
                   rows ? 2u : 1u, n_dims);
      return FALSE;
    }
  for (gint64 i = 0; i < shape[0]; i++)
    {
      g_autoptr (DlTensor) row = dl_tensor_select (t, 0, i, error);

      if (!row)
        return FALSE;
      if (rows)
        g_ptr_array_add (rows, g_steal_pointer (&row));
      else
        {
          gdouble v = dl_tensor_item (row, error);

          if (*error)
            return FALSE;
          g_array_append_val (numbers, v);
        }
    }
  return TRUE;
}

/* the history from the first parameter's @state (empty before a step) */
static gboolean
history_load (DlLbfgs *self, GHashTable *state, GError **error)
{
  gdouble n_iter = 0, func_evals = 0;
  DlTensor *h = g_hash_table_lookup (state, "H_diag");

  g_clear_object (&self->d);
  g_clear_object (&self->prev_flat_grad);
  g_ptr_array_set_size (self->old_dirs, 0);
  g_ptr_array_set_size (self->old_stps, 0);
  g_array_set_size (self->ro, 0);
  g_array_set_size (self->al, 0);
  self->has_al = g_hash_table_contains (state, "al");
  self->t = self->prev_loss = 0;
  self->h_diag = 1;
  self->h_diag_set = h != NULL && dl_tensor_get_dtype (h) != DL_DTYPE_INT64;
  if (g_hash_table_lookup (state, "d"))
    self->d = g_object_ref (g_hash_table_lookup (state, "d"));
  if (g_hash_table_lookup (state, "prev_flat_grad"))
    self->prev_flat_grad = g_object_ref (g_hash_table_lookup (state, "prev_flat_grad"));
  if (!state_number (state, "n_iter", &n_iter, error)
      || !state_number (state, "func_evals", &func_evals, error)
      || !state_number (state, "t", &self->t, error)
      || !state_number (state, "prev_loss", &self->prev_loss, error)
      || !state_number (state, "H_diag", &self->h_diag, error)
      || !state_rows (state, "old_dirs", self->old_dirs, NULL, error)
      || !state_rows (state, "old_stps", self->old_stps, NULL, error)
      || !state_rows (state, "ro", NULL, self->ro, error)
      || !state_rows (state, "al", NULL, self->al, error))
    return FALSE;
  self->n_iter = (gint64)n_iter;
  self->func_evals = (gint64)func_evals;
  if (self->n_iter > 0 && (self->d == NULL || self->prev_flat_grad == NULL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "LBFGS: state has n_iter %" G_GINT64_FORMAT " but no %s", self->n_iter,
                   self->d ? "prev_flat_grad" : "d");
      return FALSE;
    }
  if (self->old_stps->len != self->old_dirs->len || self->ro->len != self->old_dirs->len)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "LBFGS: state has %u old_dirs, %u old_stps and %u ro", self->old_dirs->len,
                   self->old_stps->len, self->ro->len);
      return FALSE;
    }
  return TRUE;
}

static void
put (GHashTable *state, const gchar *name, DlTensor *value)
{
  if (value)
    g_hash_table_insert (state, g_strdup (name), value);
}

static DlTensor *
rows_tensor (GPtrArray *rows, DlTensor *like, GError **error)
{
  gint64 shape[2] = { 0, dl_tensor_numel (like) };

  if (rows->len == 0)
    return dl_zeros (shape, 2, dl_tensor_get_dtype (like), dl_tensor_get_device (like), error);
  return dl_stack ((DlTensor **)rows->pdata, rows->len, 0, error);
}

static DlTensor *
numbers_tensor (GArray *numbers, DlDType dtype, GError **error)
{
  gint64 n = numbers->len;
  g_autoptr (GBytes) bytes = g_bytes_new (numbers->data, numbers->len * sizeof (gdouble));
  g_autoptr (DlTensor) t = dl_tensor_new_from_bytes (bytes, &n, 1, DL_DTYPE_FLOAT64, error);

  return t ? dl_tensor_to_dtype (t, dtype, error) : NULL;
}

/* the history into the first parameter's @state, as torch.optim.LBFGS
 * leaves it */
static gboolean
history_store (DlLbfgs *self, GHashTable *state, GError **error)
{
  g_autoptr (GError) local = NULL;
  DlDType dtype;

  put (state, "func_evals", dl_tensor_new_scalar ((gdouble)self->func_evals, DL_DTYPE_INT64));
  put (state, "n_iter", dl_tensor_new_scalar ((gdouble)self->n_iter, DL_DTYPE_INT64));
  if (self->d == NULL)
    return TRUE;
  dtype = dl_tensor_get_dtype (self->d);
  put (state, "d", g_object_ref (self->d));
  put (state, "prev_flat_grad", g_object_ref (self->prev_flat_grad));
  put (state, "t", dl_tensor_new_scalar (self->t, DL_DTYPE_FLOAT64));
  put (state, "prev_loss", dl_tensor_new_scalar (self->prev_loss, DL_DTYPE_FLOAT64));
  put (state, "H_diag",
       dl_tensor_new_scalar (self->h_diag, self->h_diag_set ? dtype : DL_DTYPE_INT64));
  put (state, "old_dirs", rows_tensor (self->old_dirs, self->d, &local));
  if (!local)
    put (state, "old_stps", rows_tensor (self->old_stps, self->d, &local));
  if (!local)
    put (state, "ro", numbers_tensor (self->ro, dtype, &local));
  if (!local && self->has_al)
    put (state, "al", numbers_tensor (self->al, dtype, &local));
  if (local)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

static gboolean
lbfgs_iterate (Ctx *c, DlTensor *flat_grad_in, gdouble loss, GError **error)
{
  DlLbfgs *self = c->self;
  const DlOptimizerGroup *group = dl_optimizer_get_group (DL_OPTIMIZER (self), 0);
  gdouble lr = dl_optimizer_group_get (group, "lr");
  gint64 max_iter = (gint64)dl_optimizer_group_get (group, "max_iter");
  gint64 max_eval = (gint64)dl_optimizer_group_get (group, "max_eval");
  gdouble tolerance_grad = dl_optimizer_group_get (group, "tolerance_grad");
  gdouble tolerance_change = dl_optimizer_group_get (group, "tolerance_change");
  guint history_size = (guint)dl_optimizer_group_get (group, "history_size");
  g_autoptr (DlTensor) flat_grad = g_object_ref (flat_grad_in);
  DlDType dtype = dl_tensor_get_dtype (flat_grad_in);
  gint64 current_evals = 1, n_iter = 0;
  gboolean opt_cond;

  while (n_iter < max_iter)
    {
      gdouble gtd, max_step;
      gint64 ls_evals = 0;

      n_iter++;
      self->n_iter++;
      if (self->n_iter == 1)
        {
          set_tensor (&self->d, dl_tensor_neg (flat_grad, error));
          g_ptr_array_set_size (self->old_dirs, 0);
          g_ptr_array_set_size (self->old_stps, 0);
          g_array_set_size (self->ro, 0);
          self->h_diag = 1;
          self->h_diag_set = FALSE;
          if (!self->d)
            return FALSE;
        }
      else
        {
          g_autoptr (DlTensor) y = dl_tensor_sub (flat_grad, self->prev_flat_grad, error);
          g_autoptr (DlTensor) s = y ? dl_tensor_mul_scalar (self->d, self->t, error) : NULL;
          g_autoptr (DlTensor) q = NULL;
          gdouble *al;
          DlTensor *r;
          gdouble ys;
          guint num_old;

          if (!s || (ys = dot (y, s, error), *error != NULL))
            return FALSE;
          if (ys > 1e-10)
            {
              gdouble yy;

              if (self->old_dirs->len == history_size)
                {
                  g_ptr_array_remove_index (self->old_dirs, 0);
                  g_ptr_array_remove_index (self->old_stps, 0);
                  g_array_remove_index (self->ro, 0);
                }
              gdouble ro;

              if ((yy = dot (y, y, error), *error != NULL))
                return FALSE;
              g_ptr_array_add (self->old_dirs, g_object_ref (y));
              g_ptr_array_add (self->old_stps, g_object_ref (s));
              /* PyTorch's 0-d tensor arithmetic, rounded to the dtype */
              ro = round_as (dtype, 1. / ys);
              g_array_append_val (self->ro, ro);
              self->h_diag = round_as (dtype, ys / yy);
              self->h_diag_set = TRUE;
            }
          num_old = self->old_dirs->len;
          g_array_set_size (self->al, num_old);
          self->has_al = TRUE;
          al = (gdouble *)self->al->data;
          if (!(q = dl_tensor_neg (flat_grad, error)))
            return FALSE;
          for (gint i = (gint)num_old - 1; i >= 0; i--)
            {
              if ((al[i] = dot (self->old_stps->pdata[i], q, error), *error != NULL))
                return FALSE;
              al[i] = round_as (dtype, al[i] * g_array_index (self->ro, gdouble, i));
              if (!dl_tensor_add_scaled_ (q, self->old_dirs->pdata[i], -al[i], error))
                return FALSE;
            }
          if (!(r = dl_tensor_mul_scalar (q, self->h_diag, error)))
            return FALSE;
          set_tensor (&self->d, r);
          for (guint i = 0; i < num_old; i++)
            {
              gdouble be_i = dot (self->old_dirs->pdata[i], r, error);

              if (*error)
                return FALSE;
              be_i = round_as (dtype, be_i * g_array_index (self->ro, gdouble, i));
              if (!dl_tensor_add_scaled_ (r, self->old_stps->pdata[i],
                                          round_as (dtype, al[i] - be_i), error))
                return FALSE;
            }
        }
      set_tensor (&self->prev_flat_grad, dl_tensor_clone (flat_grad, error));
      if (!self->prev_flat_grad)
        return FALSE;
      self->prev_loss = loss;
      if (self->n_iter == 1)
        {
          g_autoptr (DlTensor) a = dl_tensor_abs (flat_grad, error);
          gdouble sum = a ? scalar (dl_tensor_sum (a, error), error) : NAN;

          if (*error)
            return FALSE;
          /* min (1., 1. / sum) * lr: a 0-d tensor when 1 / sum < 1 */
          sum = round_as (dtype, 1. / sum);
          self->t = sum < 1. ? round_as (dtype, sum * lr) : lr;
        }
      else
        self->t = lr;
      if ((gtd = dot (flat_grad, self->d, error), *error != NULL))
        return FALSE;
      if (gtd > -tolerance_change)
        break;
      if (self->line_search_fn)
        {
          g_autoptr (GPtrArray) x = NULL;

          /* torch 1.13 takes any name and fails here */
          if (strcmp (self->line_search_fn, "strong_wolfe") != 0)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                           "LBFGS: only 'strong_wolfe' is supported, got '%s'",
                           self->line_search_fn);
              return FALSE;
            }
          x = clone_params (c, error);
          DlTensor *g_new = NULL;

          if (!x
              || !strong_wolfe (c, x, &self->t, self->d, loss, flat_grad, gtd, tolerance_change,
                                &loss, &g_new, &ls_evals, error))
            return FALSE;
          set_tensor (&flat_grad, g_new);
          if (!add_grad (c, self->t, self->d, error))
            return FALSE;
          if ((max_step = abs_max (flat_grad, error), *error != NULL))
            return FALSE;
          opt_cond = max_step <= tolerance_grad;
        }
      else
        {
          if (!add_grad (c, self->t, self->d, error))
            return FALSE;
          opt_cond = FALSE;
          if (n_iter != max_iter)
            {
              if (!evaluate (c, &loss, NULL, error))
                return FALSE;
              set_tensor (&flat_grad, gather_flat_grad (c, error));
              if (!flat_grad || (max_step = abs_max (flat_grad, error), *error != NULL))
                return FALSE;
              opt_cond = max_step <= tolerance_grad;
              ls_evals = 1;
            }
        }
      current_evals += ls_evals;
      self->func_evals += ls_evals;
      if (n_iter == max_iter || current_evals >= max_eval || opt_cond)
        break;
      {
        g_autoptr (DlTensor) step = dl_tensor_mul_scalar (self->d, self->t, error);

        if (!step || (max_step = abs_max (step, error), *error != NULL))
          return FALSE;
        if (max_step <= tolerance_change)
          break;
      }
      if (fabs (loss - self->prev_loss) < tolerance_change)
        break;
    }
  return TRUE;
}

/**
 * dl_lbfgs_step_closure:
 * @self: a #DlLbfgs
 * @closure: (scope call) (closure user_data): re-evaluates the model and
 *   returns the loss
 * @user_data: data for @closure
 * @error: return location for a #GError
 *
 * One L-BFGS step: up to #DlLbfgs:max-iter iterations, each calling
 * @closure once or more (PyTorch's `optimizer.step(closure)`). Runs
 * without recording autograd, except inside @closure.
 *
 * Returns: (transfer full): the loss of the first evaluation, or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_lbfgs_step_closure (DlLbfgs *self, DlLossClosure closure, gpointer user_data, GError **error)
{
  DlOptimizer *opt;
  Ctx c;
  g_autoptr (DlTensor) orig_loss = NULL;
  g_autoptr (DlTensor) flat_grad = NULL;
  gdouble loss, max_grad;
  gboolean was, ok;
  GHashTable *state;
  GError *local = NULL;

  g_return_val_if_fail (DL_IS_LBFGS (self), NULL);
  g_return_val_if_fail (closure != NULL, NULL);
  opt = DL_OPTIMIZER (self);
  if (!g_initable_init (G_INITABLE (self), NULL, error))
    return NULL;
  if (dl_optimizer_get_n_param_groups (opt) != 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "LBFGS doesn't support per-parameter options (parameter groups)");
      return NULL;
    }
  c.self = self;
  c.params = dl_optimizer_get_group_params (opt, 0);
  c.closure = closure;
  c.user_data = user_data;
  /* the helpers below tell failures by the error (a NaN is a value):
   * they always get a place for it */
  if (c.params->len == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "LBFGS: no parameters");
      return NULL;
    }
  state = dl_optimizer_param_state (opt, c.params->pdata[0]);
  if (!history_load (self, state, error))
    return NULL;
  was = dl_set_grad_enabled (FALSE);
  ok = evaluate (&c, &loss, &orig_loss, &local);
  if (ok)
    {
      self->func_evals++;
      ok = (flat_grad = gather_flat_grad (&c, &local)) != NULL
           && (max_grad = abs_max (flat_grad, &local), local == NULL);
      if (ok && !(max_grad <= dl_optimizer_group_get (dl_optimizer_get_group (opt, 0),
                                                      "tolerance_grad")))
        ok = lbfgs_iterate (&c, flat_grad, loss, &local);
    }
  dl_set_grad_enabled (was);
  if (!history_store (self, state, ok ? &local : NULL))
    ok = FALSE;
  if (!ok)
    {
      if (local == NULL)
        local = g_error_new (DL_ERROR, DL_ERROR_FAILED, "LBFGS: step failed");
      g_propagate_error (error, local);
      return NULL;
    }
  return g_steal_pointer (&orig_loss);
}

static gboolean
dl_lbfgs_step (DlOptimizer *self, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "LBFGS: step needs a closure (dl_lbfgs_step_closure)");
  return FALSE;
}

static gboolean
dl_lbfgs_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  return dl_optimizer_check_min (self, group, "max_iter", "max_iter value", 1, error)
         && dl_optimizer_check_min (self, group, "history_size", "history_size value", 1, error)
         && dl_optimizer_check_min (self, group, "max_eval", "max_eval value", 1, error);
}

static void
dl_lbfgs_constructed (GObject *object)
{
  /* max_eval 0 stands for PyTorch's None: max_iter * 5 // 4 */
  {
    gdouble max_eval, max_iter;

    g_object_get (object, "max-eval", &max_eval, "max-iter", &max_iter, NULL);
    if (max_eval == 0)
      g_object_set (object, "max-eval", floor (max_iter * 5 / 4), NULL);
  }
  G_OBJECT_CLASS (dl_lbfgs_parent_class)->constructed (object);
}

static void
dl_lbfgs_dispose (GObject *object)
{
  DlLbfgs *self = DL_LBFGS (object);

  g_clear_object (&self->d);
  g_clear_object (&self->prev_flat_grad);
  G_OBJECT_CLASS (dl_lbfgs_parent_class)->dispose (object);
}

static void
dl_lbfgs_finalize (GObject *object)
{
  DlLbfgs *self = DL_LBFGS (object);

  g_free (self->line_search_fn);
  g_ptr_array_unref (self->old_dirs);
  g_ptr_array_unref (self->old_stps);
  g_array_unref (self->ro);
  g_array_unref (self->al);
  G_OBJECT_CLASS (dl_lbfgs_parent_class)->finalize (object);
}

static GObjectSetPropertyFunc option_set_property;
static GObjectGetPropertyFunc option_get_property;

static void
dl_lbfgs_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (prop_id == PROP_LINE_SEARCH_FN)
    g_value_set_string (value, DL_LBFGS (object)->line_search_fn);
  else
    option_get_property (object, prop_id, value, pspec);
}

static void
dl_lbfgs_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlLbfgs *self = DL_LBFGS (object);

  if (prop_id == PROP_LINE_SEARCH_FN)
    {
      g_free (self->line_search_fn);
      self->line_search_fn = g_value_dup_string (value);
    }
  else
    option_set_property (object, prop_id, value, pspec);
}

static void
dl_lbfgs_class_init (DlLbfgsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  static const DlOptimizerOption options[] = {
    /**
     * DlLbfgs:max-iter:
     *
     * The most iterations per step, an integer >= 1 (default 20).
     *
     * Since: 0.1
     */
    { "max-iter", 20, FALSE },
    /**
     * DlLbfgs:max-eval:
     *
     * The most closure evaluations per step, an integer (default 0:
     * max_iter * 5 / 4, rounded down).
     *
     * Since: 0.1
     */
    { "max-eval", 0, FALSE },
    /**
     * DlLbfgs:tolerance-grad:
     *
     * Stop when every gradient element is at most this (default 1e-7).
     *
     * Since: 0.1
     */
    { "tolerance-grad", 1e-7, FALSE },
    /**
     * DlLbfgs:tolerance-change:
     *
     * Stop when the loss or the step changes less than this (default
     * 1e-9).
     *
     * Since: 0.1
     */
    { "tolerance-change", 1e-9, FALSE },
    /**
     * DlLbfgs:history-size:
     *
     * The number of past updates kept, an integer >= 1 (default 100).
     *
     * Since: 0.1
     */
    { "history-size", 100, FALSE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_lbfgs_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "LBFGS");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_lbfgs_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
  option_get_property = object_class->get_property;
  option_set_property = object_class->set_property;
  object_class->get_property = dl_lbfgs_get_property;
  object_class->set_property = dl_lbfgs_set_property;
  object_class->constructed = dl_lbfgs_constructed;
  object_class->dispose = dl_lbfgs_dispose;
  object_class->finalize = dl_lbfgs_finalize;
  /**
   * DlLbfgs:line-search-fn:
   *
   * %NULL (the default: fixed steps of lr) or "strong_wolfe"; another
   * name fails at the step, as in PyTorch.
   *
   * Since: 0.1
   */
  g_object_class_install_property (
      object_class, PROP_LINE_SEARCH_FN,
      g_param_spec_string ("line-search-fn", NULL, NULL, NULL,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
                               | G_PARAM_EXPLICIT_NOTIFY));
}

static void
dl_lbfgs_init (DlLbfgs *self)
{
  self->old_dirs = g_ptr_array_new_with_free_func (g_object_unref);
  self->old_stps = g_ptr_array_new_with_free_func (g_object_unref);
  self->ro = g_array_new (FALSE, FALSE, sizeof (gdouble));
  self->al = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

/**
 * dl_lbfgs_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 1)
 * @max_iter: the most iterations per step (20)
 * @history_size: the number of past updates kept (100)
 * @line_search_fn: (nullable): %NULL or "strong_wolfe"
 * @error: return location for a #GError
 *
 * An L-BFGS optimizer with PyTorch's defaults for the tolerances and
 * max_eval.
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlLbfgs *
dl_lbfgs_new (GPtrArray *params,
              gdouble lr,
              gint64 max_iter,
              gint64 history_size,
              const gchar *line_search_fn,
              GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_LBFGS, NULL, error, "params", store, "lr", lr, "max-iter",
                         (gdouble)max_iter, "history-size", (gdouble)history_size,
                         "line-search-fn", line_search_fn, NULL);
}

/* dl-rnn.c: the recurrent layers and cells, as torch.nn's: PyTorch's
 * parameter names, shapes, registration order and initialisation (every
 * parameter uniform in [-1/sqrt(hidden_size), 1/sqrt(hidden_size)]), so
 * that state dicts move both ways. Each layer and direction is one
 * dl_rnn_op_layer() (ops/dl-ops-rnn.c) over the packed rows of the whole
 * sequence; a padded input is a packed one whose steps all have the whole
 * batch.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-rnn.h"
#include "dl-error.h"
#include "dl-layer-props-private.h"
#include "dl-module-private.h"
#include "dl-enums.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-rnn-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-resample.h"

/**
 * DlRnnBase:
 *
 * The abstract base of the multi-layer recurrent layers #DlRnn, #DlLstm
 * and #DlGru (PyTorch's nn.RNNBase). Its construct properties are
 * PyTorch's arguments; its parameters, for each layer k and direction
 * (suffix "_reverse" for the second), are weight_ih_lk [G hidden_size,
 * in], weight_hh_lk [G hidden_size, h], bias_ih_lk and bias_hh_lk (with
 * #DlRnnBase:bias) and weight_hr_lk [proj_size, hidden_size] (an LSTM with
 * #DlRnnBase:proj-size), G being 4 (LSTM), 3 (GRU) or 1.
 *
 * dl_module_forward() takes the input [T, B, in] ([B, T, in] with
 * #DlRnnBase:batch-first, [T, in] unbatched) and gives the output [T, B,
 * D h] from zero initial states; dl_module_forward_many() takes [input,
 * hx, cx] (hx and cx optional, cx for an LSTM) and gives [output, h_n] or
 * [output, h_n, c_n]; dl_rnn_base_forward_state() does the same in C.
 *
 * Since: 0.1
 */
typedef struct
{
  gint mode;
  gint64 input_size, hidden_size, num_layers, proj_size;
  gboolean bias, batch_first, bidirectional;
  gdouble dropout;
  gint nonlinearity; /* DlRnn only */
} DlRnnBasePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (DlRnnBase, dl_rnn_base, DL_TYPE_MODULE)

#define RB(f) G_STRUCT_OFFSET (DlRnnBasePrivate, f)
static DlLayerProp rnn_base_props[] = {
  /**
   * DlRnnBase:mode:
   *
   * The cell: set by the subclass (#DlLstm, #DlGru; a #DlRnn's from its
   * #DlRnn:nonlinearity).
   *
   * Since: 0.1
   */
  { "mode", G_TYPE_NONE, RB (mode), DL_RNN_MODE_RNN_TANH },
  /**
   * DlRnnBase:input-size:
   *
   * The number of features of the input (required, >= 1).
   *
   * Since: 0.1
   */
  { "input-size", G_TYPE_INT64, RB (input_size), -1 },
  /**
   * DlRnnBase:hidden-size:
   *
   * The number of features of the hidden state (required, >= 1).
   *
   * Since: 0.1
   */
  { "hidden-size", G_TYPE_INT64, RB (hidden_size), -1 },
  /**
   * DlRnnBase:num-layers:
   *
   * The number of stacked layers (default 1).
   *
   * Since: 0.1
   */
  { "num-layers", G_TYPE_INT64, RB (num_layers), 1 },
  /**
   * DlRnnBase:bias:
   *
   * Whether the layers have the biases b_ih and b_hh (default %TRUE).
   *
   * Since: 0.1
   */
  { "bias", G_TYPE_BOOLEAN, RB (bias), TRUE },
  /**
   * DlRnnBase:batch-first:
   *
   * Whether input and output are [B, T, features] rather than [T, B,
   * features] (default %FALSE).
   *
   * Since: 0.1
   */
  { "batch-first", G_TYPE_BOOLEAN, RB (batch_first), FALSE },
  /**
   * DlRnnBase:dropout:
   *
   * The dropout probability applied to the outputs of each layer but the
   * last, in training mode (default 0).
   *
   * Since: 0.1
   */
  { "dropout", G_TYPE_DOUBLE, RB (dropout), 0 },
  /**
   * DlRnnBase:bidirectional:
   *
   * Whether each layer also runs the sequence backwards (default %FALSE).
   *
   * Since: 0.1
   */
  { "bidirectional", G_TYPE_BOOLEAN, RB (bidirectional), FALSE },
  /**
   * DlRnnBase:proj-size:
   *
   * An LSTM's projection of its hidden states to this size; 0 (default):
   * none.
   *
   * Since: 0.1
   */
  { "proj-size", G_TYPE_INT64, RB (proj_size), 0 },
};

static DlRnnBasePrivate *
base_priv (gpointer self)
{
  return dl_rnn_base_get_instance_private (DL_RNN_BASE (self));
}

static const gchar *
layer_name (DlRnnBasePrivate *p)
{
  switch (p->mode)
    {
      case DL_RNN_MODE_LSTM:
        return "LSTM";
      case DL_RNN_MODE_GRU:
        return "GRU";
      default:
        return "RNN";
    }
}

static gint
gates_of (gint mode)
{
  return mode == DL_RNN_MODE_LSTM ? 4 : mode == DL_RNN_MODE_GRU ? 3 : 1;
}

static gboolean
check_size (const gchar *layer, const gchar *name, gint64 v, gint64 min, GError **error)
{
  if (v >= min)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "%s: %s must be >= %" G_GINT64_FORMAT ", got %" G_GINT64_FORMAT, layer, name, min,
               v);
  return FALSE;
}

/* registers "name_lk[_reverse]" uniform in +-bound */
static gboolean
add_param (DlModule *m,
           const gchar *stem,
           gint64 layer,
           const gchar *suffix,
           const gint64 *shape,
           gsize nd,
           gdouble bound,
           GError **error)
{
  g_autofree gchar *name = g_strdup_printf ("%s_l%" G_GINT64_FORMAT "%s", stem, layer, suffix);

  return dl_module_add_uniform_parameter (m, name, shape, nd, bound, error);
}

static gboolean
check_base (DlRnnBasePrivate *p, GError **error)
{
  const gchar *name = layer_name (p);

  if (!check_size (name, "input_size", p->input_size, 1, error)
      || !check_size (name, "hidden_size", p->hidden_size, 1, error)
      || !check_size (name, "num_layers", p->num_layers, 1, error))
    return FALSE;
  if (!(p->dropout >= 0 && p->dropout <= 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: dropout should be a number in range [0, 1] representing the probability "
                   "of an element being zeroed",
                   name);
      return FALSE;
    }
  if (p->proj_size < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: proj_size should be a positive integer or zero to disable projections",
                   name);
      return FALSE;
    }
  if (p->proj_size > 0 && p->mode != DL_RNN_MODE_LSTM)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: proj_size argument is only supported for LSTM, not RNN or GRU", name);
      return FALSE;
    }
  if (p->proj_size >= p->hidden_size)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: proj_size has to be smaller than hidden_size", name);
      return FALSE;
    }
  return TRUE;
}

static void
dl_rnn_base_constructed (GObject *object)
{
  DlRnnBasePrivate *p = base_priv (object);
  DlModule *m = DL_MODULE (object);
  const gint64 ho = p->proj_size ? p->proj_size : p->hidden_size;
  const gint dirs = p->bidirectional ? 2 : 1;
  const gdouble bound = 1.0 / sqrt ((gdouble)MAX (p->hidden_size, 1));
  GError *error = NULL;
  gint64 gh;

  G_OBJECT_CLASS (dl_rnn_base_parent_class)->constructed (object);
  if (DL_IS_LSTM (object))
    p->mode = DL_RNN_MODE_LSTM;
  else if (DL_IS_GRU (object))
    p->mode = DL_RNN_MODE_GRU;
  else if (DL_IS_RNN (object))
    p->mode
        = p->nonlinearity == DL_RNN_NONLINEARITY_RELU ? DL_RNN_MODE_RNN_RELU : DL_RNN_MODE_RNN_TANH;
  if (!check_base (p, &error))
    {
      dl_module_take_construct_error (m, error);
      return;
    }
  gh = gates_of (p->mode) * p->hidden_size;
  for (gint64 l = 0; l < p->num_layers; l++)
    for (gint d = 0; d < dirs; d++)
      {
        const gchar *sfx = d ? "_reverse" : "";
        const gint64 in = l == 0 ? p->input_size : ho * dirs;

        if (!add_param (m, "weight_ih", l, sfx, (gint64[]){ gh, in }, 2, bound, &error)
            || !add_param (m, "weight_hh", l, sfx, (gint64[]){ gh, ho }, 2, bound, &error)
            || (p->bias && !add_param (m, "bias_ih", l, sfx, &gh, 1, bound, &error))
            || (p->bias && !add_param (m, "bias_hh", l, sfx, &gh, 1, bound, &error))
            || (p->proj_size
                && !add_param (m, "weight_hr", l, sfx, (gint64[]){ p->proj_size, p->hidden_size },
                               2, bound, &error)))
          {
            dl_module_take_construct_error (m, error);
            return;
          }
      }
}

static DlTensor *
get_param (DlModule *m, const gchar *stem, gint64 layer, gint d)
{
  g_autofree gchar *name
      = g_strdup_printf ("%s_l%" G_GINT64_FORMAT "%s", stem, layer, d ? "_reverse" : "");

  return dl_module_get_parameter (m, name);
}

static gchar *
shape_string (DlTensor *t)
{
  gsize nd;
  const gint64 *s = dl_tensor_get_shape (t, &nd);

  return dl_shape_to_string (s, (gint)nd);
}

/* checks @h against [a, b, c], with torch's message (@what: "hidden",
 * "hidden[0]", "hidden[1]") */
static gboolean
check_state (const gchar *layer, const gchar *what, DlTensor *h, const gint64 *want, GError **error)
{
  gsize nd;
  const gint64 *s = dl_tensor_get_shape (h, &nd);
  g_autofree gchar *got = NULL;

  if (nd == 3 && s[0] == want[0] && s[1] == want[1] && s[2] == want[2])
    return TRUE;
  got = shape_string (h);
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "%s: Expected %s size (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
               "), got %s",
               layer, what, want[0], want[1], want[2], got);
  return FALSE;
}

static gboolean
check_dtype (const gchar *layer, DlTensor *t, DlTensor *w, const gchar *what, GError **error)
{
  DlDType a = dl_tensor_get_dtype (t), b = dl_tensor_get_dtype (w);

  if (a == b)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
               "%s: %s dtype %s and parameter dtype %s differ: expected scalar type %s", layer,
               what, dl_dtype_get_name (a), dl_dtype_get_name (b), dl_dtype_get_name (b));
  return FALSE;
}

/* @x's dtype for every weight of @w (a layer's or a cell's), @hx and @cx
 * (nullable) */
static gboolean
check_dtypes (const gchar *layer,
              DlTensor *x,
              const DlRnnLayerWeights *w,
              DlTensor *hx,
              DlTensor *cx,
              GError **error)
{
  DlTensor *ws[5] = { w->w_ih, w->w_hh, w->b_ih, w->b_hh, w->w_hr };

  for (guint i = 0; i < 5; i++)
    if (ws[i] && !check_dtype (layer, x, ws[i], "input", error))
      return FALSE;
  return (!hx || check_dtype (layer, hx, w->w_ih, "hx", error))
         && (!cx || check_dtype (layer, cx, w->w_ih, "cx", error));
}

/* the shapes of @w against a layer of @gh gate rows over @in inputs,
 * states of @ho and cells of @hs (a projection @hs -> @ho when w_hr);
 * @suffix names the layer's parameters ("_l0", "_l1_reverse", "") */
static gboolean
check_shapes (const gchar *layer,
              const DlRnnLayerWeights *w,
              const gchar *suffix,
              gint64 gh,
              gint64 in,
              gint64 ho,
              gint64 hs,
              GError **error)
{
  const struct
  {
    const gchar *stem;
    DlTensor *t;
    gint64 rows, cols; /* cols 0: 1-d */
  } want[5] = { { "weight_ih", w->w_ih, gh, in },
                { "weight_hh", w->w_hh, gh, ho },
                { "bias_ih", w->b_ih, gh, 0 },
                { "bias_hh", w->b_hh, gh, 0 },
                { "weight_hr", w->w_hr, ho, hs } };

  for (guint i = 0; i < 5; i++)
    {
      gsize nd;
      const gint64 *s;
      g_autofree gchar *got = NULL;

      if (!want[i].t)
        continue;
      s = dl_tensor_get_shape (want[i].t, &nd);
      if (want[i].cols ? nd == 2 && s[0] == want[i].rows && s[1] == want[i].cols
                       : nd == 1 && s[0] == want[i].rows)
        continue;
      got = shape_string (want[i].t);
      if (want[i].cols)
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: %s%s has shape %s, expected [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                     layer, want[i].stem, suffix, got, want[i].rows, want[i].cols);
      else
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: %s%s has shape %s, expected [%" G_GINT64_FORMAT "]", layer, want[i].stem,
                     suffix, got, want[i].rows);
      return FALSE;
    }
  return TRUE;
}

/* the stack of layers over the packed @x [n, in] (checked), from @hx and
 * @cx ([L D, batch, ho], [L D, batch, h], nullable) */
static DlTensor *
run_layers (DlRnnBase *self,
            DlTensor *x,
            const gint64 *bs,
            gint64 steps,
            DlTensor *hx,
            DlTensor *cx,
            DlTensor **h_n,
            DlTensor **c_n,
            GError **error)
{
  DlRnnBasePrivate *p = base_priv (self);
  DlModule *m = DL_MODULE (self);
  const gint dirs = p->bidirectional ? 2 : 1;
  const gboolean lstm = p->mode == DL_RNN_MODE_LSTM;
  const gint64 batch = bs[0], ho = p->proj_size ? p->proj_size : p->hidden_size;
  g_autoptr (GPtrArray) hs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) cs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlTensor) layer_in = g_object_ref (x);
  g_autoptr (DlTensor) hz = NULL;
  g_autoptr (DlTensor) cz = NULL;
  DlDType dt = dl_tensor_get_dtype (x);
  DlDevice *dev = dl_tensor_get_device (x);

  if ((!hx && !(hz = dl_zeros ((gint64[]){ batch, ho }, 2, dt, dev, error)))
      || (lstm && !cx && !(cz = dl_zeros ((gint64[]){ batch, p->hidden_size }, 2, dt, dev, error))))
    return NULL;
  for (gint64 l = 0; l < p->num_layers; l++)
    {
      DlTensor *outs[2] = { NULL, NULL };
      g_autoptr (DlTensor) out = NULL;
      gboolean ok = TRUE;

      for (gint d = 0; d < dirs && ok; d++)
        {
          DlRnnLayerWeights w
              = { get_param (m, "weight_ih", l, d), get_param (m, "weight_hh", l, d),
                  get_param (m, "bias_ih", l, d), get_param (m, "bias_hh", l, d),
                  get_param (m, "weight_hr", l, d) };
          g_autoptr (DlTensor) h0
              = hx ? dl_tensor_select (hx, 0, l * dirs + d, error) : g_object_ref (hz);
          g_autoptr (DlTensor) c0 = NULL;
          DlTensor *hn = NULL, *cn = NULL;

          if (!w.w_ih || !w.w_hh || (p->bias && (!w.b_ih || !w.b_hh)) || (p->proj_size && !w.w_hr))
            {
              g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           "%s: the parameters of layer %" G_GINT64_FORMAT " are missing",
                           layer_name (p), l);
              ok = FALSE;
              break;
            }
          g_autofree gchar *suffix
              = g_strdup_printf ("_l%" G_GINT64_FORMAT "%s", l, d ? "_reverse" : "");

          if (!(ok
                = check_dtypes (layer_name (p), x, &w, hx, cx, error)
                  && check_shapes (layer_name (p), &w, suffix, gates_of (p->mode) * p->hidden_size,
                                   l == 0 ? p->input_size : ho * dirs, ho, p->hidden_size, error)))
            break;
          if (lstm)
            c0 = cx ? dl_tensor_select (cx, 0, l * dirs + d, error) : g_object_ref (cz);
          if (!h0 || (lstm && !c0))
            {
              ok = FALSE;
              break;
            }
          outs[d] = dl_rnn_op_layer (&(DlRnnLayerSpec){ p->mode, d == 1, steps, bs }, layer_in, &w,
                                     h0, c0, &hn, lstm ? &cn : NULL, error);
          if (!outs[d])
            {
              ok = FALSE;
              break;
            }
          g_ptr_array_add (hs, hn);
          if (cn)
            g_ptr_array_add (cs, cn);
        }
      if (ok)
        out = dirs == 2 ? dl_cat (outs, 2, 1, error) : g_object_ref (outs[0]);
      g_clear_object (&outs[0]);
      g_clear_object (&outs[1]);
      if (!out)
        return NULL;
      if (p->dropout > 0 && l + 1 < p->num_layers && dl_module_get_training (m))
        {
          g_autoptr (DlTensor) dropped = dl_dropout (out, p->dropout, TRUE, NULL, error);
          if (!dropped)
            return NULL;
          g_set_object (&out, dropped);
        }
      g_set_object (&layer_in, out);
    }
  if (!(*h_n = dl_stack ((DlTensor **)hs->pdata, hs->len, 0, error)))
    return NULL;
  if (lstm && c_n && !(*c_n = dl_stack ((DlTensor **)cs->pdata, cs->len, 0, error)))
    {
      g_clear_object (h_n);
      return NULL;
    }
  return g_steal_pointer (&layer_in);
}

/* checks the initial states against [L D, @batch, ho] / [L D, @batch, h] */
static gboolean
check_states (DlRnnBasePrivate *p, gint64 batch, DlTensor *hx, DlTensor *cx, GError **error)
{
  const gchar *name = layer_name (p);
  const gint64 ld = p->num_layers * (p->bidirectional ? 2 : 1);
  const gint64 ho = p->proj_size ? p->proj_size : p->hidden_size;
  const gboolean lstm = p->mode == DL_RNN_MODE_LSTM;

  if (!lstm && cx)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: only an LSTM takes a cell state cx",
                   name);
      return FALSE;
    }
  if (lstm && (hx == NULL) != (cx == NULL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: give both hx and cx (the hidden and cell states) or neither", name);
      return FALSE;
    }
  if (hx
      && !check_state (name, lstm ? "hidden[0]" : "hidden", hx, (gint64[]){ ld, batch, ho }, error))
    return FALSE;
  if (cx && !check_state (name, "hidden[1]", cx, (gint64[]){ ld, batch, p->hidden_size }, error))
    return FALSE;
  return TRUE;
}

static gboolean
check_input_size (DlRnnBasePrivate *p, DlTensor *x, GError **error)
{
  gsize nd;
  const gint64 *s = dl_tensor_get_shape (x, &nd);

  if (s[nd - 1] == p->input_size)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "%s: input.size(-1) must be equal to input_size. Expected %" G_GINT64_FORMAT
               ", got %" G_GINT64_FORMAT,
               layer_name (p), p->input_size, s[nd - 1]);
  return FALSE;
}

/* @t with a dim 1 inserted at @dim when @unbatched (a new reference) */
static DlTensor *
maybe_unsqueeze (DlTensor *t, gboolean unbatched, gint dim, GError **error)
{
  if (t == NULL)
    return NULL;
  return unbatched ? dl_tensor_unsqueeze (t, dim, error) : g_object_ref (t);
}

static DlTensor *
maybe_squeeze (DlTensor *t, gboolean unbatched, gint dim, GError **error)
{
  g_autoptr (DlTensor) owned = t;

  if (t == NULL || !unbatched)
    return g_steal_pointer (&owned);
  return dl_tensor_squeeze_dim (t, dim, error);
}

/**
 * dl_rnn_base_forward_state:
 * @self: a #DlRnnBase
 * @input: the sequence [T, B, input_size] ([B, T, input_size] with
 *   #DlRnnBase:batch-first), or one sequence [T, input_size]
 * @hx: (nullable): the initial hidden states [L D, B, h] ([L D, h] for
 *   one sequence), h being proj_size or hidden_size; %NULL for zeros
 * @cx: (nullable): an LSTM's initial cell states [L D, B, hidden_size],
 *   given with @hx; %NULL otherwise
 * @h_n: (out) (transfer full): the final hidden states, @hx's shape
 * @c_n: (out) (optional) (nullable) (transfer full): an LSTM's final cell
 *   states (%NULL for the others)
 * @error: return location for a #GError
 *
 * Runs the layers over @input, as the forward of torch.nn.RNN, LSTM and
 * GRU does (L layers, D = 2 directions when bidirectional, dropout between
 * layers in training mode). Differentiable, with gradients of every order.
 *
 * Returns: (transfer full): the output [T, B, D h] (batch-first or
 *   unbatched as @input), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_rnn_base_forward_state (DlRnnBase *self,
                           DlTensor *input,
                           DlTensor *hx,
                           DlTensor *cx,
                           DlTensor **h_n,
                           DlTensor **c_n,
                           GError **error)
{
  DlRnnBasePrivate *p;
  const gchar *name;
  g_autoptr (DlTensor) x3 = NULL;
  g_autoptr (DlTensor) xt = NULL;
  g_autoptr (DlTensor) x2 = NULL;
  g_autoptr (DlTensor) h3 = NULL;
  g_autoptr (DlTensor) c3 = NULL;
  g_autoptr (DlTensor) y2 = NULL;
  g_autoptr (DlTensor) y3 = NULL;
  g_autoptr (DlTensor) yt = NULL;
  g_autofree gint64 *bs = NULL;
  DlTensor *hn = NULL, *cn = NULL;
  gboolean unbatched;
  gsize nd;
  const gint64 *s;
  gint64 steps, batch;

  g_return_val_if_fail (DL_IS_RNN_BASE (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (hx == NULL || DL_IS_TENSOR (hx), NULL);
  g_return_val_if_fail (cx == NULL || DL_IS_TENSOR (cx), NULL);
  g_return_val_if_fail (h_n != NULL, NULL);
  if (!dl_module_check_constructed (DL_MODULE (self), error))
    return NULL;
  p = base_priv (self);
  name = layer_name (p);
  s = dl_tensor_get_shape (input, &nd);
  unbatched = nd != 3;
  if (nd != 2 && nd != 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: input must have 3 dimensions, got %d",
                   name, (gint)nd + 1);
      return NULL;
    }
  {
    const gint hd = hx ? (gint)dl_tensor_get_ndim (hx) : (gint)nd;
    const gint cd = cx ? (gint)dl_tensor_get_ndim (cx) : (gint)nd;

    if (hd != (gint)nd || cd != (gint)nd)
      {
        if (p->mode == DL_RNN_MODE_LSTM)
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: For %s input, hx and cx should also be %d-D but got (%d-D, %d-D) "
                       "tensors",
                       name, unbatched ? "unbatched 2-D" : "batched 3-D", (gint)nd, hd, cd);
        else
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: For %s input, hx should also be %d-D but got %d-D tensor", name,
                       unbatched ? "unbatched 2-D" : "batched 3-D", (gint)nd, hd);
        return NULL;
      }
  }
  if (!check_input_size (p, input, error))
    return NULL;
  /* time-major [T, B, in] */
  if (!(x3 = maybe_unsqueeze (input, unbatched, 1, error))
      || (hx && !(h3 = maybe_unsqueeze (hx, unbatched, 1, error)))
      || (cx && !(c3 = maybe_unsqueeze (cx, unbatched, 1, error))))
    return NULL;
  if (p->batch_first && !unbatched)
    xt = dl_tensor_transpose (x3, 0, 1, error);
  else
    xt = g_object_ref (x3);
  if (!xt)
    return NULL;
  s = dl_tensor_get_shape (xt, &nd);
  steps = s[0];
  batch = s[1];
  if (steps == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Expected sequence length to be larger than 0 in RNN", name);
      return NULL;
    }
  if (!check_states (p, batch, h3, c3, error)
      || !(x2 = dl_nn_reshape (xt, (gint64[]){ steps * batch, p->input_size }, 2, error)))
    return NULL;
  if (batch == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: the batch is empty: input of size [%" G_GINT64_FORMAT
                   ", 0, %" G_GINT64_FORMAT "]",
                   name, steps, p->input_size);
      return NULL;
    }
  bs = g_new (gint64, steps);
  for (gint64 t = 0; t < steps; t++)
    bs[t] = batch;
  if (!(y2 = run_layers (self, x2, bs, steps, h3, c3, &hn, &cn, error)))
    return NULL;
  {
    gsize yd;
    const gint64 *ys = dl_tensor_get_shape (y2, &yd);
    y3 = dl_nn_reshape (y2, (gint64[]){ steps, batch, ys[1] }, 3, error);
  }
  if (y3 && p->batch_first && !unbatched)
    yt = dl_tensor_transpose (y3, 0, 1, error);
  else if (y3)
    yt = g_object_ref (y3);
  if (!yt)
    {
      g_clear_object (&hn);
      g_clear_object (&cn);
      return NULL;
    }
  *h_n = maybe_squeeze (hn, unbatched, 1, error);
  cn = maybe_squeeze (cn, unbatched, 1, error);
  if (c_n)
    *c_n = cn;
  else
    g_clear_object (&cn);
  return maybe_squeeze (g_steal_pointer (&yt), unbatched, 1, error);
}

/**
 * dl_rnn_base_forward_packed:
 * @self: a #DlRnnBase
 * @data: a packed sequence's rows [n, input_size], step by step
 * @batch_sizes: the number of rows of each step (int64, 1-D,
 *   non-increasing, summing to n), as a PackedSequence holds them
 * @hx: (nullable): the initial hidden states [L D, batch_sizes[0], h];
 *   %NULL for zeros
 * @cx: (nullable): an LSTM's initial cell states, given with @hx
 * @h_n: (out) (transfer full): the final hidden states, each sequence's
 *   state after its own last step
 * @c_n: (out) (optional) (nullable) (transfer full): an LSTM's final cell
 *   states
 * @error: return location for a #GError
 *
 * Runs the layers over a packed sequence (PyTorch's PackedSequence: step
 * t holds the first batch_sizes[t] sequences, the longest first).
 *
 * Returns: (transfer full): the output's rows [n, D h], packed as @data,
 *   or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_rnn_base_forward_packed (DlRnnBase *self,
                            DlTensor *data,
                            DlTensor *batch_sizes,
                            DlTensor *hx,
                            DlTensor *cx,
                            DlTensor **h_n,
                            DlTensor **c_n,
                            GError **error)
{
  DlRnnBasePrivate *p;
  const gchar *name;
  g_autoptr (DlTensor) bs_host = NULL;
  const gint64 *bs;
  gint64 steps, total = 0;
  gsize nd;
  const gint64 *s;
  DlTensor *cn = NULL, *y;

  g_return_val_if_fail (DL_IS_RNN_BASE (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (data), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (batch_sizes), NULL);
  g_return_val_if_fail (h_n != NULL, NULL);
  if (!dl_module_check_constructed (DL_MODULE (self), error))
    return NULL;
  p = base_priv (self);
  name = layer_name (p);
  s = dl_tensor_get_shape (data, &nd);
  if (nd != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: input must have 2 dimensions, got %d",
                   name, (gint)nd);
      return NULL;
    }
  if (!check_input_size (p, data, error))
    return NULL;
  if (dl_tensor_get_dtype (batch_sizes) != DL_DTYPE_INT64 || dl_tensor_get_ndim (batch_sizes) != 1
      || dl_tensor_numel (batch_sizes) == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: batch_sizes must be a non-empty 1-D int64 tensor", name);
      return NULL;
    }
  if (!(bs_host = dl_tensor_contiguous (batch_sizes, error)))
    return NULL;
  bs = (const gint64 *)dl_tensor_data (bs_host);
  steps = dl_tensor_numel (batch_sizes);
  for (gint64 t = 0; t < steps; t++)
    {
      if (bs[t] < 1 || (t > 0 && bs[t] > bs[t - 1]))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: batch_sizes must be positive and non-increasing, got %" G_GINT64_FORMAT
                       " at step %" G_GINT64_FORMAT,
                       name, bs[t], t);
          return NULL;
        }
      total += bs[t];
    }
  if (total != s[0])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: batch_sizes sum to %" G_GINT64_FORMAT " but the data has %" G_GINT64_FORMAT
                   " rows",
                   name, total, s[0]);
      return NULL;
    }
  if (!check_states (p, bs[0], hx, cx, error))
    return NULL;
  if (!(y = run_layers (self, data, bs, steps, hx, cx, h_n, &cn, error)))
    return NULL;
  if (c_n)
    *c_n = cn;
  else
    g_clear_object (&cn);
  return y;
}

/**
 * dl_rnn_base_get_mode:
 * @self: a #DlRnnBase
 *
 * The layer's cell.
 *
 * Returns: its #DlRnnBase:mode
 *
 * Since: 0.1
 */
DlRnnMode
dl_rnn_base_get_mode (DlRnnBase *self)
{
  g_return_val_if_fail (DL_IS_RNN_BASE (self), DL_RNN_MODE_RNN_TANH);
  return base_priv (self)->mode;
}

static DlTensor *
dl_rnn_base_forward (DlModule *module, DlTensor *input, GError **error)
{
  g_autoptr (DlTensor) h_n = NULL;

  return dl_rnn_base_forward_state (DL_RNN_BASE (module), input, NULL, NULL, &h_n, NULL, error);
}

static void
dl_rnn_base_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlRnnBasePrivate *p = base_priv (module);
  const gboolean lstm = p->mode == DL_RNN_MODE_LSTM;
  DlTensor *h_n = NULL, *c_n = NULL, *y;

  if (inputs->len < 1 || inputs->len > (lstm ? 3u : 2u))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: forward takes [input, hx%s] (the states optional), got %u tensors",
                   layer_name (p), lstm ? ", cx" : "", inputs->len);
      return;
    }
  y = dl_rnn_base_forward_state (
      DL_RNN_BASE (module), inputs->pdata[0], inputs->len > 1 ? inputs->pdata[1] : NULL,
      inputs->len > 2 ? inputs->pdata[2] : NULL, &h_n, lstm ? &c_n : NULL, error);
  if (!y)
    return;
  *outputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (*outputs, y);
  g_ptr_array_add (*outputs, h_n);
  if (c_n)
    g_ptr_array_add (*outputs, c_n);
}

static gchar *
dl_rnn_base_extra_repr (DlModule *module)
{
  DlRnnBasePrivate *p = base_priv (module);
  GString *s = g_string_new (NULL);
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (s, "%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT, p->input_size,
                          p->hidden_size);
  if (p->proj_size)
    g_string_append_printf (s, ", proj_size=%" G_GINT64_FORMAT, p->proj_size);
  if (p->num_layers != 1)
    g_string_append_printf (s, ", num_layers=%" G_GINT64_FORMAT, p->num_layers);
  if (!p->bias)
    g_string_append (s, ", bias=False");
  if (p->batch_first)
    g_string_append (s, ", batch_first=True");
  if (p->dropout != 0)
    g_string_append_printf (s, ", dropout=%s", g_ascii_dtostr (buf, sizeof buf, p->dropout));
  if (p->bidirectional)
    g_string_append (s, ", bidirectional=True");
  return g_string_free (s, FALSE);
}

static void
to_instance_offsets (DlLayerProp *props, guint n, gint private_offset)
{
  for (guint i = 0; i < n; i++)
    {
      props[i].offset += private_offset;
      if (props[i].type == G_TYPE_NONE)
        props[i].type = DL_TYPE_RNN_MODE;
    }
}

static void
dl_rnn_base_class_init (DlRnnBaseClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_rnn_base_constructed;
  DL_MODULE_CLASS (klass)->forward = dl_rnn_base_forward;
  DL_MODULE_CLASS (klass)->forward_many = dl_rnn_base_forward_many;
  DL_MODULE_CLASS (klass)->extra_repr = dl_rnn_base_extra_repr;
  to_instance_offsets (rnn_base_props, G_N_ELEMENTS (rnn_base_props), DlRnnBase_private_offset);
  dl_layer_props_install (G_OBJECT_CLASS (klass), rnn_base_props, G_N_ELEMENTS (rnn_base_props));
}

static void
dl_rnn_base_init (DlRnnBase *self)
{
  dl_layer_props_init (self, rnn_base_props, G_N_ELEMENTS (rnn_base_props));
}

/**
 * DlRnn:
 *
 * A multi-layer Elman RNN with tanh or relu, as torch.nn.RNN: h' =
 * tanh(x W_ih^T + b_ih + h W_hh^T + b_hh). See #DlRnnBase.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlRnn, dl_rnn, DL_TYPE_RNN_BASE)

static void
dl_rnn_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  g_value_set_enum (value, base_priv (object)->nonlinearity);
}

static void
dl_rnn_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  base_priv (object)->nonlinearity = g_value_get_enum (value);
}

static void
dl_rnn_class_init (DlRnnClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = dl_rnn_get_property;
  object_class->set_property = dl_rnn_set_property;
  /**
   * DlRnn:nonlinearity:
   *
   * tanh (default) or relu.
   *
   * Since: 0.1
   */
  g_object_class_install_property (
      object_class, 1,
      g_param_spec_enum ("nonlinearity", NULL, NULL, DL_TYPE_RNN_NONLINEARITY,
                         DL_RNN_NONLINEARITY_TANH,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                             | G_PARAM_EXPLICIT_NOTIFY));
}

static void
dl_rnn_init (DlRnn *self)
{
}

/**
 * dl_rnn_new:
 * @input_size: the number of input features
 * @hidden_size: the number of hidden features
 * @num_layers: the number of stacked layers
 * @nonlinearity: tanh or relu
 * @bias: whether the layers have biases
 * @batch_first: whether input and output are [B, T, features]
 * @dropout: the dropout probability between layers (training mode)
 * @bidirectional: whether each layer also runs backwards
 * @error: return location for a #GError
 *
 * A #DlRnn, as torch.nn.RNN(...) makes it.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlRnn *
dl_rnn_new (gint64 input_size,
            gint64 hidden_size,
            gint64 num_layers,
            DlRnnNonlinearity nonlinearity,
            gboolean bias,
            gboolean batch_first,
            gdouble dropout,
            gboolean bidirectional,
            GError **error)
{
  return g_initable_new (DL_TYPE_RNN, NULL, error, "input-size", input_size, "hidden-size",
                         hidden_size, "num-layers", num_layers, "nonlinearity", nonlinearity,
                         "bias", bias, "batch-first", batch_first, "dropout", dropout,
                         "bidirectional", bidirectional, NULL);
}

/**
 * DlLstm:
 *
 * A multi-layer long short-term memory, as torch.nn.LSTM (gates i, f, g,
 * o; c' = f c + i g, h' = o tanh(c'), projected by weight_hr with
 * #DlRnnBase:proj-size). See #DlRnnBase.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlLstm, dl_lstm, DL_TYPE_RNN_BASE)

static void
dl_lstm_class_init (DlLstmClass *klass)
{
}

static void
dl_lstm_init (DlLstm *self)
{
}

/**
 * dl_lstm_new:
 * @input_size: the number of input features
 * @hidden_size: the number of hidden features
 * @num_layers: the number of stacked layers
 * @bias: whether the layers have biases
 * @batch_first: whether input and output are [B, T, features]
 * @dropout: the dropout probability between layers (training mode)
 * @bidirectional: whether each layer also runs backwards
 * @proj_size: the size of the projected hidden state, or 0 for none
 * @error: return location for a #GError
 *
 * A #DlLstm, as torch.nn.LSTM(...) makes it.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlLstm *
dl_lstm_new (gint64 input_size,
             gint64 hidden_size,
             gint64 num_layers,
             gboolean bias,
             gboolean batch_first,
             gdouble dropout,
             gboolean bidirectional,
             gint64 proj_size,
             GError **error)
{
  return g_initable_new (DL_TYPE_LSTM, NULL, error, "input-size", input_size, "hidden-size",
                         hidden_size, "num-layers", num_layers, "bias", bias, "batch-first",
                         batch_first, "dropout", dropout, "bidirectional", bidirectional,
                         "proj-size", proj_size, NULL);
}

/**
 * DlGru:
 *
 * A multi-layer gated recurrent unit, as torch.nn.GRU (gates r, z, n; n =
 * tanh(x W_in^T + b_in + r (h W_hn^T + b_hn)), h' = (1 - z) n + z h). See
 * #DlRnnBase.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlGru, dl_gru, DL_TYPE_RNN_BASE)

static void
dl_gru_class_init (DlGruClass *klass)
{
}

static void
dl_gru_init (DlGru *self)
{
}

/**
 * dl_gru_new:
 * @input_size: the number of input features
 * @hidden_size: the number of hidden features
 * @num_layers: the number of stacked layers
 * @bias: whether the layers have biases
 * @batch_first: whether input and output are [B, T, features]
 * @dropout: the dropout probability between layers (training mode)
 * @bidirectional: whether each layer also runs backwards
 * @error: return location for a #GError
 *
 * A #DlGru, as torch.nn.GRU(...) makes it.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlGru *
dl_gru_new (gint64 input_size,
            gint64 hidden_size,
            gint64 num_layers,
            gboolean bias,
            gboolean batch_first,
            gdouble dropout,
            gboolean bidirectional,
            GError **error)
{
  return g_initable_new (DL_TYPE_GRU, NULL, error, "input-size", input_size, "hidden-size",
                         hidden_size, "num-layers", num_layers, "bias", bias, "batch-first",
                         batch_first, "dropout", dropout, "bidirectional", bidirectional, NULL);
}

/* ---- cells ---------------------------------------------------------- */

typedef struct
{
  gint64 input_size, hidden_size;
  gboolean bias;
  gint nonlinearity;
} CellFields;

struct _DlRnnCell
{
  DlModule parent_instance;
  CellFields f;
};

struct _DlLstmCell
{
  DlModule parent_instance;
  CellFields f;
};

struct _DlGruCell
{
  DlModule parent_instance;
  CellFields f;
};

#define CF(f) G_STRUCT_OFFSET (DlRnnCell, f)
static DlLayerProp cell_props[] = {
  /**
   * DlRnnCell:input-size:
   *
   * The number of features of the input (required, >= 1).
   *
   * Since: 0.1
   */
  { "input-size", G_TYPE_INT64, CF (f.input_size), -1 },
  /**
   * DlRnnCell:hidden-size:
   *
   * The number of features of the hidden state (required, >= 1).
   *
   * Since: 0.1
   */
  { "hidden-size", G_TYPE_INT64, CF (f.hidden_size), -1 },
  /**
   * DlRnnCell:bias:
   *
   * Whether the cell has the biases bias_ih and bias_hh (default %TRUE).
   *
   * Since: 0.1
   */
  { "bias", G_TYPE_BOOLEAN, CF (f.bias), TRUE },
  /**
   * DlRnnCell:nonlinearity:
   *
   * tanh (default) or relu.
   *
   * Since: 0.1
   */
  { "nonlinearity", G_TYPE_NONE, CF (f.nonlinearity), DL_RNN_NONLINEARITY_TANH },
};

/* the same three for DlLstmCell and DlGruCell (their instance structs
 * have the same layout), one table for both classes */
/**
 * DlGruCell:input-size:
 *
 * The number of features of the input (required, >= 1).
 *
 * Since: 0.1
 */
/**
 * DlGruCell:hidden-size:
 *
 * The number of features of the hidden state (required, >= 1).
 *
 * Since: 0.1
 */
/**
 * DlGruCell:bias:
 *
 * Whether the cell has the biases bias_ih and bias_hh (default %TRUE).
 *
 * Since: 0.1
 */
static DlLayerProp gated_cell_props[] = {
  /**
   * DlLstmCell:input-size:
   *
   * The number of features of the input (required, >= 1).
   *
   * Since: 0.1
   */
  { "input-size", G_TYPE_INT64, CF (f.input_size), -1 },
  /**
   * DlLstmCell:hidden-size:
   *
   * The number of features of the hidden state (required, >= 1).
   *
   * Since: 0.1
   */
  { "hidden-size", G_TYPE_INT64, CF (f.hidden_size), -1 },
  /**
   * DlLstmCell:bias:
   *
   * Whether the cell has the biases bias_ih and bias_hh (default %TRUE).
   *
   * Since: 0.1
   */
  { "bias", G_TYPE_BOOLEAN, CF (f.bias), TRUE },
};

static CellFields *
cell_fields (gpointer self)
{
  return &((DlRnnCell *)self)->f;
}

static DlRnnMode
cell_mode (gpointer self)
{
  if (DL_IS_LSTM_CELL (self))
    return DL_RNN_MODE_LSTM;
  if (DL_IS_GRU_CELL (self))
    return DL_RNN_MODE_GRU;
  return cell_fields (self)->nonlinearity == DL_RNN_NONLINEARITY_RELU ? DL_RNN_MODE_RNN_RELU
                                                                      : DL_RNN_MODE_RNN_TANH;
}

static const gchar *
cell_name (gpointer self)
{
  return DL_IS_LSTM_CELL (self) ? "LSTMCell" : DL_IS_GRU_CELL (self) ? "GRUCell" : "RNNCell";
}

static void
cell_constructed (GObject *object)
{
  CellFields *f = cell_fields (object);
  DlModule *m = DL_MODULE (object);
  const gint64 gh = gates_of (cell_mode (object)) * f->hidden_size;
  const gdouble bound = 1.0 / sqrt ((gdouble)MAX (f->hidden_size, 1));
  GError *error = NULL;

  /* the three cells derive from DlModule, which resolves DlModule:dtype */
  G_OBJECT_CLASS (g_type_class_peek (DL_TYPE_MODULE))->constructed (object);
  if (!check_size (cell_name (object), "input_size", f->input_size, 1, &error)
      || !check_size (cell_name (object), "hidden_size", f->hidden_size, 1, &error)
      || !dl_module_add_uniform_parameter (m, "weight_ih", (gint64[]){ gh, f->input_size }, 2,
                                           bound, &error)
      || !dl_module_add_uniform_parameter (m, "weight_hh", (gint64[]){ gh, f->hidden_size }, 2,
                                           bound, &error)
      || (f->bias && !dl_module_add_uniform_parameter (m, "bias_ih", &gh, 1, bound, &error))
      || (f->bias && !dl_module_add_uniform_parameter (m, "bias_hh", &gh, 1, bound, &error)))
    dl_module_take_construct_error (m, error);
}

/* checks a cell's state @h ([B, hidden_size] once batched) */
static gboolean
check_cell_state (const gchar *name,
                  DlTensor *x,
                  DlTensor *h,
                  gint64 hidden,
                  gint k,
                  GError **error)
{
  gsize nd, xd;
  const gint64 *xs = dl_tensor_get_shape (x, &xd);
  const gint64 *hs = dl_tensor_get_shape (h, &nd);

  if (nd != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Expected hidden%d to be %d-D like the input, got a %d-D tensor", name, k,
                   dl_tensor_get_ndim (x) - 0, (gint)nd);
      return FALSE;
    }
  if (hs[0] != xs[0])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Input batch size %" G_GINT64_FORMAT
                   " doesn't match hidden%d batch size %" G_GINT64_FORMAT,
                   name, xs[0], k, hs[0]);
      return FALSE;
    }
  if (hs[1] != hidden)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: hidden%d has inconsistent hidden_size: got %" G_GINT64_FORMAT
                   ", expected %" G_GINT64_FORMAT,
                   name, k, hs[1], hidden);
      return FALSE;
    }
  return check_dtype (name, h, x, k ? "cx" : "hx", error);
}

static DlTensor *
cell_step (DlModule *self,
           DlTensor *input,
           DlTensor *hx,
           DlTensor *cx,
           DlTensor **c_out,
           GError **error)
{
  CellFields *f = cell_fields (self);
  const gchar *name = cell_name (self);
  const DlRnnMode mode = cell_mode (self);
  const gboolean lstm = mode == DL_RNN_MODE_LSTM;
  DlRnnLayerWeights w
      = { dl_module_get_parameter (self, "weight_ih"), dl_module_get_parameter (self, "weight_hh"),
          dl_module_get_parameter (self, "bias_ih"), dl_module_get_parameter (self, "bias_hh"),
          NULL };
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) h = NULL;
  g_autoptr (DlTensor) c = NULL;
  DlTensor *cn = NULL, *hn;
  gboolean unbatched;
  gsize nd;
  const gint64 *s;

  if (!dl_module_check_constructed (self, error))
    return NULL;
  s = dl_tensor_get_shape (input, &nd);
  if (nd != 1 && nd != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Expected input to be 1-D or 2-D but received %d-D tensor", name, (gint)nd);
      return NULL;
    }
  unbatched = nd == 1;
  if (s[nd - 1] != f->input_size)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: input has inconsistent input_size: got %" G_GINT64_FORMAT
                   " expected %" G_GINT64_FORMAT,
                   name, s[nd - 1], f->input_size);
      return NULL;
    }
  if (!w.w_ih || !w.w_hh || (f->bias && (!w.b_ih || !w.b_hh)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: the cell's parameters are missing",
                   name);
      return NULL;
    }
  if (!check_dtypes (name, input, &w, hx, cx, error)
      || !check_shapes (name, &w, "", gates_of (mode) * f->hidden_size, f->input_size,
                        f->hidden_size, f->hidden_size, error)
      || !(x = maybe_unsqueeze (input, unbatched, 0, error))
      || (hx && !(h = maybe_unsqueeze (hx, unbatched, 0, error)))
      || (cx && !(c = maybe_unsqueeze (cx, unbatched, 0, error))))
    return NULL;
  s = dl_tensor_get_shape (x, &nd);
  if ((h && !check_cell_state (name, x, h, f->hidden_size, 0, error))
      || (c && !check_cell_state (name, x, c, f->hidden_size, 1, error)))
    return NULL;
  if ((!h
       && !(h = dl_zeros ((gint64[]){ s[0], f->hidden_size }, 2, dl_tensor_get_dtype (x),
                          dl_tensor_get_device (x), error)))
      || (lstm && !c
          && !(c = dl_zeros ((gint64[]){ s[0], f->hidden_size }, 2, dl_tensor_get_dtype (x),
                             dl_tensor_get_device (x), error))))
    return NULL;
  if (s[0] == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: the batch is empty", name);
      return NULL;
    }
  if (!(hn = dl_rnn_op_cell (mode, x, &w, h, lstm ? c : NULL, &cn, error)))
    return NULL;
  cn = maybe_squeeze (cn, unbatched, 0, error);
  if (c_out)
    *c_out = cn;
  else
    g_clear_object (&cn);
  return maybe_squeeze (hn, unbatched, 0, error);
}

static DlTensor *
cell_forward (DlModule *module, DlTensor *input, GError **error)
{
  return cell_step (module, input, NULL, NULL, NULL, error);
}

static void
cell_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  const gboolean lstm = DL_IS_LSTM_CELL (module);
  DlTensor *h, *c = NULL;

  if (inputs->len < 1 || inputs->len > (lstm ? 3u : 2u))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: forward takes [input, hx%s] (the states optional), got %u tensors",
                   cell_name (module), lstm ? ", cx" : "", inputs->len);
      return;
    }
  if (!(h = cell_step (module, inputs->pdata[0], inputs->len > 1 ? inputs->pdata[1] : NULL,
                       inputs->len > 2 ? inputs->pdata[2] : NULL, lstm ? &c : NULL, error)))
    return;
  *outputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (*outputs, h);
  if (c)
    g_ptr_array_add (*outputs, c);
}

static gchar *
cell_extra_repr (DlModule *module)
{
  CellFields *f = cell_fields (module);

  return g_strdup_printf ("%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "%s%s", f->input_size,
                          f->hidden_size, f->bias ? "" : ", bias=False",
                          DL_IS_RNN_CELL (module) && f->nonlinearity == DL_RNN_NONLINEARITY_RELU
                              ? ", nonlinearity=relu"
                              : "");
}

static void
cell_class_setup (GObjectClass *klass, DlLayerProp *props, guint n)
{
  klass->constructed = cell_constructed;
  DL_MODULE_CLASS (klass)->forward = cell_forward;
  DL_MODULE_CLASS (klass)->forward_many = cell_forward_many;
  DL_MODULE_CLASS (klass)->extra_repr = cell_extra_repr;
  for (guint i = 0; i < n; i++)
    if (props[i].type == G_TYPE_NONE)
      props[i].type = DL_TYPE_RNN_NONLINEARITY;
  dl_layer_props_install (klass, props, n);
}

/**
 * DlRnnCell:
 *
 * One step of an Elman RNN, as torch.nn.RNNCell: h' = tanh or relu (x
 * W_ih^T + b_ih + h W_hh^T + b_hh), parameters weight_ih [hidden, input],
 * weight_hh [hidden, hidden], bias_ih and bias_hh. dl_module_forward()
 * takes the input [B, input_size] (or [input_size]) from a zero state;
 * dl_module_forward_many() takes [input, hx]. See dl_rnn_cell_step().
 *
 * Since: 0.1
 */
/**
 * DlRnnCellClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlRnnCell. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlRnnCell, dl_rnn_cell, DL_TYPE_MODULE)

static void
dl_rnn_cell_class_init (DlRnnCellClass *klass)
{
  cell_class_setup (G_OBJECT_CLASS (klass), cell_props, G_N_ELEMENTS (cell_props));
}

static void
dl_rnn_cell_init (DlRnnCell *self)
{
  dl_layer_props_init (self, cell_props, G_N_ELEMENTS (cell_props));
}

/**
 * dl_rnn_cell_new:
 * @input_size: the number of input features
 * @hidden_size: the number of hidden features
 * @bias: whether the cell has biases
 * @nonlinearity: tanh or relu
 * @error: return location for a #GError
 *
 * A #DlRnnCell, as torch.nn.RNNCell(...) makes it.
 *
 * Returns: (transfer full): the cell, or %NULL with @error set
 *
 * Since: 0.1
 */
DlRnnCell *
dl_rnn_cell_new (gint64 input_size,
                 gint64 hidden_size,
                 gboolean bias,
                 DlRnnNonlinearity nonlinearity,
                 GError **error)
{
  return g_initable_new (DL_TYPE_RNN_CELL, NULL, error, "input-size", input_size, "hidden-size",
                         hidden_size, "bias", bias, "nonlinearity", nonlinearity, NULL);
}

/**
 * dl_rnn_cell_step:
 * @self: a #DlRnnCell
 * @input: the input [B, input_size] (or [input_size])
 * @hx: (nullable): the state [B, hidden_size] (or [hidden_size]); %NULL
 *   for zeros
 * @error: return location for a #GError
 *
 * One step of the cell. Differentiable.
 *
 * Returns: (transfer full): the new state, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_rnn_cell_step (DlRnnCell *self, DlTensor *input, DlTensor *hx, GError **error)
{
  g_return_val_if_fail (DL_IS_RNN_CELL (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return cell_step (DL_MODULE (self), input, hx, NULL, NULL, error);
}

/**
 * DlLstmCell:
 *
 * One step of an LSTM, as torch.nn.LSTMCell (gates i, f, g, o in
 * weight_ih [4 hidden, input], weight_hh [4 hidden, hidden], bias_ih and
 * bias_hh). dl_module_forward() gives h' from zero states;
 * dl_module_forward_many() takes [input, hx, cx] and gives [h', c']. See
 * dl_lstm_cell_step().
 *
 * Since: 0.1
 */
/**
 * DlLstmCellClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlLstmCell. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlLstmCell, dl_lstm_cell, DL_TYPE_MODULE)

static void
dl_lstm_cell_class_init (DlLstmCellClass *klass)
{
  cell_class_setup (G_OBJECT_CLASS (klass), gated_cell_props, G_N_ELEMENTS (gated_cell_props));
}

static void
dl_lstm_cell_init (DlLstmCell *self)
{
  dl_layer_props_init (self, gated_cell_props, G_N_ELEMENTS (gated_cell_props));
}

/**
 * dl_lstm_cell_new:
 * @input_size: the number of input features
 * @hidden_size: the number of hidden features
 * @bias: whether the cell has biases
 * @error: return location for a #GError
 *
 * A #DlLstmCell, as torch.nn.LSTMCell(...) makes it.
 *
 * Returns: (transfer full): the cell, or %NULL with @error set
 *
 * Since: 0.1
 */
DlLstmCell *
dl_lstm_cell_new (gint64 input_size, gint64 hidden_size, gboolean bias, GError **error)
{
  return g_initable_new (DL_TYPE_LSTM_CELL, NULL, error, "input-size", input_size, "hidden-size",
                         hidden_size, "bias", bias, NULL);
}

/**
 * dl_lstm_cell_step:
 * @self: a #DlLstmCell
 * @input: the input [B, input_size] (or [input_size])
 * @hx: (nullable): the hidden state [B, hidden_size]; %NULL for zeros
 * @cx: (nullable): the cell state [B, hidden_size]; %NULL for zeros
 * @c_out: (out) (optional) (transfer full): the new cell state
 * @error: return location for a #GError
 *
 * One step of the cell. Differentiable.
 *
 * Returns: (transfer full): the new hidden state, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_lstm_cell_step (DlLstmCell *self,
                   DlTensor *input,
                   DlTensor *hx,
                   DlTensor *cx,
                   DlTensor **c_out,
                   GError **error)
{
  g_return_val_if_fail (DL_IS_LSTM_CELL (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return cell_step (DL_MODULE (self), input, hx, cx, c_out, error);
}

/**
 * DlGruCell:
 *
 * One step of a GRU, as torch.nn.GRUCell (gates r, z, n in weight_ih [3
 * hidden, input], weight_hh [3 hidden, hidden], bias_ih and bias_hh). See
 * dl_gru_cell_step().
 *
 * Since: 0.1
 */
/**
 * DlGruCellClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlGruCell. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlGruCell, dl_gru_cell, DL_TYPE_MODULE)

static void
dl_gru_cell_class_init (DlGruCellClass *klass)
{
  cell_class_setup (G_OBJECT_CLASS (klass), gated_cell_props, G_N_ELEMENTS (gated_cell_props));
}

static void
dl_gru_cell_init (DlGruCell *self)
{
  dl_layer_props_init (self, gated_cell_props, G_N_ELEMENTS (gated_cell_props));
}

/**
 * dl_gru_cell_new:
 * @input_size: the number of input features
 * @hidden_size: the number of hidden features
 * @bias: whether the cell has biases
 * @error: return location for a #GError
 *
 * A #DlGruCell, as torch.nn.GRUCell(...) makes it.
 *
 * Returns: (transfer full): the cell, or %NULL with @error set
 *
 * Since: 0.1
 */
DlGruCell *
dl_gru_cell_new (gint64 input_size, gint64 hidden_size, gboolean bias, GError **error)
{
  return g_initable_new (DL_TYPE_GRU_CELL, NULL, error, "input-size", input_size, "hidden-size",
                         hidden_size, "bias", bias, NULL);
}

/**
 * dl_gru_cell_step:
 * @self: a #DlGruCell
 * @input: the input [B, input_size] (or [input_size])
 * @hx: (nullable): the state [B, hidden_size]; %NULL for zeros
 * @error: return location for a #GError
 *
 * One step of the cell. Differentiable.
 *
 * Returns: (transfer full): the new state, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_gru_cell_step (DlGruCell *self, DlTensor *input, DlTensor *hx, GError **error)
{
  g_return_val_if_fail (DL_IS_GRU_CELL (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return cell_step (DL_MODULE (self), input, hx, NULL, NULL, error);
}

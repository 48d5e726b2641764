/* dl-function.c: DlFunction, the extension point of autograd.
 *
 * A DlFunction is a DlNode whose forward and backward are virtual methods.
 * dl_function_apply() initialises the node for the inputs (an edge to each
 * one's history, as a built-in op's node has), runs forward with grad mode
 * off, and makes the node the grad_fn of the outputs (PyTorch's
 * _wrap_outputs): an input returned as it is becomes a new view of it, a
 * dirty input (modified in place) has its history rebased onto the node,
 * non-differentiable outputs get no history. The tensors forward saved are
 * handed to the node's DlSavedTensor machinery only then, once it is known
 * which of them are outputs (those are saved without their grad_fn, so no
 * output -> node -> output cycle forms). The engine runs the node's
 * DlBackwardFunc, function_backward(), which calls the backward virtual
 * method and checks what it gives.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-function.h"
#include "ops/dl-ops-private.h"

#include <string.h>

/**
 * DlFunction:
 *
 * A user-defined op with its own gradient, as `torch.autograd.Function`:
 * subclass it, implement #DlFunctionClass.forward and
 * #DlFunctionClass.backward, and call dl_function_apply() on a new
 * instance for each use. The instance becomes the `grad_fn` of the outputs
 * and joins the graph as a built-in op's node does; the engine calls its
 * backward when the gradient reaches it.
 *
 * forward runs with grad mode off. In it the function can keep tensors for
 * backward with dl_function_save_for_backward() (read back with
 * dl_function_get_saved_tensors(), which checks that no in-place op
 * changed them and that the graph was not freed by a previous backward
 * pass), declare the inputs it changed in place with
 * dl_function_mark_dirty() and the outputs that have no gradient with
 * dl_function_mark_non_differentiable(), and ask which inputs need a
 * gradient with dl_function_needs_input_grad(). Other state a backward
 * needs goes into the subclass's own fields (or, from Python, GJS and
 * Vala, its attributes).
 *
 * backward gets one gradient per output (a zero tensor for an output that
 * got none, unless dl_function_set_materialize_grads() turned that off)
 * and gives one gradient per input: %NULL (from Python and Vala) for an
 * input that has none. GJS cannot put null into an array it hands to C:
 * there give any tensor for an input that does not need a gradient
 * (dl_function_needs_input_grad() is %FALSE), which is ignored. A
 * gradient may have a shape the input's broadcasts to; it is summed back
 * to the input's shape. Written with tensor ops, backward is itself
 * recorded when the backward pass runs with `create_graph`, which gives
 * higher-order gradients.
 *
 * A minimal subclass in C, y = clamp (x, 0, 1) with a straight-through
 * gradient:
 *
 * |[<!-- language="C" -->
 * static void
 * clamp_forward (DlFunction *fn, GPtrArray *inputs, GPtrArray **outputs, GError **error)
 * {
 *   DlTensor *y = dl_tensor_clamp_scalar (g_ptr_array_index (inputs, 0), 0, 1, error);
 *
 *   if (y == NULL)
 *     return;
 *   *outputs = g_ptr_array_new ();
 *   g_ptr_array_add (*outputs, y);
 * }
 *
 * static void
 * clamp_backward (DlFunction *fn, GPtrArray *grad_outputs, GPtrArray **grad_inputs,
 *                 GError **error)
 * {
 *   *grad_inputs = g_ptr_array_new ();
 *   g_ptr_array_add (*grad_inputs, g_object_ref (g_ptr_array_index (grad_outputs, 0)));
 * }
 * ]|
 *
 * registered as a type and applied to a tensor:
 *
 * |[<!-- language="C" -->
 * #define MY_TYPE_CLAMP (my_clamp_get_type ())
 * G_DECLARE_FINAL_TYPE (MyClamp, my_clamp, MY, CLAMP, DlFunction)
 *
 * struct _MyClamp
 * {
 *   DlFunction parent_instance;
 * };
 *
 * G_DEFINE_FINAL_TYPE (MyClamp, my_clamp, DL_TYPE_FUNCTION)
 *
 * static void
 * my_clamp_class_init (MyClampClass *klass)
 * {
 *   DL_FUNCTION_CLASS (klass)->forward = clamp_forward;
 *   DL_FUNCTION_CLASS (klass)->backward = clamp_backward;
 * }
 *
 * static void
 * my_clamp_init (MyClamp *self)
 * {
 * }
 *
 * static DlTensor *
 * my_clamp (DlTensor *x, GError **error)
 * {
 *   g_autoptr (MyClamp) fn = g_object_new (MY_TYPE_CLAMP, NULL);
 *   g_autoptr (GPtrArray) outputs = dl_function_apply (DL_FUNCTION (fn), &x, 1, error);
 *
 *   return outputs ? g_object_ref (g_ptr_array_index (outputs, 0)) : NULL;
 * }
 * ]|
 *
 * Since: 0.1
 */

typedef struct
{
  DlDType dtype;
  gint ndim;
  gint64 sizes[DL_MAX_DIMS];
  DlDevice *device; /* (owned) */
} OutputMeta;

typedef struct
{
  gchar *name; /* (nullable): or the type's name */
  gboolean applied;
  gboolean materialize_grads;
  /* what forward declared, until apply has wrapped the outputs */
  GPtrArray *to_save;            /* (owned) (nullable): DlTensor or NULL */
  GPtrArray *dirty;              /* (owned) (nullable) */
  GPtrArray *non_differentiable; /* (owned) (nullable) */
  /* the saved tensors, in the order they were saved; the node frees
   * them, the array itself goes in finalize, after the node's dispose */
  guint n_saved;
  DlSavedTensor *saved;
  gboolean *saved_none; /* [n_saved]: saved as NULL */
  guint n_outputs;
  OutputMeta *outputs; /* [n_outputs], for the zeros of missing gradients */
} DlFunctionPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlFunction, dl_function, DL_TYPE_NODE)

enum
{
  PROP_0,
  PROP_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* the name of the function in the graph and in messages */
static const gchar *
fn_name (DlFunction *self)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (self);

  return p->name ? p->name : G_OBJECT_TYPE_NAME (self);
}

static void
unref_if_set (gpointer object)
{
  if (object)
    g_object_unref (object);
}

static gpointer
ref_if_set (gconstpointer object, gpointer unused)
{
  return object ? g_object_ref ((gpointer)object) : NULL;
}

static GPtrArray *backward_checked (DlFunction *self, GPtrArray *grad_outputs, GError **error);

static void
clear_pending (DlFunctionPrivate *p)
{
  g_clear_pointer (&p->to_save, g_ptr_array_unref);
  g_clear_pointer (&p->dirty, g_ptr_array_unref);
  g_clear_pointer (&p->non_differentiable, g_ptr_array_unref);
}

static void
dl_function_dispose (GObject *object)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (DL_FUNCTION (object));

  clear_pending (p);
  for (guint i = 0; i < p->n_outputs; i++)
    g_clear_object (&p->outputs[i].device);
  G_OBJECT_CLASS (dl_function_parent_class)->dispose (object);
}

static void
dl_function_finalize (GObject *object)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (DL_FUNCTION (object));

  g_free (p->name);
  g_free (p->saved);
  g_free (p->saved_none);
  g_free (p->outputs);
  G_OBJECT_CLASS (dl_function_parent_class)->finalize (object);
}

/* The default of both virtual methods: the subclass did not implement it. */
static void
not_implemented (DlFunction *self, const gchar *what, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "%s: the Function does not implement %s",
               fn_name (self), what);
}

static void
dl_function_real_forward (DlFunction *self,
                          GPtrArray *inputs,
                          GPtrArray **outputs,
                          GError **error)
{
  not_implemented (self, "forward", error);
}

static void
dl_function_real_backward (DlFunction *self,
                           GPtrArray *grad_outputs,
                           GPtrArray **grad_inputs,
                           GError **error)
{
  not_implemented (self, "backward", error);
}

static void
dl_function_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_NAME:
        g_value_set_string (value, fn_name (DL_FUNCTION (object)));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_function_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (DL_FUNCTION (object));

  switch (prop_id)
    {
      case PROP_NAME:
        g_free (p->name);
        p->name = g_value_dup_string (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_function_class_init (DlFunctionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = dl_function_dispose;
  object_class->finalize = dl_function_finalize;
  object_class->get_property = dl_function_get_property;
  object_class->set_property = dl_function_set_property;
  klass->forward = dl_function_real_forward;
  klass->backward = dl_function_real_backward;

  /**
   * DlFunction:name:
   *
   * The function's name in the graph (dl_node_get_name()) and in error
   * messages; %NULL (the default) means the name of its type. A binding
   * whose classes get type names of their own making sets it to the
   * class's name.
   *
   * Since: 0.1
   */
  properties[PROP_NAME]
      = g_param_spec_string ("name", NULL, NULL, NULL,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_function_init (DlFunction *self)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (self);

  p->materialize_grads = TRUE;
}

/* Calls a virtual method that gives an array of tensors through @out and
 * checks what it gave: a binding's override that raised something other
 * than a GError gives nothing and no error. The array returned frees its
 * elements, whoever built it (C, or a binding, which sets no free
 * function). */
static GPtrArray *
checked_result (DlFunction *self,
                const gchar *what,
                GPtrArray *out,
                GError *local,
                gboolean allow_null,
                GError **error)
{
  g_autoptr (GPtrArray) result = out;

  if (result)
    g_ptr_array_set_free_func (result, unref_if_set);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (result == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD, "function %s: %s returned nothing",
                   fn_name (self), what);
      return NULL;
    }
  for (guint i = 0; i < result->len; i++)
    {
      gpointer t = g_ptr_array_index (result, i);

      if (t == NULL && allow_null)
        continue;
      if (t == NULL || !DL_IS_TENSOR (t))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "function %s: %s returned %s at index %u, not a tensor", fn_name (self),
                       what, t == NULL ? "null" : G_OBJECT_TYPE_NAME (t), i);
          return NULL;
        }
    }
  return g_steal_pointer (&result);
}

static gint
find_tensor (GPtrArray *array, DlTensor *t)
{
  guint i;

  if (array && g_ptr_array_find (array, t, &i))
    return i;
  return -1;
}

static gint
find_input (DlTensor **inputs, gsize n_inputs, DlTensor *t)
{
  for (gsize i = 0; i < n_inputs; i++)
    if (inputs[i] == t)
      return i;
  return -1;
}

/* A view of @t that is not @t, made with grad mode off, for an input
 * forward returned as it is (PyTorch's _view_as_self_with_no_grad). */
static DlTensor *
view_as_self (DlTensor *t, GError **error)
{
  gboolean was = dl_set_grad_enabled (FALSE);
  DlTensor *v = dl_tensor_expand (t, t->sizes, t->ndim, error);

  dl_set_grad_enabled (was);
  return v;
}

/* Records an in-place change of @t by the function, its @nr-th output:
 * @t (or its base, when @t is a view) takes the node's history over, as
 * an in-place op's result does. */
static gboolean
rebase_dirty (DlFunction *self, DlTensor *t, guint nr, guint n_outputs, GError **error)
{
  const gchar *name = fn_name (self);
  g_autoptr (DlTensor) holder = NULL;

  if (!dl_inplace_check_history (name, t, error))
    return FALSE;
  if (t->base && n_outputs > 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "function %s: a Function that modifies a view in place must return a "
                   "single output, not %u",
                   name, n_outputs);
      return FALSE;
    }
  holder = dl_tensor_new_view_internal (t, t->sizes, t->strides, t->ndim, t->offset);
  dl_node_set_output (DL_NODE (self), holder, nr);
  dl_inplace_take_history (t, holder);
  return TRUE;
}

/* Gives the outputs their history (or none), PyTorch's _wrap_outputs. */
static gboolean
wrap_outputs (DlFunction *self,
              gboolean record,
              DlTensor **inputs,
              gsize n_inputs,
              GPtrArray *out,
              GError **error)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (self);
  DlNode *node = DL_NODE (self);

  for (guint k = 0; p->dirty && k < p->dirty->len; k++)
    if (find_tensor (out, g_ptr_array_index (p->dirty, k)) < 0)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                     "function %s: some tensors marked as dirty during forward were not "
                     "returned as outputs; the inputs a Function modifies in place must all "
                     "be outputs of it",
                     fn_name (self));
        return FALSE;
      }
  for (guint i = 0; i < out->len; i++)
    {
      DlTensor *t = g_ptr_array_index (out, i);
      gboolean is_input = find_input (inputs, n_inputs, t) >= 0;
      gboolean is_dirty = find_tensor (p->dirty, t) >= 0;
      gboolean differentiable = record && find_tensor (p->non_differentiable, t) < 0
                                && dl_dtype_is_float (t->dtype);
      DlTensor *replace = NULL;

      if (differentiable && is_dirty)
        {
          if (!rebase_dirty (self, t, i, out->len, error))
            return FALSE;
        }
      else if (differentiable)
        {
          if (is_input && !(replace = view_as_self (t, error)))
            return FALSE;
          dl_node_set_output (node, replace ? replace : t, i);
        }
      else if (is_input && t->requires_grad)
        replace = dl_tensor_detach (t);
      else if (is_input && !is_dirty)
        {
          if (!(replace = view_as_self (t, error)))
            return FALSE;
        }
      else if (!is_input && t->base == NULL)
        {
          /* a new tensor forward made with grad mode on */
          g_clear_object (&t->grad_fn);
          t->requires_grad = FALSE;
        }
      if (replace)
        {
          g_object_unref (t);
          g_ptr_array_index (out, i) = replace;
        }
    }
  return TRUE;
}

/* Hands the tensors forward saved to the node, outputs saved without
 * their history. */
static void
commit_saved (DlFunction *self, GPtrArray *out)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (self);

  p->n_saved = p->to_save->len;
  p->saved = g_new0 (DlSavedTensor, p->n_saved);
  p->saved_none = g_new0 (gboolean, p->n_saved);
  for (guint i = 0; i < p->n_saved; i++)
    {
      DlTensor *t = g_ptr_array_index (p->to_save, i);

      if (t == NULL)
        p->saved_none[i] = TRUE;
      else
        dl_node_save (DL_NODE (self), &p->saved[i], t, find_tensor (out, t) >= 0);
    }
}

static void
record_outputs (DlFunction *self, GPtrArray *out)
{
  DlFunctionPrivate *p = dl_function_get_instance_private (self);

  p->n_outputs = out->len;
  p->outputs = g_new0 (OutputMeta, out->len);
  for (guint i = 0; i < out->len; i++)
    {
      DlTensor *t = g_ptr_array_index (out, i);

      p->outputs[i].dtype = t->dtype;
      p->outputs[i].ndim = t->ndim;
      memcpy (p->outputs[i].sizes, t->sizes, t->ndim * sizeof (gint64));
      p->outputs[i].device = g_object_ref (dl_tensor_get_device (t));
    }
  dl_node_data (DL_NODE (self))->n_outputs = out->len;
}

/* Whether a tensor of shape @from can be summed to @to (@to broadcasts
 * to @from). */
static gboolean
summable_to (const gint64 *from, gint from_ndim, const gint64 *to, gint to_ndim)
{
  if (to_ndim > from_ndim)
    return FALSE;
  for (gint i = 1; i <= to_ndim; i++)
    if (to[to_ndim - i] != 1 && to[to_ndim - i] != from[from_ndim - i])
      return FALSE;
  return TRUE;
}

/* The DlBackwardFunc of every DlFunction: the backward virtual method,
 * given one gradient per output, its result checked and summed to the
 * inputs' shapes. */
static gboolean
function_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlFunction *self = DL_FUNCTION (node);
  DlFunctionPrivate *p = dl_function_get_instance_private (self);
  DlNodeData *d = dl_node_data (node);
  const gchar *name = fn_name (self);
  g_autoptr (GPtrArray) grad_outputs = g_ptr_array_new_full (p->n_outputs, unref_if_set);
  g_autoptr (GPtrArray) grads = NULL;

  for (guint i = 0; i < p->n_outputs; i++)
    {
      OutputMeta *m = &p->outputs[i];
      DlTensor *g = go[i] ? g_object_ref (go[i]) : NULL;

      if (g == NULL && p->materialize_grads
          && !(g = dl_zeros (m->sizes, m->ndim, m->dtype, m->device, error)))
        return FALSE;
      g_ptr_array_add (grad_outputs, g);
    }
  if (!(grads = backward_checked (self, grad_outputs, error)))
    return FALSE;
  if (grads->len != d->n_inputs)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "function %s returned an incorrect number of gradients (expected %u, got %u)",
                   name, d->n_inputs, grads->len);
      return FALSE;
    }
  for (guint i = 0; i < d->n_inputs; i++)
    {
      DlTensor *g = g_ptr_array_index (grads, i);
      const DlInputMeta *in = &d->inputs[i];

      if (g == NULL || !dl_node_needs_input_grad (node, i))
        continue;
      if (!summable_to (g->sizes, g->ndim, in->sizes, in->ndim))
        {
          g_autofree gchar *gs = dl_shape_to_string (g->sizes, g->ndim);
          g_autofree gchar *s = dl_shape_to_string (in->sizes, in->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "Function %s returned an invalid gradient at index %u - got %s but "
                       "expected shape compatible with %s",
                       name, i, gs, s);
          goto fail;
        }
      if (!(gi[i] = dl_sum_to (g, in->sizes, in->ndim, error)))
        goto fail;
    }
  return TRUE;

fail:
  for (guint i = 0; i < d->n_inputs; i++)
    g_clear_object (&gi[i]);
  return FALSE;
}

/**
 * dl_function_apply:
 * @self: a new #DlFunction, not applied before
 * @inputs: (array length=n_inputs): the input tensors (in C an element may
 *   be %NULL for an optional input left out)
 * @n_inputs: the number of inputs
 * @error: return location for a #GError
 *
 * Runs the function: calls #DlFunctionClass.forward on @inputs with grad
 * mode off and, when grad mode is on and an input requires grad, makes
 * @self the `grad_fn` of the outputs, as `Function.apply` does in
 * PyTorch. An input forward returns as it is comes back as a new view of
 * it; an input marked dirty keeps its identity and takes the function's
 * history over; outputs marked non-differentiable, and outputs of an
 * integer or bool dtype, do not require grad.
 *
 * An instance records one call: applying it a second time is an error.
 *
 * Returns: (transfer container) (element-type DlTensor): the outputs, in an
 *   array that holds a reference to each and drops them when freed, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
GPtrArray *
dl_function_apply (DlFunction *self, DlTensor **inputs, gsize n_inputs, GError **error)
{
  DlFunctionPrivate *p;
  g_autoptr (GPtrArray) in = NULL;
  g_autoptr (GPtrArray) out = NULL;
  g_autofree DlTensor **none = NULL;
  GError *local = NULL;
  GPtrArray *result = NULL;
  gboolean record, was;

  g_return_val_if_fail (DL_IS_FUNCTION (self), NULL);
  g_return_val_if_fail (n_inputs == 0 || inputs != NULL, NULL);
  for (gsize i = 0; i < n_inputs; i++)
    g_return_val_if_fail (inputs[i] == NULL || DL_IS_TENSOR (inputs[i]), NULL);
  p = dl_function_get_instance_private (self);
  if (p->applied)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "function %s: this Function instance was applied already; a Function "
                   "records one call, make a new instance for each",
                   fn_name (self));
      return NULL;
    }
  p->applied = TRUE;

  /* the edges are the inputs' history before forward, which may change
   * them in place */
  record = dl_autograd_any_requires (n_inputs, inputs);
  if (!record)
    none = g_new0 (DlTensor *, MAX (n_inputs, 1));
  dl_node_init_for_op (DL_NODE (self), fn_name (self), function_backward, n_inputs,
                       record ? inputs : none);

  in = g_ptr_array_new_full (n_inputs, NULL);
  for (gsize i = 0; i < n_inputs; i++)
    g_ptr_array_add (in, inputs[i]);
  was = dl_set_grad_enabled (FALSE);
  DL_FUNCTION_GET_CLASS (self)->forward (self, in, &out, &local);
  dl_set_grad_enabled (was);
  if ((out = checked_result (self, "forward", g_steal_pointer (&out), local, FALSE, error))
      && wrap_outputs (self, record, inputs, n_inputs, out, error))
    {
      if (record)
        {
          record_outputs (self, out);
          if (p->to_save)
            commit_saved (self, out);
        }
      result = g_steal_pointer (&out);
    }
  clear_pending (p);
  return result;
}

/**
 * dl_function_forward: (virtual forward)
 * @self: a #DlFunction
 * @inputs: (element-type DlTensor): the input tensors; an element may be
 *   %NULL for an optional input left out
 * @outputs: (out) (transfer full) (element-type DlTensor): return location
 *   for the outputs: a new array holding a reference to each output
 * @error: return location for a #GError
 *
 * Computes the function's outputs, as the subclass defines it. Call
 * dl_function_apply() to run a function and record it; this is the
 * virtual method itself, which a subclass implements. It runs with grad
 * mode off (apply turns it off), so the ops in it are not recorded. On
 * failure it sets @error and leaves @outputs unset.
 *
 * The outputs come back through a parameter, the array and its elements
 * handed over (transfer full), so that an override in any language gives
 * its new tensors to C. The array has no free function, as the bindings
 * expect of a (transfer full) array: in C unref the elements, then the
 * array. A C implementation may build its array either way
 * (dl_function_apply() makes the array it returns free its elements), but
 * one from g_ptr_array_new() lets a subclass in another language chain up
 * to it.
 *
 * Since: 0.1
 */
void
dl_function_forward (DlFunction *self, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  GPtrArray *out = NULL;
  GError *local = NULL;

  g_return_if_fail (DL_IS_FUNCTION (self));
  g_return_if_fail (inputs != NULL && outputs != NULL);
  DL_FUNCTION_GET_CLASS (self)->forward (self, inputs, &out, &local);
  if ((*outputs = checked_result (self, "forward", out, local, FALSE, error)))
    g_ptr_array_set_free_func (*outputs, NULL);
}

/* backward through the virtual method, its result checked */
static GPtrArray *
backward_checked (DlFunction *self, GPtrArray *grad_outputs, GError **error)
{
  GPtrArray *grads = NULL;
  GError *local = NULL;

  DL_FUNCTION_GET_CLASS (self)->backward (self, grad_outputs, &grads, &local);
  return checked_result (self, "backward", grads, local, TRUE, error);
}

/**
 * dl_function_backward: (virtual backward)
 * @self: a #DlFunction
 * @grad_outputs: (element-type DlTensor): the gradient of each output: a
 *   zero tensor for an output that got none, or %NULL when
 *   dl_function_set_materialize_grads() turned that off
 * @grad_inputs: (out) (transfer full) (element-type DlTensor): return
 *   location for the gradient of each input, one per input of
 *   dl_function_apply(), in a new array holding a reference to each; an
 *   element may be %NULL for an input that has no gradient (GJS: any
 *   tensor, for an input that does not need one)
 * @error: return location for a #GError
 *
 * Computes the gradients of the inputs from those of the outputs, as the
 * subclass defines it; the backward pass calls it. It runs with grad mode
 * on when the backward pass records itself (`create_graph`), so a backward
 * written with tensor ops can be differentiated again. A gradient may have
 * a shape the input broadcasts to; it is summed to the input's shape. A
 * wrong number of gradients, one that is not a tensor, or one of a shape
 * that cannot be summed to the input's is a %DL_ERROR_AUTOGRAD error
 * naming the function's type.
 *
 * The gradients come back as the outputs of #DlFunctionClass.forward do:
 * the array and its elements handed over, the array without a free
 * function.
 *
 * Since: 0.1
 */
void
dl_function_backward (DlFunction *self,
                      GPtrArray *grad_outputs,
                      GPtrArray **grad_inputs,
                      GError **error)
{
  g_return_if_fail (DL_IS_FUNCTION (self));
  g_return_if_fail (grad_outputs != NULL && grad_inputs != NULL);
  if ((*grad_inputs = backward_checked (self, grad_outputs, error)))
    g_ptr_array_set_free_func (*grad_inputs, NULL);
}

static GPtrArray *
pending (GPtrArray **list)
{
  if (*list == NULL)
    *list = g_ptr_array_new_with_free_func (unref_if_set);
  return *list;
}

static void
add_pending (GPtrArray **list, DlTensor **tensors, gsize n)
{
  GPtrArray *a = pending (list);

  for (gsize i = 0; i < n; i++)
    g_ptr_array_add (a, tensors[i] ? g_object_ref (tensors[i]) : NULL);
}

/**
 * dl_function_save_for_backward:
 * @self: a #DlFunction
 * @tensors: (array length=n_tensors): the tensors backward needs (in C an
 *   element may be %NULL)
 * @n_tensors: the number of tensors
 *
 * Keeps tensors for backward, as `ctx.save_for_backward` does: call it in
 * forward, once, with all of them; dl_function_get_saved_tensors() gives
 * them back in the same order. Inputs and outputs may be saved: an output
 * is kept without its history, so no reference cycle forms. The backward
 * pass frees them (unless it retains the graph), and reading them after an
 * in-place op changed them is an error.
 *
 * Since: 0.1
 */
void
dl_function_save_for_backward (DlFunction *self, DlTensor **tensors, gsize n_tensors)
{
  DlFunctionPrivate *p;

  g_return_if_fail (DL_IS_FUNCTION (self));
  g_return_if_fail (n_tensors == 0 || tensors != NULL);
  for (gsize i = 0; i < n_tensors; i++)
    g_return_if_fail (tensors[i] == NULL || DL_IS_TENSOR (tensors[i]));
  p = dl_function_get_instance_private (self);
  if (p->to_save)
    g_ptr_array_set_size (p->to_save, 0);
  add_pending (&p->to_save, tensors, n_tensors);
}

/**
 * dl_function_get_saved_tensors:
 * @self: a #DlFunction
 * @error: return location for a #GError
 *
 * The tensors dl_function_save_for_backward() kept, as
 * `ctx.saved_tensors`.
 *
 * Returns: (transfer container) (element-type DlTensor): the saved tensors
 *   in the order they were saved (an element is %NULL where %NULL was
 *   saved), or %NULL with a %DL_ERROR_AUTOGRAD error when the backward
 *   pass freed them already or an in-place op changed one since it was
 *   saved
 *
 * Since: 0.1
 */
GPtrArray *
dl_function_get_saved_tensors (DlFunction *self, GError **error)
{
  DlFunctionPrivate *p;
  g_autoptr (GPtrArray) result = NULL;

  g_return_val_if_fail (DL_IS_FUNCTION (self), NULL);
  p = dl_function_get_instance_private (self);
  /* in forward, before apply hands them to the node */
  if (p->to_save)
    return g_ptr_array_copy (p->to_save, ref_if_set, NULL);
  result = g_ptr_array_new_full (p->n_saved, unref_if_set);
  for (guint i = 0; i < p->n_saved; i++)
    {
      DlTensor *t = NULL;

      if (!p->saved_none[i] && !(t = dl_node_saved (DL_NODE (self), &p->saved[i], error)))
        return NULL;
      g_ptr_array_add (result, t ? g_object_ref (t) : NULL);
    }
  return g_steal_pointer (&result);
}

/**
 * dl_function_needs_input_grad:
 * @self: a #DlFunction
 * @input: the index of an input of dl_function_apply()
 *
 * Whether the gradient of an input is needed, as
 * `ctx.needs_input_grad[input]`: backward may skip computing the others.
 * Known from the start of forward.
 *
 * Returns: %TRUE when the input requires grad and the call is recorded
 *
 * Since: 0.1
 */
gboolean
dl_function_needs_input_grad (DlFunction *self, guint input)
{
  g_return_val_if_fail (DL_IS_FUNCTION (self), FALSE);
  return dl_node_needs_input_grad (DL_NODE (self), input);
}

/**
 * dl_function_mark_dirty:
 * @self: a #DlFunction
 * @tensors: (array length=n_tensors): the inputs forward modified in place
 * @n_tensors: the number of tensors
 *
 * Declares, in forward, that forward changed these inputs in place, as
 * `ctx.mark_dirty` does. forward must return them as outputs: each keeps
 * its identity, and its history (or its base's, for a view) is rebased
 * onto the function, as an in-place op's is. A leaf that requires grad
 * cannot be changed in place: apply then fails.
 *
 * Since: 0.1
 */
void
dl_function_mark_dirty (DlFunction *self, DlTensor **tensors, gsize n_tensors)
{
  g_return_if_fail (DL_IS_FUNCTION (self));
  g_return_if_fail (n_tensors == 0 || tensors != NULL);
  for (gsize i = 0; i < n_tensors; i++)
    g_return_if_fail (DL_IS_TENSOR (tensors[i]));
  add_pending (&((DlFunctionPrivate *)dl_function_get_instance_private (self))->dirty, tensors,
               n_tensors);
}

/**
 * dl_function_mark_non_differentiable:
 * @self: a #DlFunction
 * @tensors: (array length=n_tensors): outputs that have no gradient
 * @n_tensors: the number of tensors
 *
 * Declares, in forward, outputs that are not differentiable (indices,
 * masks), as `ctx.mark_non_differentiable` does: they do not require
 * grad, and backward gets a zero gradient for them.
 *
 * Since: 0.1
 */
void
dl_function_mark_non_differentiable (DlFunction *self, DlTensor **tensors, gsize n_tensors)
{
  g_return_if_fail (DL_IS_FUNCTION (self));
  g_return_if_fail (n_tensors == 0 || tensors != NULL);
  for (gsize i = 0; i < n_tensors; i++)
    g_return_if_fail (DL_IS_TENSOR (tensors[i]));
  add_pending (
      &((DlFunctionPrivate *)dl_function_get_instance_private (self))->non_differentiable,
      tensors, n_tensors);
}

/**
 * dl_function_set_materialize_grads:
 * @self: a #DlFunction
 * @materialize: whether backward gets zeros for missing gradients
 *
 * Whether the outputs that got no gradient in the backward pass reach
 * backward as zero tensors of their shape (the default) or as %NULL, as
 * `ctx.set_materialize_grads` sets it.
 *
 * Since: 0.1
 */
void
dl_function_set_materialize_grads (DlFunction *self, gboolean materialize)
{
  g_return_if_fail (DL_IS_FUNCTION (self));
  ((DlFunctionPrivate *)dl_function_get_instance_private (self))->materialize_grads
      = !!materialize;
}

/**
 * dl_function_get_materialize_grads:
 * @self: a #DlFunction
 *
 * Says whether the backward of the function gets a tensor of zeros for each
 * output that received no gradient (%TRUE, the default, as
 * `ctx.set_materialize_grads (True)` in PyTorch) or %NULL.
 *
 * Returns: whether backward gets zeros for the outputs that got no
 *   gradient; see dl_function_set_materialize_grads()
 *
 * Since: 0.1
 */
gboolean
dl_function_get_materialize_grads (DlFunction *self)
{
  g_return_val_if_fail (DL_IS_FUNCTION (self), FALSE);
  return ((DlFunctionPrivate *)dl_function_get_instance_private (self))->materialize_grads;
}

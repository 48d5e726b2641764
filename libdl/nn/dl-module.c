/* dl-module.c: DlModule: named parameters and children, forward in its two
 * forms as virtual methods, train/eval, and construction checked through
 * GInitable.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "dl-module.h"
#include "dl-module-private.h"
#include "dl-error.h"
#include "ops/dl-ops-creation.h"
#include "dl-node.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "autograd/dl-autograd.h"
#include "dl-device-private.h"

/**
 * DlModule:
 *
 * The base class of every layer and model, as torch.nn.Module. A module
 * owns named parameters (tensors that require grad) and named child
 * modules, both kept in the order they were registered; dl_module_forward()
 * and dl_module_forward_many() run the subclass's forward.
 *
 * ## Construction
 *
 * The layers of libdl take their hyperparameters as construct properties,
 * so every language builds them the same way: `g_initable_new
 * (DL_TYPE_LINEAR, NULL, &error, "in-features", (gint64) 4, ...)` in C,
 * `new Dl.Linear({in_features: 4, out_features: 2})` in GJS,
 * `Dl.Linear(in_features=4, out_features=2)` in Python. The values are
 * checked when the object is constructed. A missing or invalid one does
 * not give a silently broken layer: the module keeps the error, and
 * g_initable_init(), dl_module_forward() and dl_module_forward_many() all
 * fail with it (naming the class and the property). Python's and GJS's
 * constructors, and Vala's `Object.new()`, do not call g_initable_init():
 * call `init (null)` after them to get the error at once, or use the `_new`
 * functions (C, and the other languages through them), which do.
 *
 * DlModule implements #GInitable for its subclasses; one written in
 * another language needs nothing for it.
 *
 * ## Forward
 *
 * A subclass overrides one of two virtual methods. #DlModuleClass.forward
 * takes one tensor and gives one, and is all most layers need.
 * #DlModuleClass.forward_many takes an array of tensors (an element may be
 * %NULL for an optional input left out) and gives an array, for modules
 * with several inputs or outputs: a loss takes (input, target), a
 * recurrent layer (input, h, c) and gives (output, h, c). The default of
 * each calls the other, so dl_module_forward() works on a module that
 * implements forward_many and takes one input and gives one output, and
 * dl_module_forward_many() works on every module with one input.
 *
 * Since: 0.1
 */

typedef struct
{
  GPtrArray *param_names; /* gchar* */
  GPtrArray *params;      /* DlTensor* or NULL */
  GPtrArray *buffer_names;   /* gchar* */
  GPtrArray *buffers;        /* DlTensor* or NULL */
  GArray *buffer_persistent; /* gboolean: in the state dict */
  GPtrArray *child_names; /* gchar* */
  GPtrArray *children;    /* DlModule* */
  gboolean training;
  GError *construct_error;
  GPtrArray *hooks; /* HookEntry* (rc boxes), in registration order */
} DlModulePrivate;

/* a forward (pre-)hook; a running forward holds a reference to each entry
 * it calls, so that a hook may remove itself (or another) while it runs */
typedef struct
{
  guint id;
  gboolean post;
  gpointer func;
  gpointer data;
  GDestroyNotify destroy;
} HookEntry;

static void
hook_entry_clear (gpointer p)
{
  HookEntry *e = p;

  if (e->destroy)
    e->destroy (e->data);
}

static void
hook_entry_release (gpointer p)
{
  g_rc_box_release_full (p, hook_entry_clear);
}

static void dl_module_initable_iface_init (GInitableIface *iface);
static void mark_parameter (DlTensor *t);

G_DEFINE_TYPE_WITH_CODE (DlModule,
                         dl_module,
                         G_TYPE_OBJECT,
                         G_ADD_PRIVATE (DlModule)
                             G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, dl_module_initable_iface_init))

enum
{
  PROP_0,
  PROP_TRAINING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
unref_if_set (gpointer object)
{
  if (object)
    g_object_unref (object);
}

static void
dl_module_dispose (GObject *object)
{
  DlModulePrivate *priv = dl_module_get_instance_private (DL_MODULE (object));

  g_clear_pointer (&priv->params, g_ptr_array_unref);
  g_clear_pointer (&priv->buffers, g_ptr_array_unref);
  g_clear_pointer (&priv->children, g_ptr_array_unref);
  g_clear_pointer (&priv->hooks, g_ptr_array_unref);
  G_OBJECT_CLASS (dl_module_parent_class)->dispose (object);
}

static void
dl_module_finalize (GObject *object)
{
  DlModulePrivate *priv = dl_module_get_instance_private (DL_MODULE (object));

  g_ptr_array_unref (priv->param_names);
  g_ptr_array_unref (priv->buffer_names);
  g_array_unref (priv->buffer_persistent);
  g_ptr_array_unref (priv->child_names);
  g_clear_error (&priv->construct_error);
  G_OBJECT_CLASS (dl_module_parent_class)->finalize (object);
}

static void
dl_module_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_TRAINING:
        g_value_set_boolean (value, dl_module_get_training (DL_MODULE (object)));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_module_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_TRAINING:
        {
          DlModulePrivate *priv = dl_module_get_instance_private (DL_MODULE (object));
          gboolean training = g_value_get_boolean (value);

          if (priv->training != training)
            {
              priv->training = training;
              g_object_notify_by_pspec (object, pspec);
            }
          break;
        }
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

void
dl_module_take_construct_error (DlModule *self, GError *error)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  if (priv->construct_error == NULL)
    priv->construct_error = error;
  else
    g_error_free (error);
}

gboolean
dl_module_check_constructed (DlModule *self, GError **error)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  if (priv->construct_error)
    {
      g_propagate_error (error, g_error_copy (priv->construct_error));
      return FALSE;
    }
  return TRUE;
}

static gboolean
dl_module_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  return dl_module_check_constructed (DL_MODULE (initable), error);
}

static void
dl_module_initable_iface_init (GInitableIface *iface)
{
  iface->init = dl_module_initable_init;
}

static DlTensor *dl_module_real_forward (DlModule *self, DlTensor *input, GError **error);
static void dl_module_real_forward_many (DlModule *self,
                                         GPtrArray *inputs,
                                         GPtrArray **outputs,
                                         GError **error);

static void
set_neither_error (DlModule *self, const gchar *op, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "%s: module of type %s implements neither forward nor forward_many", op,
               G_OBJECT_TYPE_NAME (self));
}

/* The subclass's forward, its result checked: a binding's override that
 * raised something other than a GError returns NULL and no error. */
static DlTensor *
call_forward (DlModule *self, DlTensor *input, GError **error)
{
  GError *local = NULL;
  DlTensor *out = DL_MODULE_GET_CLASS (self)->forward (self, input, &local);

  if (local)
    {
      g_clear_object (&out);
      g_propagate_error (error, local);
      return NULL;
    }
  if (out == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "forward: %s.forward returned no tensor",
                   G_OBJECT_TYPE_NAME (self));
      return NULL;
    }
  if (!DL_IS_TENSOR (out))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "forward: %s.forward returned a %s, not a tensor", G_OBJECT_TYPE_NAME (self),
                   G_OBJECT_TYPE_NAME (out));
      g_object_unref (out);
      return NULL;
    }
  return out;
}

/* The subclass's forward_many, its result checked likewise. The vfunc
 * hands over the array and its elements (transfer full); whoever built it
 * (C, or a binding, which sets no free function), the array returned owns
 * its elements through its free function. */
static GPtrArray *
call_forward_many (DlModule *self, GPtrArray *inputs, GError **error)
{
  GError *local = NULL;
  g_autoptr (GPtrArray) out = NULL;

  DL_MODULE_GET_CLASS (self)->forward_many (self, inputs, &out, &local);
  if (out)
    g_ptr_array_set_free_func (out, unref_if_set);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (out == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "forward_many: %s.forward_many returned no outputs", G_OBJECT_TYPE_NAME (self));
      return NULL;
    }
  for (guint i = 0; i < out->len; i++)
    {
      gpointer t = g_ptr_array_index (out, i);

      if (t != NULL && !DL_IS_TENSOR (t))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                       "forward_many: %s.forward_many returned a %s as output %u, not a tensor",
                       G_OBJECT_TYPE_NAME (self), G_OBJECT_TYPE_NAME (t), i);
          return NULL;
        }
    }
  return g_steal_pointer (&out);
}

/* forward of a module that implements forward_many: its one input, and
 * the one output it must give */
static DlTensor *
dl_module_real_forward (DlModule *self, DlTensor *input, GError **error)
{
  g_autoptr (GPtrArray) inputs = NULL;
  g_autoptr (GPtrArray) outputs = NULL;

  if (DL_MODULE_GET_CLASS (self)->forward_many == dl_module_real_forward_many)
    {
      set_neither_error (self, "forward", error);
      return NULL;
    }
  inputs = g_ptr_array_new ();
  g_ptr_array_add (inputs, input);
  if (!(outputs = call_forward_many (self, inputs, error)))
    return NULL;
  if (outputs->len != 1 || g_ptr_array_index (outputs, 0) == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "forward: %s gave %u outputs, not one tensor; call forward_many to get them",
                   G_OBJECT_TYPE_NAME (self), outputs->len);
      return NULL;
    }
  return g_object_ref (g_ptr_array_index (outputs, 0));
}

/* forward_many of a module that implements forward: exactly one input */
static void
dl_module_real_forward_many (DlModule *self, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  DlTensor *out;

  if (DL_MODULE_GET_CLASS (self)->forward == dl_module_real_forward)
    {
      set_neither_error (self, "forward_many", error);
      return;
    }
  if (inputs->len != 1 || g_ptr_array_index (inputs, 0) == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "forward_many: %s takes one input tensor, got %u inputs",
                   G_OBJECT_TYPE_NAME (self), inputs->len);
      return;
    }
  if (!(out = call_forward (self, g_ptr_array_index (inputs, 0), error)))
    return;
  *outputs = g_ptr_array_new (); /* the invoker adds the free function */
  g_ptr_array_add (*outputs, out);
}

static gchar *
dl_module_real_extra_repr (DlModule *self)
{
  return g_strdup ("");
}

static void
dl_module_class_init (DlModuleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = dl_module_dispose;
  object_class->finalize = dl_module_finalize;
  object_class->get_property = dl_module_get_property;
  object_class->set_property = dl_module_set_property;
  klass->forward = dl_module_real_forward;
  klass->forward_many = dl_module_real_forward_many;
  klass->extra_repr = dl_module_real_extra_repr;

  /**
   * DlModule:training:
   *
   * Whether the module is in training mode (as opposed to evaluation).
   * Setting the property sets this module's mode only, as assigning
   * torch's `module.training`; dl_module_set_training() sets the
   * descendants' too, as `train()`.
   *
   * Since: 0.1
   */
  properties[PROP_TRAINING]
      = g_param_spec_boolean ("training", NULL, NULL, TRUE,
                              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_module_init (DlModule *self)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  priv->param_names = g_ptr_array_new_with_free_func (g_free);
  priv->params = g_ptr_array_new_with_free_func (unref_if_set);
  priv->buffer_names = g_ptr_array_new_with_free_func (g_free);
  priv->buffers = g_ptr_array_new_with_free_func (unref_if_set);
  priv->buffer_persistent = g_array_new (FALSE, FALSE, sizeof (gboolean));
  priv->child_names = g_ptr_array_new_with_free_func (g_free);
  priv->children = g_ptr_array_new_with_free_func (g_object_unref);
  priv->training = TRUE;
  priv->hooks = g_ptr_array_new_with_free_func (hook_entry_release);
}

static inline gboolean
has_hooks (DlModule *self)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  return priv->hooks != NULL && priv->hooks->len > 0;
}

/* A hook's result: @result replaces *@arr unless NULL; a hook that failed
 * (or a binding's that raised something else, which gives NULL and no
 * error) stops the forward. */
static gboolean
take_hook_result (DlModule *self,
                  const gchar *what,
                  GPtrArray *result,
                  GError *local,
                  GPtrArray **arr,
                  GError **error)
{
  if (result)
    g_ptr_array_set_free_func (result, unref_if_set);
  if (local)
    {
      if (result)
        g_ptr_array_unref (result);
      g_propagate_error (error, local);
      return FALSE;
    }
  if (result == NULL || result->len == 0) /* GJS gives [] for null */
    {
      if (result)
        g_ptr_array_unref (result);
      return TRUE;
    }
  for (guint i = 0; i < result->len; i++)
    {
      gpointer t = g_ptr_array_index (result, i);

      if (t != NULL && !DL_IS_TENSOR (t))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                       "forward: a %s of %s returned a %s as element %u, not a tensor", what,
                       G_OBJECT_TYPE_NAME (self), G_OBJECT_TYPE_NAME (t), i);
          g_ptr_array_unref (result);
          return FALSE;
        }
    }
  g_ptr_array_unref (*arr);
  *arr = result;
  return TRUE;
}

/* the entries of @post kind, each referenced, in order */
static GPtrArray *
hooks_snapshot (DlModule *self, gboolean post)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);
  GPtrArray *out = g_ptr_array_new_with_free_func (hook_entry_release);

  for (guint i = 0; i < priv->hooks->len; i++)
    {
      HookEntry *e = g_ptr_array_index (priv->hooks, i);

      if (e->post == post)
        g_ptr_array_add (out, g_rc_box_acquire (e));
    }
  return out;
}

/* runs the pre-hooks on @inputs (replaced as they say), the forward, and
 * the hooks on its outputs: what dl_module_forward_many() does when the
 * module has hooks */
static GPtrArray *
run_with_hooks (DlModule *self, GPtrArray *inputs_in, gboolean one_output, GError **error)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (unref_if_set);
  g_autoptr (GPtrArray) outputs = NULL;
  g_autoptr (GPtrArray) pre = hooks_snapshot (self, FALSE);
  g_autoptr (GPtrArray) post = hooks_snapshot (self, TRUE);

  for (guint i = 0; i < inputs_in->len; i++)
    g_ptr_array_add (inputs, g_ptr_array_index (inputs_in, i)
                                 ? g_object_ref (g_ptr_array_index (inputs_in, i))
                                 : NULL);
  for (guint i = 0; i < pre->len; i++)
    {
      HookEntry *e = g_ptr_array_index (pre, i);
      GError *local = NULL;
      GPtrArray *r;

      if (e->func == NULL) /* removed meanwhile */
        continue;
      r = ((DlModuleForwardPreHook)e->func) (self, inputs, e->data, &local);
      if (!take_hook_result (self, "forward pre-hook", r, local, &inputs, error))
        return NULL;
    }
  if (one_output && inputs->len == 1 && g_ptr_array_index (inputs, 0) != NULL)
    {
      DlTensor *out = call_forward (self, g_ptr_array_index (inputs, 0), error);

      if (out == NULL)
        return NULL;
      outputs = g_ptr_array_new_with_free_func (unref_if_set);
      g_ptr_array_add (outputs, out);
    }
  else if (!(outputs = call_forward_many (self, inputs, error)))
    return NULL;
  for (guint i = 0; i < post->len; i++)
    {
      HookEntry *e = g_ptr_array_index (post, i);
      GError *local = NULL;
      GPtrArray *r;

      if (e->func == NULL)
        continue;
      r = ((DlModuleForwardHook)e->func) (self, inputs, outputs, e->data, &local);
      if (!take_hook_result (self, "forward hook", r, local, &outputs, error))
        return NULL;
    }
  return g_steal_pointer (&outputs);
}

static DlTensor *
forward_with_hooks (DlModule *self, DlTensor *input, GError **error)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr (GPtrArray) outputs = NULL;

  g_ptr_array_add (inputs, input);
  if (!(outputs = run_with_hooks (self, inputs, TRUE, error)))
    return NULL;
  if (outputs->len != 1 || g_ptr_array_index (outputs, 0) == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "forward: %s gave %u outputs, not one tensor; call forward_many to get them",
                   G_OBJECT_TYPE_NAME (self), outputs->len);
      return NULL;
    }
  return g_object_ref (g_ptr_array_index (outputs, 0));
}

static GPtrArray *
forward_many_with_hooks (DlModule *self, GPtrArray *inputs, GError **error)
{
  return run_with_hooks (self, inputs, FALSE, error);
}

/**
 * dl_module_forward: (virtual forward)
 * @self: a #DlModule
 * @input: the input tensor
 * @error: return location for a #GError
 *
 * Runs the module on one input and gives its one output. On a module that
 * implements only #DlModuleClass.forward_many, this passes @input as its
 * only input and fails unless the module gives exactly one output.
 *
 * Returns: (transfer full): the output, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_module_forward (DlModule *self, DlTensor *input, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  if (!dl_module_check_constructed (self, error))
    return NULL;
  if (G_LIKELY (!has_hooks (self)))
    return call_forward (self, input, error);
  return forward_with_hooks (self, input, error);
}

/**
 * DlModuleClass::forward_many:
 * @self: a #DlModule
 * @inputs: (element-type DlTensor): the input tensors; an element may be
 *   %NULL for an optional input left out
 * @outputs: (out) (transfer full) (element-type DlTensor): return location
 *   for the outputs: a new array holding a reference to each output (in C,
 *   one made with `g_ptr_array_new_with_free_func (g_object_unref)`)
 * @error: return location for a #GError
 *
 * The general form of forward, for modules with several inputs or
 * outputs; see dl_module_forward_many(), which calls it. On failure it
 * sets @error and leaves @outputs unset.
 *
 * The outputs come back through a parameter rather than as the return
 * value so that an override hands its new tensors over (transfer full)
 * while dl_module_forward_many() gives callers an array that frees its
 * elements (transfer container): one annotation for both would either
 * free a binding's tensors before C sees them or unref them twice.
 *
 * Since: 0.1
 */

/**
 * dl_module_forward_many:
 * @self: a #DlModule
 * @inputs: (element-type DlTensor): the input tensors, in the order the
 *   module documents; an element may be %NULL for an optional input left
 *   out (GJS cannot pass null array elements: leave optional inputs out
 *   at the end instead)
 * @error: return location for a #GError
 *
 * Runs the module on several inputs and gives its outputs, the general
 * form of dl_module_forward(): a loss takes (input, target), a recurrent
 * layer (input, h, c). On a module that implements only
 * #DlModuleClass.forward, this takes exactly one input and gives one
 * output.
 *
 * Returns: (transfer container) (element-type DlTensor): the outputs, in
 *   an array that holds a reference to each and drops them when freed (an
 *   element may be %NULL for an output the module does not give), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
GPtrArray *
dl_module_forward_many (DlModule *self, GPtrArray *inputs, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  g_return_val_if_fail (inputs != NULL, NULL);
  for (guint i = 0; i < inputs->len; i++)
    g_return_val_if_fail (g_ptr_array_index (inputs, i) == NULL
                              || DL_IS_TENSOR (g_ptr_array_index (inputs, i)),
                          NULL);
  if (!dl_module_check_constructed (self, error))
    return NULL;
  if (G_LIKELY (!has_hooks (self)))
    return call_forward_many (self, inputs, error);
  return forward_many_with_hooks (self, inputs, error);
}

static gint
find_name (GPtrArray *names, const gchar *name)
{
  for (guint i = 0; i < names->len; i++)
    if (g_str_equal (g_ptr_array_index (names, i), name))
      return i;
  return -1;
}

/**
 * dl_module_register_parameter:
 * @self: a #DlModule
 * @name: the parameter's name, unique within the module
 * @param: (nullable): the parameter; %NULL registers an absent one
 *
 * Adds a parameter or replaces the one of that name. The module keeps a
 * reference; the tensor is what dl_module_parameters() hands optimizers.
 *
 * Since: 0.1
 */
void
dl_module_register_parameter (DlModule *self, const gchar *name, DlTensor *param)
{
  DlModulePrivate *priv;
  gint i;

  g_return_if_fail (DL_IS_MODULE (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (param == NULL || DL_IS_TENSOR (param));
  priv = dl_module_get_instance_private (self);
  mark_parameter (param);
  i = find_name (priv->param_names, name);
  if (i >= 0)
    {
      if (g_ptr_array_index (priv->params, i))
        g_object_unref (g_ptr_array_index (priv->params, i));
      g_ptr_array_index (priv->params, i) = param ? g_object_ref (param) : NULL;
      return;
    }
  g_ptr_array_add (priv->param_names, g_strdup (name));
  g_ptr_array_add (priv->params, param ? g_object_ref (param) : NULL);
}

/**
 * dl_module_register_module:
 * @self: a #DlModule
 * @name: the child's name, unique within the module
 * @child: the child module
 *
 * Adds a child module or replaces the one of that name; its parameters
 * become part of @self's.
 *
 * Since: 0.1
 */
void
dl_module_register_module (DlModule *self, const gchar *name, DlModule *child)
{
  DlModulePrivate *priv;
  gint i;

  g_return_if_fail (DL_IS_MODULE (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (DL_IS_MODULE (child));
  g_return_if_fail (child != self);
  priv = dl_module_get_instance_private (self);
  i = find_name (priv->child_names, name);
  if (i >= 0)
    {
      g_object_unref (g_ptr_array_index (priv->children, i));
      g_ptr_array_index (priv->children, i) = g_object_ref (child);
      return;
    }
  g_ptr_array_add (priv->child_names, g_strdup (name));
  g_ptr_array_add (priv->children, g_object_ref (child));
}

/**
 * dl_module_get_parameter:
 * @self: a #DlModule
 * @name: a parameter name of this module (not dotted)
 *
 * Returns: (transfer none) (nullable): the parameter, or %NULL
 *
 * Since: 0.1
 */
DlTensor *
dl_module_get_parameter (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_get_instance_private (self);
  i = find_name (priv->param_names, name);
  return i >= 0 ? g_ptr_array_index (priv->params, i) : NULL;
}

/**
 * dl_module_get_module:
 * @self: a #DlModule
 * @name: a child name of this module (not dotted)
 *
 * Returns: (transfer none) (nullable): the child, or %NULL
 *
 * Since: 0.1
 */
DlModule *
dl_module_get_module (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_get_instance_private (self);
  i = find_name (priv->child_names, name);
  return i >= 0 ? g_ptr_array_index (priv->children, i) : NULL;
}

/* Walks parameters depth-first, own before children's, as PyTorch does;
 * a tensor shared by two modules is listed once. */
/* The parameters (or, with @buffers, the buffers) of @self and its
 * descendants, each once, with their dotted names */
static void
collect_tensors (DlModule *self,
                 gboolean buffers,
                 const gchar *prefix,
                 GPtrArray *names,
                 GPtrArray *params,
                 GHashTable *seen)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);
  GPtrArray *own = buffers ? priv->buffers : priv->params;
  GPtrArray *own_names = buffers ? priv->buffer_names : priv->param_names;

  for (guint i = 0; i < own->len; i++)
    {
      DlTensor *p = g_ptr_array_index (own, i);

      if (p == NULL || g_hash_table_contains (seen, p))
        continue;
      g_hash_table_add (seen, p);
      if (names)
        g_ptr_array_add (names, g_strconcat (prefix, g_ptr_array_index (own_names, i), NULL));
      if (params)
        g_ptr_array_add (params, g_object_ref (p));
    }
  for (guint i = 0; i < priv->children->len; i++)
    {
      g_autofree gchar *sub
          = g_strconcat (prefix, g_ptr_array_index (priv->child_names, i), ".", NULL);
      collect_tensors (g_ptr_array_index (priv->children, i), buffers, sub, names, params, seen);
    }
}

static void
collect_params (DlModule *self,
                const gchar *prefix,
                GPtrArray *names,
                GPtrArray *params,
                GHashTable *seen)
{
  collect_tensors (self, FALSE, prefix, names, params, seen);
}

/**
 * dl_module_parameters:
 * @self: a #DlModule
 *
 * Returns: (transfer container) (element-type DlTensor): the parameters of
 *   the module and its descendants, in registration order
 *
 * Since: 0.1
 */
GPtrArray *
dl_module_parameters (DlModule *self)
{
  GPtrArray *params = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (DL_IS_MODULE (self), params);
  collect_params (self, "", NULL, params, seen);
  return params;
}

/**
 * dl_module_parameter_names:
 * @self: a #DlModule
 *
 * Returns: (transfer full): the dotted names ("fc1.weight") of the
 *   parameters, in the order of dl_module_parameters()
 *
 * Since: 0.1
 */
GStrv
dl_module_parameter_names (DlModule *self)
{
  GPtrArray *names = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  collect_params (self, "", names, NULL, seen);
  g_ptr_array_add (names, NULL);
  return (GStrv)g_ptr_array_free (names, FALSE);
}

/**
 * dl_module_children:
 * @self: a #DlModule
 *
 * Returns: (transfer container) (element-type DlModule): the direct
 *   children, in registration order
 *
 * Since: 0.1
 */
GPtrArray *
dl_module_children (DlModule *self)
{
  DlModulePrivate *priv;
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_val_if_fail (DL_IS_MODULE (self), out);
  priv = dl_module_get_instance_private (self);
  for (guint i = 0; i < priv->children->len; i++)
    g_ptr_array_add (out, g_object_ref (g_ptr_array_index (priv->children, i)));
  return out;
}

/**
 * dl_module_children_names:
 * @self: a #DlModule
 *
 * Returns: (transfer full): the names of the direct children, in the order
 *   of dl_module_children()
 *
 * Since: 0.1
 */
GStrv
dl_module_children_names (DlModule *self)
{
  DlModulePrivate *priv;
  GStrvBuilder *b = g_strv_builder_new ();
  GStrv out;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_get_instance_private (self);
  for (guint i = 0; i < priv->child_names->len; i++)
    g_strv_builder_add (b, g_ptr_array_index (priv->child_names, i));
  out = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return out;
}

/**
 * dl_module_zero_grad:
 * @self: a #DlModule
 *
 * Clears the gradient of every parameter (sets it to none, as PyTorch 2's
 * default set_to_none=True; PyTorch 1.13's zeroes them in place: see
 * dl_module_zero_grad_full()).
 *
 * Since: 0.1
 */
void
dl_module_zero_grad (DlModule *self)
{
  g_autoptr (GPtrArray) params = NULL;

  g_return_if_fail (DL_IS_MODULE (self));
  params = dl_module_parameters (self);
  for (guint i = 0; i < params->len; i++)
    dl_tensor_set_grad (g_ptr_array_index (params, i), NULL, NULL);
}

/**
 * dl_module_set_training:
 * @self: a #DlModule
 * @training: %TRUE for training mode, %FALSE for evaluation
 *
 * Sets the mode of the module and all its descendants (train()/eval()).
 *
 * Since: 0.1
 */
void
dl_module_set_training (DlModule *self, gboolean training)
{
  DlModulePrivate *priv;

  g_return_if_fail (DL_IS_MODULE (self));
  priv = dl_module_get_instance_private (self);
  training = !!training;
  for (guint i = 0; i < priv->children->len; i++)
    dl_module_set_training (g_ptr_array_index (priv->children, i), training);
  if (priv->training != training)
    {
      priv->training = training;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRAINING]);
    }
}

/**
 * dl_module_get_training:
 * @self: a #DlModule
 *
 * Returns: whether the module is in training mode
 *
 * Since: 0.1
 */
gboolean
dl_module_get_training (DlModule *self)
{
  DlModulePrivate *priv;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  priv = dl_module_get_instance_private (self);
  return priv->training;
}

gboolean
dl_module_add_uniform_parameter (DlModule *self,
                                 const gchar *name,
                                 const gint64 *shape,
                                 gsize n_dims,
                                 gdouble bound,
                                 GError **error)
{
  g_autoptr (DlTensor) p = NULL;

  if (!(p = dl_empty (shape, n_dims, dl_get_default_dtype (), NULL, error))
      || !dl_tensor_uniform_ (p, -bound, bound, error)
      || !dl_tensor_set_requires_grad (p, TRUE, error))
    return FALSE;
  dl_module_register_parameter (self, name, p);
  return TRUE;
}

/* Every (dotted name, parameter) pair, own before children's; unlike
 * collect_params, a tensor registered under two names is listed under
 * both, as PyTorch's state_dict lists tied weights. */
static void
collect_state (DlModule *self, const gchar *prefix, GPtrArray *names, GPtrArray *params)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  for (guint i = 0; i < priv->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (priv->params, i);

      if (p == NULL)
        continue;
      g_ptr_array_add (names, g_strconcat (prefix, g_ptr_array_index (priv->param_names, i), NULL));
      g_ptr_array_add (params, p);
    }
  for (guint i = 0; i < priv->buffers->len; i++)
    {
      DlTensor *b = g_ptr_array_index (priv->buffers, i);

      if (b == NULL || !g_array_index (priv->buffer_persistent, gboolean, i))
        continue;
      g_ptr_array_add (names,
                       g_strconcat (prefix, g_ptr_array_index (priv->buffer_names, i), NULL));
      g_ptr_array_add (params, b);
    }
  for (guint i = 0; i < priv->children->len; i++)
    {
      g_autofree gchar *sub
          = g_strconcat (prefix, g_ptr_array_index (priv->child_names, i), ".", NULL);
      collect_state (g_ptr_array_index (priv->children, i), sub, names, params);
    }
}

/**
 * dl_module_state_dict:
 * @self: a #DlModule
 *
 * The module's state by dotted name ("fc1.weight"), as torch's
 * `state_dict()`: each parameter detached (sharing its memory, not
 * requiring grad), in the order of dl_module_parameters(); a parameter
 * registered under two names appears under both. Save it with
 * dl_safetensors_save(), or use dl_module_save_state().
 *
 * Returns: (transfer full): the state
 *
 * Since: 0.1
 */
DlTensorDict *
dl_module_state_dict (DlModule *self)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) params = g_ptr_array_new ();
  DlTensorDict *state;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  state = dl_tensor_dict_new ();
  collect_state (self, "", names, params);
  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr (DlTensor) t = dl_tensor_detach (g_ptr_array_index (params, i));

      dl_tensor_dict_insert (state, g_ptr_array_index (names, i), t);
    }
  return state;
}

static GStrv
steal_strv (GPtrArray *array)
{
  g_ptr_array_add (array, NULL);
  return (GStrv)g_ptr_array_free (array, FALSE);
}

static void
append_keys (GString *message, const gchar *what, GPtrArray *keys)
{
  if (keys->len == 0)
    return;
  g_string_append_printf (message, "\n\t%s key(s) in state_dict: ", what);
  for (guint i = 0; i < keys->len; i++)
    g_string_append_printf (message, "%s\"%s\"", i ? ", " : "",
                            (const gchar *)g_ptr_array_index (keys, i));
  g_string_append (message, ". ");
}

/**
 * dl_module_load_state_dict:
 * @self: a #DlModule
 * @state: the state, by dotted name, as dl_module_state_dict() gives it
 * @strict: whether the names of @state must be exactly the module's
 * @missing_keys: (out) (optional) (transfer full): the module's names that
 *   @state lacks
 * @unexpected_keys: (out) (optional) (transfer full): the names of @state
 *   the module has no parameter for
 * @error: return location for a #GError
 *
 * Copies the tensors of @state into the module's parameters, as torch's
 * `load_state_dict()`; values are converted to each parameter's dtype and
 * the copy is not recorded by autograd. Everything is checked before
 * anything is copied: a shape that differs from the parameter's, or with
 * @strict a missing or unexpected name, is a %DL_ERROR_ARGUMENT naming
 * them all, and the module is left as it was.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_load_state_dict (DlModule *self,
                           DlTensorDict *state,
                           gboolean strict,
                           GStrv *missing_keys,
                           GStrv *unexpected_keys,
                           GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) params = g_ptr_array_new ();
  g_autoptr (GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) unexpected = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) known = g_hash_table_new (g_str_hash, g_str_equal);
  g_auto (GStrv) state_names = NULL;
  g_autoptr (GString) mismatch = g_string_new (NULL);
  gboolean was_enabled, ok = TRUE;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (DL_IS_TENSOR_DICT (state), FALSE);
  collect_state (self, "", names, params);
  for (guint i = 0; i < names->len; i++)
    {
      const gchar *name = g_ptr_array_index (names, i);
      DlTensor *p = g_ptr_array_index (params, i), *src;
      gsize np, ns;
      const gint64 *sp, *ss;

      g_hash_table_add (known, (gpointer)name);
      src = dl_tensor_dict_lookup (state, name);
      if (src == NULL)
        {
          g_ptr_array_add (missing, g_strdup (name));
          continue;
        }
      sp = dl_tensor_get_shape (p, &np);
      ss = dl_tensor_get_shape (src, &ns);
      if (np != ns || (np && memcmp (sp, ss, np * sizeof (gint64)) != 0))
        {
          g_autofree gchar *a = dl_shape_to_string (ss, ns);
          g_autofree gchar *b = dl_shape_to_string (sp, np);

          g_string_append_printf (mismatch,
                                  "\n\tsize mismatch for %s: copying a param with shape %s "
                                  "from checkpoint, the shape in current model is %s.",
                                  name, a, b);
        }
    }
  state_names = dl_tensor_dict_get_names (state);
  for (gchar **n = state_names; *n; n++)
    if (!g_hash_table_contains (known, *n))
      g_ptr_array_add (unexpected, g_strdup (*n));

  if (mismatch->len || (strict && (missing->len || unexpected->len)))
    {
      g_autoptr (GString) message = g_string_new (NULL);

      g_string_append_printf (message,
                              "Error(s) in loading state_dict for %s:", G_OBJECT_TYPE_NAME (self));
      if (strict)
        {
          append_keys (message, "Missing", missing);
          append_keys (message, "Unexpected", unexpected);
        }
      g_string_append (message, mismatch->str);
      g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT, message->str);
      return FALSE;
    }

  was_enabled = dl_set_grad_enabled (FALSE);
  for (guint i = 0; i < names->len && ok; i++)
    {
      DlTensor *src = dl_tensor_dict_lookup (state, g_ptr_array_index (names, i));

      if (src != NULL && src != g_ptr_array_index (params, i))
        ok = dl_tensor_copy_ (g_ptr_array_index (params, i), src, error) != NULL;
    }
  dl_set_grad_enabled (was_enabled);
  if (!ok)
    return FALSE;
  if (missing_keys)
    *missing_keys = steal_strv (g_steal_pointer (&missing));
  if (unexpected_keys)
    *unexpected_keys = steal_strv (g_steal_pointer (&unexpected));
  return TRUE;
}

/**
 * dl_module_register_buffer:
 * @self: a #DlModule
 * @name: the buffer's name, unique among the module's buffers
 * @buffer: (nullable): the tensor (not a parameter: the optimizer does not
 *   see it), or %NULL for an absent one
 * @persistent: whether the buffer is part of the state dict
 *
 * Adds a buffer or replaces the one of that name, as torch's
 * `register_buffer`: state such as a batch norm's running statistics. The
 * module keeps a reference.
 *
 * Since: 0.1
 */
void
dl_module_register_buffer (DlModule *self, const gchar *name, DlTensor *buffer, gboolean persistent)
{
  DlModulePrivate *priv;
  gint i;

  g_return_if_fail (DL_IS_MODULE (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (buffer == NULL || DL_IS_TENSOR (buffer));
  priv = dl_module_get_instance_private (self);
  i = find_name (priv->buffer_names, name);
  if (buffer)
    g_object_ref (buffer);
  if (i >= 0)
    {
      unref_if_set (g_ptr_array_index (priv->buffers, i));
      g_ptr_array_index (priv->buffers, i) = buffer;
      g_array_index (priv->buffer_persistent, gboolean, i) = persistent;
      return;
    }
  g_ptr_array_add (priv->buffer_names, g_strdup (name));
  g_ptr_array_add (priv->buffers, buffer);
  g_array_append_val (priv->buffer_persistent, persistent);
}

/**
 * dl_module_get_buffer:
 * @self: a #DlModule
 * @name: a buffer's name
 *
 * Returns: (transfer none) (nullable): the module's own buffer @name, or
 *   %NULL when it has none of that name (or it is absent)
 *
 * Since: 0.1
 */
DlTensor *
dl_module_get_buffer (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  priv = dl_module_get_instance_private (self);
  i = find_name (priv->buffer_names, name);
  return i >= 0 ? g_ptr_array_index (priv->buffers, i) : NULL;
}

/**
 * dl_module_has_buffer:
 * @self: a #DlModule
 * @name: a name
 *
 * Returns: whether the module registered a buffer @name (possibly an
 *   absent one)
 *
 * Since: 0.1
 */
gboolean
dl_module_has_buffer (DlModule *self, const gchar *name)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  return find_name (((DlModulePrivate *)dl_module_get_instance_private (self))->buffer_names, name)
         >= 0;
}

/**
 * dl_module_buffers:
 * @self: a #DlModule
 *
 * Returns: (transfer container) (element-type DlTensor): the buffers of the
 *   module and its descendants, in registration order
 *
 * Since: 0.1
 */
GPtrArray *
dl_module_buffers (DlModule *self)
{
  GPtrArray *buffers = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (DL_IS_MODULE (self), buffers);
  collect_tensors (self, TRUE, "", NULL, buffers, seen);
  return buffers;
}

/**
 * dl_module_buffer_names:
 * @self: a #DlModule
 *
 * Returns: (transfer full): the dotted names ("bn1.running_mean") of the
 *   buffers, in the order of dl_module_buffers()
 *
 * Since: 0.1
 */
GStrv
dl_module_buffer_names (DlModule *self)
{
  GPtrArray *names = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  collect_tensors (self, TRUE, "", names, NULL, seen);
  g_ptr_array_add (names, NULL);
  return (GStrv)g_ptr_array_free (names, FALSE);
}

/* ---- names and registries ------------------------------------------------ */

static GQuark
parameter_quark (void)
{
  static GQuark q;

  if (G_UNLIKELY (q == 0))
    q = g_quark_from_static_string ("dl-module-parameter");
  return q;
}

static void
mark_parameter (DlTensor *t)
{
  if (t != NULL)
    g_object_set_qdata (G_OBJECT (t), parameter_quark (), GINT_TO_POINTER (1));
}

/**
 * dl_tensor_is_parameter:
 * @self: a #DlTensor
 *
 * Whether @self is a parameter, as `isinstance(t, torch.nn.Parameter)`: a
 * tensor made by dl_parameter_new() or registered in a module with
 * dl_module_register_parameter() or dl_module_add_parameter(). Detaching
 * or converting it gives a plain tensor, as in PyTorch.
 *
 * Returns: whether @self is a parameter
 *
 * Since: 0.1
 */
gboolean
dl_tensor_is_parameter (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  return g_object_get_qdata (G_OBJECT (self), parameter_quark ()) != NULL;
}

/**
 * dl_parameter_new:
 * @data: the values
 * @requires_grad: whether the parameter requires grad
 * @error: return location for a #GError
 *
 * A parameter sharing the storage of @data, as `torch.nn.Parameter(data,
 * requires_grad)`: a new leaf (detached from @data's history) marked as a
 * parameter (see dl_tensor_is_parameter()).
 *
 * Returns: (transfer full): the parameter, or %NULL with @error set (a
 *   parameter that requires grad must be of a floating-point dtype)
 *
 * Since: 0.1
 */
DlTensor *
dl_parameter_new (DlTensor *data, gboolean requires_grad, GError **error)
{
  g_autoptr (DlTensor) p = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (data), NULL);
  p = dl_tensor_detach (data);
  if (!dl_tensor_set_requires_grad (p, requires_grad, error))
    return NULL;
  mark_parameter (p);
  return g_steal_pointer (&p);
}

/* the kind of member @name is in @self: 'p', 'b', 'm' or 0 */
static gchar
member_kind (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  if (find_name (priv->param_names, name) >= 0)
    return 'p';
  if (find_name (priv->buffer_names, name) >= 0)
    return 'b';
  if (find_name (priv->child_names, name) >= 0)
    return 'm';
  return 0;
}

static gboolean
check_member_name (DlModule *self, const gchar *what, gchar kind, const gchar *name, GError **error)
{
  gchar other;

  if (name == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s.add_%s: %s name should be a string",
                   G_OBJECT_TYPE_NAME (self), what, what);
      return FALSE;
    }
  if (strchr (name, '.') != NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s name can't contain \".\"%s%s", what,
                   kind == 'm' ? ", got: " : "", kind == 'm' ? name : "");
      return FALSE;
    }
  if (*name == '\0')
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s name can't be empty string \"\"", what);
      return FALSE;
    }
  other = member_kind (self, name);
  if (other != 0 && other != kind)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "attribute '%s' already exists", name);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_module_add_parameter:
 * @self: a #DlModule
 * @name: the parameter's name: not empty, without a '.', not the name of
 *   a buffer or child of @self
 * @param: (nullable): the parameter; %NULL registers an absent one
 * @error: return location for a #GError
 *
 * dl_module_register_parameter() with the checks torch's
 * `register_parameter` makes: a bad name is a %DL_ERROR_ARGUMENT. @param
 * becomes a parameter (dl_tensor_is_parameter()). A name registered again
 * keeps its place in the order.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_add_parameter (DlModule *self, const gchar *name, DlTensor *param, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (param == NULL || DL_IS_TENSOR (param), FALSE);
  if (!check_member_name (self, "parameter", 'p', name, error))
    return FALSE;
  if (param != NULL && !dl_tensor_is_leaf (param))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Cannot assign non-leaf Tensor to parameter '%s'. Model parameters must be "
                   "created explicitly. To express '%s' as a function of another Tensor, compute "
                   "the value in the forward() method.",
                   name, name);
      return FALSE;
    }
  dl_module_register_parameter (self, name, param);
  return TRUE;
}

/**
 * dl_module_add_buffer:
 * @self: a #DlModule
 * @name: the buffer's name: not empty, without a '.', not the name of a
 *   parameter or child of @self
 * @buffer: (nullable): the tensor, or %NULL for an absent one
 * @persistent: whether the buffer is part of the state dict
 * @error: return location for a #GError
 *
 * dl_module_register_buffer() with the checks torch's `register_buffer`
 * makes: a bad name is a %DL_ERROR_ARGUMENT.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_add_buffer (DlModule *self,
                      const gchar *name,
                      DlTensor *buffer,
                      gboolean persistent,
                      GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (buffer == NULL || DL_IS_TENSOR (buffer), FALSE);
  if (!check_member_name (self, "buffer", 'b', name, error))
    return FALSE;
  dl_module_register_buffer (self, name, buffer, persistent);
  return TRUE;
}

/**
 * dl_module_add_module:
 * @self: a #DlModule
 * @name: the child's name: not empty, without a '.', not the name of a
 *   parameter or buffer of @self
 * @child: the child
 * @error: return location for a #GError
 *
 * dl_module_register_module() with the checks torch's `add_module` makes:
 * a bad name, or @child being @self, is a %DL_ERROR_ARGUMENT.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_add_module (DlModule *self, const gchar *name, DlModule *child, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (DL_IS_MODULE (child), FALSE);
  if (!check_member_name (self, "module", 'm', name, error))
    return FALSE;
  if (child == self)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "add_module: a %s cannot be its own child '%s'", G_OBJECT_TYPE_NAME (self),
                   name);
      return FALSE;
    }
  dl_module_register_module (self, name, child);
  return TRUE;
}

/**
 * dl_module_remove:
 * @self: a #DlModule
 * @name: the name of one of @self's own parameters, buffers or children
 *
 * Removes that member, as `del module.name` in PyTorch; registering the
 * name again puts it last.
 *
 * Returns: whether @self had a member @name
 *
 * Since: 0.1
 */
gboolean
dl_module_remove (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  if (name == NULL)
    return FALSE;
  priv = dl_module_get_instance_private (self);
  if ((i = find_name (priv->param_names, name)) >= 0)
    {
      g_ptr_array_remove_index (priv->param_names, i);
      g_ptr_array_remove_index (priv->params, i);
      return TRUE;
    }
  if ((i = find_name (priv->buffer_names, name)) >= 0)
    {
      g_ptr_array_remove_index (priv->buffer_names, i);
      g_ptr_array_remove_index (priv->buffers, i);
      g_array_remove_index (priv->buffer_persistent, i);
      return TRUE;
    }
  if ((i = find_name (priv->child_names, name)) >= 0)
    {
      g_ptr_array_remove_index (priv->child_names, i);
      g_ptr_array_remove_index (priv->children, i);
      return TRUE;
    }
  return FALSE;
}

/**
 * dl_module_has_parameter:
 * @self: a #DlModule
 * @name: a name
 *
 * Returns: whether @self registered a parameter @name of its own (possibly
 *   an absent one)
 *
 * Since: 0.1
 */
gboolean
dl_module_has_parameter (DlModule *self, const gchar *name)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  return name != NULL && member_kind (self, name) == 'p';
}

/**
 * dl_module_get_buffer_persistent:
 * @self: a #DlModule
 * @name: a buffer's name
 *
 * Returns: whether @self's own buffer @name is in the state dict (%FALSE
 *   when there is no such buffer)
 *
 * Since: 0.1
 */
gboolean
dl_module_get_buffer_persistent (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  if (name == NULL)
    return FALSE;
  priv = dl_module_get_instance_private (self);
  i = find_name (priv->buffer_names, name);
  return i >= 0 && g_array_index (priv->buffer_persistent, gboolean, i);
}

/* torch's named_modules: pre-order, self first with @prefix ("" for the
 * root), each module once with @remove_duplicate */
static void
walk_modules (DlModule *self,
              const gchar *prefix,
              gboolean remove_duplicate,
              GHashTable *memo,
              GPtrArray *names,
              GPtrArray *modules)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  if (g_hash_table_contains (memo, self))
    return;
  if (remove_duplicate)
    g_hash_table_add (memo, self);
  g_ptr_array_add (names, g_strdup (prefix));
  g_ptr_array_add (modules, g_object_ref (self));
  for (guint i = 0; i < priv->children->len; i++)
    {
      const gchar *name = g_ptr_array_index (priv->child_names, i);
      g_autofree gchar *sub = *prefix ? g_strconcat (prefix, ".", name, NULL) : g_strdup (name);

      walk_modules (g_ptr_array_index (priv->children, i), sub, remove_duplicate, memo, names,
                    modules);
    }
}

static GStrv
names_out (GPtrArray *names)
{
  g_ptr_array_set_free_func (names, NULL);
  g_ptr_array_add (names, NULL);
  return (GStrv)g_ptr_array_free (names, FALSE);
}

/**
 * dl_module_named_modules:
 * @self: a #DlModule
 * @remove_duplicate: whether a module reachable along two paths is listed
 *   once
 * @names: (out) (optional) (transfer full): return location for the
 *   dotted names ("" for @self, "features.0", ...)
 *
 * @self and its descendants, as torch's `named_modules()`: depth first,
 * each module before its children.
 *
 * Returns: (transfer container) (element-type DlModule): the modules
 *
 * Since: 0.1
 */
GPtrArray *
dl_module_named_modules (DlModule *self, gboolean remove_duplicate, GStrv *names)
{
  GPtrArray *modules = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) n = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) memo = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (DL_IS_MODULE (self), modules);
  walk_modules (self, "", remove_duplicate, memo, n, modules);
  if (names)
    *names = names_out (g_steal_pointer (&n));
  return modules;
}

/* torch's _named_members: the members of each module of named_modules()
 * (or of @self only), each tensor once */
static GPtrArray *
named_members (DlModule *self, gboolean buffers, gboolean recurse, GStrv *names_ret)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) mnames = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) modules = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GHashTable) memo = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  if (recurse)
    walk_modules (self, "", TRUE, memo, mnames, modules);
  else
    {
      g_ptr_array_add (mnames, g_strdup (""));
      g_ptr_array_add (modules, g_object_ref (self));
    }
  for (guint m = 0; m < modules->len; m++)
    {
      DlModulePrivate *priv = dl_module_get_instance_private (g_ptr_array_index (modules, m));
      GPtrArray *own = buffers ? priv->buffers : priv->params;
      GPtrArray *own_names = buffers ? priv->buffer_names : priv->param_names;
      const gchar *prefix = g_ptr_array_index (mnames, m);

      for (guint i = 0; i < own->len; i++)
        {
          DlTensor *t = g_ptr_array_index (own, i);

          if (t == NULL || g_hash_table_contains (seen, t))
            continue;
          g_hash_table_add (seen, t);
          g_ptr_array_add (out, g_object_ref (t));
          g_ptr_array_add (
              names, *prefix ? g_strconcat (prefix, ".", g_ptr_array_index (own_names, i), NULL)
                             : g_strdup (g_ptr_array_index (own_names, i)));
        }
    }
  if (names_ret)
    *names_ret = names_out (g_steal_pointer (&names));
  return out;
}

/**
 * dl_module_named_parameters:
 * @self: a #DlModule
 * @recurse: whether the parameters of the descendants are included
 * @names: (out) (optional) (transfer full): return location for their
 *   dotted names ("features.0.weight")
 *
 * The parameters, as torch's `named_parameters(recurse=)`: those of each
 * module of dl_module_named_modules() in turn, a tensor registered twice
 * listed once, absent ones left out.
 *
 * Returns: (transfer container) (element-type DlTensor): the parameters
 *
 * Since: 0.1
 */
GPtrArray *
dl_module_named_parameters (DlModule *self, gboolean recurse, GStrv *names)
{
  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  return named_members (self, FALSE, recurse, names);
}

/**
 * dl_module_named_buffers:
 * @self: a #DlModule
 * @recurse: whether the buffers of the descendants are included
 * @names: (out) (optional) (transfer full): return location for their
 *   dotted names ("bn1.running_mean")
 *
 * The buffers, as torch's `named_buffers(recurse=)`; see
 * dl_module_named_parameters().
 *
 * Returns: (transfer container) (element-type DlTensor): the buffers
 *
 * Since: 0.1
 */
GPtrArray *
dl_module_named_buffers (DlModule *self, gboolean recurse, GStrv *names)
{
  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  return named_members (self, TRUE, recurse, names);
}

/**
 * dl_module_apply:
 * @self: a #DlModule
 * @func: (scope call): the function
 * @user_data: (closure func): data for @func
 *
 * Calls @func on every child (recursively) and then on @self, as torch's
 * `apply` (used to initialise the weights of a model).
 *
 * Since: 0.1
 */
void
dl_module_apply (DlModule *self, DlModuleApplyFunc func, gpointer user_data)
{
  g_autoptr (GPtrArray) children = NULL;

  g_return_if_fail (DL_IS_MODULE (self));
  g_return_if_fail (func != NULL);
  children = dl_module_children (self);
  for (guint i = 0; i < children->len; i++)
    dl_module_apply (g_ptr_array_index (children, i), func, user_data);
  func (self, user_data);
}

/**
 * dl_module_requires_grad_:
 * @self: a #DlModule
 * @requires_grad: whether autograd records operations on the parameters
 * @error: return location for a #GError
 *
 * Sets requires_grad on every parameter, as torch's `requires_grad_()`
 * (to freeze a part of a model).
 *
 * Returns: %TRUE on success, %FALSE with @error set (a parameter of an
 *   integer dtype cannot require grad)
 *
 * Since: 0.1
 */
gboolean
dl_module_requires_grad_ (DlModule *self, gboolean requires_grad, GError **error)
{
  g_autoptr (GPtrArray) params = NULL;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  params = dl_module_parameters (self);
  for (guint i = 0; i < params->len; i++)
    if (!dl_tensor_set_requires_grad (g_ptr_array_index (params, i), requires_grad, error))
      return FALSE;
  return TRUE;
}

/**
 * dl_module_zero_grad_full:
 * @self: a #DlModule
 * @set_to_none: whether the gradients are dropped rather than zeroed
 * @error: return location for a #GError
 *
 * torch's `zero_grad(set_to_none)`: with @set_to_none every parameter's
 * gradient is dropped (as dl_module_zero_grad()); without it, each
 * gradient is detached from any history and filled with zeros in place
 * (PyTorch 1.13's default).
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_zero_grad_full (DlModule *self, gboolean set_to_none, GError **error)
{
  g_autoptr (GPtrArray) params = NULL;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  params = dl_module_parameters (self);
  for (guint i = 0; i < params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (params, i);
      DlTensor *g = dl_tensor_get_grad (p);

      if (g == NULL)
        continue;
      if (set_to_none)
        {
          if (!dl_tensor_set_grad (p, NULL, error))
            return FALSE;
          continue;
        }
      if (dl_tensor_get_grad_fn (g) != NULL)
        {
          if (!dl_tensor_detach_ (g, error))
            return FALSE;
        }
      else if (!dl_tensor_set_requires_grad (g, FALSE, error))
        return FALSE;
      if (!dl_tensor_zero_ (g, error))
        return FALSE;
    }
  return TRUE;
}

/* what torch's `param.data = new` does: @dst, keeping its identity (and
 * being a parameter, and its autograd state), takes @src's storage and
 * dtype; the shapes are the same */
static void
take_data (DlTensor *dst, DlTensor *src)
{
  DlStorage *old = dst->storage;

  dst->storage = dl_storage_ref (src->storage);
  dl_storage_unref (old);
  /* the new storage is its own: a parameter made from a view is one no
   * more */
  g_clear_object (&dst->base);
  dst->view_version = 0;
  dst->dtype = src->dtype;
  dst->offset = src->offset;
  for (gint d = 0; d < dst->ndim; d++)
    dst->strides[d] = src->strides[d];
}

typedef DlTensor *(*ConvertFunc) (DlTensor *t, gconstpointer data, GError **error);

/* torch's Module._apply: the children first, then each parameter in place
 * (its gradient too), then each buffer replaced; @convert returns a new
 * reference to the converted tensor (possibly @t itself) */
static gboolean
apply_convert (DlModule *self, ConvertFunc convert, gconstpointer data, GError **error)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);
  gboolean was_enabled;
  gboolean ok = TRUE;

  for (guint i = 0; i < priv->children->len; i++)
    if (!apply_convert (g_ptr_array_index (priv->children, i), convert, data, error))
      return FALSE;
  was_enabled = dl_set_grad_enabled (FALSE);
  for (guint i = 0; ok && i < priv->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (priv->params, i);
      g_autoptr (DlTensor) c = NULL;

      if (p == NULL)
        continue;
      if (!(c = convert (p, data, error)))
        ok = FALSE;
      else if (c != p)
        take_data (p, c);
      if (ok && p->grad != NULL)
        {
          g_autoptr (DlTensor) cg = convert (p->grad, data, error);

          if (cg == NULL)
            ok = FALSE;
          else if (cg != p->grad)
            take_data (p->grad, cg);
        }
    }
  for (guint i = 0; ok && i < priv->buffers->len; i++)
    {
      DlTensor *b = g_ptr_array_index (priv->buffers, i);
      DlTensor *c;

      if (b == NULL)
        continue;
      if (!(c = convert (b, data, error)))
        ok = FALSE;
      else
        {
          g_object_unref (b);
          g_ptr_array_index (priv->buffers, i) = c;
        }
    }
  dl_set_grad_enabled (was_enabled);
  return ok;
}

static DlTensor *
convert_floating (DlTensor *t, gconstpointer data, GError **error)
{
  DlDType dtype = *(const DlDType *)data;

  if (!dl_dtype_is_floating_point (dl_tensor_get_dtype (t)) || dl_tensor_get_dtype (t) == dtype)
    return g_object_ref (t);
  return dl_tensor_to_dtype (t, dtype, error);
}

static DlTensor *
convert_any (DlTensor *t, gconstpointer data, GError **error)
{
  DlDType dtype = *(const DlDType *)data;

  if (dl_tensor_get_dtype (t) == dtype)
    return g_object_ref (t);
  return dl_tensor_to_dtype (t, dtype, error);
}

/**
 * dl_module_to_dtype:
 * @self: a #DlModule
 * @dtype: a floating-point dtype
 * @error: return location for a #GError
 *
 * Converts the floating-point parameters and buffers of @self and its
 * descendants to @dtype, as torch's `to(dtype)`, `float()`, `double()`
 * and `half()`: each parameter keeps its identity (optimizers and other
 * holders see the new values), as do their gradients, converted too;
 * integer tensors are left alone.
 *
 * Returns: %TRUE on success, %FALSE with @error set (@dtype not a
 *   floating-point dtype)
 *
 * Since: 0.1
 */
gboolean
dl_module_to_dtype (DlModule *self, DlDType dtype, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  if (!dl_dtype_is_floating_point (dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                   "dtype=%s",
                   dl_dtype_get_name (dtype));
      return FALSE;
    }
  return apply_convert (self, convert_floating, &dtype, error);
}

/**
 * dl_module_cast:
 * @self: a #DlModule
 * @dtype: a dtype
 * @error: return location for a #GError
 *
 * Converts every parameter and buffer to @dtype, integer ones too, as
 * torch's `module.type(dst_type)`; parameters keep their identity as with
 * dl_module_to_dtype().
 *
 * Returns: %TRUE on success, %FALSE with @error set (a parameter that
 *   requires grad cannot become an integer tensor)
 *
 * Since: 0.1
 */
gboolean
dl_module_cast (DlModule *self, DlDType dtype, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  if (!dl_dtype_is_floating_point (dtype))
    {
      g_autoptr (GPtrArray) params = dl_module_parameters (self);

      for (guint i = 0; i < params->len; i++)
        if (dl_tensor_get_requires_grad (g_ptr_array_index (params, i)))
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "type: only Tensors of floating point dtype can require gradients "
                         "(converting a parameter of %s to %s)",
                         G_OBJECT_TYPE_NAME (self), dl_dtype_get_name (dtype));
            return FALSE;
          }
    }
  return apply_convert (self, convert_any, &dtype, error);
}

static DlTensor *
convert_device (DlTensor *t, gconstpointer data, GError **error)
{
  DlDevice *device = (DlDevice *)data;

  if (dl_device_equal (dl_tensor_get_device (t), device))
    return g_object_ref (t);
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "to: cannot move a tensor from %s to %s: this build of libdl has no copy between "
               "these devices",
               dl_device_get_name (dl_tensor_get_device (t)), dl_device_get_name (device));
  return NULL;
}

/**
 * dl_module_to_device:
 * @self: a #DlModule
 * @device: (nullable): the device; %NULL is the CPU
 * @error: return location for a #GError
 *
 * Moves the parameters and buffers of @self and its descendants to
 * @device, as torch's `to(device)` and `cpu()`, parameters keeping their
 * identity. Nothing is checked but moved: a module already on @device is
 * left as it is.
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_NOT_SUPPORTED
 *   for a device this build cannot copy to)
 *
 * Since: 0.1
 */
gboolean
dl_module_to_device (DlModule *self, DlDevice *device, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (device == NULL || DL_IS_DEVICE (device), FALSE);
  if (device == NULL)
    device = dl_device_cpu ();
  return apply_convert (self, convert_device, device, error);
}

/* ---- hooks ------------------------------------------------------------- */

static guint
add_hook (DlModule *self, gboolean post, gpointer func, gpointer data, GDestroyNotify destroy)
{
  static guint next_id = 1;
  DlModulePrivate *priv = dl_module_get_instance_private (self);
  HookEntry *e = g_rc_box_new0 (HookEntry);

  e->id = g_atomic_int_add (&next_id, 1);
  e->post = post;
  e->func = func;
  e->data = data;
  e->destroy = destroy;
  g_ptr_array_add (priv->hooks, e);
  return e->id;
}

/**
 * dl_module_register_forward_pre_hook:
 * @self: a #DlModule
 * @hook: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @hook
 * @destroy: (nullable): frees @user_data when the hook is removed or the
 *   module finalized
 *
 * Registers a hook that dl_module_forward() and dl_module_forward_many()
 * run, in registration order, before the module's forward, as torch's
 * `register_forward_pre_hook`. A hook that returns an array replaces the
 * inputs with it; one that fails stops the forward with its error.
 *
 * Returns: the hook's id (never 0), for dl_module_remove_hook()
 *
 * Since: 0.1
 */
guint
dl_module_register_forward_pre_hook (DlModule *self,
                                     DlModuleForwardPreHook hook,
                                     gpointer user_data,
                                     GDestroyNotify destroy)
{
  g_return_val_if_fail (DL_IS_MODULE (self), 0);
  g_return_val_if_fail (hook != NULL, 0);
  return add_hook (self, FALSE, hook, user_data, destroy);
}

/**
 * dl_module_register_forward_hook:
 * @self: a #DlModule
 * @hook: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @hook
 * @destroy: (nullable): frees @user_data when the hook is removed or the
 *   module finalized
 *
 * Registers a hook that dl_module_forward() and dl_module_forward_many()
 * run, in registration order, after the module's forward, on its inputs
 * and outputs, as torch's `register_forward_hook`. A hook that returns an
 * array replaces the outputs with it.
 *
 * Returns: the hook's id (never 0), for dl_module_remove_hook()
 *
 * Since: 0.1
 */
guint
dl_module_register_forward_hook (DlModule *self,
                                 DlModuleForwardHook hook,
                                 gpointer user_data,
                                 GDestroyNotify destroy)
{
  g_return_val_if_fail (DL_IS_MODULE (self), 0);
  g_return_val_if_fail (hook != NULL, 0);
  return add_hook (self, TRUE, hook, user_data, destroy);
}

/**
 * dl_module_remove_hook:
 * @self: a #DlModule
 * @id: what a dl_module_register_forward_hook() or
 *   dl_module_register_forward_pre_hook() of @self returned
 *
 * Removes the hook (its destroy notify is called once no running forward
 * uses it any more). Removing it again does nothing, as a torch
 * RemovableHandle's remove().
 *
 * Returns: whether @self had a hook @id
 *
 * Since: 0.1
 */
gboolean
dl_module_remove_hook (DlModule *self, guint id)
{
  DlModulePrivate *priv;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  priv = dl_module_get_instance_private (self);
  if (priv->hooks == NULL)
    return FALSE;
  for (guint i = 0; i < priv->hooks->len; i++)
    {
      HookEntry *e = g_ptr_array_index (priv->hooks, i);

      if (e->id == id)
        {
          e->func = NULL; /* a running forward's snapshot skips it */
          g_ptr_array_remove_index (priv->hooks, i);
          return TRUE;
        }
    }
  return FALSE;
}

/**
 * dl_module_get_n_hooks:
 * @self: a #DlModule
 *
 * Returns: how many forward hooks and pre-hooks @self has
 *
 * Since: 0.1
 */
guint
dl_module_get_n_hooks (DlModule *self)
{
  DlModulePrivate *priv;

  g_return_val_if_fail (DL_IS_MODULE (self), 0);
  priv = dl_module_get_instance_private (self);
  return priv->hooks ? priv->hooks->len : 0;
}

/* ---- printing ------------------------------------------------------------ */

/**
 * dl_module_extra_repr: (virtual extra_repr)
 * @self: a #DlModule
 *
 * The module's own settings as torch's `extra_repr()` gives them
 * ("in_features=4, out_features=2, bias=True"): what dl_module_to_string()
 * prints between the parentheses. The default is empty.
 *
 * Returns: (transfer full): the settings, possibly empty
 *
 * Since: 0.1
 */
gchar *
dl_module_extra_repr (DlModule *self)
{
  gchar *s;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  s = DL_MODULE_GET_CLASS (self)->extra_repr (self);
  return s ? s : g_strdup ("");
}

/* the class name as torch prints it: DlLinear -> Linear, DlRelu -> ReLU */
static const gchar *
printed_name (DlModule *self)
{
  static const gchar *const renamed[][2] = {
    { "DlRelu", "ReLU" },           { "DlLeakyRelu", "LeakyReLU" },
    { "DlGelu", "GELU" },           { "DlSilu", "SiLU" },
    { "DlMseLoss", "MSELoss" },     { "DlNllLoss", "NLLLoss" },
    { "DlBceLoss", "BCELoss" },     { "DlBceWithLogitsLoss", "BCEWithLogitsLoss" },
    { "DlKlDivLoss", "KLDivLoss" },
  };
  const gchar *name = G_OBJECT_TYPE_NAME (self);

  for (guint i = 0; i < G_N_ELEMENTS (renamed); i++)
    if (g_str_equal (name, renamed[i][0]))
      return renamed[i][1];
  return g_str_has_prefix (name, "Dl") && g_ascii_isupper (name[2]) ? name + 2 : name;
}

static void
append_indented (GString *out, const gchar *text)
{
  for (const gchar *c = text; *c; c++)
    {
      g_string_append_c (out, *c);
      if (*c == '\n')
        g_string_append (out, "  ");
    }
}

/**
 * dl_module_to_string:
 * @self: a #DlModule
 *
 * The module tree as torch prints a module: the class name, its
 * dl_module_extra_repr() and each child on an indented line `(name):
 * ...`.
 *
 * Returns: (transfer full): the printed form
 *
 * Since: 0.1
 */
gchar *
dl_module_to_string (DlModule *self)
{
  DlModulePrivate *priv;
  g_autofree gchar *extra = NULL;
  g_auto (GStrv) extra_lines = NULL;
  GString *out;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_get_instance_private (self);
  extra = dl_module_extra_repr (self);
  extra_lines = *extra ? g_strsplit (extra, "\n", -1) : g_new0 (gchar *, 1);
  out = g_string_new (printed_name (self));
  g_string_append_c (out, '(');
  if (g_strv_length (extra_lines) == 1 && priv->children->len == 0)
    g_string_append (out, extra_lines[0]);
  else if (extra_lines[0] != NULL || priv->children->len > 0)
    {
      for (gchar **l = extra_lines; *l; l++)
        g_string_append_printf (out, "\n  %s", *l);
      for (guint i = 0; i < priv->children->len; i++)
        {
          g_autofree gchar *child = dl_module_to_string (g_ptr_array_index (priv->children, i));

          g_string_append_printf (
              out, "\n  (%s): ", (const gchar *)g_ptr_array_index (priv->child_names, i));
          append_indented (out, child);
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

/**
 * dl_module_get_member_kind:
 * @self: a #DlModule
 * @name: a name
 *
 * Returns: (nullable): "parameter", "buffer" or "module" for the kind of
 *   @self's own member @name, or %NULL when it has none of that name
 *
 * Since: 0.1
 */
const gchar *
dl_module_get_member_kind (DlModule *self, const gchar *name)
{
  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  if (name == NULL)
    return NULL;
  switch (member_kind (self, name))
    {
      case 'p':
        return "parameter";
      case 'b':
        return "buffer";
      case 'm':
        return "module";
      default:
        return NULL;
    }
}

/**
 * dl_module_lookup:
 * @self: a #DlModule
 * @name: a name
 * @found: (out): return location for whether @self has a member @name
 *
 * @self's own parameter, buffer or child @name, in that order of search
 * (as torch's `__getattr__`).
 *
 * Returns: (transfer none) (nullable): the #DlTensor or #DlModule, or
 *   %NULL when there is none or it is absent
 *
 * Since: 0.1
 */
GObject *
dl_module_lookup (DlModule *self, const gchar *name, gboolean *found)
{
  DlModulePrivate *priv;
  gint i;

  *found = FALSE;
  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  if (name == NULL)
    return NULL;
  priv = dl_module_get_instance_private (self);
  *found = TRUE;
  if ((i = find_name (priv->param_names, name)) >= 0)
    return g_ptr_array_index (priv->params, i);
  if ((i = find_name (priv->buffer_names, name)) >= 0)
    return g_ptr_array_index (priv->buffers, i);
  if ((i = find_name (priv->child_names, name)) >= 0)
    return g_ptr_array_index (priv->children, i);
  *found = FALSE;
  return NULL;
}

/**
 * dl_module_get_own_names:
 * @self: a #DlModule
 *
 * Returns: (transfer full): the names of @self's own parameters, buffers
 *   and children, in that order
 *
 * Since: 0.1
 */
GStrv
dl_module_get_own_names (DlModule *self)
{
  DlModulePrivate *priv;
  GStrvBuilder *b;
  GStrv out;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_get_instance_private (self);
  b = g_strv_builder_new ();
  for (guint i = 0; i < priv->param_names->len; i++)
    g_strv_builder_add (b, g_ptr_array_index (priv->param_names, i));
  for (guint i = 0; i < priv->buffer_names->len; i++)
    g_strv_builder_add (b, g_ptr_array_index (priv->buffer_names, i));
  for (guint i = 0; i < priv->child_names->len; i++)
    g_strv_builder_add (b, g_ptr_array_index (priv->child_names, i));
  out = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return out;
}

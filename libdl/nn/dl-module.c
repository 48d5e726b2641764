/* dl-module.c: DlModule: named parameters, buffers and children, forward
 * in its two forms as virtual methods (with the hooks around it),
 * train/eval, and construction checked through GInitable. The rest of the
 * class is in dl-module-tree.c (checked registration, walks, conversions,
 * parameters), dl-module-state.c (state dicts), dl-module-hooks.c (hook
 * registration) and dl-module-print.c (torch's printed tree).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "dl-module.h"
#include "dl-module-private.h"
#include "dl-module-internal.h"
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
 * Two construct properties are every module's: #DlModule:dtype and
 * #DlModule:device, torch's factory arguments `dtype=` and `device=`.
 * The layers make their parameters and buffers in that dtype and on that
 * device (`"dtype", DL_DTYPE_FLOAT64` among the properties gives a float64
 * layer); left out, they are the default dtype and the calling thread's
 * default device at construction.
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

G_DEFINE_TYPE_WITH_CODE (DlModule,
                         dl_module,
                         G_TYPE_OBJECT,
                         G_ADD_PRIVATE (DlModule)
                             G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, dl_module_initable_iface_init))

DlModulePrivate *
dl_module_priv (DlModule *self)
{
  return dl_module_get_instance_private (self);
}

enum
{
  PROP_0,
  PROP_TRAINING,
  PROP_DTYPE,
  PROP_DEVICE,
  N_PROPS
};

/* #DlModule:dtype when it is not given: the default dtype at construction */
#define DTYPE_DEFAULT (-1)

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
  g_clear_pointer (&priv->parametrized, g_ptr_array_unref);
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
  g_clear_object (&priv->device);
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
      case PROP_DTYPE:
        g_value_set_int (value, dl_module_priv (DL_MODULE (object))->dtype);
        break;
      case PROP_DEVICE:
        g_value_set_object (value, dl_module_priv (DL_MODULE (object))->device);
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
      case PROP_DTYPE:
        dl_module_priv (DL_MODULE (object))->dtype = g_value_get_int (value);
        break;
      case PROP_DEVICE:
        g_set_object (&dl_module_priv (DL_MODULE (object))->device, g_value_get_object (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* Resolves #DlModule:dtype and #DlModule:device before the subclass's
 * constructed() makes its parameters: not given, the default dtype and
 * the calling thread's default device now; a value that is not a
 * floating dtype is the construction's error (torch refuses to make such
 * a parameter) and leaves the default dtype in its place. */
static void
dl_module_constructed (GObject *object)
{
  DlModule *self = DL_MODULE (object);
  DlModulePrivate *priv = dl_module_get_instance_private (self);
  gint given = priv->dtype;

  G_OBJECT_CLASS (dl_module_parent_class)->constructed (object);
  if (priv->device == NULL)
    priv->device = g_object_ref (dl_device_default ());
  priv->dtype = dl_get_default_dtype ();
  if (given == DTYPE_DEFAULT)
    return;
  if (given < DL_DTYPE_FLOAT32 || given > DL_DTYPE_BOOL)
    dl_module_take_construct_error (
        self, g_error_new (DL_ERROR, DL_ERROR_DTYPE,
                           "%s: dtype %d is not a DlDType (give -1 for the default dtype)",
                           G_OBJECT_TYPE_NAME (object), given));
  else if (!dl_dtype_is_floating_point ((DlDType)given))
    dl_module_take_construct_error (
        self, g_error_new (DL_ERROR, DL_ERROR_DTYPE,
                           "%s: dtype=%s: Only Tensors of floating point and complex dtype can "
                           "require gradients (a module's parameters and floating buffers are "
                           "made in its dtype)",
                           G_OBJECT_TYPE_NAME (object), dl_dtype_get_name ((DlDType)given)));
  else
    priv->dtype = given;
}

DlDevice *
dl_module_get_factory_device (DlModule *self)
{
  return dl_module_priv (self)->device;
}

DlDType
dl_module_get_factory_dtype (DlModule *self)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  return priv->dtype == DTYPE_DEFAULT ? dl_get_default_dtype () : (DlDType)priv->dtype;
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
  DlTensor *out;

  if (!dl_module_enter_parametrized (self, error))
    return NULL;
  out = DL_MODULE_GET_CLASS (self)->forward (self, input, &local);
  dl_module_leave_parametrized (self);

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

  if (!dl_module_enter_parametrized (self, error))
    return NULL;
  DL_MODULE_GET_CLASS (self)->forward_many (self, inputs, &out, &local);
  dl_module_leave_parametrized (self);
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
  object_class->constructed = dl_module_constructed;
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
  /**
   * DlModule:dtype:
   *
   * The #DlDType in which the module makes its floating parameters and
   * buffers, as the `dtype=` factory argument of torch's layers
   * (`nn.Linear (3, 4, dtype=torch.float64)`); integer buffers, such as
   * batch norm's "num_batches_tracked", keep their dtype. Not given (-1),
   * it is the default dtype (dl_get_default_dtype()) at construction, and
   * read back it is the dtype the module resolved then.
   *
   * The property is an integer rather than a #DlDType because GObject sets
   * every construct property, given or not, and an enum has no value for
   * "not given". A value that is not a floating #DlDType is the module's
   * construction error (%DL_ERROR_DTYPE, from g_initable_init(), the
   * `_new` functions and forward), as torch refuses to make a parameter of
   * an integer dtype. Layers that make no tensors ignore it; a layer made
   * of layers (#DlMultiheadAttention, the transformer layers) gives it to
   * its children.
   *
   * |[<!-- language="C" -->
   * g_autoptr (GError) error = NULL;
   * g_autoptr (DlLinear) fc = g_initable_new (DL_TYPE_LINEAR, NULL, &error,
   *                                           "in-features", (gint64) 3,
   *                                           "out-features", (gint64) 4,
   *                                           "dtype", DL_DTYPE_FLOAT64, NULL);
   * ]|
   *
   * gives a layer whose weight and bias are float64.
   *
   * Since: 0.1
   */
  properties[PROP_DTYPE]
      = g_param_spec_int ("dtype", NULL, NULL, G_MININT, G_MAXINT, DTYPE_DEFAULT,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                              | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlModule:device:
   *
   * The #DlDevice on which the module makes its parameters and buffers, as
   * the `device=` factory argument of torch's layers (`nn.Linear (3, 4,
   * device="meta")`: on the meta device, a layer without memory). Not
   * given (%NULL), it is the calling thread's default device at
   * construction (dl_set_default_device()); read back, it is the device
   * the module resolved then. It composes with #DlModule:dtype. A layer
   * made of layers gives it to its children. Moving the module later is
   * dl_module_to_device()'s work; the property keeps the device it was
   * built on.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE]
      = g_param_spec_object ("device", NULL, NULL, DL_TYPE_DEVICE,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                 | G_PARAM_EXPLICIT_NOTIFY);
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
  priv->dtype = DTYPE_DEFAULT;
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

gint
dl_module_find_name (GPtrArray *names, const gchar *name)
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
  dl_module_mark_parameter (param);
  i = dl_module_find_name (priv->param_names, name);
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
  i = dl_module_find_name (priv->child_names, name);
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
 * Gives the module's own parameter @name, as `module._parameters[name]`;
 * dotted names of descendants are not looked up. %NULL when there is no such
 * parameter or it was registered as %NULL.
 *
 * While a forward of the module runs, a tensor @name that
 * dl_module_register_parametrization() made computed is given instead:
 * the value its parametrization gave for this forward (so a layer's
 * forward reads a parametrized weight as it reads a plain one).
 *
 * Returns: (transfer none) (nullable): the parameter, or %NULL
 *
 * Since: 0.1
 */
DlTensor *
dl_module_get_parameter (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  DlTensor *value;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_get_instance_private (self);
  if (G_UNLIKELY (priv->parametrized_depth > 0)
      && (value = dl_module_parametrized_value (self, name)))
    return value;
  i = dl_module_find_name (priv->param_names, name);
  return i >= 0 ? g_ptr_array_index (priv->params, i) : NULL;
}

/**
 * dl_module_get_module:
 * @self: a #DlModule
 * @name: a child name of this module (not dotted)
 *
 * Gives the module's direct child @name, as `module._modules[name]`, or
 * %NULL when there is none.
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
  i = dl_module_find_name (priv->child_names, name);
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
 * Gives every parameter of the module and its descendants, each once, as
 * `list (module.parameters ())`: the list an optimizer takes.
 *
 * |[<!-- language="C" -->
 * g_autoptr (DlLinear) fc = dl_linear_new (784, 10, TRUE, NULL);
 * g_autoptr (GPtrArray) params = dl_module_parameters (DL_MODULE (fc));
 *
 * g_print ("%u parameters\n", params->len);
 * ]|
 *
 * prints "2 parameters", the layer's weight and bias. The array is new,
 * its tensors are the module's: free it with g_ptr_array_unref() and do
 * not unref the tensors.
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
 * Gives the dotted names of the parameters, such as "fc1.weight", in the
 * order of dl_module_parameters(), as the names of
 * `torch.nn.Module.named_parameters ()`. Free the array with g_strfreev().
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
 * Gives the module's direct child modules, as `list (module.children ())`;
 * dl_module_children_names() gives their names.
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
 * Gives the names of the direct children, in the order of
 * dl_module_children(), as the names of `torch.nn.Module.named_children ()`.
 * Free the array with g_strfreev().
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

/* sets the mode of @self's tree, notifying #DlModule:training of each
 * module whose mode changes when @notify */
static void
set_training (DlModule *self, gboolean training, gboolean notify)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  for (guint i = 0; i < priv->children->len; i++)
    set_training (g_ptr_array_index (priv->children, i), training, notify);
  if (priv->training != training)
    {
      priv->training = training;
      if (notify)
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRAINING]);
    }
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
  g_return_if_fail (DL_IS_MODULE (self));
  set_training (self, !!training, TRUE);
}

void
dl_module_set_training_quietly (DlModule *self, gboolean training)
{
  set_training (self, !!training, FALSE);
}

static void
collect_modes (DlModule *self, GArray *modes)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  g_array_append_val (modes, priv->training);
  for (guint i = 0; i < priv->children->len; i++)
    collect_modes (g_ptr_array_index (priv->children, i), modes);
}

GArray *
dl_module_get_modes (DlModule *self)
{
  GArray *modes = g_array_new (FALSE, FALSE, sizeof (gboolean));

  collect_modes (self, modes);
  return modes;
}

static void
restore_modes (DlModule *self, GArray *modes, guint *at)
{
  DlModulePrivate *priv = dl_module_get_instance_private (self);

  if (*at < modes->len)
    priv->training = g_array_index (modes, gboolean, *at);
  (*at)++;
  for (guint i = 0; i < priv->children->len; i++)
    restore_modes (g_ptr_array_index (priv->children, i), modes, at);
}

void
dl_module_set_modes_quietly (DlModule *self, GArray *modes)
{
  guint at = 0;

  restore_modes (self, modes, &at);
}

/**
 * dl_module_get_training:
 * @self: a #DlModule
 *
 * Says whether the module is in training mode, as
 * `torch.nn.Module.training`: %TRUE for a new module. Dropout and batch
 * normalisation behave differently in evaluation mode, which
 * dl_module_set_training() sets for a whole tree.
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
dl_module_check_size (const gchar *layer, const gchar *name, gint64 value, GError **error)
{
  if (value == -1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s is missing (or -1): give a size >= 0", layer, name);
      return FALSE;
    }
  if (value < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s must be a size >= 0, got %" G_GINT64_FORMAT, layer, name, value);
      return FALSE;
    }
  return TRUE;
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

  if (!(p = dl_empty (shape, n_dims, dl_module_get_factory_dtype (self),
                      dl_module_get_factory_device (self), error))
      || !dl_tensor_uniform_ (p, -bound, bound, error)
      || !dl_tensor_set_requires_grad (p, TRUE, error))
    return FALSE;
  dl_module_register_parameter (self, name, p);
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
  i = dl_module_find_name (priv->buffer_names, name);
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
 * Gives the module's own buffer @name (running statistics and other state
 * that is not trained), as `module._buffers[name]`. %NULL when there is no
 * such buffer or it was registered as %NULL. As dl_module_get_parameter(),
 * it gives a parametrized tensor @name instead while a forward of the
 * module runs.
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
  DlTensor *value;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  priv = dl_module_get_instance_private (self);
  if (G_UNLIKELY (priv->parametrized_depth > 0)
      && (value = dl_module_parametrized_value (self, name)))
    return value;
  i = dl_module_find_name (priv->buffer_names, name);
  return i >= 0 ? g_ptr_array_index (priv->buffers, i) : NULL;
}

/**
 * dl_module_has_buffer:
 * @self: a #DlModule
 * @name: a name
 *
 * Says whether the module itself registered a buffer named @name, as `name
 * in module._buffers`; a buffer registered as %NULL counts.
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
  return dl_module_find_name (
             ((DlModulePrivate *)dl_module_get_instance_private (self))->buffer_names, name)
         >= 0;
}

/**
 * dl_module_buffers:
 * @self: a #DlModule
 *
 * Gives every buffer of the module and its descendants, as `list
 * (module.buffers ())`: running means and variances and other state that is
 * saved but not trained. The array is new, the tensors are the modules'.
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
 * Gives the dotted names of the buffers, such as "bn1.running_mean", in the
 * order of dl_module_buffers(), as the names of
 * `torch.nn.Module.named_buffers ()`. Free the array with g_strfreev().
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

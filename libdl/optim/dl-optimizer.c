/* dl-optimizer.c: DlOptimizer: parameter groups with their options, the
 * per-parameter state, step as a virtual method, and construction
 * checked through GInitable.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <gio/gio.h>

#include "dl-optimizer.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-creation.h"
#include "dl-node.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlOptimizer:
 *
 * The base class of optimizers, as torch.optim.Optimizer: parameter
 * groups, each a list of tensors with its own hyperparameters (options),
 * the state kept per parameter, and dl_optimizer_step(), which applies the
 * subclass's update rule.
 *
 * Optimizers are built from construct properties: #DlOptimizer:params, a
 * #GListModel of the tensors to optimize (the first group),
 * #DlOptimizer:lr and the subclass's hyperparameters. In GJS:
 *
 * ```js
 * const params = new Gio.ListStore({item_type: Dl.Tensor});
 * params.splice(0, 0, net.parameters());
 * const sgd = new Dl.Sgd({params, lr: 0.1, momentum: 0.9});
 * ```
 *
 * As with #DlModule, the values are checked at construction; an empty
 * parameter list or an invalid value is kept as an error that
 * g_initable_init() and dl_optimizer_step() report (the bindings'
 * constructors do not call g_initable_init(); call `init (null)` to get
 * the error at once). The `_new` functions, such as dl_sgd_new(), take a
 * #GPtrArray and call g_initable_new().
 *
 * ## Parameter groups
 *
 * The numeric and boolean properties of an optimizer's class (lr,
 * momentum, betas as beta1 and beta2, ...) are its defaults; each group
 * holds its own copy, as a list of named doubles (booleans are 0 and 1)
 * under the property names with underscores ("weight_decay"). Read and
 * change them with dl_optimizer_get_group_option() and
 * dl_optimizer_set_group_option() (dl_optimizer_get_group_lr() and
 * dl_optimizer_set_group_lr() for the learning rate, which is what
 * learning-rate schedulers do); add groups with
 * dl_optimizer_add_param_group(), which takes the options that differ
 * from the defaults. A group may hold options of other names (a scheduler
 * keeps "initial_lr" there). Setting a property after construction sets
 * the option in every group. Every group is checked before each step: an
 * invalid value fails the step and updates nothing.
 *
 * ## State
 *
 * Each parameter has a state: named tensors (Adam's "exp_avg",
 * "exp_avg_sq" and "step", a 0-d tensor), as in PyTorch's state dicts.
 * Parameters are numbered across the groups in order, as
 * torch.optim.Optimizer.state_dict() numbers them;
 * dl_optimizer_list_state(), dl_optimizer_get_state() and
 * dl_optimizer_set_state() read and restore a state by that index, so a
 * saved state resumes training exactly.
 *
 * ## Subclassing
 *
 * A subclass overrides #DlOptimizerClass.step (Python's `do_step`, GJS's
 * `vfunc_step`, Vala's `override step`) and walks the groups with
 * dl_optimizer_get_n_param_groups(), dl_optimizer_get_group_params() and
 * dl_optimizer_get_group_option(); its own numeric properties become
 * options of every group.
 *
 * Since: 0.1
 */

typedef struct
{
  GQuark name;
  gdouble value;
} Option;

struct _DlOptimizerGroup
{
  GPtrArray *params; /* DlTensor */
  GArray *options;   /* Option, in the order they were added */
};

typedef struct
{
  GPtrArray *params;   /* DlTensor, every group's in order */
  GPtrArray *groups;   /* DlOptimizerGroup */
  GArray *defaults;    /* Option */
  GHashTable *state;   /* DlTensor -> GHashTable (name -> DlTensor) */
  GListModel *initial; /* the params property until constructed */
  gboolean constructed;
  GError *construct_error;
} DlOptimizerPrivate;

static void dl_optimizer_initable_iface_init (GInitableIface *iface);

G_DEFINE_TYPE_WITH_CODE (DlOptimizer,
                         dl_optimizer,
                         G_TYPE_OBJECT,
                         G_ADD_PRIVATE (DlOptimizer)
                             G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                    dl_optimizer_initable_iface_init))

enum
{
  PROP_0,
  PROP_PARAMS,
  PROP_LR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- options ------------------------------------------------------------ */

static Option *
find_option (GArray *options, GQuark name)
{
  for (guint i = 0; i < options->len; i++)
    if (g_array_index (options, Option, i).name == name)
      return &g_array_index (options, Option, i);
  return NULL;
}

static void
put_option (GArray *options, GQuark name, gdouble value)
{
  Option *o = find_option (options, name);

  if (o)
    o->value = value;
  else
    g_array_append_val (options, ((Option){ name, value }));
}

/* "weight-decay" -> the quark of "weight_decay" */
static GQuark
option_quark (const gchar *name)
{
  g_autofree gchar *canonical = g_strdelimit (g_strdup (name), "-", '_');

  return g_quark_from_string (canonical);
}

gdouble
dl_optimizer_group_get (const DlOptimizerGroup *group, const gchar *name)
{
  Option *o = find_option (group->options, g_quark_try_string (name));

  return o ? o->value : 0;
}

GPtrArray *
dl_optimizer_group_params (const DlOptimizerGroup *group)
{
  return group->params;
}

static void
group_free (gpointer data)
{
  DlOptimizerGroup *group = data;

  g_ptr_array_unref (group->params);
  g_array_unref (group->options);
  g_free (group);
}

static DlOptimizerGroup *
group_new (GArray *defaults)
{
  DlOptimizerGroup *group = g_new0 (DlOptimizerGroup, 1);

  group->params = g_ptr_array_new_with_free_func (g_object_unref);
  group->options = g_array_new (FALSE, FALSE, sizeof (Option));
  g_array_append_vals (group->options, defaults->data, defaults->len);
  return group;
}

DlOptimizerGroup *
dl_optimizer_get_group (DlOptimizer *self, guint index)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  return index < priv->groups->len ? g_ptr_array_index (priv->groups, index) : NULL;
}

/* ---- class-level data: display name, check ------------------------------- */

void
dl_optimizer_class_set_display_name (DlOptimizerClass *klass, const gchar *name)
{
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), g_quark_from_static_string ("dl-optimizer-name"),
                    (gpointer)name);
}

static gpointer
class_qdata (DlOptimizer *self, const gchar *key)
{
  GQuark quark = g_quark_from_static_string (key);

  for (GType t = G_OBJECT_TYPE (self); t != G_TYPE_OBJECT; t = g_type_parent (t))
    {
      gpointer data = g_type_get_qdata (t, quark);

      if (data)
        return data;
    }
  return NULL;
}

const gchar *
dl_optimizer_get_display_name (DlOptimizer *self)
{
  const gchar *name = class_qdata (self, "dl-optimizer-name");

  /* the base class's own name is for messages about it alone */
  if (G_OBJECT_TYPE (self) != DL_TYPE_OPTIMIZER && g_strcmp0 (name, "Optimizer") == 0)
    return G_OBJECT_TYPE_NAME (self);
  return name;
}

void
dl_optimizer_class_set_init_state (DlOptimizerClass *klass, DlOptimizerUpdate init_state)
{
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass),
                    g_quark_from_static_string ("dl-optimizer-init-state"), init_state);
}

/* the state a class makes when a group's parameters arrive (the last
 * group's) */
static gboolean
init_group_state (DlOptimizer *self, GError **error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  DlOptimizerUpdate init = class_qdata (self, "dl-optimizer-init-state");
  DlOptimizerGroup *group;

  if (init == NULL || priv->groups->len == 0)
    return TRUE;
  group = g_ptr_array_index (priv->groups, priv->groups->len - 1);
  for (guint i = 0; i < group->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (group->params, i);

      if (!init (self, group, p, NULL, dl_optimizer_param_state (self, p), error))
        return FALSE;
    }
  return TRUE;
}

void
dl_optimizer_class_set_check (DlOptimizerClass *klass, DlOptimizerCheck check)
{
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), g_quark_from_static_string ("dl-optimizer-check"),
                    (gpointer)check);
}

void
dl_optimizer_take_construct_error (DlOptimizer *self, GError *error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  if (priv->construct_error == NULL)
    priv->construct_error = error;
  else
    g_error_free (error);
}

static gboolean
check_constructed (DlOptimizer *self, GError **error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  if (priv->construct_error)
    {
      g_propagate_error (error, g_error_copy (priv->construct_error));
      return FALSE;
    }
  return TRUE;
}

/* the base's check (the learning rate) and the subclass's */
static gboolean
check_group (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  DlOptimizerCheck check = (DlOptimizerCheck)class_qdata (self, "dl-optimizer-check");
  gdouble lr = dl_optimizer_group_get (group, "lr");

  if (!(lr >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: Invalid learning rate: %g",
                   dl_optimizer_get_display_name (self), lr);
      return FALSE;
    }
  return check == NULL || check (self, group, error);
}

static gboolean
dl_optimizer_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  return check_constructed (DL_OPTIMIZER (initable), error);
}

static void
dl_optimizer_initable_iface_init (GInitableIface *iface)
{
  iface->init = dl_optimizer_initable_init;
}

/* ---- construction -------------------------------------------------------- */

static void
dl_optimizer_dispose (GObject *object)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (DL_OPTIMIZER (object));

  g_clear_pointer (&priv->state, g_hash_table_unref);
  g_clear_pointer (&priv->groups, g_ptr_array_unref);
  g_clear_pointer (&priv->params, g_ptr_array_unref);
  g_clear_object (&priv->initial);
  G_OBJECT_CLASS (dl_optimizer_parent_class)->dispose (object);
}

static void
dl_optimizer_finalize (GObject *object)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (DL_OPTIMIZER (object));

  g_array_unref (priv->defaults);
  g_clear_error (&priv->construct_error);
  G_OBJECT_CLASS (dl_optimizer_parent_class)->finalize (object);
}

/* Whether @params may join a group of @self: tensors, leaves, in no
 * group yet, each once. */
static gboolean
check_new_params (DlOptimizer *self, GPtrArray *params, GError **error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  const gchar *name = dl_optimizer_get_display_name (self);

  for (guint i = 0; i < params->len; i++)
    {
      GObject *item = g_ptr_array_index (params, i);

      if (!DL_IS_TENSOR (item))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: params: item %u is a %s, not a tensor", name, i,
                       item ? G_OBJECT_TYPE_NAME (item) : "NULL");
          return FALSE;
        }
      if (!dl_tensor_is_leaf (DL_TENSOR (item)))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: can't optimize a non-leaf Tensor",
                       name);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (g_ptr_array_index (params, j) == item)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s: a parameter group has parameter %u twice (as item %u)", name, j, i);
            return FALSE;
          }
      if (g_ptr_array_find (priv->params, item, NULL))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: some parameters appear in more than one parameter group", name);
          return FALSE;
        }
    }
  return TRUE;
}

static void
append_group (DlOptimizer *self, DlOptimizerGroup *group, GPtrArray *params)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  for (guint i = 0; i < params->len; i++)
    {
      g_ptr_array_add (group->params, g_object_ref (g_ptr_array_index (params, i)));
      g_ptr_array_add (priv->params, g_object_ref (g_ptr_array_index (params, i)));
    }
  g_ptr_array_add (priv->groups, group);
}

static gboolean
is_option_pspec (GParamSpec *pspec)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (pspec);

  return (pspec->flags & G_PARAM_READABLE) && pspec != properties[PROP_PARAMS]
         && (t == G_TYPE_DOUBLE || t == G_TYPE_FLOAT || t == G_TYPE_BOOLEAN || t == G_TYPE_INT
             || t == G_TYPE_UINT || t == G_TYPE_INT64 || t == G_TYPE_UINT64);
}

/* The defaults: every numeric and boolean property of the class (those of
 * a subclass written in another language included), the learning rate
 * first. */
static void
collect_defaults (DlOptimizer *self)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  guint n;
  g_autofree GParamSpec **pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (self), &n);
  g_autoptr (GArray) ordered = g_array_new (FALSE, FALSE, sizeof (Option));

  for (guint i = 0; i < n; i++)
    {
      g_auto (GValue) value = G_VALUE_INIT;
      g_auto (GValue) number = G_VALUE_INIT;
      GQuark name;

      if (!is_option_pspec (pspecs[i]))
        continue;
      name = option_quark (pspecs[i]->name);
      if (find_option (priv->defaults, name))
        continue;
      g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspecs[i]));
      g_object_get_property (G_OBJECT (self), pspecs[i]->name, &value);
      g_value_init (&number, G_TYPE_DOUBLE);
      if (G_VALUE_HOLDS_BOOLEAN (&value))
        g_value_set_double (&number, g_value_get_boolean (&value));
      else
        g_value_transform (&value, &number);
      put_option (priv->defaults, name, g_value_get_double (&number));
    }
  put_option (ordered, g_quark_from_static_string ("lr"),
              dl_optimizer_group_get (&(DlOptimizerGroup){ NULL, priv->defaults }, "lr"));
  for (guint i = 0; i < priv->defaults->len; i++)
    put_option (ordered, g_array_index (priv->defaults, Option, i).name,
                g_array_index (priv->defaults, Option, i).value);
  g_array_set_size (priv->defaults, 0);
  g_array_append_vals (priv->defaults, ordered->data, ordered->len);
}

static void
dl_optimizer_constructed (GObject *object)
{
  DlOptimizer *self = DL_OPTIMIZER (object);
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  g_autoptr (GPtrArray) params = g_ptr_array_new_with_free_func (g_object_unref);
  DlOptimizerGroup *group;
  GError *error = NULL;
  guint n = priv->initial ? g_list_model_get_n_items (priv->initial) : 0;

  G_OBJECT_CLASS (dl_optimizer_parent_class)->constructed (object);
  collect_defaults (self);
  priv->constructed = TRUE;
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (params, g_list_model_get_item (priv->initial, i));
  g_clear_object (&priv->initial);

  group = group_new (priv->defaults);
  if (!check_new_params (self, params, &error) || !check_group (self, group, &error))
    {
      dl_optimizer_take_construct_error (self, error);
      group_free (group);
      return;
    }
  if (params->len == 0)
    dl_optimizer_take_construct_error (
        self, g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "%s: optimizer got an empty parameter list",
                           dl_optimizer_get_display_name (self)));
  append_group (self, group, params);
  if (!init_group_state (self, &error))
    dl_optimizer_take_construct_error (self, error);
}

/* ---- properties: the options of every group ------------------------------ */

static void
option_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (DL_OPTIMIZER (object));
  GArray *options
      = priv->groups->len ? ((DlOptimizerGroup *)priv->groups->pdata[0])->options : priv->defaults;
  Option *o = find_option (options, option_quark (pspec->name));
  gdouble v;

  if (o)
    v = o->value;
  else if (G_IS_PARAM_SPEC_DOUBLE (pspec))
    v = G_PARAM_SPEC_DOUBLE (pspec)->default_value;
  else
    v = G_PARAM_SPEC_BOOLEAN (pspec)->default_value;
  if (G_VALUE_HOLDS_BOOLEAN (value))
    g_value_set_boolean (value, v != 0);
  else
    g_value_set_double (value, v);
}

static void
option_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlOptimizer *self = DL_OPTIMIZER (object);
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  gdouble v
      = G_VALUE_HOLDS_BOOLEAN (value) ? g_value_get_boolean (value) : g_value_get_double (value);
  GQuark name = option_quark (pspec->name);
  gboolean changed = FALSE;

  put_option (priv->defaults, name, v);
  for (guint i = 0; i < priv->groups->len; i++)
    {
      DlOptimizerGroup *group = g_ptr_array_index (priv->groups, i);
      Option *o = find_option (group->options, name);

      changed |= o == NULL || o->value != v;
      put_option (group->options, name, v);
    }
  if (changed)
    g_object_notify_by_pspec (object, pspec);
}

void
dl_optimizer_class_install_options (DlOptimizerClass *klass,
                                    const DlOptimizerOption *options,
                                    guint n_options)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = option_get_property;
  object_class->set_property = option_set_property;
  for (guint i = 0; i < n_options; i++)
    {
      const DlOptimizerOption *o = &options[i];

      /* every double spans all values, so that a bad one reaches the
       * check and becomes a GError rather than a GParamSpec warning */
      g_object_class_install_property (
          object_class, i + 1,
          o->boolean ? g_param_spec_boolean (o->name, NULL, NULL, o->default_value != 0, flags)
                     : g_param_spec_double (o->name, NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE,
                                            o->default_value, flags));
    }
}

static void
dl_optimizer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (prop_id == PROP_PARAMS)
    {
      GPtrArray *params = dl_optimizer_get_params (DL_OPTIMIZER (object));
      GListStore *store = g_list_store_new (DL_TYPE_TENSOR);

      g_list_store_splice (store, 0, 0, params->pdata, params->len);
      g_value_take_object (value, store);
    }
  else
    option_get_property (object, prop_id, value, pspec);
}

static void
dl_optimizer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (DL_OPTIMIZER (object));

  if (prop_id == PROP_PARAMS)
    g_set_object (&priv->initial, g_value_get_object (value));
  else
    option_set_property (object, prop_id, value, pspec);
}

static gboolean
dl_optimizer_real_step (DlOptimizer *self, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "step: optimizer of type %s does not implement step", G_OBJECT_TYPE_NAME (self));
  return FALSE;
}

static void
dl_optimizer_class_init (DlOptimizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = dl_optimizer_dispose;
  object_class->finalize = dl_optimizer_finalize;
  object_class->constructed = dl_optimizer_constructed;
  object_class->get_property = dl_optimizer_get_property;
  object_class->set_property = dl_optimizer_set_property;
  klass->step = dl_optimizer_real_step;
  dl_optimizer_class_set_display_name (klass, "Optimizer");

  /**
   * DlOptimizer:params:
   *
   * The tensors to optimize, a #GListModel of #DlTensor, given at
   * construction: the first parameter group (at least one tensor); read
   * back, a new list of all the optimizer's parameters, every group's,
   * in order.
   *
   * Since: 0.1
   */
  /* Why a GListModel: measured on this stack (gjs 1.74, PyGObject 3.42,
   * valac 0.56), it is the one list type that all of C, Python, GJS and
   * Vala can pass through a property (a Gio.ListStore in each). A boxed
   * GPtrArray property works from C and Vala (GenericArray) only: GJS
   * refuses a JS array ('not a subclass of GObject_Boxed') and PyGObject a
   * list ('could not convert ... from list to GPtrArray'). A GValueArray
   * (deprecated) takes a Python list but nothing from GJS. No list type
   * takes a plain JS array or Python list everywhere, hence the
   * GPtrArray-taking _new functions beside the property. */
  properties[PROP_PARAMS]
      = g_param_spec_object ("params", NULL, NULL, G_TYPE_LIST_MODEL,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                 | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlOptimizer:lr:
   *
   * The learning rate, >= 0 (default 0.001): the default of every
   * parameter group; read back, the first group's. Setting it sets every
   * group's (learning rate schedules change one group's with
   * dl_optimizer_set_group_lr()); a negative or NaN value makes
   * dl_optimizer_step() fail.
   *
   * Since: 0.1
   */
  properties[PROP_LR] = g_param_spec_double (
      "lr", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1e-3,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_optimizer_init (DlOptimizer *self)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  priv->params = g_ptr_array_new_with_free_func (g_object_unref);
  priv->groups = g_ptr_array_new_with_free_func (group_free);
  priv->defaults = g_array_new (FALSE, FALSE, sizeof (Option));
  priv->state = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify)g_hash_table_unref);
}

/* ---- the public API ---------------------------------------------------- */

/**
 * dl_optimizer_step: (virtual step)
 * @self: a #DlOptimizer
 * @error: return location for a #GError
 *
 * Updates every parameter that has a gradient (those without one are
 * skipped). Runs without recording autograd. Fails without updating
 * anything when the optimizer was constructed with an invalid value or a
 * group's options are invalid.
 *
 * As `optimizer.step ()`. One training step of a classifier:
 *
 * |[<!-- language="C" -->
 * static gboolean
 * train_step (DlModule *model, DlOptimizer *optimizer, DlTensor *x, DlTensor *labels,
 *             GError **error)
 * {
 *   g_autoptr (DlTensor) logits = NULL;
 *   g_autoptr (DlTensor) loss = NULL;
 *
 *   dl_optimizer_zero_grad (optimizer, TRUE);
 *   if (!(logits = dl_module_forward (model, x, error))
 *       || !(loss = dl_cross_entropy (logits, labels, error))
 *       || !dl_tensor_backward (loss, NULL, FALSE, FALSE, error))
 *     return FALSE;
 *   return dl_optimizer_step (optimizer, error);
 * }
 * ]|
 *
 * Subclasses implement the step virtual method (`do_step` in Python).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_step (DlOptimizer *self, GError **error)
{
  DlOptimizerPrivate *priv;
  GError *local = NULL;
  gboolean ok, was;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  priv = dl_optimizer_get_instance_private (self);
  if (!check_constructed (self, error))
    return FALSE;
  for (guint i = 0; i < priv->groups->len; i++)
    if (!check_group (self, g_ptr_array_index (priv->groups, i), error))
      return FALSE;
  was = dl_set_grad_enabled (FALSE);
  ok = DL_OPTIMIZER_GET_CLASS (self)->step (self, &local);
  dl_set_grad_enabled (was);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (!ok)
    g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "step: %s.step failed",
                 G_OBJECT_TYPE_NAME (self));
  return ok;
}

/**
 * dl_optimizer_zero_grad:
 * @self: a #DlOptimizer
 * @set_to_none: drop the gradients (%TRUE) rather than fill them with
 *   zeros (%FALSE, torch 1.13's default)
 *
 * Clears the gradients of every group's parameters before the next
 * backward.
 *
 * Since: 0.1
 */
void
dl_optimizer_zero_grad (DlOptimizer *self, gboolean set_to_none)
{
  DlOptimizerPrivate *priv;

  g_return_if_fail (DL_IS_OPTIMIZER (self));
  priv = dl_optimizer_get_instance_private (self);
  for (guint i = 0; i < priv->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (priv->params, i);
      DlTensor *g = dl_tensor_get_grad (p);

      if (g == NULL)
        continue;
      if (set_to_none)
        dl_tensor_set_grad (p, NULL, NULL);
      else
        dl_tensor_zero_ (g, NULL);
    }
}

/**
 * dl_optimizer_add_params:
 * @self: a #DlOptimizer
 * @params: (element-type DlTensor): parameters to optimize
 *
 * Adds parameters to the first parameter group; the optimizer keeps
 * references to them. A parameter it already has is not added twice.
 * See dl_optimizer_add_param_group() for a group of their own.
 *
 * Since: 0.1
 */
void
dl_optimizer_add_params (DlOptimizer *self, GPtrArray *params)
{
  DlOptimizerPrivate *priv;
  DlOptimizerGroup *group;

  g_return_if_fail (DL_IS_OPTIMIZER (self));
  g_return_if_fail (params != NULL);
  priv = dl_optimizer_get_instance_private (self);
  if (priv->groups->len == 0)
    g_ptr_array_add (priv->groups, group_new (priv->defaults));
  group = g_ptr_array_index (priv->groups, 0);
  for (guint i = 0; i < params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (params, i);

      g_return_if_fail (DL_IS_TENSOR (p));
      if (g_ptr_array_find (priv->params, p, NULL))
        continue;
      g_ptr_array_add (group->params, g_object_ref (p));
      g_ptr_array_add (priv->params, g_object_ref (p));
    }
}

/**
 * dl_optimizer_get_params:
 * @self: a #DlOptimizer
 *
 * Gives all the parameters the optimizer updates, group after group. A
 * parameter's position in this array is its index in the optimizer's state
 * dict, as in PyTorch.
 *
 * Returns: (transfer none) (element-type DlTensor): the parameters of
 *   every group, in order: a parameter's position is its index in
 *   dl_optimizer_get_state() and state dicts
 *
 * Since: 0.1
 */
GPtrArray *
dl_optimizer_get_params (DlOptimizer *self)
{
  DlOptimizerPrivate *priv;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), NULL);
  priv = dl_optimizer_get_instance_private (self);
  return priv->params;
}

/**
 * dl_optimizer_get_lr:
 * @self: a #DlOptimizer
 *
 * Gives the learning rate of the first parameter group, as
 * `optimizer.param_groups[0]["lr"]`; schedulers change it as training goes.
 * dl_optimizer_get_group_lr() reads another group's.
 *
 * Returns: the learning rate of the first parameter group
 *
 * Since: 0.1
 */
gdouble
dl_optimizer_get_lr (DlOptimizer *self)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (self), 0);
  return dl_optimizer_get_n_param_groups (self)
             ? dl_optimizer_get_group_lr (self, 0)
             : g_value_get_double (g_param_spec_get_default_value (properties[PROP_LR]));
}

/**
 * dl_optimizer_set_lr:
 * @self: a #DlOptimizer
 * @lr: the new learning rate, >= 0
 *
 * Sets the learning rate of every parameter group (and the default of
 * groups added later); dl_optimizer_step() reports a negative one.
 *
 * Since: 0.1
 */
void
dl_optimizer_set_lr (DlOptimizer *self, gdouble lr)
{
  g_return_if_fail (DL_IS_OPTIMIZER (self));
  g_object_set (self, "lr", lr, NULL);
}

/**
 * dl_optimizer_get_n_param_groups:
 * @self: a #DlOptimizer
 *
 * Gives the number of parameter groups, as `len (optimizer.param_groups)`: 1
 * for an optimizer made from a plain list of parameters, one more per
 * dl_optimizer_add_param_group().
 *
 * Returns: the number of parameter groups
 *
 * Since: 0.1
 */
guint
dl_optimizer_get_n_param_groups (DlOptimizer *self)
{
  DlOptimizerPrivate *priv;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), 0);
  priv = dl_optimizer_get_instance_private (self);
  return priv->groups->len;
}

static DlOptimizerGroup *
lookup_group (DlOptimizer *self, const gchar *op, guint index, GError **error)
{
  DlOptimizerGroup *group = dl_optimizer_get_group (self, index);

  if (group == NULL)
    g_set_error (
        error, DL_ERROR, DL_ERROR_INDEX, "%s.%s: parameter group %u out of range (%u groups)",
        dl_optimizer_get_display_name (self), op, index, dl_optimizer_get_n_param_groups (self));
  return group;
}

/**
 * dl_optimizer_get_group_params:
 * @self: a #DlOptimizer
 * @group: a parameter group's index, < dl_optimizer_get_n_param_groups()
 *
 * Gives the parameters of group @group, as
 * `optimizer.param_groups[group]["params"]`. The array belongs to the
 * optimizer.
 *
 * Returns: (transfer none) (element-type DlTensor): the group's parameters
 *
 * Since: 0.1
 */
GPtrArray *
dl_optimizer_get_group_params (DlOptimizer *self, guint group)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (self), NULL);
  g_return_val_if_fail (group < dl_optimizer_get_n_param_groups (self), NULL);
  return dl_optimizer_get_group (self, group)->params;
}

/**
 * dl_optimizer_list_group_options:
 * @self: a #DlOptimizer
 * @group: a parameter group's index, < dl_optimizer_get_n_param_groups()
 *
 * The names of a group's options: the optimizer's hyperparameters ("lr",
 * "momentum", "beta1", ...) in the order of the defaults, then any others
 * set on the group.
 *
 * Returns: (transfer full) (array zero-terminated=1): the option names
 *
 * Since: 0.1
 */
gchar **
dl_optimizer_list_group_options (DlOptimizer *self, guint group)
{
  GArray *options;
  GStrvBuilder *builder;
  gchar **names;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), NULL);
  g_return_val_if_fail (group < dl_optimizer_get_n_param_groups (self), NULL);
  options = dl_optimizer_get_group (self, group)->options;
  builder = g_strv_builder_new ();
  for (guint i = 0; i < options->len; i++)
    g_strv_builder_add (builder, g_quark_to_string (g_array_index (options, Option, i).name));
  names = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return names;
}

/**
 * dl_optimizer_get_group_option:
 * @self: a #DlOptimizer
 * @group: a parameter group's index
 * @name: the option's name ("lr", "weight_decay"; booleans read as 0 or 1)
 * @error: return location for a #GError
 *
 * Gives the value of the hyperparameter @name of group @group, as
 * `optimizer.param_groups[group][name]`: "lr", "weight_decay", "momentum"
 * and the others of the optimizer; boolean options give 0 or 1.
 *
 * Fails with %DL_ERROR_INDEX when there is no group @group and with
 * %DL_ERROR_ARGUMENT when the group has no option @name.
 *
 * Returns: the option's value; 0 with @error set for a group out of range
 *   or an option the group does not have
 *
 * Since: 0.1
 */
gdouble
dl_optimizer_get_group_option (DlOptimizer *self, guint group, const gchar *name, GError **error)
{
  DlOptimizerGroup *g;
  Option *o;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), 0);
  g_return_val_if_fail (name != NULL, 0);
  if (!(g = lookup_group (self, "get_group_option", group, error)))
    return 0;
  if (!(o = find_option (g->options, option_quark (name))))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s.get_group_option: parameter group %u has no option '%s'",
                   dl_optimizer_get_display_name (self), group, name);
      return 0;
    }
  return o->value;
}

/**
 * dl_optimizer_set_group_option:
 * @self: a #DlOptimizer
 * @group: a parameter group's index
 * @name: the option's name; a new name adds an option to the group
 * @value: its value (booleans as 0 or 1)
 * @error: return location for a #GError
 *
 * Sets one option of one group, for the following steps. The value is
 * checked at the next dl_optimizer_step().
 *
 * Returns: %TRUE on success; %FALSE with @error set for a group out of
 *   range
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_set_group_option (DlOptimizer *self,
                               guint group,
                               const gchar *name,
                               gdouble value,
                               GError **error)
{
  DlOptimizerGroup *g;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  if (!(g = lookup_group (self, "set_group_option", group, error)))
    return FALSE;
  put_option (g->options, option_quark (name), value);
  return TRUE;
}

/**
 * dl_optimizer_get_group_lr:
 * @self: a #DlOptimizer
 * @group: a parameter group's index, < dl_optimizer_get_n_param_groups()
 *
 * Gives the learning rate of group @group, as
 * `optimizer.param_groups[group]["lr"]`.
 *
 * Returns: the group's learning rate
 *
 * Since: 0.1
 */
gdouble
dl_optimizer_get_group_lr (DlOptimizer *self, guint group)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (self), 0);
  g_return_val_if_fail (group < dl_optimizer_get_n_param_groups (self), 0);
  return dl_optimizer_group_get (dl_optimizer_get_group (self, group), "lr");
}

/**
 * dl_optimizer_set_group_lr:
 * @self: a #DlOptimizer
 * @group: a parameter group's index, < dl_optimizer_get_n_param_groups()
 * @lr: the group's new learning rate
 *
 * Sets one group's learning rate, as a scheduler does.
 *
 * Since: 0.1
 */
void
dl_optimizer_set_group_lr (DlOptimizer *self, guint group, gdouble lr)
{
  g_return_if_fail (DL_IS_OPTIMIZER (self));
  g_return_if_fail (group < dl_optimizer_get_n_param_groups (self));
  put_option (dl_optimizer_get_group (self, group)->options, g_quark_from_static_string ("lr"), lr);
}

/**
 * dl_optimizer_add_param_group:
 * @self: a #DlOptimizer
 * @params: (element-type DlTensor): the group's parameters: leaf tensors
 *   in no other group
 * @names: (array zero-terminated=1) (nullable): names of options that
 *   differ from the optimizer's defaults ("lr", "momentum", "beta1", ...)
 * @values: (array length=n_values) (nullable): their values, one per name
 * @n_values: the length of @values
 * @error: return location for a #GError
 *
 * Adds a parameter group, as torch.optim.Optimizer.add_param_group: the
 * group's options are the defaults, with @names set to @values. In
 * Python, `opt.add_param_group (params, ["lr"], [0.01])`; in GJS,
 * `opt.add_param_group(params, ['lr'], [0.01])`.
 *
 * Returns: %TRUE on success; %FALSE with @error set, adding nothing, for
 *   a parameter that is not a leaf tensor or is in a group already, names
 *   and values of different lengths, or an invalid option value
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_add_param_group (DlOptimizer *self,
                              GPtrArray *params,
                              const gchar *const *names,
                              const gdouble *values,
                              gsize n_values,
                              GError **error)
{
  DlOptimizerPrivate *priv;
  DlOptimizerGroup *group;
  guint n_names = names ? g_strv_length ((gchar **)names) : 0;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  g_return_val_if_fail (params != NULL, FALSE);
  g_return_val_if_fail (values != NULL || n_values == 0, FALSE);
  priv = dl_optimizer_get_instance_private (self);
  if (n_names != n_values)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s.add_param_group: %u option names for %" G_GSIZE_FORMAT " values",
                   dl_optimizer_get_display_name (self), n_names, n_values);
      return FALSE;
    }
  if (!check_new_params (self, params, error))
    return FALSE;
  group = group_new (priv->defaults);
  for (guint i = 0; i < n_names; i++)
    put_option (group->options, option_quark (names[i]), values[i]);
  if (!check_group (self, group, error))
    {
      group_free (group);
      return FALSE;
    }
  append_group (self, group, params);
  return init_group_state (self, error);
}

/* ---- state ------------------------------------------------------------- */

/* a state entry may hold no tensor: PyTorch's None */
static void
unref_entry (gpointer tensor)
{
  if (tensor)
    g_object_unref (tensor);
}

GHashTable *
dl_optimizer_param_state (DlOptimizer *self, DlTensor *p)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  GHashTable *state = g_hash_table_lookup (priv->state, p);

  if (state == NULL)
    {
      state = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, unref_entry);
      g_hash_table_insert (priv->state, p, state);
    }
  return state;
}

gdouble
dl_optimizer_state_count (GHashTable *state, const gchar *name, DlDType dtype, GError **error)
{
  DlTensor *t = g_hash_table_lookup (state, name);
  gdouble count;

  if (t == NULL)
    {
      if (!(t = dl_zeros (NULL, 0, dtype, NULL, error)))
        return -1;
      g_hash_table_insert (state, g_strdup (name), t);
    }
  count = dl_tensor_item (t, error) + 1;
  if (!dl_tensor_fill_ (t, count, error))
    return -1;
  return count;
}

DlTensor *
dl_optimizer_state_scalar (GHashTable *state,
                           const gchar *name,
                           gdouble init,
                           gdouble *value,
                           GError **error)
{
  DlTensor *t = g_hash_table_lookup (state, name);
  GError *item_error = NULL;

  if (t == NULL)
    {
      if (!(t = dl_zeros (NULL, 0, DL_DTYPE_FLOAT32, NULL, error))
          || !dl_tensor_fill_ (t, init, error))
        {
          g_clear_object (&t);
          return NULL;
        }
      g_hash_table_insert (state, g_strdup (name), t);
    }
  *value = dl_tensor_item (t, &item_error);
  if (item_error)
    {
      g_propagate_error (error, item_error);
      return NULL;
    }
  return t;
}

static DlTensor *
lookup_param (DlOptimizer *self, const gchar *op, guint index, GError **error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  if (index >= priv->params->len)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s.%s: parameter %u out of range (%u parameters)",
                   dl_optimizer_get_display_name (self), op, index, priv->params->len);
      return NULL;
    }
  return g_ptr_array_index (priv->params, index);
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *)a, *(const gchar *const *)b);
}

/**
 * dl_optimizer_list_state:
 * @self: a #DlOptimizer
 * @index: a parameter's index in dl_optimizer_get_params()
 *
 * The names of a parameter's state entries, sorted ("exp_avg",
 * "exp_avg_sq", "step" for Adam); none before its first step, or for an
 * index out of range.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 *
 * Since: 0.1
 */
gchar **
dl_optimizer_list_state (DlOptimizer *self, guint index)
{
  DlOptimizerPrivate *priv;
  GHashTable *state;
  gchar **names;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), NULL);
  priv = dl_optimizer_get_instance_private (self);
  state = index < priv->params->len
              ? g_hash_table_lookup (priv->state, g_ptr_array_index (priv->params, index))
              : NULL;
  if (state == NULL)
    return g_new0 (gchar *, 1);
  names = (gchar **)g_hash_table_get_keys_as_array (state, NULL);
  for (guint i = 0; names[i]; i++)
    names[i] = g_strdup (names[i]);
  qsort (names, g_strv_length (names), sizeof (gchar *), compare_strings);
  return names;
}

/**
 * dl_optimizer_get_state:
 * @self: a #DlOptimizer
 * @index: a parameter's index in dl_optimizer_get_params()
 * @name: the state entry's name
 *
 * The optimizer's own tensor (its updates change it in place; clone it to
 * keep a copy).
 *
 * Returns: (transfer none) (nullable): the entry, or %NULL when the
 *   parameter has none of that name or the entry holds no tensor
 *   (PyTorch's None; dl_optimizer_list_state() names it)
 *
 * Since: 0.1
 */
DlTensor *
dl_optimizer_get_state (DlOptimizer *self, guint index, const gchar *name)
{
  DlOptimizerPrivate *priv;
  GHashTable *state;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  priv = dl_optimizer_get_instance_private (self);
  if (index >= priv->params->len)
    return NULL;
  state = g_hash_table_lookup (priv->state, g_ptr_array_index (priv->params, index));
  return state ? g_hash_table_lookup (state, name) : NULL;
}

/**
 * dl_optimizer_set_state:
 * @self: a #DlOptimizer
 * @index: a parameter's index in dl_optimizer_get_params()
 * @name: the state entry's name
 * @value: (nullable): its value, or %NULL for an entry that holds no
 *   tensor (PyTorch's None, as SGD's "momentum_buffer" without momentum)
 * @error: return location for a #GError
 *
 * Restores one state entry of a parameter, as
 * torch.optim.Optimizer.load_state_dict() does: the optimizer keeps a
 * contiguous copy of @value, cast to the parameter's dtype when both are
 * floating point (the "step" counter keeps its dtype, as do LBFGS's "t"
 * and "prev_loss"). dl_optimizer_clear_state() removes entries.
 *
 * Returns: %TRUE on success; %FALSE with @error set for an index out of
 *   range
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_set_state (DlOptimizer *self,
                        guint index,
                        const gchar *name,
                        DlTensor *value,
                        GError **error)
{
  DlTensor *p;
  GHashTable *state;
  g_autoptr (DlTensor) copy = NULL;
  DlDType dtype;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (value == NULL || DL_IS_TENSOR (value), FALSE);
  if (!(p = lookup_param (self, "set_state", index, error)))
    return FALSE;
  state = dl_optimizer_param_state (self, p);
  if (value == NULL)
    {
      g_hash_table_insert (state, g_strdup (name), NULL);
      return TRUE;
    }
  dtype = dl_tensor_get_dtype (value);
  /* PyTorch casts every state tensor but "step"; LBFGS's "t" and
   * "prev_loss" stand for Python numbers, which it leaves alone */
  if (dl_dtype_is_floating_point (dtype) && dl_dtype_is_floating_point (dl_tensor_get_dtype (p))
      && strcmp (name, "step") != 0 && strcmp (name, "t") != 0 && strcmp (name, "prev_loss") != 0)
    dtype = dl_tensor_get_dtype (p);
  if (!(copy = dl_tensor_to_dtype (value, dtype, error)))
    return FALSE;
  if (copy == value)
    {
      g_object_unref (copy);
      if (!(copy = dl_tensor_clone (value, error)))
        return FALSE;
    }
  g_hash_table_insert (state, g_strdup (name), g_steal_pointer (&copy));
  return TRUE;
}

/**
 * dl_optimizer_clear_state:
 * @self: a #DlOptimizer
 * @index: a parameter's index in dl_optimizer_get_params()
 * @error: return location for a #GError
 *
 * Removes every state entry of a parameter (before
 * dl_optimizer_set_state() restores a saved state).
 *
 * Returns: %TRUE on success; %FALSE with @error set for an index out of
 *   range
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_clear_state (DlOptimizer *self, guint index, GError **error)
{
  DlOptimizerPrivate *priv;
  DlTensor *p;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  priv = dl_optimizer_get_instance_private (self);
  if (!(p = lookup_param (self, "clear_state", index, error)))
    return FALSE;
  g_hash_table_remove (priv->state, p);
  return TRUE;
}

gboolean
dl_optimizer_foreach_update (DlOptimizer *self, DlOptimizerUpdate update, GError **error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  for (guint i = 0; i < priv->groups->len; i++)
    {
      DlOptimizerGroup *group = g_ptr_array_index (priv->groups, i);

      for (guint j = 0; j < group->params->len; j++)
        {
          DlTensor *p = g_ptr_array_index (group->params, j);
          DlTensor *grad = dl_tensor_get_grad (p);

          if (grad && !update (self, group, p, grad, dl_optimizer_param_state (self, p), error))
            return FALSE;
        }
    }
  return TRUE;
}

DlTensor *
dl_optimizer_state_tensor (GHashTable *state,
                           const gchar *name,
                           DlTensor *p,
                           gdouble init,
                           gboolean *created,
                           GError **error)
{
  DlTensor *t = g_hash_table_lookup (state, name);

  if (t)
    return t;
  if (!(t = dl_optim_new_state (p, init, error)))
    return NULL;
  g_hash_table_insert (state, g_strdup (name), t);
  if (created)
    *created = TRUE;
  return t;
}

gboolean
dl_optimizer_check_min (DlOptimizer *self,
                        const DlOptimizerGroup *group,
                        const gchar *name,
                        const gchar *what,
                        gdouble min,
                        GError **error)
{
  gdouble v = dl_optimizer_group_get (group, name);

  if (!(v >= min))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: Invalid %s: %g",
                   dl_optimizer_get_display_name (self), what, v);
      return FALSE;
    }
  return TRUE;
}

GListStore *
dl_optimizer_params_store (GPtrArray *params)
{
  GListStore *store = g_list_store_new (DL_TYPE_TENSOR);

  g_list_store_splice (store, 0, 0, params->pdata, params->len);
  return store;
}

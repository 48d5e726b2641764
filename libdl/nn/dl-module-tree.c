/* dl-module-tree.c: DlModule's checked registration, its members by
 * kind, walks of the module tree with dotted names, apply, gradient
 * switches and conversions, and parameters as a tensor mark.
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
#include "dl-node.h"
#include "dl-tensor-private.h"
#include "dl-device-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "autograd/dl-autograd.h"

/* ---- names and registries ------------------------------------------------ */

static GQuark
parameter_quark (void)
{
  static GQuark q;

  if (G_UNLIKELY (q == 0))
    q = g_quark_from_static_string ("dl-module-parameter");
  return q;
}

void
dl_module_mark_parameter (DlTensor *t)
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
  dl_module_mark_parameter (p);
  return g_steal_pointer (&p);
}

/* the kind of member @name is in @self: 'p', 'b', 'm' or 0 */
static gchar
member_kind (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv = dl_module_priv (self);

  if (dl_module_find_name (priv->param_names, name) >= 0)
    return 'p';
  if (dl_module_find_name (priv->buffer_names, name) >= 0)
    return 'b';
  if (dl_module_find_name (priv->child_names, name) >= 0)
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
  priv = dl_module_priv (self);
  if ((i = dl_module_find_name (priv->param_names, name)) >= 0)
    {
      g_ptr_array_remove_index (priv->param_names, i);
      g_ptr_array_remove_index (priv->params, i);
      return TRUE;
    }
  if ((i = dl_module_find_name (priv->buffer_names, name)) >= 0)
    {
      g_ptr_array_remove_index (priv->buffer_names, i);
      g_ptr_array_remove_index (priv->buffers, i);
      g_array_remove_index (priv->buffer_persistent, i);
      return TRUE;
    }
  if ((i = dl_module_find_name (priv->child_names, name)) >= 0)
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
 * Says whether the module itself (not a descendant) registered a parameter
 * named @name, as `name in module._parameters`; a parameter registered as
 * %NULL counts.
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
 * Says whether the module's own buffer @name is persistent: saved in
 * dl_module_state_dict() and loaded by dl_module_load_state_dict(), as
 * buffers registered with `persistent=True` in PyTorch.
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
  priv = dl_module_priv (self);
  i = dl_module_find_name (priv->buffer_names, name);
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
  DlModulePrivate *priv = dl_module_priv (self);

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
      DlModulePrivate *priv = dl_module_priv (g_ptr_array_index (modules, m));
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
  DlModulePrivate *priv = dl_module_priv (self);
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
  return dl_tensor_to_device (t, (DlDevice *)data, error);
}

/**
 * dl_module_to_device:
 * @self: a #DlModule
 * @device: (nullable): the device; %NULL is the CPU
 * @error: return location for a #GError
 *
 * Moves the parameters and buffers of @self and its descendants to
 * @device, as torch's `to(device)` and `cpu()`, parameters keeping their
 * identity, each through dl_tensor_to_device(). A module already on
 * @device is left as it is; one moved to the meta device takes no memory
 * there (to size a model), and one on the meta device cannot be moved
 * off it (its tensors have no values).
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_NOT_SUPPORTED
 *   for a copy out of the meta device)
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

/**
 * dl_module_get_member_kind:
 * @self: a #DlModule
 * @name: a name
 *
 * Says what the module's own member @name is: a parameter, a buffer or a
 * child module. The Python bindings ask it when an attribute is set or
 * deleted (`model.fc1 = ...`), as `torch.nn.Module.__setattr__` looks in
 * its dicts of parameters, buffers and modules.
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
  priv = dl_module_priv (self);
  *found = TRUE;
  if ((i = dl_module_find_name (priv->param_names, name)) >= 0)
    return g_ptr_array_index (priv->params, i);
  if ((i = dl_module_find_name (priv->buffer_names, name)) >= 0)
    return g_ptr_array_index (priv->buffers, i);
  if ((i = dl_module_find_name (priv->child_names, name)) >= 0)
    return g_ptr_array_index (priv->children, i);
  *found = FALSE;
  return NULL;
}

/**
 * dl_module_get_own_names:
 * @self: a #DlModule
 *
 * Gives the names of the members the module itself registered, not its
 * descendants' (parameters, then buffers, then children), as `dir ()` does
 * for a PyTorch module's members. Free the array with g_strfreev().
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
  priv = dl_module_priv (self);
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

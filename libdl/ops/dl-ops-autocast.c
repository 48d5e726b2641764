/* dl-ops-autocast.c: automatic mixed precision (torch.autocast). The
 * state is per thread, as PyTorch's: whether autocast is on for CPU and
 * for CUDA tensors, the lower-precision dtype of each, how deep autocast
 * regions nest, and a cache of the casts of weights. The ops of PyTorch's
 * lists (matmul and the matrix products, linear, the convolutions;
 * the losses of the fp32 list in libdl/nn/dl-loss.c) cast their arguments at their start with
 * DL_AUTOCAST (dl-ops-autocast-private.h), so C, Python, GJS and Vala callers and the layers'
 * forward all see the same casts.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-autocast.h"
#include "dl-ops-autocast-private.h"
#include "dl-ops-private.h"
#include "dl-dtype-private.h"

__thread gint dl_autocast_on;

static __thread gboolean enabled_cpu, enabled_cuda;
static __thread gboolean dtype_set_cpu, dtype_set_cuda;
static __thread DlDType dtype_cpu, dtype_cuda;
static __thread gint nesting;
static __thread gboolean cache_disabled;
/* DlTensor (a float32 leaf that requires grad, owned) -> its cast (owned) */
static __thread GHashTable *cache;

static void
update_on (void)
{
  dl_autocast_on = enabled_cpu || enabled_cuda;
}

/**
 * dl_autocast_is_enabled:
 * @device_type: %DL_DEVICE_TYPE_CPU or %DL_DEVICE_TYPE_CUDA
 *
 * Says whether autocast is on for the ops on tensors of @device_type in
 * the calling thread, as torch.is_autocast_cpu_enabled() and
 * torch.is_autocast_enabled() (CUDA) do.
 *
 * Returns: whether autocast is on for @device_type in this thread
 *
 * Since: 0.1
 */
gboolean
dl_autocast_is_enabled (DlDeviceType device_type)
{
  if (device_type == DL_DEVICE_TYPE_CPU)
    return enabled_cpu;
  if (device_type == DL_DEVICE_TYPE_CUDA)
    return enabled_cuda;
  return FALSE;
}

/**
 * dl_autocast_set_enabled:
 * @device_type: %DL_DEVICE_TYPE_CPU or %DL_DEVICE_TYPE_CUDA
 * @enabled: whether autocast is on
 *
 * Turns autocast on or off for the ops on tensors of @device_type in the
 * calling thread (torch.set_autocast_cpu_enabled(),
 * torch.set_autocast_enabled()). While it is on, the matrix products
 * (matmul, mm, bmm, addmm, baddbmm, addbmm), linear and the convolutions
 * (conv1d, conv2d, conv3d; not the transposed ones, which PyTorch 1.13
 * leaves alone) cast their floating-point arguments (float64 ones
 * excepted) to the autocast dtype of the device (dl_autocast_get_dtype())
 * and compute in it, and the losses
 * (cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1_loss,
 * huber_loss, binary_cross_entropy with and without logits, kl_div) cast
 * them to float32, as PyTorch's autocast lists say; the casts are
 * differentiable, so gradients reach float32 parameters as float32. Other
 * device types are ignored.
 *
 * Since: 0.1
 */
void
dl_autocast_set_enabled (DlDeviceType device_type, gboolean enabled)
{
  if (device_type == DL_DEVICE_TYPE_CPU)
    enabled_cpu = !!enabled;
  else if (device_type == DL_DEVICE_TYPE_CUDA)
    enabled_cuda = !!enabled;
  update_on ();
}

/**
 * dl_autocast_get_dtype:
 * @device_type: %DL_DEVICE_TYPE_CPU or %DL_DEVICE_TYPE_CUDA
 *
 * Gives the dtype autocast computes the ops of its lower-precision list in
 * on @device_type in the calling thread: %DL_DTYPE_BFLOAT16 for the CPU
 * and %DL_DTYPE_FLOAT16 for CUDA unless dl_autocast_set_dtype() changed it
 * (torch.get_autocast_cpu_dtype(), torch.get_autocast_gpu_dtype()).
 *
 * Returns: the autocast dtype of @device_type
 *
 * Since: 0.1
 */
DlDType
dl_autocast_get_dtype (DlDeviceType device_type)
{
  if (device_type == DL_DEVICE_TYPE_CUDA)
    return dtype_set_cuda ? dtype_cuda : DL_DTYPE_FLOAT16;
  return dtype_set_cpu ? dtype_cpu : DL_DTYPE_BFLOAT16;
}

/**
 * dl_autocast_set_dtype:
 * @device_type: %DL_DEVICE_TYPE_CPU or %DL_DEVICE_TYPE_CUDA
 * @dtype: a floating-point dtype
 * @error: return location for a #GError
 *
 * Sets the dtype autocast computes in on @device_type in the calling
 * thread (torch.set_autocast_cpu_dtype(), torch.set_autocast_gpu_dtype()).
 *
 * Returns: %TRUE, or %FALSE with %DL_ERROR_DTYPE when @dtype is not a
 *   floating-point dtype, %DL_ERROR_DEVICE when @device_type is neither
 *   the CPU nor CUDA
 *
 * Since: 0.1
 */
gboolean
dl_autocast_set_dtype (DlDeviceType device_type, DlDType dtype, GError **error)
{
  if ((guint)dtype >= DL_N_DTYPES || !dl_dtype_is_float (dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "set_autocast_dtype: autocast computes in a floating-point dtype, not %s",
                   (guint)dtype < DL_N_DTYPES ? dl_dtype_get_name (dtype) : "an invalid dtype");
      return FALSE;
    }
  if (device_type == DL_DEVICE_TYPE_CPU)
    {
      dtype_cpu = dtype;
      dtype_set_cpu = TRUE;
    }
  else if (device_type == DL_DEVICE_TYPE_CUDA)
    {
      dtype_cuda = dtype;
      dtype_set_cuda = TRUE;
    }
  else
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "set_autocast_dtype: autocast is for CPU and CUDA tensors only");
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_autocast_increment_nesting:
 *
 * Counts one more autocast region entered in the calling thread
 * (torch.autocast_increment_nesting()).
 *
 * Returns: the depth after the increment
 *
 * Since: 0.1
 */
gint
dl_autocast_increment_nesting (void)
{
  return ++nesting;
}

/**
 * dl_autocast_decrement_nesting:
 *
 * Counts one autocast region left in the calling thread
 * (torch.autocast_decrement_nesting()). When it gives 0, the outermost
 * region was left, and the caller clears the cache of casts with
 * dl_autocast_clear_cache().
 *
 * Returns: the depth after the decrement (never below 0)
 *
 * Since: 0.1
 */
gint
dl_autocast_decrement_nesting (void)
{
  if (nesting > 0)
    nesting--;
  return nesting;
}

/**
 * dl_autocast_is_cache_enabled:
 *
 * Says whether autocast keeps the casts of float32 leaf tensors that
 * require grad (the weights) in the calling thread, to cast each weight
 * once per autocast region (torch.is_autocast_cache_enabled()). On by
 * default.
 *
 * Returns: whether the cache of casts is on
 *
 * Since: 0.1
 */
gboolean
dl_autocast_is_cache_enabled (void)
{
  return !cache_disabled;
}

/**
 * dl_autocast_set_cache_enabled:
 * @enabled: whether to keep the casts of weights
 *
 * Turns the cache of autocast's casts of weights on or off in the calling
 * thread (torch.set_autocast_cache_enabled()).
 *
 * Since: 0.1
 */
void
dl_autocast_set_cache_enabled (gboolean enabled)
{
  cache_disabled = !enabled;
}

/**
 * dl_autocast_clear_cache:
 *
 * Drops the casts of weights autocast kept in the calling thread
 * (torch.clear_autocast_cache()); leaving the outermost autocast region
 * does this.
 *
 * Since: 0.1
 */
void
dl_autocast_clear_cache (void)
{
  if (cache)
    g_hash_table_remove_all (cache);
}

static void
unref_tensor (gpointer t)
{
  g_object_unref (t);
}

/* @t cast for @policy, a new reference (@t itself when autocast leaves it
 * alone), or NULL with @error set */
static DlTensor *
autocast_one (DlAutocastPolicy policy, DlTensor *t, GError **error)
{
  DlDeviceType type;
  DlDType to;
  DlTensor *cast;
  gboolean cacheable;

  if (policy == DL_AUTOCAST_NONE || !dl_dtype_is_float (t->dtype) || t->dtype == DL_DTYPE_FLOAT64)
    return g_object_ref (t);
  type = dl_device_get_device_type (dl_tensor_get_device (t));
  if (!dl_autocast_is_enabled (type))
    return g_object_ref (t);
  to = policy == DL_AUTOCAST_FP32 ? DL_DTYPE_FLOAT32 : dl_autocast_get_dtype (type);
  if (t->dtype == to)
    return g_object_ref (t);
  /* the weights: float32 leaves that require grad, not views */
  cacheable = policy == DL_AUTOCAST_LOWER && !cache_disabled && t->dtype == DL_DTYPE_FLOAT32
              && t->requires_grad && t->grad_fn == NULL && t->base == NULL;
  if (cacheable && cache && (cast = g_hash_table_lookup (cache, t)) && cast->dtype == to)
    return g_object_ref (cast);
  if (!(cast = dl_tensor_to_dtype (t, to, error)))
    return NULL;
  if (cacheable)
    {
      if (!cache)
        cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, unref_tensor, unref_tensor);
      g_hash_table_replace (cache, g_object_ref (t), g_object_ref (cast));
    }
  return cast;
}

/* Casts the @n tensors of @args (NULL ones skipped) for @policy, in place:
 * @held[i] gets the reference of a cast that replaced @args[i]. Returns 1
 * when some argument was cast, 0 when none was (@held all NULL), -1 with
 * @error set (@held released). */
gint
dl_autocast_cast_args (DlAutocastPolicy policy,
                       DlTensor **args,
                       DlTensor **held,
                       guint n,
                       GError **error)
{
  gint changed = 0;

  for (guint i = 0; i < n; i++)
    {
      DlTensor *c;

      held[i] = NULL;
      if (args[i] == NULL)
        continue;
      if (!(c = autocast_one (policy, args[i], error)))
        {
          dl_autocast_release (held, i);
          return -1;
        }
      if (c == args[i])
        {
          g_object_unref (c);
          continue;
        }
      held[i] = args[i] = c;
      changed = 1;
    }
  return changed;
}

void
dl_autocast_release (DlTensor **held, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_object (&held[i]);
}

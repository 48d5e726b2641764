/* dl-distributed-data-parallel.c: DlDistributedDataParallel.
 *
 * The gradients of the wrapped module's parameters are summed across the
 * ranks in buckets: flat tensors that each hold the gradients of a few
 * parameters of one dtype, filled in reverse parameter order (the order
 * in which a backward pass usually produces them). A post-accumulate hook
 * on each parameter copies its .grad into its slot of its bucket once the
 * engine has added the pass's gradient to it; when every slot of a bucket
 * is filled, and every bucket before it has been launched (so that all
 * ranks issue the collectives in the same order), the bucket's mean (an
 * AVG all_reduce: the sum, divided by the group's size on the group's
 * worker thread) starts asynchronously while the engine goes on with the
 * rest of the pass. A callback the first hook queues runs at the end of
 * the pass: it waits for the buckets and copies the means back into the
 * .grad of each parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "distributed/dl-distributed-data-parallel.h"
#include "distributed/dl-distributed.h"
#include "distributed/dl-distributed-private.h"
#include "autograd/dl-autograd-private.h"
#include "nn/dl-module-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "dl-dtype.h"
#include "dl-error.h"
#include "dl-node.h"
#include "dl-tensor-private.h"

/**
 * DlDistributedDataParallel:
 *
 * Data-parallel training across the ranks of a #DlProcessGroup
 * (torch.nn.parallel.DistributedDataParallel): every rank runs the same
 * model on its own part of each batch, and after each backward pass every
 * rank holds, in the .grad of each parameter, the mean over the ranks of
 * their gradients, so that an optimizer step keeps the replicas equal.
 *
 * At initialization (g_initable_init(), which
 * dl_distributed_data_parallel_new() and Python's constructor call; else
 * the first forward) the wrapped #DlDistributedDataParallel:module's
 * parameters and buffers are copied from rank 0 to every rank, after a
 * check that every rank has the same parameters (count, dtypes, shapes).
 * Its forward calls the module's, after copying the buffers of rank 0
 * again when #DlDistributedDataParallel:broadcast-buffers is set. During
 * backward the gradients are summed in buckets of about
 * #DlDistributedDataParallel:bucket-cap-mb megabytes (the first one
 * smaller, 1 MB, so communication starts early), each launched
 * asynchronously as soon as its parameters' gradients are ready, while
 * the rest of the pass runs; the pass ends once every bucket is summed
 * and the means are in the parameters' .grad.
 *
 * A parameter that gets no gradient in a pass (a branch the forward did
 * not take) leaves its bucket incomplete: the backward pass fails naming
 * it, unless #DlDistributedDataParallel:find-unused-parameters is set, in
 * which case it contributes zeros (and its .grad stays unset when no rank
 * used it). dl_distributed_data_parallel_set_require_sync() with %FALSE
 * makes the passes that follow the next forward accumulate their
 * gradients locally, without communication (torch's `no_sync()`), for
 * gradient accumulation; the first pass after a synchronizing forward
 * then averages the accumulated gradients.
 *
 * ```c
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlModule) net = DL_MODULE (dl_linear_new (4, 2, TRUE, &error));
 * g_autoptr (DlProcessGroup) group
 *     = dl_distributed_new_process_group ("mpi", "env://", -1, -1, 60, &error);
 * g_autoptr (DlDistributedDataParallel) ddp
 *     = group ? dl_distributed_data_parallel_new (net, group, &error) : NULL;
 * ```
 *
 * Since: 0.1
 */

/**
 * DlDistributedDataParallelClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlDistributedDataParallel. The type is final:
 * its class adds no virtual method to that of #DlModule, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */

/* torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES */
#define FIRST_BUCKET_BYTES (1024 * 1024)

typedef struct
{
  DlDType dtype;
  GArray *members; /* guint: parameter indices, in the bucket's order */
  gint64 numel;
  guint pending; /* members whose gradient has not arrived in this pass */
  DlTensor *flat;
  DlWork *work; /* (nullable): the sum in flight */
} Bucket;

struct _DlDistributedDataParallel
{
  DlModule parent_instance;

  DlModule *module;
  DlProcessGroup *group;
  gdouble bucket_cap_mb;
  gboolean broadcast_buffers;
  gboolean find_unused_parameters;
  gboolean gradient_as_bucket_view;
  gboolean require_sync;

  GPtrArray *params; /* the parameters that require grad */
  GStrv names;       /* and their names in the wrapped module */
  GArray *hook_ids;  /* guint */
  GPtrArray *buckets;
  guint *bucket_of;      /* [params->len] */
  DlTensor **slots;      /* [params->len]: each one's view of its bucket */
  gboolean *ready;       /* [params->len]: its gradient arrived in this pass */
  gboolean expect_hooks; /* the last forward asked for a synchronizing pass */
  gboolean queued;       /* the end-of-pass callback is queued */
  guint next_bucket;     /* the first bucket not yet launched */
  gdouble last_wait;     /* seconds the last pass waited for its buckets */
  gboolean set_up;       /* g_initable_init() ran */
};

static void dl_distributed_data_parallel_initable_iface_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
    DlDistributedDataParallel,
    dl_distributed_data_parallel,
    DL_TYPE_MODULE,
    G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, dl_distributed_data_parallel_initable_iface_init))

enum
{
  PROP_0,
  PROP_MODULE,
  PROP_PROCESS_GROUP,
  PROP_BUCKET_CAP_MB,
  PROP_BROADCAST_BUFFERS,
  PROP_FIND_UNUSED_PARAMETERS,
  PROP_GRADIENT_AS_BUCKET_VIEW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
bucket_free (gpointer p)
{
  Bucket *b = p;

  g_array_unref (b->members);
  g_clear_object (&b->flat);
  g_clear_object (&b->work);
  g_free (b);
}

/* Copies @tensors from rank 0 to every rank in one broadcast of their
 * bytes, packed one after the other (contiguous copies of those that are
 * not contiguous): a forward that refreshes B buffers (three per
 * BatchNorm) waits for one collective instead of B. */
static gboolean
broadcast_tensors (DlDistributedDataParallel *self, GPtrArray *tensors, GError **error)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlWork) work = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);
  gboolean ok = TRUE;
  gint64 total = 0;
  guint8 *p;

  if (dl_process_group_get_tensor_device (self->group))
    {
      /* on a GPU (NCCL) the bytes are not packed on the host: one
       * broadcast per tensor, where it lies (queued one after the other
       * on the group's stream) */
      for (guint i = 0; i < tensors->len && ok; i++)
        {
          DlTensor *t = g_ptr_array_index (tensors, i);
          g_autoptr (DlTensor) dt = dl_tensor_detach (t);
          g_autoptr (DlTensor) c = dl_tensor_contiguous (dt, error);
          g_autoptr (DlWork) w = NULL;

          ok = c && (w = dl_process_group_broadcast (self->group, c, 0, FALSE, error)) != NULL;
          if (ok && !dl_tensor_is_contiguous (t))
            ok = dl_tensor_copy_ (dt, c, error) != NULL;
        }
      dl_set_grad_enabled (was);
      return ok;
    }
  for (guint i = 0; i < tensors->len && ok; i++)
    {
      g_autoptr (DlTensor) t = dl_tensor_detach (g_ptr_array_index (tensors, i));
      DlTensor *c = dl_tensor_contiguous (t, error);

      ok = c != NULL;
      if (ok)
        {
          g_ptr_array_add (parts, c);
          total += dl_tensor_numel (c) * dl_tensor_element_size (c);
        }
    }
  ok = ok && (flat = dl_empty (&total, 1, DL_DTYPE_UINT8, NULL, error)) != NULL;
  if (ok)
    {
      p = (guint8 *)dl_tensor_data (flat);
      for (guint i = 0; i < parts->len; i++)
        {
          DlTensor *c = g_ptr_array_index (parts, i);
          gsize n = dl_tensor_numel (c) * dl_tensor_element_size (c);

          memcpy (p, dl_tensor_data (c), n);
          p += n;
        }
      ok = (work = dl_process_group_broadcast (self->group, flat, 0, FALSE, error)) != NULL;
    }
  if (ok && dl_process_group_get_rank (self->group) != 0)
    {
      p = (guint8 *)dl_tensor_data (flat);
      for (guint i = 0; i < parts->len && ok; i++)
        {
          DlTensor *c = g_ptr_array_index (parts, i);
          DlTensor *t = g_ptr_array_index (tensors, i);
          gsize n = dl_tensor_numel (c) * dl_tensor_element_size (c);

          memcpy (dl_tensor_data (c), p, n);
          p += n;
          /* c shares its memory with a contiguous tensor; it is a copy
           * of any other, which gets the bytes from it */
          if (!dl_tensor_is_contiguous (t))
            {
              g_autoptr (DlTensor) dt = dl_tensor_detach (t);

              ok = dl_tensor_copy_ (dt, c, error) != NULL;
            }
        }
    }
  dl_set_grad_enabled (was);
  return ok;
}

/* The parameters' count, dtypes and shapes, as int64s: n, then per
 * parameter dtype, ndim, sizes. */
static GArray *
param_signature (DlDistributedDataParallel *self)
{
  GArray *sig = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 n = self->params->len;

  g_array_append_val (sig, n);
  for (guint i = 0; i < self->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (self->params, i);
      gsize ndim;
      const gint64 *sizes = dl_tensor_get_shape (p, &ndim);
      gint64 head[2] = { dl_tensor_get_dtype (p), (gint64)ndim };

      g_array_append_vals (sig, head, 2);
      g_array_append_vals (sig, sizes, ndim);
    }
  return sig;
}

/* Gathers every rank's int64 @values (@n of them, the same @n on every
 * rank) into a new [size, n] tensor. */
static DlTensor *
gather_int64 (DlDistributedDataParallel *self, const gint64 *values, gint64 n, GError **error)
{
  gint size = dl_process_group_get_size (self->group);
  DlDevice *device = dl_process_group_get_tensor_device (self->group);
  g_autoptr (DlTensor) mine = NULL, all = NULL;
  g_autoptr (DlWork) work = NULL;

  mine = dl_tensor_new_from_data (values, n * sizeof (gint64), DL_SHAPE (n), DL_DTYPE_INT64, error);
  if (mine == NULL)
    return NULL;
  if (device == NULL)
    {
      if (!(all = dl_empty (DL_SHAPE (size, n), DL_DTYPE_INT64, NULL, error))
          || !(work
               = dl_process_group_all_gather_into_tensor (self->group, all, mine, FALSE, error)))
        return NULL;
      return g_steal_pointer (&all);
    }
  /* a group on a GPU gathers there; the values come back to the host */
  {
    g_autoptr (DlTensor) on_device = dl_tensor_to_device (mine, device, error);

    if (on_device == NULL || !(all = dl_empty (DL_SHAPE (size, n), DL_DTYPE_INT64, device, error))
        || !(work
             = dl_process_group_all_gather_into_tensor (self->group, all, on_device, FALSE, error)))
      return NULL;
  }
  return dl_tensor_to_device (all, dl_device_cpu (), error);
}

static gchar *
signature_shape (const gint64 *sig, guint param)
{
  guint at = 1;

  for (guint i = 0; i < param; i++)
    at += 2 + sig[at + 1];
  return dl_shape_to_string (sig + at + 2, sig[at + 1]);
}

/* Every rank must have the parameters of rank 0 (torch's
 * _verify_param_shape_across_processes): an error on every rank names the
 * first rank and parameter that differ. */
static gboolean
verify_params (DlDistributedDataParallel *self, GError **error)
{
  g_autoptr (GArray) sig = param_signature (self);
  gint64 head[2] = { self->params->len, sig->len };
  gint size = dl_process_group_get_size (self->group);
  g_autoptr (DlTensor) heads = gather_int64 (self, head, 2, error);
  g_autoptr (DlTensor) sigs = NULL;
  const gint64 *h, *s;

  if (heads == NULL)
    return FALSE;
  h = GSIZE_TO_POINTER (dl_tensor_get_data_ptr (heads));
  for (gint r = 1; r < size; r++)
    if (h[2 * r] != h[0])
      {
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "DistributedDataParallel: rank %d has %" G_GINT64_FORMAT
                     " parameters that require grad, rank 0 has %" G_GINT64_FORMAT,
                     r, h[2 * r], h[0]);
        return FALSE;
      }
  for (gint r = 1; r < size; r++)
    if (h[2 * r + 1] != h[1])
      {
        /* a dimension count differs: gather the shorter signature padded
         * would be needed to name it; say which rank */
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "DistributedDataParallel: the parameters of rank %d differ in their "
                     "number of dimensions from those of rank 0",
                     r);
        return FALSE;
      }
  if (!(sigs = gather_int64 (self, (const gint64 *)sig->data, sig->len, error)))
    return FALSE;
  s = GSIZE_TO_POINTER (dl_tensor_get_data_ptr (sigs));
  for (gint r = 1; r < size; r++)
    {
      const gint64 *o = s + (gsize)r * sig->len;
      guint at = 1;

      for (guint i = 0; i < self->params->len; i++)
        {
          gint64 span = 2 + s[at + 1];

          if (memcmp (s + at, o + at, span * sizeof (gint64)) != 0)
            {
              g_autofree gchar *a = signature_shape (s, i);
              g_autofree gchar *b = signature_shape (o, i);
              g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                           "DistributedDataParallel: parameter '%s' is %s %s on rank 0 but %s "
                           "%s on rank %d",
                           self->names[i], dl_dtype_get_name ((DlDType)s[at]), a,
                           dl_dtype_get_name ((DlDType)o[at]), b, r);
              return FALSE;
            }
          at += span;
        }
    }
  return TRUE;
}

/* Splits the parameters into buckets as torch's
 * compute_bucket_assignment_by_size: in reverse order, per dtype, a bucket
 * closes once it holds at least its limit (1 MB for the first of a dtype,
 * or bucket-cap-mb when that is smaller; bucket-cap-mb after); buckets are
 * ordered by their first parameter. */
static gboolean
assign_buckets (DlDistributedDataParallel *self, GError **error)
{
  guint n = self->params->len;
  g_autoptr (GHashTable) open = g_hash_table_new (NULL, NULL);   /* dtype -> Bucket */
  g_autoptr (GHashTable) limits = g_hash_table_new (NULL, NULL); /* dtype -> closed one */
  gint64 cap = (gint64)(self->bucket_cap_mb * 1024 * 1024);

  self->buckets = g_ptr_array_new_with_free_func (bucket_free);
  self->bucket_of = g_new0 (guint, n);
  self->slots = g_new0 (DlTensor *, n);
  self->ready = g_new0 (gboolean, n);
  for (guint k = n; k-- > 0;)
    {
      DlTensor *p = g_ptr_array_index (self->params, k);
      DlDType dt = dl_tensor_get_dtype (p);
      Bucket *b = g_hash_table_lookup (open, GINT_TO_POINTER (dt));
      gint64 limit = g_hash_table_contains (limits, GINT_TO_POINTER (dt))
                         ? cap
                         : MIN (cap, FIRST_BUCKET_BYTES);

      if (b == NULL)
        {
          b = g_new0 (Bucket, 1);
          b->dtype = dt;
          b->members = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (self->buckets, b);
          g_hash_table_insert (open, GINT_TO_POINTER (dt), b);
        }
      g_array_append_val (b->members, k);
      b->numel += dl_tensor_numel (p);
      if (b->numel * (gint64)dl_dtype_get_size (dt) >= limit)
        {
          g_hash_table_remove (open, GINT_TO_POINTER (dt));
          g_hash_table_add (limits, GINT_TO_POINTER (dt));
        }
    }
  /* buckets were added when their first parameter came, so they are in
   * order already */
  for (guint i = 0; i < self->buckets->len; i++)
    {
      Bucket *b = g_ptr_array_index (self->buckets, i);
      gint64 off = 0;

      /* where the parameters are: the CPU, or the GPU of a group on one */
      if (!(b->flat = dl_zeros (DL_SHAPE (b->numel), b->dtype,
                                dl_process_group_get_tensor_device (self->group), error)))
        return FALSE;
      for (guint j = 0; j < b->members->len; j++)
        {
          guint k = g_array_index (b->members, guint, j);
          DlTensor *p = g_ptr_array_index (self->params, k);
          gsize ndim;
          const gint64 *sizes = dl_tensor_get_shape (p, &ndim);
          g_autoptr (DlTensor) part
              = dl_tensor_narrow (b->flat, 0, off, dl_tensor_numel (p), error);

          if (part == NULL || !(self->slots[k] = dl_tensor_view (part, sizes, ndim, error)))
            return FALSE;
          self->bucket_of[k] = i;
          off += dl_tensor_numel (p);
        }
      b->pending = b->members->len;
    }
  return TRUE;
}

/* Forgets the state of a pass (waiting for any sum still in flight, whose
 * result is dropped): the next pass starts from empty buckets. */
static void
reset_pass (DlDistributedDataParallel *self)
{
  for (guint i = 0; self->buckets && i < self->buckets->len; i++)
    {
      Bucket *b = g_ptr_array_index (self->buckets, i);

      if (b->work)
        dl_work_wait (b->work, NULL);
      g_clear_object (&b->work);
      b->pending = b->members->len;
    }
  if (self->ready)
    memset (self->ready, 0, self->params->len * sizeof (gboolean));
  self->next_bucket = 0;
  self->queued = FALSE;
}

/* Launches the buckets that are complete, in order, up to the first that
 * is not. */
static gboolean
launch_ready_buckets (DlDistributedDataParallel *self, GError **error)
{
  while (self->next_bucket < self->buckets->len)
    {
      Bucket *b = g_ptr_array_index (self->buckets, self->next_bucket);

      if (b->pending)
        break;
      /* the mean, divided on the group's worker thread as soon as the
       * sum is in, while the backward pass goes on */
      b->work
          = dl_process_group_all_reduce (self->group, b->flat, DL_REDUCE_OP_KIND_AVG, TRUE, error);
      if (b->work == NULL)
        return FALSE;
      self->next_bucket++;
    }
  return TRUE;
}

/* gradient_as_bucket_view: parameter @k's .grad is its slot already, or
 * is copied there once and replaced by the slot */
static gboolean
grad_to_bucket_view (DlDistributedDataParallel *self, guint k, GError **error)
{
  DlTensor *p = g_ptr_array_index (self->params, k);
  DlTensor *grad = dl_tensor_get_grad (p);
  DlTensor *slot = self->slots[k];

  if (dl_tensor_get_data_ptr (grad) == dl_tensor_get_data_ptr (slot))
    return TRUE;
  return dl_tensor_copy_ (slot, grad, error) && dl_tensor_set_grad (p, slot, error);
}

/* Parameter @k's gradient is in (or, @unused, it has none in this pass and
 * contributes zeros): it fills its slot. */
static gboolean
mark_ready (DlDistributedDataParallel *self, guint k, gboolean unused, GError **error)
{
  DlTensor *p = g_ptr_array_index (self->params, k);
  DlTensor *grad = dl_tensor_get_grad (p);
  Bucket *b = g_ptr_array_index (self->buckets, self->bucket_of[k]);
  gboolean was;
  gboolean ok;

  if (self->ready[k])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "DistributedDataParallel: parameter '%s' was marked ready twice in one "
                   "iteration: a second backward pass through the same forward, or a "
                   "parameter used by several DistributedDataParallel modules, is not "
                   "supported",
                   self->names[k]);
      return FALSE;
    }
  was = dl_set_grad_enabled (FALSE);
  if (unused || grad == NULL)
    ok = dl_tensor_zero_ (self->slots[k], error) != NULL;
  else if (self->gradient_as_bucket_view)
    ok = grad_to_bucket_view (self, k, error);
  else
    ok = dl_tensor_copy_ (self->slots[k], grad, error) != NULL;
  dl_set_grad_enabled (was);
  if (!ok)
    return FALSE;
  self->ready[k] = TRUE;
  b->pending--;
  return b->pending > 0 || launch_ready_buckets (self, error);
}

/* Copies bucket @b's averaged sums back into its parameters' .grad; a
 * parameter without a .grad gets one, unless @used says no rank used it. */
static gboolean
unflatten (DlDistributedDataParallel *self, Bucket *b, const gfloat *used, GError **error)
{
  for (guint j = 0; j < b->members->len; j++)
    {
      guint k = g_array_index (b->members, guint, j);
      DlTensor *p = g_ptr_array_index (self->params, k);
      DlTensor *grad = dl_tensor_get_grad (p);

      if (grad && self->gradient_as_bucket_view
          && dl_tensor_get_data_ptr (grad) == dl_tensor_get_data_ptr (self->slots[k]))
        continue; /* averaged where it lies */
      if (grad)
        {
          if (!dl_tensor_copy_ (grad, self->slots[k], error))
            return FALSE;
        }
      else if (self->gradient_as_bucket_view && (used == NULL || used[k] > 0))
        {
          if (!dl_tensor_set_grad (p, self->slots[k], error))
            return FALSE;
        }
      else if (used == NULL || used[k] > 0)
        {
          g_autoptr (DlTensor) fresh = dl_tensor_clone (self->slots[k], error);
          if (fresh == NULL || !dl_tensor_set_grad (p, fresh, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* The end of a synchronizing backward pass (queued by the first hook):
 * marks the unused parameters, waits for every bucket and writes the means
 * into .grad. */
static gboolean
finish_pass (gpointer user_data, GError **error)
{
  DlDistributedDataParallel *self = user_data;
  g_autoptr (DlTensor) used = NULL;
  g_autoptr (DlWork) used_work = NULL;
  const gfloat *used_map = NULL;
  gint64 t0;
  gboolean was, ok = TRUE;

  if (!self->expect_hooks)
    return TRUE;
  self->expect_hooks = FALSE;
  if (self->find_unused_parameters)
    {
      DlDevice *device = dl_process_group_get_tensor_device (self->group);
      gfloat *u;

      if (!(used = dl_empty (DL_SHAPE (self->params->len), DL_DTYPE_FLOAT32, NULL, error)))
        return FALSE;
      u = GSIZE_TO_POINTER (dl_tensor_get_data_ptr (used));
      for (guint k = 0; k < self->params->len; k++)
        u[k] = self->ready[k] ? 1 : 0;
      /* a group on a GPU sums them there (read back after the wait) */
      if (device)
        {
          DlTensor *on_device = dl_tensor_to_device (used, device, error);

          if (on_device == NULL)
            return FALSE;
          g_object_unref (used);
          used = on_device;
          u = NULL;
        }
      for (guint k = 0; k < self->params->len && ok; k++)
        if (!self->ready[k])
          ok = mark_ready (self, k, TRUE, error);
      if (!ok)
        return FALSE;
      if (!(used_work
            = dl_process_group_all_reduce (self->group, used, DL_REDUCE_OP_KIND_SUM, TRUE, error)))
        return FALSE;
      used_map = u;
    }
  else
    for (guint k = 0; k < self->params->len; k++)
      if (!self->ready[k])
        {
          g_autoptr (GString) all = g_string_new (NULL);

          for (guint j = k; j < self->params->len; j++)
            if (!self->ready[j])
              g_string_append_printf (all, "%s'%s'", all->len ? ", " : "", self->names[j]);
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "DistributedDataParallel: parameters that received no gradient in this "
                       "backward pass on rank %d: %s. Their buckets cannot be reduced: make "
                       "every parameter take part in the loss, or construct the module with "
                       "find_unused_parameters=True",
                       dl_process_group_get_rank (self->group), all->str);
          reset_pass (self);
          return FALSE;
        }

  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < self->buckets->len && ok; i++)
    ok = dl_work_wait (((Bucket *)g_ptr_array_index (self->buckets, i))->work, error);
  if (ok && used_work)
    ok = dl_work_wait (used_work, error);
  if (ok && used_work && used_map == NULL)
    {
      DlTensor *host = dl_tensor_to_device (used, dl_device_cpu (), error);

      ok = host != NULL;
      if (ok)
        {
          g_object_unref (used);
          used = host;
          used_map = GSIZE_TO_POINTER (dl_tensor_get_data_ptr (used));
        }
    }
  self->last_wait = (g_get_monotonic_time () - t0) / (gdouble)G_USEC_PER_SEC;
  was = dl_set_grad_enabled (FALSE);
  for (guint i = 0; i < self->buckets->len && ok; i++)
    ok = unflatten (self, g_ptr_array_index (self->buckets, i), used_map, error);
  dl_set_grad_enabled (was);
  reset_pass (self);
  return ok;
}

typedef struct
{
  DlDistributedDataParallel *self; /* not a reference: dispose removes the hooks */
  guint k;
} HookData;

/* A parameter's gradient is in its .grad: the first one of a synchronizing
 * pass queues the end of the pass. */
static gboolean
param_hook (DlTensor *leaf, gpointer user_data, GError **error)
{
  HookData *d = user_data;
  DlDistributedDataParallel *self = d->self;

  if (!self->expect_hooks)
    return TRUE;
  if (!self->queued)
    {
      if (!dl_autograd_queue_callback (finish_pass, g_object_ref (self), g_object_unref, error))
        return FALSE;
      self->queued = TRUE;
    }
  return mark_ready (self, d->k, FALSE, error);
}

static gboolean
check_group_and_module (DlDistributedDataParallel *self, GError **error)
{
  if (self->module == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "DistributedDataParallel: the module to wrap is missing");
      return FALSE;
    }
  if (self->group == NULL)
    {
      DlProcessGroup *def = dl_distributed_get_default_group ();
      if (def == NULL)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                       "DistributedDataParallel: Default process group has not been "
                       "initialized, please make sure to call init_process_group.");
          return FALSE;
        }
      self->group = g_object_ref (def);
    }
  if (!(self->bucket_cap_mb > 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "DistributedDataParallel: bucket_cap_mb must be positive, got %g",
                   self->bucket_cap_mb);
      return FALSE;
    }
  return TRUE;
}

/* At construction, without communication: registers the wrapped module
 * and collects its parameters. */
static gboolean
adopt_module (DlDistributedDataParallel *self, GError **error)
{
  g_autoptr (GPtrArray) params = NULL;
  g_auto (GStrv) names = NULL;
  g_autoptr (GPtrArray) names_kept = g_ptr_array_new ();

  if (!check_group_and_module (self, error)
      || !dl_module_add_module (DL_MODULE (self), "module", self->module, error))
    return FALSE;
  params = dl_module_named_parameters (self->module, TRUE, &names);
  self->params = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (params, i);
      if (dl_tensor_get_requires_grad (p))
        {
          g_ptr_array_add (self->params, g_object_ref (p));
          g_ptr_array_add (names_kept, g_strdup (names[i]));
        }
    }
  g_ptr_array_add (names_kept, NULL);
  self->names = (GStrv)g_ptr_array_steal (names_kept, NULL);
  return TRUE;
}

/* At initialization (g_initable_init(), or the first forward), with the
 * other ranks: checks the parameters across the ranks, copies rank 0's
 * state, builds the buckets and hooks the parameters. Not in
 * constructed: a binding may hold its interpreter's lock while it
 * constructs (PyGObject does), which the process group's worker may need
 * to drop a reference to a binding's object. */
static gboolean
setup (DlDistributedDataParallel *self, GError **error)
{
  g_autoptr (GPtrArray) params = dl_module_parameters (self->module);
  g_autoptr (GPtrArray) buffers = dl_module_buffers (self->module);
  DlDevice *device = dl_process_group_get_tensor_device (self->group);

  /* a group on a GPU (NCCL) takes the tensors of that GPU only */
  for (guint k = 0; device && k < self->params->len; k++)
    {
      DlDevice *on = dl_tensor_get_device (g_ptr_array_index (self->params, k));

      if (!dl_device_equal (on, device))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                       "DistributedDataParallel: parameter '%s' is on %s but the %s group's "
                       "tensors are on %s: move the module there first (rank %d)",
                       self->names[k], dl_device_get_name (on),
                       dl_process_group_get_backend_name (self->group), dl_device_get_name (device),
                       dl_process_group_get_rank (self->group));
          return FALSE;
        }
    }
  if (!verify_params (self, error) || !broadcast_tensors (self, params, error)
      || !broadcast_tensors (self, buffers, error) || !assign_buckets (self, error))
    return FALSE;
  self->hook_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint k = 0; k < self->params->len; k++)
    {
      HookData *d = g_new (HookData, 1);
      guint id;

      d->self = self;
      d->k = k;
      id = dl_tensor_register_post_accumulate_grad_hook (g_ptr_array_index (self->params, k),
                                                         param_hook, d, g_free, error);
      if (id == 0)
        return FALSE;
      g_array_append_val (self->hook_ids, id);
    }
  return TRUE;
}

static GInitableIface *parent_initable_iface;

static gboolean
dl_distributed_data_parallel_initable_init (GInitable *initable,
                                            GCancellable *cancellable,
                                            GError **error)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (initable);
  GError *local = NULL;

  if (!parent_initable_iface->init (initable, cancellable, error))
    return FALSE;
  if (self->set_up)
    return TRUE;
  self->set_up = TRUE; /* once, also when it fails: the error stays */
  if (setup (self, &local))
    return TRUE;
  g_propagate_error (error, g_error_copy (local));
  dl_module_take_construct_error (DL_MODULE (self), local);
  return FALSE;
}

static void
dl_distributed_data_parallel_initable_iface_init (GInitableIface *iface)
{
  parent_initable_iface = g_type_interface_peek_parent (iface);
  iface->init = dl_distributed_data_parallel_initable_init;
}

/**
 * dl_distributed_data_parallel_pre_forward:
 * @self: a #DlDistributedDataParallel
 * @error: return location for a #GError
 *
 * What the forward does before calling the wrapped module: copies rank
 * 0's buffers to every rank (when #DlDistributedDataParallel:broadcast-buffers
 * is set and the group has several ranks) and prepares the next backward
 * pass, which averages the gradients across the ranks when grad mode is on
 * and dl_distributed_data_parallel_get_require_sync() is %TRUE. A binding
 * whose forward takes other arguments than tensors calls it, then the
 * module. Every rank must call it, as every rank runs the forward.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_distributed_data_parallel_pre_forward (DlDistributedDataParallel *self, GError **error)
{
  g_return_val_if_fail (DL_IS_DISTRIBUTED_DATA_PARALLEL (self), FALSE);
  if (!g_initable_init (G_INITABLE (self), NULL, error))
    return FALSE;
  reset_pass (self);
  self->expect_hooks = FALSE;
  if (self->broadcast_buffers && dl_process_group_get_size (self->group) > 1)
    {
      g_autoptr (GPtrArray) buffers = dl_module_buffers (self->module);
      if (buffers->len && !broadcast_tensors (self, buffers, error))
        return FALSE;
    }
  self->expect_hooks = self->require_sync && dl_is_grad_enabled ();
  return TRUE;
}

static DlTensor *
dl_distributed_data_parallel_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (module);

  if (!dl_distributed_data_parallel_pre_forward (self, error))
    return NULL;
  return dl_module_forward (self->module, input, error);
}

static void
dl_distributed_data_parallel_forward_many (DlModule *module,
                                           GPtrArray *inputs,
                                           GPtrArray **outputs,
                                           GError **error)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (module);

  if (dl_distributed_data_parallel_pre_forward (self, error))
    *outputs = dl_module_forward_many (self->module, inputs, error);
}

static void
dl_distributed_data_parallel_constructed (GObject *object)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (object);
  GError *error = NULL;

  G_OBJECT_CLASS (dl_distributed_data_parallel_parent_class)->constructed (object);
  if (!adopt_module (self, &error))
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_distributed_data_parallel_dispose (GObject *object)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (object);

  if (self->hook_ids)
    {
      for (guint i = 0; i < self->hook_ids->len; i++)
        dl_autograd_remove_hook (g_array_index (self->hook_ids, guint, i));
      g_clear_pointer (&self->hook_ids, g_array_unref);
    }
  reset_pass (self);
  if (self->slots)
    for (guint k = 0; k < self->params->len; k++)
      g_clear_object (&self->slots[k]);
  g_clear_pointer (&self->slots, g_free);
  g_clear_pointer (&self->buckets, g_ptr_array_unref);
  g_clear_pointer (&self->params, g_ptr_array_unref);
  g_clear_object (&self->module);
  g_clear_object (&self->group);
  G_OBJECT_CLASS (dl_distributed_data_parallel_parent_class)->dispose (object);
}

static void
dl_distributed_data_parallel_finalize (GObject *object)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (object);

  g_strfreev (self->names);
  g_free (self->bucket_of);
  g_free (self->ready);
  G_OBJECT_CLASS (dl_distributed_data_parallel_parent_class)->finalize (object);
}

static gchar *
dl_distributed_data_parallel_extra_repr (DlModule *module)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (module);

  return g_strdup_printf ("bucket_cap_mb=%g, broadcast_buffers=%s, find_unused_parameters=%s",
                          self->bucket_cap_mb, self->broadcast_buffers ? "True" : "False",
                          self->find_unused_parameters ? "True" : "False");
}

static void
dl_distributed_data_parallel_get_property (GObject *object,
                                           guint prop_id,
                                           GValue *value,
                                           GParamSpec *pspec)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (object);

  switch (prop_id)
    {
      case PROP_MODULE:
        g_value_set_object (value, self->module);
        break;
      case PROP_PROCESS_GROUP:
        g_value_set_object (value, self->group);
        break;
      case PROP_BUCKET_CAP_MB:
        g_value_set_double (value, self->bucket_cap_mb);
        break;
      case PROP_BROADCAST_BUFFERS:
        g_value_set_boolean (value, self->broadcast_buffers);
        break;
      case PROP_FIND_UNUSED_PARAMETERS:
        g_value_set_boolean (value, self->find_unused_parameters);
        break;
      case PROP_GRADIENT_AS_BUCKET_VIEW:
        g_value_set_boolean (value, self->gradient_as_bucket_view);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_distributed_data_parallel_set_property (GObject *object,
                                           guint prop_id,
                                           const GValue *value,
                                           GParamSpec *pspec)
{
  DlDistributedDataParallel *self = DL_DISTRIBUTED_DATA_PARALLEL (object);

  switch (prop_id)
    {
      case PROP_MODULE:
        self->module = g_value_dup_object (value);
        break;
      case PROP_PROCESS_GROUP:
        self->group = g_value_dup_object (value);
        break;
      case PROP_BUCKET_CAP_MB:
        self->bucket_cap_mb = g_value_get_double (value);
        break;
      case PROP_BROADCAST_BUFFERS:
        self->broadcast_buffers = g_value_get_boolean (value);
        break;
      case PROP_FIND_UNUSED_PARAMETERS:
        self->find_unused_parameters = g_value_get_boolean (value);
        break;
      case PROP_GRADIENT_AS_BUCKET_VIEW:
        self->gradient_as_bucket_view = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_distributed_data_parallel_class_init (DlDistributedDataParallelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                            | G_PARAM_EXPLICIT_NOTIFY;

  object_class->constructed = dl_distributed_data_parallel_constructed;
  object_class->dispose = dl_distributed_data_parallel_dispose;
  object_class->finalize = dl_distributed_data_parallel_finalize;
  object_class->get_property = dl_distributed_data_parallel_get_property;
  object_class->set_property = dl_distributed_data_parallel_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_distributed_data_parallel_forward;
  DL_MODULE_CLASS (klass)->forward_many = dl_distributed_data_parallel_forward_many;
  DL_MODULE_CLASS (klass)->extra_repr = dl_distributed_data_parallel_extra_repr;

  /**
   * DlDistributedDataParallel:module:
   *
   * The module to train (required); it becomes the child "module", so the
   * parameters' names start with "module." as in PyTorch.
   *
   * Since: 0.1
   */
  properties[PROP_MODULE] = g_param_spec_object ("module", NULL, NULL, DL_TYPE_MODULE, flags);
  /**
   * DlDistributedDataParallel:process-group:
   *
   * The group whose ranks average their gradients; %NULL (the default) is
   * the default group of dl_distributed_init_process_group().
   *
   * Since: 0.1
   */
  properties[PROP_PROCESS_GROUP]
      = g_param_spec_object ("process-group", NULL, NULL, DL_TYPE_PROCESS_GROUP, flags);
  /**
   * DlDistributedDataParallel:bucket-cap-mb:
   *
   * The size, in megabytes, at which a bucket of gradients closes (25, as
   * PyTorch's `bucket_cap_mb`); the first bucket closes at 1 MB, or at
   * this size when it is smaller.
   *
   * Since: 0.1
   */
  properties[PROP_BUCKET_CAP_MB]
      = g_param_spec_double ("bucket-cap-mb", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 25, flags);
  /**
   * DlDistributedDataParallel:broadcast-buffers:
   *
   * Whether each forward first copies the buffers (running statistics) of
   * rank 0 to every rank, as PyTorch's `broadcast_buffers=True`.
   *
   * Since: 0.1
   */
  properties[PROP_BROADCAST_BUFFERS]
      = g_param_spec_boolean ("broadcast-buffers", NULL, NULL, TRUE, flags);
  /**
   * DlDistributedDataParallel:find-unused-parameters:
   *
   * Whether a parameter that gets no gradient in a backward pass counts
   * as a zero gradient (PyTorch's `find_unused_parameters=True`); when
   * %FALSE, such a pass fails naming the parameter.
   *
   * Since: 0.1
   */
  properties[PROP_FIND_UNUSED_PARAMETERS]
      = g_param_spec_boolean ("find-unused-parameters", NULL, NULL, FALSE, flags);
  /**
   * DlDistributedDataParallel:gradient-as-bucket-view:
   *
   * Whether each parameter's .grad becomes a view of its slot in its
   * bucket (PyTorch's `gradient_as_bucket_view=True`): the gradients are
   * summed and averaged where they lie, with no copy into the bucket
   * before the sum nor back after it. A .grad made elsewhere (the first
   * backward pass, or after zero_grad(set_to_none=True)) is copied into
   * its slot once and replaced by the view. The results are the same as
   * without it.
   *
   * Since: 0.1
   */
  properties[PROP_GRADIENT_AS_BUCKET_VIEW]
      = g_param_spec_boolean ("gradient-as-bucket-view", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_distributed_data_parallel_init (DlDistributedDataParallel *self)
{
  self->bucket_cap_mb = 25;
  self->broadcast_buffers = TRUE;
  self->require_sync = TRUE;
}

/**
 * dl_distributed_data_parallel_new:
 * @module: the module to train
 * @process_group: (nullable): the group to average over; %NULL for the
 *   default group
 * @error: return location for a #GError
 *
 * Wraps @module for data-parallel training with the default bucket size,
 * buffer broadcasting and no search for unused parameters (set the
 * properties with g_initable_new() for others). Every rank of the group
 * must call it, with the same parameters (an error otherwise, on every
 * rank).
 *
 * Returns: (transfer full): the wrapper, or %NULL with @error set
 *
 * Since: 0.1
 */
DlDistributedDataParallel *
dl_distributed_data_parallel_new (DlModule *module, DlProcessGroup *process_group, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE (module), NULL);
  g_return_val_if_fail (process_group == NULL || DL_IS_PROCESS_GROUP (process_group), NULL);
  return g_initable_new (DL_TYPE_DISTRIBUTED_DATA_PARALLEL, NULL, error, "module", module,
                         "process-group", process_group, NULL);
}

/**
 * dl_distributed_data_parallel_get_module:
 * @self: a #DlDistributedDataParallel
 *
 * The wrapped module (torch's `ddp.module`).
 *
 * Returns: (transfer none): the module
 *
 * Since: 0.1
 */
DlModule *
dl_distributed_data_parallel_get_module (DlDistributedDataParallel *self)
{
  g_return_val_if_fail (DL_IS_DISTRIBUTED_DATA_PARALLEL (self), NULL);
  return self->module;
}

/**
 * dl_distributed_data_parallel_get_process_group:
 * @self: a #DlDistributedDataParallel
 *
 * The group the gradients are averaged over.
 *
 * Returns: (transfer none) (nullable): the group, %NULL when construction
 *   failed for want of one
 *
 * Since: 0.1
 */
DlProcessGroup *
dl_distributed_data_parallel_get_process_group (DlDistributedDataParallel *self)
{
  g_return_val_if_fail (DL_IS_DISTRIBUTED_DATA_PARALLEL (self), NULL);
  return self->group;
}

/**
 * dl_distributed_data_parallel_set_require_sync:
 * @self: a #DlDistributedDataParallel
 * @require_sync: %FALSE to accumulate gradients locally
 *
 * With %FALSE, the backward passes after the next forward leave each
 * rank's gradients local, accumulating in .grad without communication, as
 * inside PyTorch's `with ddp.no_sync():`; set it back to %TRUE for the
 * forward whose backward should average the accumulated gradients.
 *
 * Since: 0.1
 */
void
dl_distributed_data_parallel_set_require_sync (DlDistributedDataParallel *self,
                                               gboolean require_sync)
{
  g_return_if_fail (DL_IS_DISTRIBUTED_DATA_PARALLEL (self));
  self->require_sync = !!require_sync;
}

/**
 * dl_distributed_data_parallel_get_require_sync:
 * @self: a #DlDistributedDataParallel
 *
 * Whether backward passes after a forward average the gradients (see
 * dl_distributed_data_parallel_set_require_sync()).
 *
 * Returns: %TRUE unless gradients accumulate locally
 *
 * Since: 0.1
 */
gboolean
dl_distributed_data_parallel_get_require_sync (DlDistributedDataParallel *self)
{
  g_return_val_if_fail (DL_IS_DISTRIBUTED_DATA_PARALLEL (self), FALSE);
  return self->require_sync;
}

/**
 * dl_distributed_data_parallel_get_bucket_sizes:
 * @self: a #DlDistributedDataParallel
 * @n_buckets: (out): the number of buckets
 *
 * The number of elements of each bucket, in the order the buckets are
 * reduced (the last parameters' first).
 *
 * Returns: (array length=n_buckets) (transfer full): the sizes
 *
 * Since: 0.1
 */
gint64 *
dl_distributed_data_parallel_get_bucket_sizes (DlDistributedDataParallel *self, gsize *n_buckets)
{
  guint n;
  gint64 *sizes;

  g_return_val_if_fail (DL_IS_DISTRIBUTED_DATA_PARALLEL (self), NULL);
  g_return_val_if_fail (n_buckets != NULL, NULL);
  n = self->buckets ? self->buckets->len : 0;
  sizes = g_new0 (gint64, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    sizes[i] = ((Bucket *)g_ptr_array_index (self->buckets, i))->numel;
  *n_buckets = n;
  return sizes;
}

/**
 * dl_distributed_data_parallel_get_last_wait:
 * @self: a #DlDistributedDataParallel
 *
 * How long the end of the last averaging backward pass waited for its
 * buckets' sums, in seconds: the communication that the pass's
 * computation did not hide.
 *
 * Returns: seconds; 0 before the first averaging pass
 *
 * Since: 0.1
 */
gdouble
dl_distributed_data_parallel_get_last_wait (DlDistributedDataParallel *self)
{
  g_return_val_if_fail (DL_IS_DISTRIBUTED_DATA_PARALLEL (self), 0);
  return self->last_wait;
}

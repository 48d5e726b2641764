/* dl-process-group-collectives.c: DlProcessGroup's public collectives,
 * sends and receives: each checks its arguments, builds its job and
 * submits it (dl-process-group.c).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-error.h"
#include "dl-tensor-private.h"
#include "distributed/dl-distributed-private.h"
#include "distributed/dl-process-group-private.h"
#include "distributed/dl-work-private.h"

static gboolean
check_group_rank (DlProcessGroup *self, const gchar *op, const gchar *what, gint r, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  if (r >= 0 && r < priv->size)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
               "%s: %s rank %d is out of range for a group of size %d (rank %d)", op, what, r,
               priv->size, priv->rank);
  return FALSE;
}

static gboolean
check_same_dtype (DlProcessGroup *self,
                  const gchar *op,
                  const gchar *what,
                  DlTensor *t,
                  DlTensor *like,
                  GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  if (dl_tensor_get_dtype (t) == dl_tensor_get_dtype (like))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
               "%s: %s is %s but the input is %s; the dtypes must match (rank %d)", op, what,
               dl_dtype_get_name (dl_tensor_get_dtype (t)),
               dl_dtype_get_name (dl_tensor_get_dtype (like)), priv->rank);
  return FALSE;
}

/* @t's shape as text, for an error */
static gchar *
shape_of (DlTensor *t)
{
  gsize ndim;
  const gint64 *shape = dl_tensor_get_shape (t, &ndim);

  return dl_shape_to_string (shape, (gint)ndim);
}

/* The checks every tensor of an operation passes: alive, on the CPU,
 * contiguous, writable when @output; @like (nullable): same dtype and
 * number of elements (× @times) */

static gboolean
check_tensor (DlProcessGroup *self,
              const gchar *op,
              const gchar *what,
              DlTensor *t,
              gboolean output,
              DlTensor *like,
              gint64 times,
              GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  if (t == NULL || !DL_IS_TENSOR (t))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s is not a tensor (rank %d)", op, what,
                   priv->rank);
      return FALSE;
    }
  if (dl_tensor_is_released (t))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s was released (rank %d)", op, what,
                   priv->rank);
      return FALSE;
    }
  if (dl_process_group_on_device (self))
    {
      /* the engine's GPU: torch's ProcessGroupNCCL says "Tensors must be
       * CUDA and dense" */
      DlStream *comm = DL_PROCESS_GROUP_GET_CLASS (self)->communication_stream (self);
      DlDevice *want = dl_stream_get_device (comm);

      if (!dl_device_equal (dl_tensor_get_device (t), want))
        {
          g_autofree gchar *shape_str = shape_of (t);

          g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                       "%s: %s %s is on %s; Tensors must be CUDA and dense, on the %s group's "
                       "device %s (rank %d)",
                       op, what, shape_str, dl_device_get_name (dl_tensor_get_device (t)),
                       priv->backend_name ? priv->backend_name : "process group's",
                       dl_device_get_name (want), priv->rank);
          return FALSE;
        }
    }
  else if (dl_device_get_device_type (dl_tensor_get_device (t)) != DL_DEVICE_TYPE_CPU)
    {
      g_autofree gchar *shape_str = shape_of (t);

      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "%s: %s %s is on %s; the %s engine takes CPU tensors (rank %d)", op, what,
                   shape_str, dl_device_get_name (dl_tensor_get_device (t)),
                   priv->backend_name ? priv->backend_name : "process group's", priv->rank);
      return FALSE;
    }
  if (!dl_tensor_is_contiguous (t))
    {
      g_autofree gchar *shape_str = shape_of (t);

      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s %s is not contiguous; tensors must be contiguous (rank %d)", op, what,
                   shape_str, priv->rank);
      return FALSE;
    }
  if (output && dl_tensor_is_read_only (t))
    {
      g_autofree gchar *shape_str = shape_of (t);

      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s %s is read-only (rank %d)", op, what,
                   shape_str, priv->rank);
      return FALSE;
    }
  if (like)
    {
      gsize like_ndim;
      const gint64 *like_shape = dl_tensor_get_shape (like, &like_ndim);

      if (!check_same_dtype (self, op, what, t, like, error))
        return FALSE;
      if (dl_tensor_numel (t) != dl_tensor_numel (like) * times)
        {
          g_autofree gchar *shape_str = shape_of (t);
          g_autofree gchar *like_str = dl_shape_to_string (like_shape, (gint)like_ndim);

          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: %s %s does not fit the input %s%s (rank %d of %d)", op, what, shape_str,
                       like_str,
                       times == 1            ? ""
                       : times == priv->size ? " times the group's size"
                                             : "",
                       priv->rank, priv->size);
          return FALSE;
        }
    }
  return TRUE;
}

/* A list of exactly size tensors */
static gboolean
check_list_length (DlProcessGroup *self,
                   const gchar *op,
                   const gchar *what,
                   GPtrArray *list,
                   GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  if (list != NULL && list->len == (guint)priv->size)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "%s: %s holds %u tensors; it needs one per rank, %d (rank %d)", op, what,
               list ? list->len : 0, priv->size, priv->rank);
  return FALSE;
}

/* A list of exactly size tensors that each pass check_tensor against
 * @like */
static gboolean
check_list (DlProcessGroup *self,
            const gchar *op,
            const gchar *what,
            GPtrArray *list,
            gboolean output,
            DlTensor *like,
            GError **error)
{
  if (!check_list_length (self, op, what, list, error))
    return FALSE;
  for (guint i = 0; i < list->len; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("%s[%u]", what, i);

      if (!check_tensor (self, op, name, g_ptr_array_index (list, i), output, like, 1, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_reduce_op (DlProcessGroup *self,
                 const gchar *name,
                 DlTensor *t,
                 DlReduceOpKind op,
                 GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  if ((guint)op > DL_REDUCE_OP_KIND_AVG)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: unknown reduction %d (rank %d)", name,
                   (gint)op, priv->rank);
      return FALSE;
    }
  if (op == DL_REDUCE_OP_KIND_AVG && dl_tensor_get_dtype (t) == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: avg is not defined on bool tensors (rank %d)", name, priv->rank);
      return FALSE;
    }
  return TRUE;
}

static GPtrArray *
list_copy (GPtrArray *list)
{
  GPtrArray *copy;

  if (list == NULL)
    return NULL;
  copy = g_ptr_array_new_full (list->len, g_object_unref);
  for (guint i = 0; i < list->len; i++)
    g_ptr_array_add (copy, g_object_ref (g_ptr_array_index (list, i)));
  return copy;
}

static void
bump (DlTensor *t)
{
  dl_storage_bump_version (t->storage);
}

static void
bump_list (GPtrArray *list)
{
  for (guint i = 0; list && i < list->len; i++)
    bump (g_ptr_array_index (list, i));
}

/* all_to_all's lists: one tensor per rank, each of @like's dtype, of any
 * size */
static gboolean
check_list_any_size (DlProcessGroup *self,
                     const gchar *what,
                     GPtrArray *list,
                     gboolean output,
                     DlTensor *like,
                     GError **error)
{
  if (!check_list_length (self, "all_to_all", what, list, error))
    return FALSE;
  for (guint i = 0; i < list->len; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("%s[%u]", what, i);
      DlTensor *t = g_ptr_array_index (list, i);

      if (!check_tensor (self, "all_to_all", name, t, output, NULL, 1, error)
          || !check_same_dtype (self, "all_to_all", name, t, like, error))
        return FALSE;
    }
  return TRUE;
}

/* @n split sizes (0: size equal blocks) that cut @t's dim 0 into one
 * block per rank */
static gboolean
check_splits (DlProcessGroup *self,
              const gchar *what,
              DlTensor *t,
              const gint64 *splits,
              gsize n,
              GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  gint64 rows = dl_tensor_get_ndim (t) ? dl_tensor_get_size (t, 0, NULL) : 1;
  gint64 total = 0;

  if (n == 0)
    {
      if (rows % priv->size == 0)
        return TRUE;
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "all_to_all_single: dim 0 of size %" G_GINT64_FORMAT
                   " does not split into %d equal blocks; give %s (rank %d)",
                   rows, priv->size, what, priv->rank);
      return FALSE;
    }
  if (n != (gsize)priv->size)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "all_to_all_single: %s has %" G_GSIZE_FORMAT
                   " sizes; it needs one per rank, %d (rank %d)",
                   what, n, priv->size, priv->rank);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    {
      if (splits[i] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "all_to_all_single: %s[%" G_GSIZE_FORMAT "] is negative (%" G_GINT64_FORMAT
                       ") (rank %d)",
                       what, i, splits[i], priv->rank);
          return FALSE;
        }
      total += splits[i];
    }
  if (total == rows)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "all_to_all_single: %s add up to %" G_GINT64_FORMAT
               " rows but dim 0 has %" G_GINT64_FORMAT " (rank %d)",
               what, total, rows, priv->rank);
  return FALSE;
}

/* The bytes of each block of @t: @splits rows each, or size equal blocks
 * when @splits is NULL */
static void
rows_to_bytes (DlProcessGroup *self, DlTensor *t, const gint64 *splits, gint64 *bytes)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  gint64 rows = dl_tensor_get_ndim (t) ? dl_tensor_get_size (t, 0, NULL) : 1;
  gint64 row_bytes = rows ? (gint64)dl_process_group_tensor_nbytes (t) / rows : 0;

  for (gint r = 0; r < priv->size; r++)
    bytes[r] = (splits ? splits[r] : rows / priv->size) * row_bytes;
}

/* Makes @job an all_to_all of parts of any size: the bytes to send to
 * each rank from @send_splits (rows of job->other; NULL with @n 0: equal
 * blocks) or, for the list form (job->list2), from the input tensors;
 * the bytes to receive from @recv_splits or job->list. Its metadata then
 * names only the dtype, which the ranks compare. */
static void
job_set_parts (DlProcessGroup *self,
               Job *job,
               const gint64 *send_splits,
               const gint64 *recv_splits,
               gsize n)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  job->send_bytes = g_new (gint64, priv->size);
  job->recv_bytes = g_new (gint64, priv->size);
  if (job->list2)
    for (gint r = 0; r < priv->size; r++)
      {
        job->send_bytes[r]
            = (gint64)dl_process_group_tensor_nbytes (g_ptr_array_index (job->list2, r));
        job->recv_bytes[r]
            = (gint64)dl_process_group_tensor_nbytes (g_ptr_array_index (job->list, r));
      }
  else
    {
      rows_to_bytes (self, job->other, n ? send_splits : NULL, job->send_bytes);
      if (recv_splits)
        rows_to_bytes (self, job->tensor, recv_splits, job->recv_bytes);
    }
  job->meta.numel = -1;
  job->meta.ndim = 0;
  memset (job->meta.shape, 0, sizeof job->meta.shape);
}

#define CHECK_SELF(self) g_return_val_if_fail (DL_IS_PROCESS_GROUP (self), NULL)
#define CHECK_OR_FAIL(cond, coll)                                                                  \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (!(cond))                                                                                   \
      return dl_process_group_fail_collective (self, coll, error);                                 \
  }                                                                                                \
  G_STMT_END

/**
 * dl_process_group_all_reduce:
 * @self: a #DlProcessGroup
 * @tensor: the tensor to reduce, in place, on every rank
 * @op: how to combine the ranks' values
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Reduces @tensor across the ranks with @op and leaves the result in
 * @tensor on every rank (torch's `all_reduce`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_all_reduce (DlProcessGroup *self,
                             DlTensor *tensor,
                             DlReduceOpKind op,
                             gboolean async_op,
                             GError **error)
{
  Job *job;

  CHECK_SELF (self);
  CHECK_OR_FAIL (check_tensor (self, "all_reduce", "tensor", tensor, TRUE, NULL, 1, error)
                     && check_reduce_op (self, "all_reduce", tensor, op, error),
                 COLL_ALL_REDUCE);
  job = dl_process_group_job_new (self, COLL_ALL_REDUCE, tensor, -1, op);
  bump (tensor);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_broadcast:
 * @self: a #DlProcessGroup
 * @tensor: the tensor to send (on @src) or to overwrite (elsewhere)
 * @src: the rank whose tensor every rank receives
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Copies @tensor of rank @src into @tensor of every rank (torch's
 * `broadcast`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_broadcast (DlProcessGroup *self,
                            DlTensor *tensor,
                            gint src,
                            gboolean async_op,
                            GError **error)
{
  CHECK_SELF (self);
  CHECK_OR_FAIL (check_tensor (self, "broadcast", "tensor", tensor, TRUE, NULL, 1, error)
                     && check_group_rank (self, "broadcast", "source", src, error),
                 COLL_BROADCAST);
  bump (tensor);
  return dl_process_group_submit (
      self, dl_process_group_job_new (self, COLL_BROADCAST, tensor, src, -1), async_op, error);
}

/**
 * dl_process_group_reduce:
 * @self: a #DlProcessGroup
 * @tensor: the tensor to reduce; the result lands in it on @dst
 * @dst: the rank that receives the result
 * @op: how to combine the ranks' values
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Reduces @tensor across the ranks with @op into @tensor of rank @dst
 * (torch's `reduce`); the other ranks' tensors may be overwritten with
 * partial results, as torch allows.
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_reduce (DlProcessGroup *self,
                         DlTensor *tensor,
                         gint dst,
                         DlReduceOpKind op,
                         gboolean async_op,
                         GError **error)
{
  Job *job;

  CHECK_SELF (self);
  CHECK_OR_FAIL (check_tensor (self, "reduce", "tensor", tensor, TRUE, NULL, 1, error)
                     && check_reduce_op (self, "reduce", tensor, op, error)
                     && check_group_rank (self, "reduce", "destination", dst, error),
                 COLL_REDUCE);
  job = dl_process_group_job_new (self, COLL_REDUCE, tensor, dst, op);
  bump (tensor);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_all_gather:
 * @self: a #DlProcessGroup
 * @tensor_list: (element-type DlTensor): one output tensor per rank, each
 *   with the dtype and number of elements of @tensor
 * @tensor: this rank's contribution
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Gathers every rank's @tensor into @tensor_list on every rank: element r
 * receives rank r's tensor (torch's `all_gather`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_all_gather (DlProcessGroup *self,
                             GPtrArray *tensor_list,
                             DlTensor *tensor,
                             gboolean async_op,
                             GError **error)
{
  Job *job;

  CHECK_SELF (self);
  CHECK_OR_FAIL (
      check_tensor (self, "all_gather", "tensor", tensor, FALSE, NULL, 1, error)
          && check_list (self, "all_gather", "tensor_list", tensor_list, TRUE, tensor, error),
      COLL_ALL_GATHER);
  job = dl_process_group_job_new (self, COLL_ALL_GATHER, tensor, -1, -1);
  job->list = list_copy (tensor_list);
  bump_list (tensor_list);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_all_gather_into_tensor:
 * @self: a #DlProcessGroup
 * @output: a tensor of size × the number of elements of @input
 * @input: this rank's contribution
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Gathers every rank's @input into @output on every rank, one after the
 * other in rank order (torch's `all_gather_into_tensor`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_all_gather_into_tensor (DlProcessGroup *self,
                                         DlTensor *output,
                                         DlTensor *input,
                                         gboolean async_op,
                                         GError **error)
{
  DlProcessGroupPrivate *priv;
  Job *job;

  CHECK_SELF (self);
  priv = dl_process_group_get_priv (self);
  CHECK_OR_FAIL (
      check_tensor (self, "all_gather_into_tensor", "input", input, FALSE, NULL, 1, error)
          && check_tensor (self, "all_gather_into_tensor", "output", output, TRUE, input,
                           priv->size, error),
      COLL_ALL_GATHER);
  job = dl_process_group_job_new (self, COLL_ALL_GATHER, input, -1, -1);
  job->other = g_object_ref (output);
  bump (output);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_gather:
 * @self: a #DlProcessGroup
 * @tensor: this rank's contribution
 * @gather_list: (element-type DlTensor) (nullable): on rank @dst, one
 *   output tensor per rank; ignored (and may be %NULL) elsewhere
 * @dst: the rank that receives the tensors
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Gathers every rank's @tensor into @gather_list on rank @dst (torch's
 * `gather`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_gather (DlProcessGroup *self,
                         DlTensor *tensor,
                         GPtrArray *gather_list,
                         gint dst,
                         gboolean async_op,
                         GError **error)
{
  DlProcessGroupPrivate *priv;
  Job *job;
  gboolean root;

  CHECK_SELF (self);
  priv = dl_process_group_get_priv (self);
  root = dst == priv->rank;
  CHECK_OR_FAIL (
      check_tensor (self, "gather", "tensor", tensor, FALSE, NULL, 1, error)
          && check_group_rank (self, "gather", "destination", dst, error)
          && (!root
              || check_list (self, "gather", "gather_list", gather_list, TRUE, tensor, error)),
      COLL_GATHER);
  job = dl_process_group_job_new (self, COLL_GATHER, tensor, dst, -1);
  if (root)
    {
      job->list = list_copy (gather_list);
      bump_list (gather_list);
    }
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_scatter:
 * @self: a #DlProcessGroup
 * @tensor: the output tensor of this rank
 * @scatter_list: (element-type DlTensor) (nullable): on rank @src, one
 *   tensor per rank, each with the dtype and number of elements of
 *   @tensor; ignored (and may be %NULL) elsewhere
 * @src: the rank that sends the tensors
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Sends element r of @scatter_list on rank @src to @tensor of rank r
 * (torch's `scatter`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_scatter (DlProcessGroup *self,
                          DlTensor *tensor,
                          GPtrArray *scatter_list,
                          gint src,
                          gboolean async_op,
                          GError **error)
{
  DlProcessGroupPrivate *priv;
  Job *job;
  gboolean root;

  CHECK_SELF (self);
  priv = dl_process_group_get_priv (self);
  root = src == priv->rank;
  CHECK_OR_FAIL (
      check_tensor (self, "scatter", "tensor", tensor, TRUE, NULL, 1, error)
          && check_group_rank (self, "scatter", "source", src, error)
          && (!root
              || check_list (self, "scatter", "scatter_list", scatter_list, FALSE, tensor, error)),
      COLL_SCATTER);
  job = dl_process_group_job_new (self, COLL_SCATTER, tensor, src, -1);
  if (root)
    job->list = list_copy (scatter_list);
  bump (tensor);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_reduce_scatter:
 * @self: a #DlProcessGroup
 * @output: this rank's share of the result
 * @input_list: (element-type DlTensor): one tensor per rank, each with
 *   the dtype and number of elements of @output
 * @op: how to combine the ranks' values
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Reduces the ranks' @input_list element-wise with @op and leaves
 * element r of the result in @output of rank r (torch's
 * `reduce_scatter`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_reduce_scatter (DlProcessGroup *self,
                                 DlTensor *output,
                                 GPtrArray *input_list,
                                 DlReduceOpKind op,
                                 gboolean async_op,
                                 GError **error)
{
  Job *job;

  CHECK_SELF (self);
  CHECK_OR_FAIL (
      check_tensor (self, "reduce_scatter", "output", output, TRUE, NULL, 1, error)
          && check_reduce_op (self, "reduce_scatter", output, op, error)
          && check_list (self, "reduce_scatter", "input_list", input_list, FALSE, output, error),
      COLL_REDUCE_SCATTER);
  job = dl_process_group_job_new (self, COLL_REDUCE_SCATTER, output, -1, op);
  job->list = list_copy (input_list);
  bump (output);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_reduce_scatter_tensor:
 * @self: a #DlProcessGroup
 * @output: this rank's share of the result
 * @input: size × the number of elements of @output
 * @op: how to combine the ranks' values
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Reduces the ranks' @input element-wise with @op and leaves the r-th
 * block of the result in @output of rank r (torch's
 * `reduce_scatter_tensor`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_reduce_scatter_tensor (DlProcessGroup *self,
                                        DlTensor *output,
                                        DlTensor *input,
                                        DlReduceOpKind op,
                                        gboolean async_op,
                                        GError **error)
{
  DlProcessGroupPrivate *priv;
  Job *job;

  CHECK_SELF (self);
  priv = dl_process_group_get_priv (self);
  CHECK_OR_FAIL (
      check_tensor (self, "reduce_scatter_tensor", "output", output, TRUE, NULL, 1, error)
          && check_reduce_op (self, "reduce_scatter_tensor", output, op, error)
          && check_tensor (self, "reduce_scatter_tensor", "input", input, FALSE, output, priv->size,
                           error),
      COLL_REDUCE_SCATTER);
  job = dl_process_group_job_new (self, COLL_REDUCE_SCATTER, output, -1, op);
  job->other = g_object_ref (input);
  bump (output);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_all_to_all:
 * @self: a #DlProcessGroup
 * @output_list: (element-type DlTensor): one output tensor per rank:
 *   element r receives what rank r sent this rank
 * @input_list: (element-type DlTensor): one input tensor per rank:
 *   element r goes to rank r
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Every rank sends element r of its @input_list to rank r, which
 * receives it as element s of its @output_list, s being the sender
 * (torch's `all_to_all`). All the tensors have the same dtype; their
 * sizes may differ, but element s of @output_list on rank r must have
 * as many elements as element r of @input_list on rank s, or the
 * collective fails on every rank.
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_all_to_all (DlProcessGroup *self,
                             GPtrArray *output_list,
                             GPtrArray *input_list,
                             gboolean async_op,
                             GError **error)
{
  DlTensor *first;
  Job *job;

  CHECK_SELF (self);
  first = output_list && output_list->len ? g_ptr_array_index (output_list, 0) : NULL;
  CHECK_OR_FAIL (check_tensor (self, "all_to_all", "output_list[0]", first, TRUE, NULL, 1, error)
                     && check_list_any_size (self, "output_list", output_list, TRUE, first, error)
                     && check_list_any_size (self, "input_list", input_list, FALSE, first, error),
                 COLL_ALL_TO_ALL);
  job = dl_process_group_job_new (self, COLL_ALL_TO_ALL, first, -1, -1);
  job->list = list_copy (output_list);
  job->list2 = list_copy (input_list);
  job_set_parts (self, job, NULL, NULL, 0);
  bump_list (output_list);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_all_to_all_single:
 * @self: a #DlProcessGroup
 * @output: size equal blocks: block r receives what rank r sent
 * @input: size equal blocks: block r goes to rank r
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * The all-to-all exchange of one tensor split into size equal blocks
 * along its elements (torch's `all_to_all_single` without split sizes).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_all_to_all_single (DlProcessGroup *self,
                                    DlTensor *output,
                                    DlTensor *input,
                                    gboolean async_op,
                                    GError **error)
{
  DlProcessGroupPrivate *priv;
  Job *job;

  CHECK_SELF (self);
  priv = dl_process_group_get_priv (self);
  CHECK_OR_FAIL (
      check_tensor (self, "all_to_all_single", "input", input, FALSE, NULL, 1, error)
          && check_tensor (self, "all_to_all_single", "output", output, TRUE, input, 1, error),
      COLL_ALL_TO_ALL);
  if (dl_tensor_numel (input) % priv->size != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "all_to_all_single: %" G_GINT64_FORMAT
                   " elements do not split into %d equal blocks (rank %d)",
                   dl_tensor_numel (input), priv->size, priv->rank);
      return dl_process_group_fail_collective (self, COLL_ALL_TO_ALL, error);
    }
  job = dl_process_group_job_new (self, COLL_ALL_TO_ALL, output, -1, -1);
  job->other = g_object_ref (input);
  if (dl_process_group_on_device (self))
    {
      /* an engine on a device runs every all_to_all as parts: here equal
       * ones, of the elements (its metadata keeps the shape, compared
       * across the ranks first) */
      job->send_bytes = g_new (gint64, priv->size);
      job->recv_bytes = g_new (gint64, priv->size);
      for (gint r = 0; r < priv->size; r++)
        job->send_bytes[r] = job->recv_bytes[r]
            = (gint64)(dl_process_group_tensor_nbytes (input) / priv->size);
    }
  bump (output);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_all_to_all_single_split:
 * @self: a #DlProcessGroup
 * @output: the received blocks, one after the other: block r (of
 *   @output_split_sizes[r] rows) holds what rank r sent
 * @input: the blocks to send, one after the other: block r (of
 *   @input_split_sizes[r] rows) goes to rank r
 * @output_split_sizes: (array length=n_output_split_sizes) (nullable):
 *   the rows (sizes along dim 0) of each received block; empty for size
 *   equal blocks
 * @n_output_split_sizes: the length of @output_split_sizes: 0 or the
 *   group's size
 * @input_split_sizes: (array length=n_input_split_sizes) (nullable): the
 *   rows of each block sent; empty for size equal blocks
 * @n_input_split_sizes: the length of @input_split_sizes: 0 or the
 *   group's size
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * torch's `all_to_all_single` with split sizes: @input is cut along dim
 * 0 into blocks of @input_split_sizes rows, block r goes to rank r, and
 * the blocks received land in @output one after the other, block s (of
 * @output_split_sizes[s] rows) from rank s. The sizes may differ from
 * rank to rank, but what rank s sends rank r must be what rank r
 * expects from rank s, or the collective fails on every rank. The two
 * tensors have the same dtype and the same size of a row (the product
 * of the sizes after dim 0).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_all_to_all_single_split (DlProcessGroup *self,
                                          DlTensor *output,
                                          DlTensor *input,
                                          const gint64 *output_split_sizes,
                                          gsize n_output_split_sizes,
                                          const gint64 *input_split_sizes,
                                          gsize n_input_split_sizes,
                                          gboolean async_op,
                                          GError **error)
{
  Job *job;

  CHECK_SELF (self);
  CHECK_OR_FAIL (
      check_tensor (self, "all_to_all_single", "input", input, FALSE, NULL, 1, error)
          && check_tensor (self, "all_to_all_single", "output", output, TRUE, NULL, 1, error)
          && check_same_dtype (self, "all_to_all_single", "output", output, input, error)
          && check_splits (self, "output_split_sizes", output, output_split_sizes,
                           n_output_split_sizes, error)
          && check_splits (self, "input_split_sizes", input, input_split_sizes, n_input_split_sizes,
                           error),
      COLL_ALL_TO_ALL);
  job = dl_process_group_job_new (self, COLL_ALL_TO_ALL, output, -1, -1);
  job->other = g_object_ref (input);
  job_set_parts (self, job, input_split_sizes, n_output_split_sizes ? output_split_sizes : NULL,
                 n_input_split_sizes);
  if (n_output_split_sizes == 0)
    rows_to_bytes (self, output, NULL, job->recv_bytes);
  bump (output);
  return dl_process_group_submit (self, job, async_op, error);
}

static DlWork *
point_to_point (DlProcessGroup *self,
                Coll coll,
                DlTensor *tensor,
                gint peer,
                gint tag,
                gboolean async_op,
                GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  const gchar *name = dl_process_group_coll_names[coll];
  Job *job;

  if (!check_tensor (self, name, "tensor", tensor, coll == COLL_RECV, NULL, 1, error)
      || ((peer >= 0 || coll == COLL_SEND) /* -1: a receive from any source */
          && !check_group_rank (self, name, coll == COLL_SEND ? "destination" : "source", peer,
                                error)))
    return NULL;
  if (peer < 0 && priv->size == 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "recv: rank %d is alone in its group: there is no other rank to receive from",
                   priv->rank);
      return NULL;
    }
  if (peer == priv->rank)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: rank %d cannot %s itself", name, peer,
                   coll == COLL_SEND ? "send to" : "receive from");
      return NULL;
    }
  if (tag < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: tag %d is negative (rank %d)", name,
                   tag, priv->rank);
      return NULL;
    }
  job = dl_process_group_job_new (self, coll, tensor, peer, -1);
  job->tag = tag;
  if (coll == COLL_RECV)
    bump (tensor);
  return dl_process_group_submit (self, job, async_op, error);
}

/**
 * dl_process_group_send:
 * @self: a #DlProcessGroup
 * @tensor: the tensor to send
 * @dst: the receiving rank
 * @tag: a number (>= 0) that the receiver's dl_process_group_recv() names
 * @async_op: %TRUE to return at once (torch's `isend`), with a #DlWork to
 *   wait for
 * @error: return location for a #GError
 *
 * Sends @tensor to rank @dst (torch's `send`); the receiver's tensor must
 * have the same dtype and number of elements, or both sides fail.
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_send (DlProcessGroup *self,
                       DlTensor *tensor,
                       gint dst,
                       gint tag,
                       gboolean async_op,
                       GError **error)
{
  CHECK_SELF (self);
  return point_to_point (self, COLL_SEND, tensor, dst, tag, async_op, error);
}

/**
 * dl_process_group_recv:
 * @self: a #DlProcessGroup
 * @tensor: the tensor to receive into
 * @src: the sending rank
 * @tag: the tag the sender's dl_process_group_send() gave
 * @async_op: %TRUE to return at once (torch's `irecv`), with a #DlWork to
 *   wait for
 * @error: return location for a #GError
 *
 * Receives into @tensor what rank @src sends (torch's `recv`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_recv (DlProcessGroup *self,
                       DlTensor *tensor,
                       gint src,
                       gint tag,
                       gboolean async_op,
                       GError **error)
{
  CHECK_SELF (self);
  return point_to_point (self, COLL_RECV, tensor, src, tag, async_op, error);
}

/**
 * dl_process_group_recv_any_source:
 * @self: a #DlProcessGroup
 * @tensor: the tensor to receive into
 * @tag: the tag the sender's dl_process_group_send() gave
 * @async_op: %TRUE to return at once (torch's `irecv` with `src=None`),
 *   with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Receives into @tensor what the first rank to send a message with @tag
 * sends (torch's `recv` with `src=None`); dl_work_get_source_rank() on
 * the completed work says which rank it was. Receives from any source
 * run one at a time, in order, beside the receives from named ranks;
 * do not receive from a named rank with the same @tag while a receive
 * from any source may match that rank's message.
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_recv_any_source (DlProcessGroup *self,
                                  DlTensor *tensor,
                                  gint tag,
                                  gboolean async_op,
                                  GError **error)
{
  CHECK_SELF (self);
  return point_to_point (self, COLL_RECV, tensor, -1, tag, async_op, error);
}

/**
 * dl_process_group_barrier:
 * @self: a #DlProcessGroup
 * @async_op: %TRUE to return at once, with a #DlWork to wait for
 * @error: return location for a #GError
 *
 * Waits until every rank of @self has reached the barrier (torch's
 * `barrier`).
 *
 * Returns: (transfer full): the operation's work, completed unless
 *   @async_op; %NULL with @error set on failure
 *
 * Since: 0.1
 */
DlWork *
dl_process_group_barrier (DlProcessGroup *self, gboolean async_op, GError **error)
{
  CHECK_SELF (self);
  return dl_process_group_submit (self, dl_process_group_job_new (self, COLL_BARRIER, NULL, -1, -1),
                                  async_op, error);
}

/**
 * dl_process_group_new_group:
 * @self: a #DlProcessGroup
 * @ranks: (array length=n_ranks): the ranks of @self that form the new
 *   group, in the order of their new ranks
 * @n_ranks: the length of @ranks
 * @error: return location for a #GError
 *
 * Makes a subgroup of @self (torch's `new_group`). Every rank of @self
 * must call it, with the same @ranks, including the ranks that are not
 * in it; those get %NULL without an error.
 *
 * Returns: (transfer full) (nullable): the new group on the ranks in
 *   @ranks; %NULL elsewhere, or with @error set on failure
 *
 * Since: 0.1
 */
DlProcessGroup *
dl_process_group_new_group (DlProcessGroup *self, const gint *ranks, gsize n_ranks, GError **error)
{
  DlProcessGroupPrivate *priv;
  DlProcessGroupClass *klass;
  g_autoptr (DlWork) work = NULL;
  Job *job;

  CHECK_SELF (self);
  priv = dl_process_group_get_priv (self);
  klass = DL_PROCESS_GROUP_GET_CLASS (self);
  if (n_ranks == 0 || n_ranks > (gsize)priv->size)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "new_group: %" G_GSIZE_FORMAT " ranks for a group of size %d (rank %d)", n_ranks,
                   priv->size, priv->rank);
      return NULL;
    }
  for (gsize i = 0; i < n_ranks; i++)
    {
      if (!check_group_rank (self, "new_group", "member", ranks[i], error))
        return NULL;
      for (gsize j = 0; j < i; j++)
        if (ranks[j] == ranks[i])
          {
            g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                         "new_group: rank %d is listed twice (rank %d)", ranks[i], priv->rank);
            return NULL;
          }
    }
  if (klass->new_group == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "new_group: the %s engine cannot make subgroups",
                   priv->backend_name ? priv->backend_name : G_OBJECT_TYPE_NAME (self));
      return NULL;
    }
  job = dl_process_group_job_new (self, COLL_NEW_GROUP, NULL, -1, -1);
  job->ranks = g_memdup2 (ranks, n_ranks * sizeof (gint));
  job->n_ranks = n_ranks;
  work = dl_process_group_submit (self, job, FALSE, error);
  if (work == NULL)
    return NULL;
  return g_object_steal_data (G_OBJECT (work), "dl-new-group");
}

/* dl-process-group.c: DlProcessGroup, the engine-independent half of a
 * process group: the object, its lanes (worker threads and their queues)
 * and the submission of jobs with the timeout. Running a job is in
 * dl-process-group-run.c, the public collectives and their argument
 * checks in dl-process-group-collectives.c.
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

/**
 * DlProcessGroup:
 *
 * A group of processes ("ranks", numbered 0 to #DlProcessGroup:size - 1)
 * that run collectives together: torch.distributed's `ProcessGroup`.
 * Each communication engine (MPI, Gloo) is a subclass, loaded from its
 * module by dl_distributed_init_process_group() or
 * dl_distributed_new_process_group(); the functions here are the same
 * for all of them.
 *
 * Every operation takes CPU tensors that are contiguous, and works in
 * place: dl_process_group_all_reduce() leaves the reduction in the tensor
 * it was given. Collectives run one at a time on the group's own worker
 * thread, in the order they were submitted (every rank must submit the
 * same collectives in the same order, as with any engine); sends and
 * receives run beside them, in order for each peer. (With an engine whose
 * calls give up by themselves after the timeout, Gloo's, a synchronous
 * operation with nothing queued before it runs on the calling thread
 * instead, in the same order.) Each returns a
 * #DlWork, already completed unless @async_op was %TRUE, in which case
 * the tensors must not be touched until dl_work_wait() returns.
 *
 * Before each collective the ranks exchange what they were asked to do
 * (the collective, dtype, shape, root and reduction): a rank that calls
 * another collective or passes a tensor of another shape or dtype makes
 * the collective fail on every rank, naming both ranks' arguments,
 * instead of hanging. The exchange carries the data of a collective
 * small enough (barrier, and all_reduce, reduce, broadcast, all_gather or
 * gather of up to 2 MB divided by the number of peers with the Gloo
 * engine, 1920 bytes with MPI's fixed frames of 2 KB): such a collective
 * is complete once the exchange is, in one round trip; a larger one runs
 * the engine's collective after it. A program whose ranks are known to
 * agree can skip the exchange by
 * setting the environment variable `DL_DISTRIBUTED_CHECK=0` before it
 * makes its groups (mismatched calls may then hang or mix up data, as
 * with torch's default `TORCH_DISTRIBUTED_DEBUG=OFF`). A collective that does not complete within
 * #DlProcessGroup:timeout (a rank died, or never calls it) fails with
 * %DL_ERROR_FAILED naming the collective, and the group refuses any
 * operation after that.
 *
 * ```c
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) t = NULL;
 * g_autoptr (DlWork) work = NULL;
 *
 * if (!dl_distributed_init_process_group ("mpi", NULL, -1, -1, 60, &error))
 *   g_error ("%s", error->message);
 * t = dl_ones (DL_SHAPE (4), DL_DTYPE_FLOAT32, NULL, &error);
 * work = dl_process_group_all_reduce (dl_distributed_get_default_group (), t,
 *                                     DL_REDUCE_OP_KIND_SUM, FALSE, &error);
 * // every element of t is now the number of ranks
 * ```
 *
 * Since: 0.1
 */

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (DlProcessGroup, dl_process_group, G_TYPE_OBJECT)

/* the class keeps its size (ABI) as fields take the place of its padding:
 * 13 slots, slots_time_out, exchange, exchange_data_max and 4 pointers
 * of padding */
G_STATIC_ASSERT (sizeof (DlProcessGroupClass) == sizeof (GObjectClass) + 20 * sizeof (gpointer));

const gchar *const dl_process_group_coll_names[] = {
  "all_reduce", "broadcast", "reduce",    "all_gather", "gather", "scatter", "reduce_scatter",
  "all_to_all", "barrier",   "new_group", "send",       "recv",   "stop",
};

DlProcessGroupPrivate *
dl_process_group_get_priv (DlProcessGroup *self)
{
  return dl_process_group_get_instance_private (self);
}

enum
{
  PROP_0,
  PROP_RANK,
  PROP_SIZE,
  PROP_TIMEOUT,
  PROP_BACKEND_NAME,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

void
dl_process_group_job_free (Job *job)
{
  g_clear_object (&job->group);
  g_clear_object (&job->work);
  g_clear_object (&job->tensor);
  g_clear_object (&job->other);
  g_clear_pointer (&job->list, g_ptr_array_unref);
  g_clear_pointer (&job->list2, g_ptr_array_unref);
  g_free (job->ranks);
  g_free (job->send_bytes);
  g_free (job->recv_bytes);
  g_clear_object (&job->ready);
  g_free (job);
}

/* ---- the slots' documentation (see DlProcessGroupClass) ------------------ */

/**
 * DlProcessGroupClass::all_reduce:
 * @self: a #DlProcessGroup
 * @buf: (type gpointer): @count elements of @dtype, reduced in place
 * @count: the number of elements
 * @dtype: their dtype (never bool)
 * @op: the reduction (never %DL_REDUCE_OP_KIND_AVG)
 * @error: return location for a #GError
 *
 * Reduces @buf across the ranks with @op, leaving the result in @buf on
 * every rank. Runs on the group's worker thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::broadcast:
 * @self: a #DlProcessGroup
 * @buf: (type gpointer): @nbytes bytes: the data on @root, overwritten elsewhere
 * @nbytes: the size of @buf
 * @root: the rank that sends
 * @error: return location for a #GError
 *
 * Copies @buf of rank @root into @buf of every rank. Runs on the group's worker thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::reduce:
 * @self: a #DlProcessGroup
 * @buf: (type gpointer): @count elements of @dtype
 * @count: the number of elements
 * @dtype: their dtype (never bool)
 * @op: the reduction (never %DL_REDUCE_OP_KIND_AVG)
 * @root: the rank that receives the result
 * @error: return location for a #GError
 *
 * Reduces @buf across the ranks with @op into @buf of rank @root; the
 * other ranks' @buf may hold partial results after it. Runs on the group's worker thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::all_gather:
 * @self: a #DlProcessGroup
 * @send: (type gpointer): this rank's @nbytes bytes
 * @recv: (type gpointer): size × @nbytes bytes
 * @nbytes: the size of each rank's part
 * @error: return location for a #GError
 *
 * Gathers every rank's @send into @recv of every rank, in rank order. Runs on the group's worker
 * thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::gather:
 * @self: a #DlProcessGroup
 * @send: (type gpointer): this rank's @nbytes bytes
 * @recv: (type gpointer) (nullable): size × @nbytes bytes on @root, %NULL elsewhere
 * @nbytes: the size of each rank's part
 * @root: the rank that receives
 * @error: return location for a #GError
 *
 * Gathers every rank's @send into @recv of rank @root, in rank order. Runs on the group's worker
 * thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::scatter:
 * @self: a #DlProcessGroup
 * @send: (type gpointer) (nullable): size × @nbytes bytes on @root, %NULL elsewhere
 * @recv: (type gpointer): this rank's @nbytes bytes
 * @nbytes: the size of each rank's part
 * @root: the rank that sends
 * @error: return location for a #GError
 *
 * Sends the r-th @nbytes of @send on rank @root to @recv of rank r. Runs on the group's worker
 * thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::reduce_scatter:
 * @self: a #DlProcessGroup
 * @send: (type gpointer): size × @count elements of @dtype
 * @recv: (type gpointer): @count elements
 * @count: the number of elements of each rank's share
 * @dtype: their dtype (never bool)
 * @op: the reduction (never %DL_REDUCE_OP_KIND_AVG)
 * @error: return location for a #GError
 *
 * Reduces @send across the ranks with @op and leaves the r-th @count
 * elements of the result in @recv of rank r. Runs on the group's worker thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::all_to_all:
 * @self: a #DlProcessGroup
 * @send: (type gpointer): size × @nbytes bytes: the r-th part goes to rank r
 * @recv: (type gpointer): size × @nbytes bytes: the s-th part comes from rank s
 * @nbytes: the size of each part
 * @error: return location for a #GError
 *
 * Exchanges one part between every pair of ranks. Runs on the group's worker thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::send:
 * @self: a #DlProcessGroup
 * @buf: (type gpointer): @nbytes bytes
 * @nbytes: the size of @buf
 * @dst: the receiving rank
 * @tag: the message's tag
 * @error: return location for a #GError
 *
 * Sends @buf to rank @dst. Runs on the group's thread for sends to @dst.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::recv:
 * @self: a #DlProcessGroup
 * @buf: (type gpointer): @nbytes bytes, received into
 * @nbytes: the size of @buf
 * @src: the sending rank
 * @tag: the message's tag
 * @error: return location for a #GError
 *
 * Receives @nbytes from rank @src into @buf. Runs on the group's thread for receives
 * from @src.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::recv_any:
 * @self: a #DlProcessGroup
 * @buf: (type gpointer): @nbytes bytes, received into
 * @nbytes: the size of @buf
 * @src: (out): the rank whose message was received
 * @tag: the message's tag
 * @error: return location for a #GError
 *
 * Receives @nbytes into @buf from whichever rank first sends a message
 * with @tag, and says which in @src. Runs on the group's thread for
 * receives from any source; %NULL in an engine that cannot (a receive
 * from any source is then %DL_ERROR_NOT_SUPPORTED).
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::exchange:
 * @self: a #DlProcessGroup
 * @meta: (type gpointer): this rank's @meta_bytes bytes of arguments
 * @meta_bytes: the size of each rank's arguments: the same on every call of @self
 * @data: (type gpointer) (nullable): @data_bytes bytes of data sent with them
 * @data_bytes: the size of @data: at most #DlProcessGroupClass.exchange_data_max
 *   divided by the number of peers, and not the same on every rank when
 *   the ranks disagree
 * @metas: (type gpointer): size × @meta_bytes bytes: every rank's @meta, in rank order
 * @datas: (type gpointer): an array of size pointers, set to every rank's
 *   @data (this rank's own @data for itself), valid until the next call
 * @error: return location for a #GError
 *
 * The exchange of arguments before each collective: sends @meta and
 * @data to every other rank and gathers theirs. The base compares the
 * arguments, and when the collective's data came along (a small
 * all_reduce, broadcast, ...) completes it from @datas. Since @meta_bytes
 * never changes and @data_bytes has a limit known in advance, an engine
 * may keep receives posted for each peer from one call to the next, so
 * that a rank's part travels as soon as it is sent instead of when the
 * peer asks for it. Optional: without it the base sends frames of a
 * fixed size with #DlProcessGroupClass::all_gather. Runs on the group's
 * worker thread, or the caller's when the engine sets slots_time_out.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::communication_stream:
 * @self: a #DlProcessGroup
 *
 * The stream on which the slots of an engine whose
 * #DlProcessGroupClass.device_type is not the CPU queue their work: the
 * base orders each operation after the caller's current stream with an
 * event, and records an event on this stream after it, which the work's
 * dl_work_wait() makes the waiting thread's current stream wait for.
 *
 * Returns: (transfer none) (nullable): the group's stream; %NULL for an
 *   engine on host memory
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::exchange_parts:
 * @self: a #DlProcessGroup
 * @sends: (type gpointer): an array of size pointers: the part for each
 *   rank (unused where its @send_bytes is 0)
 * @send_bytes: (type gpointer): an array of size byte counts to send
 * @recvs: (type gpointer): an array of size pointers: where the part from
 *   each rank lands (unused where its @recv_bytes is 0)
 * @recv_bytes: (type gpointer): an array of size byte counts to receive
 * @error: return location for a #GError
 *
 * One grouped exchange of parts of any size between every pair of ranks
 * (what NCCL runs as ncclSend and ncclRecv between ncclGroupStart and
 * ncclGroupEnd): rank s's @send_bytes[r] must equal rank r's
 * @recv_bytes[s], which the base has checked. The part a rank sends
 * itself is copied. The base runs gather, scatter, all_to_all (all
 * forms) and the list forms of all_gather on it for an engine on a
 * device. Runs on the group's worker thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/**
 * DlProcessGroupClass::barrier:
 * @self: a #DlProcessGroup
 * @error: return location for a #GError
 *
 * Returns once every rank of the group has entered it. Runs on the group's worker thread.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */

/* ---- the GObject --------------------------------------------------------- */

static void
lane_free (gpointer data)
{
  Lane *lane = data;

  g_cond_clear (&lane->idle);
  g_free (lane);
}

static void
lane_stop (gpointer data, gboolean stuck)
{
  Lane *lane = data;
  Job *stop = g_new0 (Job, 1);

  stop->coll = COLL_STOP;
  g_async_queue_push (lane->queue, stop);
  /* a thread stuck in its engine after a timeout never returns: it is
   * not waited for (the thread holds its own ref to the queue) */
  if (g_thread_self () == lane->thread || stuck)
    g_thread_unref (lane->thread);
  else
    g_thread_join (lane->thread);
  g_async_queue_unref (lane->queue);
  /* the Lane itself stays until finalize: a job still running (stuck, or
   * on the caller's thread) counts itself out of it */
}

static void
dl_process_group_dispose (GObject *object)
{
  DlProcessGroup *self = DL_PROCESS_GROUP (object);
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  g_autoptr (GList) lanes = NULL;
  gboolean stuck;

  g_mutex_lock (&priv->lock);
  stuck = priv->broken != NULL;
  lanes = g_hash_table_get_values (priv->lanes);
  g_hash_table_steal_all (priv->lanes);
  g_mutex_unlock (&priv->lock);
  for (GList *l = lanes; l; l = l->next)
    lane_stop (l->data, stuck);
  G_OBJECT_CLASS (dl_process_group_parent_class)->dispose (object);
}

static void
dl_process_group_finalize (GObject *object)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (DL_PROCESS_GROUP (object));

  g_clear_pointer (&priv->lanes, g_hash_table_unref);
  g_clear_pointer (&priv->all_lanes, g_ptr_array_unref);
  g_clear_error (&priv->broken);
  g_free (priv->backend_name);
  g_mutex_clear (&priv->lock);
  G_OBJECT_CLASS (dl_process_group_parent_class)->finalize (object);
}

static void
dl_process_group_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (DL_PROCESS_GROUP (object));

  switch (prop_id)
    {
      case PROP_RANK:
        g_value_set_int (value, priv->rank);
        break;
      case PROP_SIZE:
        g_value_set_int (value, priv->size);
        break;
      case PROP_TIMEOUT:
        g_value_set_double (value, priv->timeout);
        break;
      case PROP_BACKEND_NAME:
        g_value_set_string (value, priv->backend_name);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_process_group_set_property (GObject *object,
                               guint prop_id,
                               const GValue *value,
                               GParamSpec *pspec)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (DL_PROCESS_GROUP (object));

  switch (prop_id)
    {
      case PROP_RANK:
        priv->rank = g_value_get_int (value);
        break;
      case PROP_SIZE:
        priv->size = g_value_get_int (value);
        break;
      case PROP_TIMEOUT:
        priv->timeout = g_value_get_double (value);
        break;
      case PROP_BACKEND_NAME:
        g_free (priv->backend_name);
        priv->backend_name = g_value_dup_string (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_process_group_class_init (DlProcessGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                            | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = dl_process_group_dispose;
  object_class->finalize = dl_process_group_finalize;
  object_class->get_property = dl_process_group_get_property;
  object_class->set_property = dl_process_group_set_property;

  /**
   * DlProcessGroup:rank:
   *
   * This process's rank in the group, from 0 to #DlProcessGroup:size - 1.
   *
   * Since: 0.1
   */
  props[PROP_RANK] = g_param_spec_int ("rank", NULL, NULL, 0, G_MAXINT, 0, flags);
  /**
   * DlProcessGroup:size:
   *
   * The number of ranks in the group (torch's world size).
   *
   * Since: 0.1
   */
  props[PROP_SIZE] = g_param_spec_int ("size", NULL, NULL, 1, G_MAXINT, 1, flags);
  /**
   * DlProcessGroup:timeout:
   *
   * How long, in seconds, an operation may take before it fails (and the
   * group with it); 1800 by default, as in torch; 0 or less waits forever.
   *
   * Since: 0.1
   */
  props[PROP_TIMEOUT]
      = g_param_spec_double ("timeout", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1800.0, flags);
  /**
   * DlProcessGroup:backend-name:
   *
   * The name of the group's engine: "mpi", "gloo" or "nccl" (torch's
   * `ProcessGroup.name()`); set by the engine when it makes the group.
   *
   * Since: 0.1
   */
  props[PROP_BACKEND_NAME] = g_param_spec_string ("backend-name", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
dl_process_group_init (DlProcessGroup *self)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  g_mutex_init (&priv->lock);
  priv->size = 1;
  priv->timeout = 1800.0;
  priv->lanes = g_hash_table_new (NULL, NULL);
  priv->all_lanes = g_ptr_array_new_with_free_func (lane_free);
  priv->check_args = g_strcmp0 (g_getenv ("DL_DISTRIBUTED_CHECK"), "0") != 0;
}

/* ---- accessors ----------------------------------------------------------- */

/**
 * dl_process_group_get_rank:
 * @self: a #DlProcessGroup
 *
 * This process's rank in @self (torch's `get_rank(group)`).
 *
 * Returns: the rank, from 0 to dl_process_group_get_size() - 1
 *
 * Since: 0.1
 */
gint
dl_process_group_get_rank (DlProcessGroup *self)
{
  DlProcessGroupPrivate *priv;

  g_return_val_if_fail (DL_IS_PROCESS_GROUP (self), -1);
  priv = dl_process_group_get_priv (self);
  return priv->rank;
}

/**
 * dl_process_group_get_size:
 * @self: a #DlProcessGroup
 *
 * The number of ranks in @self (torch's `get_world_size(group)`).
 *
 * Returns: the group's size, at least 1
 *
 * Since: 0.1
 */
gint
dl_process_group_get_size (DlProcessGroup *self)
{
  DlProcessGroupPrivate *priv;

  g_return_val_if_fail (DL_IS_PROCESS_GROUP (self), -1);
  priv = dl_process_group_get_priv (self);
  return priv->size;
}

/**
 * dl_process_group_get_timeout:
 * @self: a #DlProcessGroup
 *
 * The #DlProcessGroup:timeout of @self, in seconds.
 *
 * Returns: the timeout; 0 or less means none
 *
 * Since: 0.1
 */
gdouble
dl_process_group_get_timeout (DlProcessGroup *self)
{
  DlProcessGroupPrivate *priv;

  g_return_val_if_fail (DL_IS_PROCESS_GROUP (self), 0);
  priv = dl_process_group_get_priv (self);
  return priv->timeout;
}

/**
 * dl_process_group_get_backend_name:
 * @self: a #DlProcessGroup
 *
 * The name of the engine of @self (#DlProcessGroup:backend-name).
 *
 * Returns: (transfer none) (nullable): "mpi", "gloo", ...
 *
 * Since: 0.1
 */
const gchar *
dl_process_group_get_backend_name (DlProcessGroup *self)
{
  DlProcessGroupPrivate *priv;

  g_return_val_if_fail (DL_IS_PROCESS_GROUP (self), NULL);
  priv = dl_process_group_get_priv (self);
  return priv->backend_name;
}

/* ---- submission ---------------------------------------------------------- */

static void
on_work_timeout (gpointer group, const GError *error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (group);

  g_mutex_lock (&priv->lock);
  if (priv->broken == NULL)
    priv->broken = g_error_new (DL_ERROR, DL_ERROR_FAILED,
                                "the process group is unusable after an earlier failure: %s",
                                error->message);
  g_mutex_unlock (&priv->lock);
}

DlDevice *
dl_process_group_get_tensor_device (DlProcessGroup *group)
{
  if (!dl_process_group_on_device (group))
    return NULL;
  return dl_stream_get_device (DL_PROCESS_GROUP_GET_CLASS (group)->communication_stream (group));
}

/* A job of @coll on @tensor (nullable) with @root (-1: none) and @op (-1:
 * none), its metadata filled in */
Job *
dl_process_group_job_new (DlProcessGroup *self, Coll coll, DlTensor *tensor, gint root, gint op)
{
  Job *job = g_new0 (Job, 1);

  job->coll = coll;
  job->op = op < 0 ? DL_REDUCE_OP_KIND_SUM : (DlReduceOpKind)op;
  job->group = g_object_ref (self);
  job->tensor = tensor ? g_object_ref (tensor) : NULL;
  job->root = root;
  job->meta.coll = coll;
  job->meta.dtype = tensor ? (gint64)dl_tensor_get_dtype (tensor) : -1;
  job->meta.op = op;
  job->meta.root = coll == COLL_BROADCAST || coll == COLL_REDUCE || coll == COLL_GATHER
                           || coll == COLL_SCATTER || coll == COLL_SEND || coll == COLL_RECV
                       ? root
                       : -1;
  if (tensor)
    {
      gsize ndim;
      const gint64 *shape = dl_tensor_get_shape (tensor, &ndim);

      job->meta.numel = dl_tensor_numel (tensor);
      job->meta.ndim = (gint64)ndim;
      for (gsize d = 0; d < ndim && d < META_DIMS; d++)
        job->meta.shape[d] = shape[d];
    }
  return job;
}

/* Queues @job (taken) and returns its work, waited for unless @async_op */
DlWork *
dl_process_group_submit (DlProcessGroup *self, Job *job, gboolean async_op, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  gboolean p2p = job->coll == COLL_SEND || job->coll == COLL_RECV;
  gint peer = p2p ? job->root : -1;
  g_autoptr (DlWork) work = NULL;
  Lane *lane;
  gint key;

  work = dl_work_new (dl_process_group_coll_names[job->coll], peer, priv->rank, priv->size,
                      priv->timeout, G_OBJECT (self), on_work_timeout);
  job->work = g_object_ref (work);
  if (dl_process_group_on_device (self))
    {
      /* the operation comes after the work queued so far on the caller's
       * current stream (the kernels that made its tensors) */
      DlStream *comm = DL_PROCESS_GROUP_GET_CLASS (self)->communication_stream (self);
      g_autoptr (DlStream) current = dl_stream_get_current (dl_stream_get_device (comm));

      job->ready = dl_stream_record_event (current, NULL, error);
      if (job->ready == NULL)
        {
          dl_work_complete (job->work, NULL);
          dl_process_group_job_free (job);
          return NULL;
        }
    }
  g_mutex_lock (&priv->lock);
  if (priv->broken)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "%s: %s",
                   dl_process_group_coll_names[job->coll], priv->broken->message);
      g_mutex_unlock (&priv->lock);
      dl_work_complete (job->work, NULL);
      dl_process_group_job_free (job);
      return NULL;
    }
  /* a device engine's calls all come from one thread: NCCL's
   * communicators are not to be used by several threads at once */
  key = !p2p || dl_process_group_on_device (self) ? COLLECTIVE_LANE
        : peer < 0                                ? ANY_SOURCE_LANE
                   : (job->coll == COLL_SEND ? 0 : G_MAXINT / 2) + peer;
  lane = g_hash_table_lookup (priv->lanes, GINT_TO_POINTER (key));
  if (lane == NULL)
    {
      lane = g_new0 (Lane, 1);
      g_cond_init (&lane->idle);
      lane->queue = g_async_queue_new ();
      lane->thread = g_thread_new (!p2p ? "dl-pg-collectives" : "dl-pg-peer",
                                   dl_process_group_worker_main, g_async_queue_ref (lane->queue));
      g_hash_table_insert (priv->lanes, GINT_TO_POINTER (key), lane);
      g_ptr_array_add (priv->all_lanes, lane);
    }
  job->lane = lane;
  lane->busy++;
  if (lane->busy == 1
      && ((!async_op && DL_PROCESS_GROUP_GET_CLASS (self)->slots_time_out)
          || (priv->size == 1 && !p2p && !dl_process_group_on_device (self))))
    {
      /* nothing queued before it: the caller runs it, sparing the two
       * hand-overs between threads (the lane's thread waits meanwhile),
       * when the engine's call gives up by itself after the timeout, or
       * when there is no peer to wait for (a group of one, as a
       * single-process script's DDP: its asynchronous works complete at
       * once) */
      gint64 deadline = priv->timeout > 0
                            ? g_get_monotonic_time () + (gint64)(priv->timeout * G_USEC_PER_SEC)
                            : 0;
      g_autoptr (GError) local = NULL;

      lane->caller_running = TRUE;
      g_mutex_unlock (&priv->lock);
      dl_process_group_run_and_complete (job, TRUE);
      dl_process_group_reap_finished ();
      if (dl_work_wait (work, &local))
        return g_steal_pointer (&work);
      /* a failure once the timeout has passed is the timeout: the same
       * error, and the group unusable after it, as when the caller waits
       * for the lane's thread */
      if (deadline && g_get_monotonic_time () >= deadline)
        {
          g_clear_error (&local);
          local = dl_work_new_timeout_error (work);
          on_work_timeout (self, local);
        }
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  g_async_queue_push (lane->queue, job);
  g_mutex_unlock (&priv->lock);
  dl_process_group_reap_finished ();
  if (!async_op && !dl_work_wait (work, error))
    return NULL;
  return g_steal_pointer (&work);
}

/* A collective whose arguments failed this rank's checks still takes part
 * in the metadata exchange (unless DL_DISTRIBUTED_CHECK=0 turned it off),
 * so that the other ranks fail too instead of waiting for it; @error
 * (already set) is what this rank reports */
DlWork *
dl_process_group_fail_collective (DlProcessGroup *self, Coll coll, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);

  if (priv->size > 1 && priv->check_args)
    {
      Job *job = dl_process_group_job_new (self, coll, NULL, -1, -1);
      g_autoptr (DlWork) work = NULL;

      job->meta.failed = 1;
      work = dl_process_group_submit (self, job, FALSE, NULL);
    }
  return NULL;
}
/* dl-process-group.c: DlProcessGroup, the engine-independent half of a
 * process group: argument checks, the worker thread and its queue, the
 * cross-rank metadata check and the timeout.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-error.h"
#include "dl-tensor-private.h"
#include "distributed/dl-distributed-private.h"
#include "distributed/dl-process-group.h"
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
 * instead of hanging. The exchange costs one small all_gather per
 * collective; a program whose ranks are known to agree can skip it by
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

typedef enum
{
  COLL_ALL_REDUCE,
  COLL_BROADCAST,
  COLL_REDUCE,
  COLL_ALL_GATHER,
  COLL_GATHER,
  COLL_SCATTER,
  COLL_REDUCE_SCATTER,
  COLL_ALL_TO_ALL,
  COLL_BARRIER,
  COLL_NEW_GROUP,
  COLL_SEND,
  COLL_RECV,
  COLL_STOP,
} Coll;

static const gchar *const coll_names[] = {
  "all_reduce", "broadcast", "reduce",    "all_gather", "gather", "scatter", "reduce_scatter",
  "all_to_all", "barrier",   "new_group", "send",       "recv",   "stop",
};

#define META_DIMS 8

/* What each rank says it is about to do, exchanged before a collective
 * (and between the two peers before a send) */
typedef struct
{
  gint64 seq;    /* the group's collectives so far, on this rank */
  gint64 coll;   /* Coll */
  gint64 failed; /* 1: this rank's own argument checks failed */
  gint64 dtype;  /* -1: none */
  gint64 op;     /* -1: none */
  gint64 root;   /* -1: none */
  gint64 numel;
  gint64 ndim;
  gint64 shape[META_DIMS]; /* the first META_DIMS sizes */
} Meta;

typedef struct _Lane Lane;

typedef struct
{
  Coll coll;
  Lane *lane;            /* the lane it runs in (kept until the group's finalize) */
  DlProcessGroup *group; /* (owned) */
  DlWork *work;          /* (owned) */
  DlTensor *tensor;      /* (owned) (nullable): the tensor, in and/or out */
  DlTensor *other;       /* (owned) (nullable): the second tensor of the _tensor/_single forms */
  GPtrArray *list;       /* (owned) (nullable): a list of tensors */
  GPtrArray *list2;      /* (owned) (nullable): all_to_all's input list */
  DlReduceOpKind op;
  gint root; /* or the peer of send and recv */
  gint tag;
  gint *ranks;
  gsize n_ranks;
  gint64 *send_bytes; /* (nullable): all_to_all of parts of any size: the bytes to each rank */
  gint64 *recv_bytes; /* (nullable): and from each rank */
  Meta meta;
} Job;

typedef struct
{
  gint rank;
  gint size;
  gdouble timeout;
  gchar *backend_name;

  GMutex lock;
  /* the lanes: collectives run in one, the sends to each peer in one, the
   * receives from each peer in another, so that a send and a recv between
   * two ranks never wait for each other (a ring of isend and irecv) while
   * each pair's messages stay in order */
  GHashTable *lanes;    /* (owned): lane key -> Lane */
  GPtrArray *all_lanes; /* (owned): every Lane made, freed in finalize */
  GError *broken;       /* (owned) (nullable): why the group refuses operations */
  gint64 seq;           /* collectives run (one lane at a time) */
  gint run_inline;      /* -1: not known yet; else whether the engine's slots time out */
  gboolean check_args;  /* exchange the arguments before each collective (DL_DISTRIBUTED_CHECK) */
} DlProcessGroupPrivate;

/* A thread and its FIFO queue of Job. A synchronous operation submitted
 * while its lane is idle runs on the caller's thread instead (when the
 * engine's slots time out by themselves, see
 * DL_PROCESS_GROUP_SLOTS_TIME_OUT): @busy counts the lane's jobs queued or
 * running, @caller_running says the caller runs one, and the lane's
 * thread waits on @idle before it starts a job while that is set. All
 * three are under the group's lock. */
struct _Lane
{
  GThread *thread;    /* (owned) */
  GAsyncQueue *queue; /* (owned): the thread holds a ref too */
  guint busy;
  gboolean caller_running;
  GCond idle;
};

#define COLLECTIVE_LANE (-1)
#define ANY_SOURCE_LANE (-2)

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (DlProcessGroup, dl_process_group, G_TYPE_OBJECT)

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

static void
job_free (Job *job)
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

/* ---- the worker ---------------------------------------------------------- */

static gchar *
meta_describe (const Meta *m)
{
  GString *s = g_string_new (coll_names[CLAMP (m->coll, 0, COLL_STOP)]);

  if (m->failed)
    {
      g_string_append (s, " (its own argument checks failed)");
      return g_string_free (s, FALSE);
    }
  if (m->dtype >= 0)
    {
      g_string_append_printf (s, " of %s [", dl_dtype_get_name ((DlDType)m->dtype));
      for (gint64 d = 0; d < m->ndim; d++)
        {
          if (d >= META_DIMS)
            {
              g_string_append (s, ", ...");
              break;
            }
          g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? ", " : "", m->shape[d]);
        }
      g_string_append_c (s, ']');
    }
  if (m->op >= 0)
    g_string_append_printf (s, " with %s", dl_reduce_op_kind_name ((DlReduceOpKind)m->op));
  if (m->root >= 0)
    g_string_append_printf (s,
                            m->coll == COLL_SEND || m->coll == COLL_RECV
                                ? " (peer %" G_GINT64_FORMAT ")"
                                : " (root %" G_GINT64_FORMAT ")",
                            m->root);
  if (m->coll != COLL_SEND && m->coll != COLL_RECV)
    g_string_append_printf (s, " as collective #%" G_GINT64_FORMAT, m->seq);
  return g_string_free (s, FALSE);
}

static gboolean
meta_equal (const Meta *a, const Meta *b)
{
  return a->seq == b->seq && a->coll == b->coll && a->dtype == b->dtype && a->op == b->op
         && a->root == b->root && a->numel == b->numel && a->ndim == b->ndim
         && memcmp (a->shape, b->shape, sizeof a->shape) == 0;
}

/* The metadata exchange before a collective: every rank learns what every
 * other rank was asked and fails, with the same message, when they differ */
static gboolean
check_across_ranks (DlProcessGroup *self, Job *job, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  g_autofree Meta *all = NULL;
  g_autoptr (GError) local = NULL;
  const gchar *name = coll_names[job->coll];

  job->meta.seq = priv->seq++;
  if (priv->size == 1 || klass->all_gather == NULL || !priv->check_args)
    return !job->meta.failed;
  all = g_new0 (Meta, priv->size);
  if (!klass->all_gather (self, &job->meta, all, sizeof (Meta), &local))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "%s: the exchange of arguments across the ranks failed (rank %d of %d): %s",
                   name, priv->rank, priv->size, local->message);
      return FALSE;
    }
  for (gint r = 0; r < priv->size; r++)
    if (all[r].failed)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: rank %d rejected its arguments (see its own error) (rank %d of %d)", name,
                     r, priv->rank, priv->size);
        return FALSE;
      }
  for (gint r = 1; r < priv->size; r++)
    if (!meta_equal (&all[0], &all[r]))
      {
        g_autofree gchar *first = meta_describe (&all[0]);
        g_autofree gchar *other = meta_describe (&all[r]);

        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: the ranks disagree: rank 0 called %s, rank %d called %s (rank %d of %d)",
                     name, first, r, other, priv->rank, priv->size);
        return FALSE;
      }
  return TRUE;
}

/* A send is its metadata, then its payload; the receiver compares the
 * metadata with its own and, when they differ, still takes the payload
 * (into a scratch buffer, so that the sender is not left waiting) and
 * fails, naming both sides. Neither message waits for an answer, so a
 * ring of sends and receives runs as it would on the engine alone. */
static gboolean
run_point_to_point (DlProcessGroup *self, Job *job, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  DlTensor *t = job->tensor;
  gsize nbytes = (gsize)dl_tensor_numel (t) * dl_tensor_element_size (t);
  g_autoptr (GError) local = NULL;
  g_autofree gchar *mine = NULL, *other = NULL;
  g_autofree guint8 *scratch = NULL;
  gsize their_nbytes;
  Meta theirs;
  gint src = job->root;

  if (job->coll == COLL_SEND)
    return klass->send (self, &job->meta, sizeof (Meta), job->root, job->tag, error)
           && klass->send (self, dl_tensor_data (t), nbytes, job->root, job->tag, error);
  /* from any source: the first metadata that arrives names the sender,
   * whose payload follows */
  if (src < 0 ? !klass->recv_any (self, &theirs, sizeof (Meta), &src, job->tag, error)
              : !klass->recv (self, &theirs, sizeof (Meta), src, job->tag, error))
    return FALSE;
  if (theirs.coll == COLL_SEND && theirs.dtype == job->meta.dtype
      && theirs.numel == job->meta.numel)
    {
      if (!klass->recv (self, dl_tensor_data (t), nbytes, src, job->tag, error))
        return FALSE;
      dl_work_set_source_rank (job->work, src);
      return TRUE;
    }
  mine = meta_describe (&job->meta);
  other = meta_describe (&theirs);
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "recv: the peers disagree: rank %d called %s, rank %d called %s", priv->rank, mine,
               src, other);
  /* the sender's payload, whose size its metadata gives */
  if (theirs.coll != COLL_SEND || theirs.dtype < 0 || theirs.dtype >= DL_N_DTYPES
      || theirs.numel < 0)
    return FALSE;
  their_nbytes = (gsize)theirs.numel * dl_dtype_get_size ((DlDType)theirs.dtype);
  scratch = g_try_malloc (MAX (their_nbytes, 1));
  if (scratch)
    klass->recv (self, scratch, their_nbytes, src, job->tag, &local);
  return FALSE;
}

static gsize
tensor_nbytes (DlTensor *t)
{
  return (gsize)dl_tensor_numel (t) * dl_tensor_element_size (t);
}

/* Runs a reducing slot on @dtype with @op, bool as uint8 max/min, AVG as a
 * sum and a division (@divide: this rank holds the result) */
static gboolean
run_reduction (DlProcessGroup *self,
               Job *job,
               gconstpointer send,
               gpointer buf,
               gsize count,
               DlDType dtype,
               gboolean divide,
               GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  DlReduceOpKind op = job->op;
  gboolean ok;

  if (dtype == DL_DTYPE_BOOL)
    {
      dtype = DL_DTYPE_UINT8;
      op = (op == DL_REDUCE_OP_KIND_SUM || op == DL_REDUCE_OP_KIND_MAX) ? DL_REDUCE_OP_KIND_MAX
                                                                        : DL_REDUCE_OP_KIND_MIN;
    }
  else if (op == DL_REDUCE_OP_KIND_AVG)
    op = DL_REDUCE_OP_KIND_SUM;
  if (job->coll == COLL_ALL_REDUCE)
    ok = klass->all_reduce (self, buf, count, dtype, op, error);
  else if (job->coll == COLL_REDUCE)
    ok = klass->reduce (self, buf, count, dtype, op, job->root, error);
  else
    ok = klass->reduce_scatter (self, send, buf, count, dtype, op, error);
  if (ok && divide && job->op == DL_REDUCE_OP_KIND_AVG)
    dl_reduce_host_divide (dtype, buf, count, priv->size);
  return ok;
}

static void
pack_list (GPtrArray *list, guint8 *out, gsize nbytes)
{
  for (guint i = 0; i < list->len; i++)
    memcpy (out + i * nbytes, dl_tensor_data (g_ptr_array_index (list, i)), nbytes);
}

static void
unpack_list (GPtrArray *list, const guint8 *in, gsize nbytes)
{
  for (guint i = 0; i < list->len; i++)
    memcpy (dl_tensor_data (g_ptr_array_index (list, i)), in + i * nbytes, nbytes);
}

/* The address of part @r of an all_to_all of parts of any size: element
 * r of @list, or the r-th part of @t after the parts @bytes before it */
static guint8 *
part_data (DlTensor *t, GPtrArray *list, const gint64 *bytes, gint r)
{
  guint8 *p;

  if (list)
    return (guint8 *)dl_tensor_data (g_ptr_array_index (list, r));
  p = (guint8 *)dl_tensor_data (t);
  for (gint i = 0; i < r; i++)
    p += bytes[i];
  return p;
}

/* all_to_all of parts of any size over the engine's equal parts: the
 * ranks first share what each sends to and expects from every other
 * (so that a disagreement fails on every rank alike), then exchange the
 * parts padded to the longest */
static gboolean
run_all_to_all_v (DlProcessGroup *self, Job *job, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  gint size = priv->size;
  g_autofree gint64 *mine = g_new (gint64, 2 * size);
  g_autofree gint64 *all = g_new (gint64, 2 * size * size);
  g_autofree guint8 *out = NULL, *in = NULL;
  gint64 chunk = 0;

  memcpy (mine, job->send_bytes, size * sizeof (gint64));
  memcpy (mine + size, job->recv_bytes, size * sizeof (gint64));
  if (!klass->all_gather (self, mine, all, 2 * size * sizeof (gint64), error))
    return FALSE;
  for (gint s = 0; s < size; s++)
    for (gint r = 0; r < size; r++)
      {
        gint64 sent = all[2 * size * s + r], expected = all[2 * size * r + size + s];

        if (sent != expected)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                         "all_to_all: rank %d sends %" G_GINT64_FORMAT
                         " bytes to rank %d, which expects %" G_GINT64_FORMAT
                         " bytes from it (rank %d of %d)",
                         s, sent, r, expected, priv->rank, size);
            return FALSE;
          }
        chunk = MAX (chunk, sent);
      }
  if (chunk == 0)
    return TRUE;
  out = g_malloc0 (chunk * size);
  in = g_malloc (chunk * size);
  for (gint r = 0; r < size; r++)
    memcpy (out + r * chunk, part_data (job->other, job->list2, job->send_bytes, r),
            job->send_bytes[r]);
  if (!klass->all_to_all (self, out, in, chunk, error))
    return FALSE;
  for (gint s = 0; s < size; s++)
    memcpy (part_data (job->tensor, job->list, job->recv_bytes, s), in + s * chunk,
            job->recv_bytes[s]);
  return TRUE;
}

/* The slot @coll runs; NULL when the engine has none */
static gpointer
slot_of (DlProcessGroupClass *klass, Job *job)
{
  switch (job->coll)
    {
      case COLL_ALL_REDUCE:
        return klass->all_reduce;
      case COLL_BROADCAST:
        return klass->broadcast;
      case COLL_REDUCE:
        return klass->reduce;
      case COLL_ALL_GATHER:
        return klass->all_gather;
      case COLL_GATHER:
        return klass->gather;
      case COLL_SCATTER:
        return klass->scatter;
      case COLL_REDUCE_SCATTER:
        return klass->reduce_scatter;
      case COLL_ALL_TO_ALL:
        return klass->all_to_all;
      case COLL_BARRIER:
        return klass->barrier;
      case COLL_NEW_GROUP:
        return klass->new_group;
      case COLL_SEND:
      case COLL_RECV:
        if (job->coll == COLL_RECV && job->root < 0 && klass->recv_any == NULL)
          return NULL;
        return klass->send && klass->recv ? klass->send : NULL;
      default:
        return NULL;
    }
}

static gboolean
run_job (DlProcessGroup *self, Job *job, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  gboolean is_root = job->root == priv->rank;
  DlTensor *t = job->tensor;
  g_autofree guint8 *tmp = NULL, *tmp2 = NULL;
  gsize nbytes = t ? tensor_nbytes (t) : 0;
  DlDType dtype = t ? dl_tensor_get_dtype (t) : DL_DTYPE_UINT8;

  if (slot_of (klass, job) == NULL && !job->meta.failed)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "%s: the %s engine does not support it",
                   coll_names[job->coll],
                   priv->backend_name ? priv->backend_name : G_OBJECT_TYPE_NAME (self));
      return FALSE;
    }
  if (job->coll == COLL_SEND || job->coll == COLL_RECV)
    {
      return run_point_to_point (self, job, error);
    }
  if (job->coll != COLL_NEW_GROUP && !check_across_ranks (self, job, error))
    return FALSE;
  switch (job->coll)
    {
      case COLL_ALL_REDUCE:
        return run_reduction (self, job, NULL, dl_tensor_data (t), dl_tensor_numel (t), dtype, TRUE,
                              error);
      case COLL_REDUCE:
        return run_reduction (self, job, NULL, dl_tensor_data (t), dl_tensor_numel (t), dtype,
                              is_root, error);
      case COLL_BROADCAST:
        return klass->broadcast (self, dl_tensor_data (t), nbytes, job->root, error);
      case COLL_ALL_GATHER:
        if (job->other) /* into one tensor */
          return klass->all_gather (self, dl_tensor_data (t), dl_tensor_data (job->other), nbytes,
                                    error);
        tmp = g_malloc (nbytes * priv->size);
        if (!klass->all_gather (self, dl_tensor_data (t), tmp, nbytes, error))
          return FALSE;
        unpack_list (job->list, tmp, nbytes);
        return TRUE;
      case COLL_GATHER:
        if (is_root)
          tmp = g_malloc (nbytes * priv->size);
        if (!klass->gather (self, dl_tensor_data (t), tmp, nbytes, job->root, error))
          return FALSE;
        if (is_root)
          unpack_list (job->list, tmp, nbytes);
        return TRUE;
      case COLL_SCATTER:
        if (is_root)
          {
            tmp = g_malloc (nbytes * priv->size);
            pack_list (job->list, tmp, nbytes);
          }
        return klass->scatter (self, tmp, dl_tensor_data (t), nbytes, job->root, error);
      case COLL_REDUCE_SCATTER:
        if (job->other) /* from one tensor */
          return run_reduction (self, job, dl_tensor_data (job->other), dl_tensor_data (t),
                                dl_tensor_numel (t), dtype, TRUE, error);
        tmp = g_malloc (nbytes * priv->size);
        pack_list (job->list, tmp, nbytes);
        return run_reduction (self, job, tmp, dl_tensor_data (t), dl_tensor_numel (t), dtype, TRUE,
                              error);
      case COLL_ALL_TO_ALL:
        if (job->send_bytes) /* parts of any size */
          return run_all_to_all_v (self, job, error);
        if (job->other) /* t is the output, other the input, both size × chunk */
          return klass->all_to_all (self, dl_tensor_data (job->other), dl_tensor_data (t),
                                    nbytes / priv->size, error);
        /* t is the first output: every chunk has its size */
        tmp = g_malloc (nbytes * priv->size);
        tmp2 = g_malloc (nbytes * priv->size);
        pack_list (job->list2, tmp, nbytes);
        if (!klass->all_to_all (self, tmp, tmp2, nbytes, error))
          return FALSE;
        unpack_list (job->list, tmp2, nbytes);
        return TRUE;
      case COLL_BARRIER:
        return klass->barrier (self, error);
      case COLL_NEW_GROUP:
        {
          DlProcessGroup *child = klass->new_group (self, job->ranks, job->n_ranks, error);
          gboolean member = FALSE;

          for (gsize i = 0; i < job->n_ranks; i++)
            member |= job->ranks[i] == priv->rank;
          if (child == NULL)
            {
              if (*error != NULL)
                return FALSE;
              if (member)
                g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                             "new_group: the %s engine made no group for rank %d",
                             priv->backend_name ? priv->backend_name : G_OBJECT_TYPE_NAME (self),
                             priv->rank);
              return !member;
            }
          g_object_set_data_full (G_OBJECT (job->work), "dl-new-group", child, g_object_unref);
          return TRUE;
        }
      default:
        g_assert_not_reached ();
    }
  return FALSE;
}

/* ---- finished jobs --------------------------------------------------------
 *
 * A lane's thread never drops the references of a job it has run: a
 * tensor (or work) made by a binding may hold a toggle reference whose
 * last unref needs the binding's lock (Python's GIL), which the thread
 * that waits for the work may hold. The finished job goes into this
 * queue instead, and the threads that submit, wait, or destroy a group
 * free it (dl_process_group_reap_finished()). */
static GMutex finished_lock;
static GQueue finished_jobs = G_QUEUE_INIT;

/* Hands @job over to the reapers and completes its work with @error; the
 * calling thread must not touch @job after it */
static void
job_finish (Job *job, const GError *error)
{
  g_mutex_lock (&finished_lock);
  g_queue_push_tail (&finished_jobs, job);
  /* under the lock, so that no reaper frees the job (and its work) before
   * the work is completed */
  dl_work_complete (job->work, error);
  g_mutex_unlock (&finished_lock);
}

void
dl_process_group_reap_finished (void)
{
  for (;;)
    {
      Job *job;

      g_mutex_lock (&finished_lock);
      job = g_queue_pop_head (&finished_jobs);
      g_mutex_unlock (&finished_lock);
      if (job == NULL)
        return;
      job_free (job); /* may finalize tensors, works and groups, which may reap again */
    }
}

/* Runs @job (taken) on this thread, the lane's or the caller's, and
 * completes its work. The job holds a ref to the group, so the lane is
 * still there when its count goes down, before the job is handed over.
 * The caller's thread, the one that waits, frees the job itself. */
static void
run_and_complete (Job *job, gboolean by_caller)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (job->group);
  g_autoptr (GError) error = NULL;

  g_mutex_lock (&priv->lock);
  while (!by_caller && job->lane->caller_running)
    g_cond_wait (&job->lane->idle, &priv->lock);
  if (priv->broken)
    error = g_error_copy (priv->broken);
  g_mutex_unlock (&priv->lock);
  if (error == NULL)
    run_job (job->group, job, &error);
  g_mutex_lock (&priv->lock);
  job->lane->busy--;
  if (by_caller)
    {
      job->lane->caller_running = FALSE;
      g_cond_broadcast (&job->lane->idle);
    }
  g_mutex_unlock (&priv->lock);
  if (!by_caller)
    {
      job_finish (job, error);
      return;
    }
  dl_work_complete (job->work, error);
  job_free (job);
}

static gpointer
worker_main (gpointer data)
{
  g_autoptr (GAsyncQueue) queue = data;

  for (;;)
    {
      Job *job = g_async_queue_pop (queue);

      if (job->coll == COLL_STOP)
        {
          job_free (job);
          break;
        }
      run_and_complete (job, FALSE);
    }
  return NULL;
}

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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (DL_PROCESS_GROUP (object));

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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (DL_PROCESS_GROUP (object));

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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (DL_PROCESS_GROUP (object));

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
   * The name of the group's engine: "mpi" or "gloo" (torch's
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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

  g_mutex_init (&priv->lock);
  priv->size = 1;
  priv->timeout = 1800.0;
  priv->lanes = g_hash_table_new (NULL, NULL);
  priv->all_lanes = g_ptr_array_new_with_free_func (lane_free);
  priv->run_inline = -1;
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
  priv = dl_process_group_get_instance_private (self);
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
  priv = dl_process_group_get_instance_private (self);
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
  priv = dl_process_group_get_instance_private (self);
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
  priv = dl_process_group_get_instance_private (self);
  return priv->backend_name;
}

/* ---- submission ---------------------------------------------------------- */

static void
on_work_timeout (gpointer group, const GError *error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (group);

  g_mutex_lock (&priv->lock);
  if (priv->broken == NULL)
    priv->broken = g_error_new (DL_ERROR, DL_ERROR_FAILED,
                                "the process group is unusable after an earlier failure: %s",
                                error->message);
  g_mutex_unlock (&priv->lock);
}

/* A job of @coll on @tensor (nullable) with @root (-1: none) and @op (-1:
 * none), its metadata filled in */
static Job *
job_new (DlProcessGroup *self, Coll coll, DlTensor *tensor, gint root, gint op)
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

/* Whether the engine of @self marked its type with
 * DL_PROCESS_GROUP_SLOTS_TIME_OUT, so that a synchronous operation may run
 * on the caller's thread; the group's lock is held */
static gboolean
runs_inline (DlProcessGroup *self)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

  if (priv->run_inline < 0)
    priv->run_inline
        = g_type_get_qdata (G_OBJECT_TYPE (self),
                            g_quark_from_static_string (DL_PROCESS_GROUP_SLOTS_TIME_OUT))
          != NULL;
  return priv->run_inline;
}

/* Queues @job (taken) and returns its work, waited for unless @async_op */
static DlWork *
submit (DlProcessGroup *self, Job *job, gboolean async_op, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  gboolean p2p = job->coll == COLL_SEND || job->coll == COLL_RECV;
  gint peer = p2p ? job->root : -1;
  g_autoptr (DlWork) work = NULL;
  Lane *lane;
  gint key;

  work = dl_work_new (coll_names[job->coll], peer, priv->rank, priv->size, priv->timeout,
                      G_OBJECT (self), on_work_timeout);
  job->work = g_object_ref (work);
  g_mutex_lock (&priv->lock);
  if (priv->broken)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "%s: %s", coll_names[job->coll],
                   priv->broken->message);
      g_mutex_unlock (&priv->lock);
      dl_work_complete (job->work, NULL);
      job_free (job);
      return NULL;
    }
  key = !p2p       ? COLLECTIVE_LANE
        : peer < 0 ? ANY_SOURCE_LANE
                   : (job->coll == COLL_SEND ? 0 : G_MAXINT / 2) + peer;
  lane = g_hash_table_lookup (priv->lanes, GINT_TO_POINTER (key));
  if (lane == NULL)
    {
      lane = g_new0 (Lane, 1);
      g_cond_init (&lane->idle);
      lane->queue = g_async_queue_new ();
      lane->thread = g_thread_new (!p2p ? "dl-pg-collectives" : "dl-pg-peer", worker_main,
                                   g_async_queue_ref (lane->queue));
      g_hash_table_insert (priv->lanes, GINT_TO_POINTER (key), lane);
      g_ptr_array_add (priv->all_lanes, lane);
    }
  job->lane = lane;
  lane->busy++;
  if (!async_op && lane->busy == 1 && runs_inline (self))
    {
      /* nothing queued before it: the caller runs it, sparing the two
       * hand-overs between threads (the lane's thread waits meanwhile) */
      gint64 deadline = priv->timeout > 0
                            ? g_get_monotonic_time () + (gint64)(priv->timeout * G_USEC_PER_SEC)
                            : 0;
      g_autoptr (GError) local = NULL;

      lane->caller_running = TRUE;
      g_mutex_unlock (&priv->lock);
      run_and_complete (job, TRUE);
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
static DlWork *
fail_collective (DlProcessGroup *self, Coll coll, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

  if (priv->size > 1 && priv->check_args)
    {
      Job *job = job_new (self, coll, NULL, -1, -1);
      g_autoptr (DlWork) work = NULL;

      job->meta.failed = 1;
      work = submit (self, job, FALSE, NULL);
    }
  return NULL;
}

static gboolean
check_group_rank (DlProcessGroup *self, const gchar *op, const gchar *what, gint r, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

  if (dl_tensor_get_dtype (t) == dl_tensor_get_dtype (like))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
               "%s: %s is %s but the input is %s; the dtypes must match (rank %d)", op, what,
               dl_dtype_get_name (dl_tensor_get_dtype (t)),
               dl_dtype_get_name (dl_tensor_get_dtype (like)), priv->rank);
  return FALSE;
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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  gsize ndim;
  const gint64 *shape;
  g_autofree gchar *shape_str = NULL;

  if (t == NULL || !DL_IS_TENSOR (t))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s is not a tensor (rank %d)", op, what,
                   priv->rank);
      return FALSE;
    }
  shape = dl_tensor_get_shape (t, &ndim);
  shape_str = dl_shape_to_string (shape, (gint)ndim);
  if (dl_tensor_is_released (t))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s was released (rank %d)", op, what,
                   priv->rank);
      return FALSE;
    }
  if (dl_device_get_device_type (dl_tensor_get_device (t)) != DL_DEVICE_TYPE_CPU)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "%s: %s %s is on %s; the %s engine takes CPU tensors (rank %d)", op, what,
                   shape_str, dl_device_get_name (dl_tensor_get_device (t)),
                   priv->backend_name ? priv->backend_name : "process group's", priv->rank);
      return FALSE;
    }
  if (!dl_tensor_is_contiguous (t))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s %s is not contiguous; tensors must be contiguous (rank %d)", op, what,
                   shape_str, priv->rank);
      return FALSE;
    }
  if (output && dl_tensor_is_read_only (t))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s %s is read-only (rank %d)", op, what,
                   shape_str, priv->rank);
      return FALSE;
    }
  if (like)
    {
      gsize like_ndim;
      const gint64 *like_shape = dl_tensor_get_shape (like, &like_ndim);
      g_autofree gchar *like_str = dl_shape_to_string (like_shape, (gint)like_ndim);

      if (!check_same_dtype (self, op, what, t, like, error))
        return FALSE;
      if (dl_tensor_numel (t) != dl_tensor_numel (like) * times)
        {
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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  gint64 rows = dl_tensor_get_ndim (t) ? dl_tensor_get_size (t, 0, NULL) : 1;
  gint64 row_bytes = rows ? (gint64)tensor_nbytes (t) / rows : 0;

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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);

  job->send_bytes = g_new (gint64, priv->size);
  job->recv_bytes = g_new (gint64, priv->size);
  if (job->list2)
    for (gint r = 0; r < priv->size; r++)
      {
        job->send_bytes[r] = (gint64)tensor_nbytes (g_ptr_array_index (job->list2, r));
        job->recv_bytes[r] = (gint64)tensor_nbytes (g_ptr_array_index (job->list, r));
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
      return fail_collective (self, coll, error);                                                  \
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
  job = job_new (self, COLL_ALL_REDUCE, tensor, -1, op);
  bump (tensor);
  return submit (self, job, async_op, error);
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
  return submit (self, job_new (self, COLL_BROADCAST, tensor, src, -1), async_op, error);
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
  job = job_new (self, COLL_REDUCE, tensor, dst, op);
  bump (tensor);
  return submit (self, job, async_op, error);
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
  job = job_new (self, COLL_ALL_GATHER, tensor, -1, -1);
  job->list = list_copy (tensor_list);
  bump_list (tensor_list);
  return submit (self, job, async_op, error);
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
  priv = dl_process_group_get_instance_private (self);
  CHECK_OR_FAIL (
      check_tensor (self, "all_gather_into_tensor", "input", input, FALSE, NULL, 1, error)
          && check_tensor (self, "all_gather_into_tensor", "output", output, TRUE, input,
                           priv->size, error),
      COLL_ALL_GATHER);
  job = job_new (self, COLL_ALL_GATHER, input, -1, -1);
  job->other = g_object_ref (output);
  bump (output);
  return submit (self, job, async_op, error);
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
  priv = dl_process_group_get_instance_private (self);
  root = dst == priv->rank;
  CHECK_OR_FAIL (
      check_tensor (self, "gather", "tensor", tensor, FALSE, NULL, 1, error)
          && check_group_rank (self, "gather", "destination", dst, error)
          && (!root
              || check_list (self, "gather", "gather_list", gather_list, TRUE, tensor, error)),
      COLL_GATHER);
  job = job_new (self, COLL_GATHER, tensor, dst, -1);
  if (root)
    {
      job->list = list_copy (gather_list);
      bump_list (gather_list);
    }
  return submit (self, job, async_op, error);
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
  priv = dl_process_group_get_instance_private (self);
  root = src == priv->rank;
  CHECK_OR_FAIL (
      check_tensor (self, "scatter", "tensor", tensor, TRUE, NULL, 1, error)
          && check_group_rank (self, "scatter", "source", src, error)
          && (!root
              || check_list (self, "scatter", "scatter_list", scatter_list, FALSE, tensor, error)),
      COLL_SCATTER);
  job = job_new (self, COLL_SCATTER, tensor, src, -1);
  if (root)
    job->list = list_copy (scatter_list);
  bump (tensor);
  return submit (self, job, async_op, error);
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
  job = job_new (self, COLL_REDUCE_SCATTER, output, -1, op);
  job->list = list_copy (input_list);
  bump (output);
  return submit (self, job, async_op, error);
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
  priv = dl_process_group_get_instance_private (self);
  CHECK_OR_FAIL (
      check_tensor (self, "reduce_scatter_tensor", "output", output, TRUE, NULL, 1, error)
          && check_reduce_op (self, "reduce_scatter_tensor", output, op, error)
          && check_tensor (self, "reduce_scatter_tensor", "input", input, FALSE, output, priv->size,
                           error),
      COLL_REDUCE_SCATTER);
  job = job_new (self, COLL_REDUCE_SCATTER, output, -1, op);
  job->other = g_object_ref (input);
  bump (output);
  return submit (self, job, async_op, error);
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
  job = job_new (self, COLL_ALL_TO_ALL, first, -1, -1);
  job->list = list_copy (output_list);
  job->list2 = list_copy (input_list);
  job_set_parts (self, job, NULL, NULL, 0);
  bump_list (output_list);
  return submit (self, job, async_op, error);
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
  priv = dl_process_group_get_instance_private (self);
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
      return fail_collective (self, COLL_ALL_TO_ALL, error);
    }
  job = job_new (self, COLL_ALL_TO_ALL, output, -1, -1);
  job->other = g_object_ref (input);
  bump (output);
  return submit (self, job, async_op, error);
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
  job = job_new (self, COLL_ALL_TO_ALL, output, -1, -1);
  job->other = g_object_ref (input);
  job_set_parts (self, job, input_split_sizes, n_output_split_sizes ? output_split_sizes : NULL,
                 n_input_split_sizes);
  if (n_output_split_sizes == 0)
    rows_to_bytes (self, output, NULL, job->recv_bytes);
  bump (output);
  return submit (self, job, async_op, error);
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
  DlProcessGroupPrivate *priv = dl_process_group_get_instance_private (self);
  const gchar *name = coll_names[coll];
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
  job = job_new (self, coll, tensor, peer, -1);
  job->tag = tag;
  if (coll == COLL_RECV)
    bump (tensor);
  return submit (self, job, async_op, error);
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
  return submit (self, job_new (self, COLL_BARRIER, NULL, -1, -1), async_op, error);
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
  priv = dl_process_group_get_instance_private (self);
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
  job = job_new (self, COLL_NEW_GROUP, NULL, -1, -1);
  job->ranks = g_memdup2 (ranks, n_ranks * sizeof (gint));
  job->n_ranks = n_ranks;
  work = submit (self, job, FALSE, error);
  if (work == NULL)
    return NULL;
  return g_object_steal_data (G_OBJECT (work), "dl-new-group");
}

/* dl-process-group-run.c: running a DlProcessGroup's job on its lane: the
 * exchange of arguments across the ranks before a collective, the
 * engine's slot for it, and the queue of finished jobs that the waiting
 * thread frees (dl-process-group.c submits the jobs).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-error.h"
#include "dl-stream.h"
#include "dl-tensor-private.h"
#include "distributed/dl-distributed-private.h"
#include "distributed/dl-process-group-private.h"
#include "distributed/dl-work-private.h"

/* ---- the worker ---------------------------------------------------------- */

static gchar *
meta_describe (const Meta *m)
{
  GString *s = g_string_new (dl_process_group_coll_names[CLAMP (m->coll, 0, COLL_STOP)]);

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

/* The exchange of arguments before a collective. Each rank sends its Meta
 * and, when the collective's data is small enough, the data itself: such
 * a collective is complete once the exchange is and the Meta agree (every
 * rank's data is there), in one round trip instead of two; a larger one
 * runs the engine's slot after the exchange. Whether the data travels
 * with the Meta depends on the collective and its size, which the Meta
 * states, and on a limit every rank of the group computes alike: ranks
 * that agree on their Meta agree on it too, and a rank that disagrees
 * never sends more than the others are ready to receive.
 *
 * An engine with an exchange slot moves the Meta and the data as they
 * are, up to its exchange_data_max bytes in all (divided among the
 * peers). Otherwise the exchange is an all_gather of one frame per rank,
 * whose size depends on the group's size only (never on a rank's
 * arguments): the Meta, and the data when it fits in the rest. */
#define FRAME_BYTES 2048
#define FRAME_MAX_RANKS 8

static gsize
frame_bytes (DlProcessGroupPrivate *priv)
{
  return priv->size <= FRAME_MAX_RANKS ? FRAME_BYTES : sizeof (Meta);
}

/* The most bytes of data a rank sends with its Meta in @self */
static gsize
data_limit (DlProcessGroup *self)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);

  if (klass->exchange)
    return klass->exchange_data_max / (gsize)MAX (priv->size - 1, 1);
  return frame_bytes (priv) - sizeof (Meta);
}

/* Whether @job's data travels with its Meta, and how many bytes of it */
static gboolean
job_fits (Job *job, gsize limit, gsize *payload)
{
  gsize n;

  if (job->meta.failed)
    return FALSE;
  /* a device group's data stays on its GPU: only a barrier ends with the
   * exchange */
  if (dl_process_group_on_device (job->group) && job->coll != COLL_BARRIER)
    return FALSE;
  switch (job->coll)
    {
      case COLL_BARRIER:
        *payload = 0;
        return TRUE;
      case COLL_ALL_REDUCE:
      case COLL_REDUCE:
      case COLL_BROADCAST:
      case COLL_ALL_GATHER:
      case COLL_GATHER:
        n = dl_process_group_tensor_nbytes (job->tensor);
        break;
      default:
        return FALSE;
    }
  if (n > limit)
    return FALSE;
  *payload = n;
  return TRUE;
}

/* Completes @job from every rank's data (@datas, in rank order: this
 * rank's may be the tensor itself); the ranks' Meta agree */
static gboolean
finish_from_data (DlProcessGroup *self, Job *job, const guint8 *const *datas, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlTensor *t = job->tensor;
  gsize n = t ? dl_process_group_tensor_nbytes (t) : 0;
  gboolean is_root = job->root == priv->rank;

  switch (job->coll)
    {
      case COLL_BARRIER: /* every rank's part is in: every rank has entered */
        return TRUE;
      case COLL_BROADCAST:
        if (!is_root)
          memcpy (dl_tensor_data (t), datas[job->root], n);
        return TRUE;
      case COLL_ALL_REDUCE:
      case COLL_REDUCE:
        {
          DlDType dtype = dl_tensor_get_dtype (t);
          DlReduceOpKind op = job->op;
          gsize count = dl_tensor_numel (t);
          guint8 *out = (guint8 *)dl_tensor_data (t);
          g_autofree guint8 *acc = NULL;
          guint8 *into = out;
          gint first = 1;

          if (job->coll == COLL_REDUCE && !is_root)
            return TRUE;
          /* as run_reduction() asks the engines: bool as uint8 max/min,
           * AVG as a sum then a division */
          if (dtype == DL_DTYPE_BOOL)
            {
              dtype = DL_DTYPE_UINT8;
              op = (op == DL_REDUCE_OP_KIND_SUM || op == DL_REDUCE_OP_KIND_MAX)
                       ? DL_REDUCE_OP_KIND_MAX
                       : DL_REDUCE_OP_KIND_MIN;
            }
          else if (op == DL_REDUCE_OP_KIND_AVG)
            op = DL_REDUCE_OP_KIND_SUM;
          /* in rank order, so that every rank holds the same bits; with
           * two ranks a sum or a product (commutative to the bit) adds
           * the other rank's data to the tensor where it lies */
          if (datas[priv->rank] != out)
            memcpy (out, datas[0], n);
          else if (priv->size == 2 && priv->rank == 1
                   && (op == DL_REDUCE_OP_KIND_SUM || op == DL_REDUCE_OP_KIND_PRODUCT))
            first = 0;
          else if (priv->rank != 0)
            into = acc = g_memdup2 (datas[0], n);
          for (gint r = first; r < priv->size; r++)
            if (datas[r] != into) /* this rank's data, already in place */
              if (!dl_reduce_host (dtype, op, into, datas[r], count))
                {
                  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "%s: no %s reduction of %s",
                               dl_process_group_coll_names[job->coll], dl_reduce_op_kind_name (op),
                               dl_dtype_get_name (dtype));
                  return FALSE;
                }
          if (acc)
            memcpy (out, acc, n);
          if (job->op == DL_REDUCE_OP_KIND_AVG)
            dl_reduce_host_divide (dtype, out, count, priv->size);
          return TRUE;
        }
      case COLL_ALL_GATHER:
      case COLL_GATHER:
        if (job->coll == COLL_GATHER && !is_root)
          return TRUE;
        for (gint r = 0; r < priv->size; r++)
          memcpy (job->other ? (gpointer)((guint8 *)dl_tensor_data (job->other) + (gsize)r * n)
                             : dl_tensor_data (g_ptr_array_index (job->list, r)),
                  datas[r], n);
        return TRUE;
      default:
        g_assert_not_reached ();
    }
  return FALSE;
}

/* The metadata exchange before a collective: every rank learns what every
 * other rank was asked and fails, with the same message, when they differ.
 * Sets @done when the collective's data came with it (the collective is
 * then complete). */
static gboolean
check_across_ranks (DlProcessGroup *self, Job *job, gboolean *done, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  g_autofree guint8 *mine = NULL, *frames = NULL;
  g_autofree Meta *metas = NULL;
  g_autofree const guint8 **datas = NULL;
  g_autoptr (GError) local = NULL;
  const gchar *name = dl_process_group_coll_names[job->coll];
  gsize payload = 0;
  gboolean fits, ok;

  *done = FALSE;
  job->meta.seq = priv->seq++;
  if (priv->size == 1 || klass->all_gather == NULL || !priv->check_args)
    return !job->meta.failed;
  fits = job_fits (job, data_limit (self), &payload);
  datas = g_new0 (const guint8 *, priv->size);
  if (klass->exchange)
    {
      /* a broadcast needs the root's data only */
      gboolean send = fits && payload && (job->coll != COLL_BROADCAST || job->root == priv->rank);

      metas = g_new (Meta, priv->size);
      ok = klass->exchange (self, &job->meta, sizeof (Meta),
                            send ? dl_tensor_data (job->tensor) : NULL, send ? payload : 0, metas,
                            (gconstpointer *)datas, &local);
    }
  else
    {
      gsize fsize = frame_bytes (priv);

      mine = g_malloc0 (fsize);
      frames = g_malloc (fsize * priv->size);
      memcpy (mine, &job->meta, sizeof (Meta));
      if (fits && payload)
        memcpy (mine + sizeof (Meta), dl_tensor_data (job->tensor), payload);
      ok = klass->all_gather (self, mine, frames, fsize, &local);
      metas = g_new (Meta, priv->size);
      for (gint r = 0; ok && r < priv->size; r++)
        {
          memcpy (&metas[r], frames + (gsize)r * fsize, sizeof (Meta));
          datas[r] = frames + (gsize)r * fsize + sizeof (Meta);
        }
    }
  if (!ok)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "%s: the exchange of arguments across the ranks failed (rank %d of %d): %s",
                   name, priv->rank, priv->size, local->message);
      return FALSE;
    }
  for (gint r = 0; r < priv->size; r++)
    if (metas[r].failed)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: rank %d rejected its arguments (see its own error) (rank %d of %d)", name,
                     r, priv->rank, priv->size);
        return FALSE;
      }
  for (gint r = 1; r < priv->size; r++)
    if (!meta_equal (&metas[0], &metas[r]))
      {
        g_autofree gchar *first = meta_describe (&metas[0]);
        g_autofree gchar *other = meta_describe (&metas[r]);

        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: the ranks disagree: rank 0 called %s, rank %d called %s (rank %d of %d)",
                     name, first, r, other, priv->rank, priv->size);
        return FALSE;
      }
  if (!fits)
    return TRUE;
  *done = TRUE;
  return finish_from_data (self, job, datas, error);
}

/* A send is its metadata, then its payload; the receiver compares the
 * metadata with its own and, when they differ, still takes the payload
 * (into a scratch buffer, so that the sender is not left waiting) and
 * fails, naming both sides. Neither message waits for an answer, so a
 * ring of sends and receives runs as it would on the engine alone. */
static gboolean
run_point_to_point (DlProcessGroup *self, Job *job, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
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

/* ---- device groups -------------------------------------------------------
 *
 * An engine whose buffers live on a GPU (DlProcessGroupClass.device_type,
 * NCCL) gets device pointers in its slots and only queues work on its
 * stream: the base never touches the data on the host. The list forms
 * and all_to_all run on its exchange_parts slot (pointers per rank, no
 * packing), and the arguments it exchanges on the host go through its
 * exchange slot. */

/* The arguments of DlProcessGroupClass.exchange_parts: size of each */
typedef struct
{
  gconstpointer *sends;
  gsize *send_bytes;
  gpointer *recvs;
  gsize *recv_bytes;
} Parts;

static Parts *
parts_new (gint size)
{
  Parts *p = g_new (Parts, 1);

  p->sends = g_new0 (gconstpointer, size);
  p->send_bytes = g_new0 (gsize, size);
  p->recvs = g_new0 (gpointer, size);
  p->recv_bytes = g_new0 (gsize, size);
  return p;
}

static void
parts_free (Parts *p)
{
  g_free (p->sends);
  g_free (p->send_bytes);
  g_free (p->recvs);
  g_free (p->recv_bytes);
  g_free (p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Parts, parts_free)

/* every rank's @n bytes at @mine into @all (size × @n), on the host */
static gboolean
host_all_gather (DlProcessGroup *self, gconstpointer mine, gpointer all, gsize n, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  g_autofree gconstpointer *datas = NULL;

  if (!dl_process_group_on_device (self))
    return klass->all_gather (self, mine, all, n, error);
  datas = g_new0 (gconstpointer, priv->size);
  return klass->exchange (self, mine, n, NULL, 0, all, datas, error);
}

/* A device group's exchange_parts of @p */
static gboolean
run_parts (DlProcessGroup *self, Parts *p, GError **error)
{
  return DL_PROCESS_GROUP_GET_CLASS (self)->exchange_parts (self, p->sends, p->send_bytes, p->recvs,
                                                            p->recv_bytes, error);
}

/* The list forms of all_gather, gather and scatter on a device group: one
 * grouped exchange of the tensors where they lie */
static gboolean
run_device_lists (DlProcessGroup *self, Job *job, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  gint size = priv->size, me = priv->rank;
  gsize nbytes = dl_process_group_tensor_nbytes (job->tensor);
  gpointer data = dl_tensor_data (job->tensor);
  g_autoptr (Parts) p = parts_new (size);

  for (gint r = 0; r < size; r++)
    switch (job->coll)
      {
        case COLL_ALL_GATHER: /* mine to every rank, every rank's into list[r] */
          p->sends[r] = data;
          p->send_bytes[r] = nbytes;
          p->recvs[r] = dl_tensor_data (g_ptr_array_index (job->list, r));
          p->recv_bytes[r] = nbytes;
          break;
        case COLL_GATHER: /* mine to the root; the root's list[r] from rank r */
          if (r == job->root)
            {
              p->sends[r] = data;
              p->send_bytes[r] = nbytes;
            }
          if (me == job->root)
            {
              p->recvs[r] = dl_tensor_data (g_ptr_array_index (job->list, r));
              p->recv_bytes[r] = nbytes;
            }
          break;
        case COLL_SCATTER: /* the root's list[r] to rank r; mine from the root */
          if (me == job->root)
            {
              p->sends[r] = dl_tensor_data (g_ptr_array_index (job->list, r));
              p->send_bytes[r] = nbytes;
            }
          if (r == job->root)
            {
              p->recvs[r] = data;
              p->recv_bytes[r] = nbytes;
            }
          break;
        default:
          g_assert_not_reached ();
      }
  return run_parts (self, p, error);
}

/* reduce_scatter of a list on a device group: rank r's part is list[r]
 * reduced onto rank r, one reduce per rank (this rank's own part first
 * copied into @buf, the output, which its reduce then fills) */
static gboolean
run_device_reduce_scatter_list (DlProcessGroup *self,
                                Job *job,
                                gpointer buf,
                                gsize count,
                                DlDType dtype,
                                DlReduceOpKind op,
                                GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  gint size = priv->size, me = priv->rank;
  gsize nbytes = count * dl_dtype_get_size (dtype);
  g_autoptr (Parts) p = parts_new (size);

  p->sends[me] = dl_tensor_data (g_ptr_array_index (job->list, me));
  p->recvs[me] = buf;
  p->send_bytes[me] = p->recv_bytes[me] = nbytes;
  if (!run_parts (self, p, error))
    return FALSE;
  for (gint r = 0; r < size; r++)
    if (!klass->reduce (self, r == me ? buf : dl_tensor_data (g_ptr_array_index (job->list, r)),
                        count, dtype, op, r, error))
      return FALSE;
  return TRUE;
}

/* @n bytes of host memory in a new uint8 tensor on the device of @self's
 * stream (queued on it: the calling thread's current stream there) */
static DlTensor *
device_bytes_new (DlProcessGroup *self, gconstpointer host, gsize n, GError **error)
{
  DlStream *comm = DL_PROCESS_GROUP_GET_CLASS (self)->communication_stream (self);
  gint64 shape = (gint64)n;
  g_autoptr (DlTensor) cpu = dl_tensor_new_from_data (host, n, &shape, 1, DL_DTYPE_UINT8, error);

  return cpu ? dl_tensor_to_device (cpu, dl_stream_get_device (comm), error) : NULL;
}

/* A send or recv on a device group: the metadata travels through a small
 * device buffer before the payload, as run_point_to_point() does on the
 * host; the receiver waits for it on the host before it posts the
 * payload's receive */
static gboolean
run_device_point_to_point (DlProcessGroup *self, Job *job, GError **error)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  DlTensor *t = job->tensor;
  gsize nbytes = dl_process_group_tensor_nbytes (t);
  g_autoptr (DlTensor) meta = NULL, back = NULL, scratch = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree gchar *mine = NULL, *other = NULL;
  g_autofree guint8 *zeros = NULL;
  Meta theirs = { 0 };
  gsize their_nbytes;

  meta = device_bytes_new (self, &job->meta, sizeof (Meta), error);
  if (meta == NULL)
    return FALSE;
  if (job->coll == COLL_SEND)
    return klass->send (self, dl_tensor_data (meta), sizeof (Meta), job->root, job->tag, error)
           && klass->send (self, dl_tensor_data (t), nbytes, job->root, job->tag, error);
  if (!klass->recv (self, dl_tensor_data (meta), sizeof (Meta), job->root, job->tag, error))
    return FALSE;
  back = dl_tensor_to_device (meta, dl_device_cpu (), error); /* waits for the metadata */
  if (back == NULL)
    return FALSE;
  memcpy (&theirs, dl_tensor_data (back), sizeof (Meta));
  if (theirs.coll == COLL_SEND && theirs.dtype == job->meta.dtype
      && theirs.numel == job->meta.numel)
    return klass->recv (self, dl_tensor_data (t), nbytes, job->root, job->tag, error);
  mine = meta_describe (&job->meta);
  other = meta_describe (&theirs);
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "recv: the peers disagree: rank %d called %s, rank %d called %s", priv->rank, mine,
               job->root, other);
  /* the sender's payload still comes: take it, so that the sender is not
   * left waiting */
  if (theirs.coll != COLL_SEND || theirs.dtype < 0 || theirs.dtype >= DL_N_DTYPES
      || theirs.numel < 0)
    return FALSE;
  their_nbytes = (gsize)theirs.numel * dl_dtype_get_size ((DlDType)theirs.dtype);
  zeros = g_try_malloc0 (MAX (their_nbytes, 1));
  if (zeros)
    scratch = device_bytes_new (self, zeros, MAX (their_nbytes, 1), &local);
  if (scratch)
    klass->recv (self, dl_tensor_data (scratch), their_nbytes, job->root, job->tag, &local);
  return FALSE;
}

/* Runs a reducing slot on @dtype with @op, bool as uint8 max/min, AVG as a
 * sum and a division (@divide: this rank holds the result; an engine on a
 * device gets AVG itself) */
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
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  DlReduceOpKind op = job->op;
  gboolean on_device = dl_process_group_on_device (self);
  gboolean ok;

  if (dtype == DL_DTYPE_BOOL)
    {
      dtype = DL_DTYPE_UINT8;
      op = (op == DL_REDUCE_OP_KIND_SUM || op == DL_REDUCE_OP_KIND_MAX) ? DL_REDUCE_OP_KIND_MAX
                                                                        : DL_REDUCE_OP_KIND_MIN;
    }
  else if (op == DL_REDUCE_OP_KIND_AVG && !on_device)
    op = DL_REDUCE_OP_KIND_SUM; /* a device engine averages itself (ncclAvg) */
  if (job->coll == COLL_REDUCE_SCATTER && on_device && send == NULL)
    return run_device_reduce_scatter_list (self, job, buf, count, dtype, op, error);
  if (job->coll == COLL_ALL_REDUCE)
    ok = klass->all_reduce (self, buf, count, dtype, op, error);
  else if (job->coll == COLL_REDUCE)
    ok = klass->reduce (self, buf, count, dtype, op, job->root, error);
  else
    ok = klass->reduce_scatter (self, send, buf, count, dtype, op, error);
  if (ok && divide && job->op == DL_REDUCE_OP_KIND_AVG && !on_device)
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
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  gint size = priv->size;
  g_autofree gint64 *mine = g_new (gint64, 2 * size);
  g_autofree gint64 *all = g_new (gint64, 2 * size * size);
  g_autofree guint8 *out = NULL, *in = NULL;
  gint64 chunk = 0;

  memcpy (mine, job->send_bytes, size * sizeof (gint64));
  memcpy (mine + size, job->recv_bytes, size * sizeof (gint64));
  if (!host_all_gather (self, mine, all, 2 * size * sizeof (gint64), error))
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
  if (dl_process_group_on_device (self))
    {
      /* the parts where they lie, each of its own size */
      g_autoptr (Parts) p = parts_new (size);

      for (gint r = 0; r < size; r++)
        {
          p->sends[r] = part_data (job->other, job->list2, job->send_bytes, r);
          p->recvs[r] = part_data (job->tensor, job->list, job->recv_bytes, r);
          p->send_bytes[r] = (gsize)job->send_bytes[r];
          p->recv_bytes[r] = (gsize)job->recv_bytes[r];
        }
      return run_parts (self, p, error);
    }
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

/* A device group's stream waits for the caller's stream as it was when
 * @job was submitted */
static gboolean
device_ready (DlProcessGroup *self, Job *job, GError **error)
{
  DlStream *comm = DL_PROCESS_GROUP_GET_CLASS (self)->communication_stream (self);

  return job->ready == NULL || dl_stream_wait_event (comm, job->ready, error);
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
      case COLL_GATHER: /* a device engine's run on its grouped exchange */
        return klass->device_type != DL_DEVICE_TYPE_CPU ? (gpointer)klass->exchange_parts
                                                        : (gpointer)klass->gather;
      case COLL_SCATTER:
        return klass->device_type != DL_DEVICE_TYPE_CPU ? (gpointer)klass->exchange_parts
                                                        : (gpointer)klass->scatter;
      case COLL_REDUCE_SCATTER:
        return klass->reduce_scatter;
      case COLL_ALL_TO_ALL:
        return klass->device_type != DL_DEVICE_TYPE_CPU ? (gpointer)klass->exchange_parts
                                                        : (gpointer)klass->all_to_all;
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
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (self);
  DlProcessGroupClass *klass = DL_PROCESS_GROUP_GET_CLASS (self);
  gboolean is_root = job->root == priv->rank;
  DlTensor *t = job->tensor;
  g_autofree guint8 *tmp = NULL, *tmp2 = NULL;
  gsize nbytes = t ? dl_process_group_tensor_nbytes (t) : 0;
  DlDType dtype = t ? dl_tensor_get_dtype (t) : DL_DTYPE_UINT8;
  gboolean done = FALSE;

  if (slot_of (klass, job) == NULL && !job->meta.failed)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "%s: the %s engine does not support it",
                   dl_process_group_coll_names[job->coll],
                   priv->backend_name ? priv->backend_name : G_OBJECT_TYPE_NAME (self));
      return FALSE;
    }
  if (job->coll == COLL_SEND || job->coll == COLL_RECV)
    {
      if (dl_process_group_on_device (self))
        return device_ready (self, job, error) && run_device_point_to_point (self, job, error);
      return run_point_to_point (self, job, error);
    }
  if (job->coll != COLL_NEW_GROUP && !check_across_ranks (self, job, &done, error))
    return FALSE;
  if (done)
    return TRUE;
  /* a device group's data: after the kernels that made it (the exchange
   * of arguments before needs none of it, and went ahead meanwhile) */
  if (dl_process_group_on_device (self) && !device_ready (self, job, error))
    return FALSE;
  if (dl_process_group_on_device (self)
      && ((job->coll == COLL_ALL_GATHER && job->other == NULL) || job->coll == COLL_GATHER
          || job->coll == COLL_SCATTER))
    return run_device_lists (self, job, error);
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
        if (dl_process_group_on_device (self)) /* reduced where they lie */
          return run_reduction (self, job, NULL, dl_tensor_data (t), dl_tensor_numel (t), dtype,
                                TRUE, error);
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

/* The tensors of @job, which its work keeps while the GPU may use them */
static GPtrArray *
job_tensors (Job *job)
{
  GPtrArray *keep = g_ptr_array_new_with_free_func (g_object_unref);
  GPtrArray *lists[] = { job->list, job->list2 };

  if (job->tensor)
    g_ptr_array_add (keep, g_object_ref (job->tensor));
  if (job->other)
    g_ptr_array_add (keep, g_object_ref (job->other));
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] && i < lists[l]->len; i++)
      g_ptr_array_add (keep, g_object_ref (g_ptr_array_index (lists[l], i)));
  return keep;
}

/* Runs @job of a device group on its stream (after the caller's stream
 * as it was when the job was submitted: device_ready()), with an event
 * after it that the work's wait makes the waiting stream wait for */
static gboolean
run_device_job (DlProcessGroup *self, Job *job, GError **error)
{
  DlStream *comm = DL_PROCESS_GROUP_GET_CLASS (self)->communication_stream (self);
  g_autoptr (DlStream) previous = dl_stream_get_current (dl_stream_get_device (comm));
  g_autoptr (DlEvent) done = NULL;
  g_autoptr (GPtrArray) keep = NULL;
  gboolean ok;

  /* the staging tensors of a send or recv queue on the group's stream too */
  dl_stream_set_current (comm);
  ok = run_job (self, job, error) && (done = dl_stream_record_event (comm, NULL, error)) != NULL;
  dl_stream_set_current (previous);
  if (!ok)
    return FALSE;
  keep = job_tensors (job);
  dl_work_set_event (job->work, done, keep);
  return TRUE;
}

/* ---- finished jobs --------------------------------------------------------
 *
 * A lane's thread never drops the references of a job it has run: a
 * tensor (or work) made by a binding may hold a toggle reference whose
 * last unref needs the binding's lock (Python's GIL), which the thread
 * that waits for the work may hold. The finished job goes into this
 * queue instead, and the threads that dl_process_group_submit, wait, or destroy a group
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
      dl_process_group_job_free (
          job); /* may finalize tensors, works and groups, which may reap again */
    }
}

/* Runs @job (taken) on this thread, the lane's or the caller's, and
 * completes its work. The job holds a ref to the group, so the lane is
 * still there when its count goes down, before the job is handed over.
 * The caller's thread, the one that waits, frees the job itself. */
void
dl_process_group_run_and_complete (Job *job, gboolean by_caller)
{
  DlProcessGroupPrivate *priv = dl_process_group_get_priv (job->group);
  g_autoptr (GError) error = NULL;

  g_mutex_lock (&priv->lock);
  while (!by_caller && job->lane->caller_running)
    g_cond_wait (&job->lane->idle, &priv->lock);
  if (priv->broken)
    error = g_error_copy (priv->broken);
  g_mutex_unlock (&priv->lock);
  if (error == NULL && dl_process_group_on_device (job->group))
    run_device_job (job->group, job, &error);
  else if (error == NULL)
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
  dl_process_group_job_free (job);
}

gpointer
dl_process_group_worker_main (gpointer data)
{
  g_autoptr (GAsyncQueue) queue = data;

  for (;;)
    {
      Job *job = g_async_queue_pop (queue);

      if (job->coll == COLL_STOP)
        {
          dl_process_group_job_free (job);
          break;
        }
      dl_process_group_run_and_complete (job, FALSE);
    }
  return NULL;
}

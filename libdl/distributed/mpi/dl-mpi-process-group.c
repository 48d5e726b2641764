/* dl-mpi-process-group.c: the MPI engine, a DlProcessGroup over an MPI
 * communicator (Open MPI), built as the module libdl-mpi-1.0.so.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Ranks come from MPI itself: launch with `mpirun -np N`. A process
 * started otherwise is an MPI singleton (a world of one); the factory then
 * refuses a RANK/WORLD_SIZE (or arguments) that say otherwise.
 *
 * Threads: MPI is initialized with MPI_THREAD_MULTIPLE when the library
 * provides it, else MPI_THREAD_SERIALIZED, and then every MPI call goes
 * through one lock.
 *
 * Collectives: with MPI_THREAD_MULTIPLE each slot makes MPI's blocking
 * call (MPI_Allreduce, ...), as a C program would: Open MPI runs its
 * nonblocking collectives (MPI_Iallreduce, ...) through a generic
 * schedule that only moves when polled and costs 2 to 3 times the time
 * of the blocking call on shared memory (bench/allreduce.py). A blocking
 * call cannot be abandoned, so a slot enters one only once every rank of
 * the group is known to have committed to it: the base's exchange of
 * arguments before the collective (an all_gather of small frames, which
 * this engine polls: see mpi_all_gather) is the first round, and a polled
 * MPI_Ibarrier right before the call the second. A rank that gave up in
 * the first round (its timeout passed) never enters the second, so its
 * peers time out there in turn, with an error; a rank that completed the
 * first round gets through the second within microseconds, its peers
 * having all sent their part. Past both rounds, the call only blocks for
 * longer than the timeout if a rank died inside it: Open MPI's runtime
 * then ends the job by default; where it was told not to
 * (orte_abort_on_non_zero_status 0), the engine's watchdog ends it
 * (MPI_Abort, with a message naming the collective) once the call has
 * lasted the timeout and WATCHDOG_GRACE_US more, instead of hanging
 * forever. Every slot thus returns by itself with the timeout's error
 * (DlProcessGroupClass.slots_time_out), and the base runs a synchronous
 * collective on the caller's thread, sparing two hand-overs between
 * threads a call (12-20 us on this machine, 5-8 % of a 1 MB all_reduce
 * between two processes).
 *
 * Where the library is only MPI_THREAD_SERIALIZED a blocking call would
 * hold the lock that the sends and receives of the other lanes need, so
 * there, and for sends and receives always, a slot starts the
 * nonblocking operation and polls it with MPI_Test, holding the lock only
 * for each call, and returns with an error naming the operation once the
 * group's timeout has passed, even if a peer never joins.
 *
 * dtypes: float32, float64, int32, int64 and uint8 map to MPI's own types;
 * float16 and bfloat16 travel as 2-byte types with user-defined
 * reductions (dl_reduce_host(): through float, rounded back at each step).
 * Bool never reaches the engine (the base reduces it as uint8 max/min).
 */
#include "config.h"

#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include "dl-error.h"
#include "distributed/dl-process-group.h"
#include "distributed/dl-distributed-private.h"

#define DL_TYPE_MPI_PROCESS_GROUP (dl_mpi_process_group_get_type ())
G_DECLARE_FINAL_TYPE (DlMpiProcessGroup,
                      dl_mpi_process_group,
                      DL,
                      MPI_PROCESS_GROUP,
                      DlProcessGroup)

struct _DlMpiProcessGroup
{
  DlProcessGroup parent_instance;
  MPI_Comm comm; /* (owned): freed in finalize */
};

G_DEFINE_FINAL_TYPE (DlMpiProcessGroup, dl_mpi_process_group, DL_TYPE_PROCESS_GROUP)

static GMutex mpi_lock;
static gboolean serialize; /* the library is not MPI_THREAD_MULTIPLE: one call at a time */
/* threads inside a blocking collective now: one left there by a timeout
 * returns when the late peers arrive, or never (a peer died), and
 * MPI_Finalize at exit would wait for it forever: the exit gives such a
 * thread EXIT_GRACE_US to return, then leaves without finalizing */
static gint in_blocking_call;
#define EXIT_GRACE_US (5 * G_USEC_PER_SEC)
static gboolean we_initialized;
static MPI_Datatype half_type, bf16_type;
static MPI_Op half_ops[4], bf16_ops[4]; /* sum, product, min, max */

#define MPI_LOCK()                                                                                 \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (serialize)                                                                                 \
      g_mutex_lock (&mpi_lock);                                                                    \
  }                                                                                                \
  G_STMT_END
#define MPI_UNLOCK()                                                                               \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (serialize)                                                                                 \
      g_mutex_unlock (&mpi_lock);                                                                  \
  }                                                                                                \
  G_STMT_END

static gboolean
mpi_failed (DlProcessGroup *self, int rc, const gchar *op, GError **error)
{
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;

  if (rc == MPI_SUCCESS)
    return FALSE;
  MPI_Error_string (rc, text, &len);
  g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "%s: MPI failed (rank %d of %d): %.*s", op,
               dl_process_group_get_rank (self), dl_process_group_get_size (self), len, text);
  return TRUE;
}

/* Polls @req until it completes, or until the group's timeout passes
 * (the request is then abandoned: the group is unusable after it);
 * @status (nullable) receives the request's status */
static gboolean
wait_request (DlProcessGroup *self,
              MPI_Request *req,
              const gchar *op,
              gint peer,
              MPI_Status *status,
              GError **error)
{
  gdouble timeout = dl_process_group_get_timeout (self);
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = timeout > 0 ? start + (gint64)(timeout * G_USEC_PER_SEC) : 0;

  for (guint64 polls = 0;; polls++)
    {
      int flag = 0, rc;
      gint64 now;

      MPI_LOCK ();
      rc = MPI_Test (req, &flag, status ? status : MPI_STATUS_IGNORE);
      MPI_UNLOCK ();
      if (mpi_failed (self, rc, op, error))
        return FALSE;
      if (flag)
        return TRUE;
      now = g_get_monotonic_time ();
      if (deadline && now > deadline)
        {
          if (peer >= 0)
            g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                         "%s: timed out after %g s waiting for rank %d in MPI (rank %d of %d)", op,
                         timeout, peer, dl_process_group_get_rank (self),
                         dl_process_group_get_size (self));
          else
            g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                         "%s: timed out after %g s in MPI (rank %d of %d): a rank died or did not "
                         "call %s",
                         op, timeout, dl_process_group_get_rank (self),
                         dl_process_group_get_size (self), op);
          return FALSE;
        }
      /* MPI progresses inside MPI_Test: poll hot for the first
       * milliseconds (a collective's latency), then back off */
      if (now - start > 2 * G_USEC_PER_SEC)
        g_usleep (1000);
      else if (now - start > 20000)
        g_usleep (20);
    }
}

/* Starts an operation with the lock held, then waits for it */
#define RUN(self, op, peer, call)                                                                  \
  G_STMT_START                                                                                     \
  {                                                                                                \
    MPI_Request req_;                                                                              \
    int rc_;                                                                                       \
    MPI_LOCK ();                                                                                   \
    rc_ = (call);                                                                                  \
    MPI_UNLOCK ();                                                                                 \
    if (mpi_failed ((self), rc_, (op), error))                                                     \
      return FALSE;                                                                                \
    return wait_request ((self), &req_, (op), (peer), NULL, error);                                \
  }                                                                                                \
  G_STMT_END

/* ---- the watchdog of blocking calls ---------------------------------------
 *
 * Each blocking call is a Guard in a list while it runs; a thread started
 * with the first one looks at the list once a second (no wake-up per
 * call) and ends the job when a call has outlived its deadline: a rank
 * died inside it (see the top of the file). It stops at exit. */
#define WATCHDOG_GRACE_US (10 * G_USEC_PER_SEC)

typedef struct
{
  const gchar *op;
  DlProcessGroup *group; /* the call's, alive while it runs */
  gint64 deadline;
} Guard;

static GMutex guard_lock;
static GCond watchdog_cond;
static GQueue guards = G_QUEUE_INIT;
static gboolean watchdog_stopping; /* under guard_lock */
static GThread *watchdog;
static gint exiting;

static gpointer
watchdog_main (gpointer data)
{
  g_mutex_lock (&guard_lock);
  while (!watchdog_stopping)
    {
      gint64 now = g_get_monotonic_time ();

      for (GList *l = guards.head; l != NULL; l = l->next)
        {
          Guard *g = l->data;

          if (now > g->deadline && !g_atomic_int_get (&exiting))
            {
              g_printerr ("%s: still inside MPI after %g s and %d s more (rank %d of %d): a "
                          "peer never completed the call (it died inside it or, with "
                          "DL_DISTRIBUTED_CHECK=0, called another collective), and MPI cannot "
                          "abandon it; the mpi engine ends the job\n",
                          g->op, dl_process_group_get_timeout (g->group),
                          (int)(WATCHDOG_GRACE_US / G_USEC_PER_SEC),
                          dl_process_group_get_rank (g->group),
                          dl_process_group_get_size (g->group));
              MPI_Abort (MPI_COMM_WORLD, 1);
              _exit (1);
            }
        }
      g_cond_wait_until (&watchdog_cond, &guard_lock, now + G_USEC_PER_SEC);
    }
  g_mutex_unlock (&guard_lock);
  return NULL;
}

/* At exit, before MPI_Finalize (atexit runs its functions in reverse) */
static void
watchdog_stop (void)
{
  g_atomic_int_set (&exiting, 1);
  g_mutex_lock (&guard_lock);
  watchdog_stopping = TRUE;
  g_cond_signal (&watchdog_cond);
  g_mutex_unlock (&guard_lock);
  g_thread_join (g_steal_pointer (&watchdog));
}

static void
guard_push (DlProcessGroup *self, GList *link, Guard *guard, const gchar *op)
{
  static gsize started;
  gdouble timeout = dl_process_group_get_timeout (self);

  guard->op = op;
  guard->group = self;
  guard->deadline = timeout > 0 ? g_get_monotonic_time () + (gint64)(timeout * G_USEC_PER_SEC)
                                      + WATCHDOG_GRACE_US
                                : G_MAXINT64;
  link->data = guard;
  link->prev = link->next = NULL;
  if (g_once_init_enter (&started))
    {
      watchdog = g_thread_new ("dl-mpi-watchdog", watchdog_main, NULL);
      atexit (watchdog_stop);
      g_once_init_leave (&started, 1);
    }
  g_atomic_int_inc (&in_blocking_call);
  g_mutex_lock (&guard_lock);
  g_queue_push_tail_link (&guards, link);
  g_mutex_unlock (&guard_lock);
}

static void
guard_pop (GList *link)
{
  g_mutex_lock (&guard_lock);
  g_queue_unlink (&guards, link);
  g_mutex_unlock (&guard_lock);
  g_atomic_int_add (&in_blocking_call, -1);
}

/* The second round before a blocking call: returns once every rank of the
 * group has entered it, or with the timeout's error (naming the other
 * rank of a group of two) */
static gboolean
arrive (DlProcessGroup *self, const gchar *op, GError **error)
{
  MPI_Request req;
  gint size = dl_process_group_get_size (self);
  int rc;

  if (size == 1)
    return TRUE;
  MPI_LOCK ();
  rc = MPI_Ibarrier (DL_MPI_PROCESS_GROUP (self)->comm, &req);
  MPI_UNLOCK ();
  if (mpi_failed (self, rc, op, error))
    return FALSE;
  return wait_request (self, &req, op, size == 2 ? 1 - dl_process_group_get_rank (self) : -1, NULL,
                       error);
}

/* A collective: MPI's blocking @call where threads may call MPI at once,
 * once every rank has arrived (see the top of the file), else the
 * nonblocking @icall, polled */
#define RUN_COLLECTIVE(self, op, call, icall)                                                      \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (!serialize)                                                                                \
      {                                                                                            \
        Guard guard_;                                                                              \
        GList link_;                                                                               \
        int rc_;                                                                                   \
        if (!arrive ((self), (op), error))                                                         \
          return FALSE;                                                                            \
        guard_push ((self), &link_, &guard_, (op));                                                \
        rc_ = (call);                                                                              \
        guard_pop (&link_);                                                                        \
        return !mpi_failed ((self), rc_, (op), error);                                             \
      }                                                                                            \
    RUN (self, op, -1, icall);                                                                     \
  }                                                                                                \
  G_STMT_END

static gboolean
fits_int (DlProcessGroup *self, gsize n, const gchar *op, GError **error)
{
  if (n <= G_MAXINT)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "%s: %" G_GSIZE_FORMAT " elements are more than one MPI call takes (%d) (rank %d)",
               op, n, G_MAXINT, dl_process_group_get_rank (self));
  return FALSE;
}

static gboolean
mpi_type (DlProcessGroup *self,
          DlDType dtype,
          DlReduceOpKind op,
          MPI_Datatype *type,
          MPI_Op *mpi_op,
          const gchar *name,
          GError **error)
{
  gint k = op == DL_REDUCE_OP_KIND_SUM       ? 0
           : op == DL_REDUCE_OP_KIND_PRODUCT ? 1
           : op == DL_REDUCE_OP_KIND_MIN     ? 2
           : op == DL_REDUCE_OP_KIND_MAX     ? 3
                                             : -1;

  if (k < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: the MPI engine has no %s reduction",
                   name, dl_reduce_op_kind_name (op));
      return FALSE;
    }
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        *type = MPI_FLOAT;
        break;
      case DL_DTYPE_FLOAT64:
        *type = MPI_DOUBLE;
        break;
      case DL_DTYPE_INT32:
        *type = MPI_INT32_T;
        break;
      case DL_DTYPE_INT64:
        *type = MPI_INT64_T;
        break;
      case DL_DTYPE_UINT8:
        *type = MPI_UINT8_T;
        break;
      case DL_DTYPE_FLOAT16:
        *type = half_type;
        *mpi_op = half_ops[k];
        return TRUE;
      case DL_DTYPE_BFLOAT16:
        *type = bf16_type;
        *mpi_op = bf16_ops[k];
        return TRUE;
      default:
        g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: the MPI engine cannot reduce %s tensors",
                     name, dl_dtype_get_name (dtype));
        return FALSE;
    }
  *mpi_op = k == 0 ? MPI_SUM : k == 1 ? MPI_PROD : k == 2 ? MPI_MIN : MPI_MAX;
  return TRUE;
}

static MPI_Comm
comm_of (DlProcessGroup *self)
{
  return DL_MPI_PROCESS_GROUP (self)->comm;
}

static gboolean
mpi_all_reduce (DlProcessGroup *self,
                gpointer buf,
                gsize count,
                DlDType dtype,
                DlReduceOpKind op,
                GError **error)
{
  MPI_Datatype type;
  MPI_Op mpi_op;

  if (!mpi_type (self, dtype, op, &type, &mpi_op, "all_reduce", error)
      || !fits_int (self, count, "all_reduce", error))
    return FALSE;
  RUN_COLLECTIVE (
      self, "all_reduce",
      MPI_Allreduce (MPI_IN_PLACE, buf, (int)count, type, mpi_op, comm_of (self)),
      MPI_Iallreduce (MPI_IN_PLACE, buf, (int)count, type, mpi_op, comm_of (self), &req_));
}

static gboolean
mpi_broadcast (DlProcessGroup *self, gpointer buf, gsize nbytes, gint root, GError **error)
{
  if (!fits_int (self, nbytes, "broadcast", error))
    return FALSE;
  RUN_COLLECTIVE (self, "broadcast", MPI_Bcast (buf, (int)nbytes, MPI_BYTE, root, comm_of (self)),
                  MPI_Ibcast (buf, (int)nbytes, MPI_BYTE, root, comm_of (self), &req_));
}

static gboolean
mpi_reduce (DlProcessGroup *self,
            gpointer buf,
            gsize count,
            DlDType dtype,
            DlReduceOpKind op,
            gint root,
            GError **error)
{
  MPI_Datatype type;
  MPI_Op mpi_op;
  gboolean is_root = root == dl_process_group_get_rank (self);

  if (!mpi_type (self, dtype, op, &type, &mpi_op, "reduce", error)
      || !fits_int (self, count, "reduce", error))
    return FALSE;
  RUN_COLLECTIVE (self, "reduce",
                  MPI_Reduce (is_root ? MPI_IN_PLACE : buf, is_root ? buf : NULL, (int)count, type,
                              mpi_op, root, comm_of (self)),
                  MPI_Ireduce (is_root ? MPI_IN_PLACE : buf, is_root ? buf : NULL, (int)count, type,
                               mpi_op, root, comm_of (self), &req_));
}

#define POLLED_ALL_GATHER_BYTES 4096

static gboolean
mpi_all_gather (DlProcessGroup *self,
                gconstpointer send,
                gpointer recv,
                gsize nbytes,
                GError **error)
{
  if (!fits_int (self, nbytes, "all_gather", error))
    return FALSE;
  /* small ones (the base's exchange of arguments, the first of the two
   * rounds before a blocking call) polled: they time out by themselves,
   * and Open MPI's schedule costs no more than the blocking call there */
  if (nbytes <= POLLED_ALL_GATHER_BYTES)
    RUN (self, "all_gather", -1,
         MPI_Iallgather (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, comm_of (self),
                         &req_));
  RUN_COLLECTIVE (
      self, "all_gather",
      MPI_Allgather (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, comm_of (self)),
      MPI_Iallgather (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, comm_of (self),
                      &req_));
}

static gboolean
mpi_gather (DlProcessGroup *self,
            gconstpointer send,
            gpointer recv,
            gsize nbytes,
            gint root,
            GError **error)
{
  if (!fits_int (self, nbytes, "gather", error))
    return FALSE;
  RUN_COLLECTIVE (
      self, "gather",
      MPI_Gather (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, root, comm_of (self)),
      MPI_Igather (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, root, comm_of (self),
                   &req_));
}

static gboolean
mpi_scatter (DlProcessGroup *self,
             gconstpointer send,
             gpointer recv,
             gsize nbytes,
             gint root,
             GError **error)
{
  if (!fits_int (self, nbytes, "scatter", error))
    return FALSE;
  RUN_COLLECTIVE (
      self, "scatter",
      MPI_Scatter (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, root, comm_of (self)),
      MPI_Iscatter (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, root, comm_of (self),
                    &req_));
}

static gboolean
mpi_reduce_scatter (DlProcessGroup *self,
                    gconstpointer send,
                    gpointer recv,
                    gsize count,
                    DlDType dtype,
                    DlReduceOpKind op,
                    GError **error)
{
  MPI_Datatype type;
  MPI_Op mpi_op;

  if (!mpi_type (self, dtype, op, &type, &mpi_op, "reduce_scatter", error)
      || !fits_int (self, count, "reduce_scatter", error))
    return FALSE;
  RUN_COLLECTIVE (
      self, "reduce_scatter",
      MPI_Reduce_scatter_block (send, recv, (int)count, type, mpi_op, comm_of (self)),
      MPI_Ireduce_scatter_block (send, recv, (int)count, type, mpi_op, comm_of (self), &req_));
}

static gboolean
mpi_all_to_all (DlProcessGroup *self,
                gconstpointer send,
                gpointer recv,
                gsize nbytes,
                GError **error)
{
  if (!fits_int (self, nbytes, "all_to_all", error))
    return FALSE;
  RUN_COLLECTIVE (
      self, "all_to_all",
      MPI_Alltoall (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, comm_of (self)),
      MPI_Ialltoall (send, (int)nbytes, MPI_BYTE, recv, (int)nbytes, MPI_BYTE, comm_of (self),
                     &req_));
}

static gboolean
mpi_send (DlProcessGroup *self, gconstpointer buf, gsize nbytes, gint dst, gint tag, GError **error)
{
  if (!fits_int (self, nbytes, "send", error))
    return FALSE;
  RUN (self, "send", dst, MPI_Isend (buf, (int)nbytes, MPI_BYTE, dst, tag, comm_of (self), &req_));
}

static gboolean
mpi_recv (DlProcessGroup *self, gpointer buf, gsize nbytes, gint src, gint tag, GError **error)
{
  if (!fits_int (self, nbytes, "recv", error))
    return FALSE;
  RUN (self, "recv", src, MPI_Irecv (buf, (int)nbytes, MPI_BYTE, src, tag, comm_of (self), &req_));
}

static gboolean
mpi_recv_any (DlProcessGroup *self, gpointer buf, gsize nbytes, gint *src, gint tag, GError **error)
{
  MPI_Request req;
  MPI_Status status;
  int rc;

  if (!fits_int (self, nbytes, "recv", error))
    return FALSE;
  MPI_LOCK ();
  rc = MPI_Irecv (buf, (int)nbytes, MPI_BYTE, MPI_ANY_SOURCE, tag, comm_of (self), &req);
  MPI_UNLOCK ();
  if (mpi_failed (self, rc, "recv", error)
      || !wait_request (self, &req, "recv", -1, &status, error))
    return FALSE;
  *src = status.MPI_SOURCE;
  return TRUE;
}

static gboolean
mpi_barrier (DlProcessGroup *self, GError **error)
{
  /* polled always: a blocking barrier would need a polled one first */
  return arrive (self, "barrier", error);
}

static DlProcessGroup *
wrap_comm (MPI_Comm comm, gdouble timeout)
{
  DlMpiProcessGroup *group;
  int rank, size;

  MPI_Comm_rank (comm, &rank);
  MPI_Comm_size (comm, &size);
  group = g_object_new (DL_TYPE_MPI_PROCESS_GROUP, "rank", rank, "size", size, "timeout", timeout,
                        "backend-name", "mpi", NULL);
  group->comm = comm;
  return DL_PROCESS_GROUP (group);
}

static DlProcessGroup *
mpi_new_group (DlProcessGroup *self, const gint *ranks, gint n_ranks, GError **error)
{
  gint me = dl_process_group_get_rank (self), key = -1;
  MPI_Comm comm = MPI_COMM_NULL;
  Guard guard;
  GList link;
  int rc;

  for (gint i = 0; i < n_ranks; i++)
    if (ranks[i] == me)
      key = i;
  /* collective over this group: the members get the new communicator,
   * ordered by their place in @ranks, the others MPI_COMM_NULL; blocking,
   * so once every rank has arrived */
  if (!arrive (self, "new_group", error))
    return NULL;
  guard_push (self, &link, &guard, "new_group");
  MPI_LOCK ();
  rc = MPI_Comm_split (comm_of (self), key >= 0 ? 0 : MPI_UNDEFINED, key >= 0 ? key : 0, &comm);
  if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL)
    MPI_Comm_set_errhandler (comm, MPI_ERRORS_RETURN);
  MPI_UNLOCK ();
  guard_pop (&link);
  if (mpi_failed (self, rc, "new_group", error) || comm == MPI_COMM_NULL)
    return NULL;
  return wrap_comm (comm, dl_process_group_get_timeout (self));
}

static void
dl_mpi_process_group_finalize (GObject *object)
{
  DlMpiProcessGroup *self = DL_MPI_PROCESS_GROUP (object);
  int finalized = 0;

  MPI_Finalized (&finalized);
  if (self->comm != MPI_COMM_NULL && !finalized)
    {
      MPI_LOCK ();
      MPI_Comm_free (&self->comm);
      MPI_UNLOCK ();
    }
  G_OBJECT_CLASS (dl_mpi_process_group_parent_class)->finalize (object);
}

static void
dl_mpi_process_group_class_init (DlMpiProcessGroupClass *klass)
{
  DlProcessGroupClass *pg_class = DL_PROCESS_GROUP_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = dl_mpi_process_group_finalize;
  pg_class->all_reduce = mpi_all_reduce;
  pg_class->broadcast = mpi_broadcast;
  pg_class->reduce = mpi_reduce;
  pg_class->all_gather = mpi_all_gather;
  pg_class->gather = mpi_gather;
  pg_class->scatter = mpi_scatter;
  pg_class->reduce_scatter = mpi_reduce_scatter;
  pg_class->all_to_all = mpi_all_to_all;
  pg_class->send = mpi_send;
  pg_class->recv = mpi_recv;
  pg_class->recv_any = mpi_recv_any;
  pg_class->barrier = mpi_barrier;
  pg_class->new_group = mpi_new_group;
  pg_class->slots_time_out = TRUE;
}

static void
dl_mpi_process_group_init (DlMpiProcessGroup *self)
{
  self->comm = MPI_COMM_NULL;
}

/* ---- float16 and bfloat16 reductions ------------------------------------ */

#define USER_OP(name, dtype, op)                                                                   \
  static void name (void *in, void *inout, int *len, MPI_Datatype *type)                           \
  {                                                                                                \
    dl_reduce_host ((dtype), (op), inout, in, (gsize)*len);                                        \
  }
USER_OP (half_sum, DL_DTYPE_FLOAT16, DL_REDUCE_OP_KIND_SUM)
USER_OP (half_prod, DL_DTYPE_FLOAT16, DL_REDUCE_OP_KIND_PRODUCT)
USER_OP (half_min, DL_DTYPE_FLOAT16, DL_REDUCE_OP_KIND_MIN)
USER_OP (half_max, DL_DTYPE_FLOAT16, DL_REDUCE_OP_KIND_MAX)
USER_OP (bf16_sum, DL_DTYPE_BFLOAT16, DL_REDUCE_OP_KIND_SUM)
USER_OP (bf16_prod, DL_DTYPE_BFLOAT16, DL_REDUCE_OP_KIND_PRODUCT)
USER_OP (bf16_min, DL_DTYPE_BFLOAT16, DL_REDUCE_OP_KIND_MIN)
USER_OP (bf16_max, DL_DTYPE_BFLOAT16, DL_REDUCE_OP_KIND_MAX)

static void
make_user_types (void)
{
  MPI_User_function *half_fns[4] = { half_sum, half_prod, half_min, half_max };
  MPI_User_function *bf16_fns[4] = { bf16_sum, bf16_prod, bf16_min, bf16_max };

  MPI_Type_contiguous (2, MPI_BYTE, &half_type);
  MPI_Type_commit (&half_type);
  MPI_Type_contiguous (2, MPI_BYTE, &bf16_type);
  MPI_Type_commit (&bf16_type);
  for (gint k = 0; k < 4; k++)
    {
      MPI_Op_create (half_fns[k], 1, &half_ops[k]);
      MPI_Op_create (bf16_fns[k], 1, &bf16_ops[k]);
    }
}

/* ---- the factory --------------------------------------------------------- */

static void
finalize_at_exit (void)
{
  int finalized = 0;

  gint64 end = g_get_monotonic_time () + EXIT_GRACE_US;

  g_atomic_int_set (&exiting, 1);

  while (g_atomic_int_get (&in_blocking_call) > 0 && g_get_monotonic_time () < end)
    g_usleep (10000);
  MPI_Finalized (&finalized);
  if (!finalized && g_atomic_int_get (&in_blocking_call) == 0)
    MPI_Finalize ();
}

/* An integer from the environment, or -1 */
static gint
env_int (const gchar *name)
{
  const gchar *value = g_getenv (name);
  gint64 v;

  if (value == NULL || !g_ascii_string_to_signed (value, 10, 0, G_MAXINT, &v, NULL))
    return -1;
  return (gint)v;
}

static DlProcessGroup *
mpi_factory (const gchar *init_method, gint rank, gint world_size, gdouble timeout, GError **error)
{
  static GMutex init_lock;
  MPI_Comm comm;
  int mpi_rank, mpi_size, initialized = 0, finalized = 0, rc;
  gint want_rank = rank >= 0 ? rank : env_int ("RANK");
  gint want_size = world_size > 0 ? world_size : env_int ("WORLD_SIZE");

  g_mutex_lock (&init_lock);
  MPI_Finalized (&finalized);
  if (finalized)
    {
      g_mutex_unlock (&init_lock);
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "init_process_group: MPI was finalized already; it cannot start again");
      return NULL;
    }
  MPI_Initialized (&initialized);
  if (!initialized)
    {
      int provided = MPI_THREAD_SINGLE;

      rc = MPI_Init_thread (NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
      if (rc != MPI_SUCCESS)
        {
          g_mutex_unlock (&init_lock);
          g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                       "init_process_group: MPI_Init_thread failed (error %d)", rc);
          return NULL;
        }
      if (provided < MPI_THREAD_SERIALIZED)
        {
          g_mutex_unlock (&init_lock);
          g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                       "init_process_group: this MPI gives thread level %d; the mpi engine "
                       "needs MPI_THREAD_SERIALIZED at least",
                       provided);
          return NULL;
        }
      serialize = provided < MPI_THREAD_MULTIPLE;
      we_initialized = TRUE;
      atexit (finalize_at_exit);
      MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      make_user_types ();
    }
  else if (half_type == 0)
    {
      int provided = MPI_THREAD_SINGLE;

      /* initialized by someone else (mpi4py): take what they chose */
      MPI_Query_thread (&provided);
      serialize = provided < MPI_THREAD_MULTIPLE;
      make_user_types ();
    }
  g_mutex_unlock (&init_lock);

  MPI_LOCK ();
  MPI_Comm_rank (MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size (MPI_COMM_WORLD, &mpi_size);
  MPI_UNLOCK ();
  if ((want_size > 0 && want_size != mpi_size) || (want_rank >= 0 && want_rank != mpi_rank))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: the mpi backend takes its ranks from MPI, which says rank "
                   "%d of %d, but rank %d of %d was asked for (from the arguments or RANK and "
                   "WORLD_SIZE); launch with mpirun -np N",
                   mpi_rank, mpi_size, want_rank, want_size);
      return NULL;
    }
  MPI_LOCK ();
  rc = MPI_Comm_dup (MPI_COMM_WORLD, &comm);
  if (rc == MPI_SUCCESS)
    MPI_Comm_set_errhandler (comm, MPI_ERRORS_RETURN);
  MPI_UNLOCK ();
  if (rc != MPI_SUCCESS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "init_process_group: MPI_Comm_dup failed (error %d)", rc);
      return NULL;
    }
  return wrap_comm (comm, timeout);
}

/* The module's entry point (see dl-distributed-private.h) */
G_MODULE_EXPORT DlProcessGroupFactory dl_mpi_module_init (void);

DlProcessGroupFactory
dl_mpi_module_init (void)
{
  return mpi_factory;
}

/* dl-nccl-process-group.c: the NCCL engine, a DlProcessGroup over an NCCL
 * communicator on one GPU per process, built as the module
 * libdl-nccl-1.0.so.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NOTE: written and built on a machine without a GPU: only the host-side
 * plan (dl-nccl-plan.h) and the failure without a device have run; the
 * GPU tests (tests/distributed/test-nccl.c) skip there.
 *
 * One process per GPU, as torch runs NCCL: the device is LOCAL_RANK's
 * (the launcher's), else the rank modulo the number of devices. The
 * ranks meet in the rendezvous store the Gloo engine uses too
 * (store/dl-store.h: env://, tcp://HOST:PORT, file://DIR), where rank 0
 * puts NCCL's unique id for the others; ncclCommInitRank then joins them.
 *
 * The group's class says its buffers live on the GPU
 * (DlProcessGroupClass.device_type): the base hands the slots device
 * pointers, on one thread, and each slot only queues NCCL's kernels on
 * the group's own stream (made with dl_stream_new(), a stream of the
 * CUDA module), which the base orders after the caller's current stream
 * with an event; the base records an event after the slot, on which the
 * work's wait makes the waiting stream wait.
 *
 * The exchange of arguments before each collective (the base compares
 * them, so that ranks that disagree fail instead of hanging) is an
 * ncclAllGather of one small frame per rank on the group's stream, which
 * the host waits for: see exchange() below for why there rather than
 * through the store. It is where a dead or stuck peer shows up: the wait
 * polls ncclCommGetAsyncError and gives up after the group's timeout
 * with ncclCommAbort, after which the group refuses every operation.
 */
#include "config.h"

#include <cuda_runtime_api.h>
#include <gmodule.h>
#include <nccl.h>
#include <string.h>

#include "dl-device.h"
#include "dl-error.h"
#include "dl-stream.h"
#include "distributed/dl-distributed.h"
#include "distributed/dl-distributed-private.h"
#include "distributed/dl-process-group.h"
#include "distributed/nccl/dl-nccl-plan.h"
#include "distributed/store/dl-store.h"

#define DL_TYPE_NCCL_PROCESS_GROUP (dl_nccl_process_group_get_type ())
G_DECLARE_FINAL_TYPE (DlNcclProcessGroup,
                      dl_nccl_process_group,
                      DL,
                      NCCL_PROCESS_GROUP,
                      DlProcessGroup)

struct _DlNcclProcessGroup
{
  DlProcessGroup parent_instance;
  ncclComm_t comm;  /* (owned) (nullable): NULL once aborted */
  gint cuda_index;  /* the GPU */
  DlStream *stream; /* (owned): the group's communication stream */
  guint8 *scratch;  /* (owned) (nullable): device memory of the exchange */
  gsize scratch_bytes;
  guint8 *host; /* (owned) (nullable): its host copy */
};

G_DEFINE_FINAL_TYPE (DlNcclProcessGroup, dl_nccl_process_group, DL_TYPE_PROCESS_GROUP)

static cudaStream_t
stream_of (DlNcclProcessGroup *self)
{
  return (cudaStream_t)(guintptr)dl_stream_get_native_handle (self->stream);
}

static gboolean
nccl_failed (DlNcclProcessGroup *self, ncclResult_t rc, const gchar *op, GError **error)
{
  DlProcessGroup *pg = DL_PROCESS_GROUP (self);
  const gchar *last = self->comm ? ncclGetLastError (self->comm) : NULL;

  if (rc == ncclSuccess)
    return FALSE;
  g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "%s: NCCL failed (rank %d of %d, cuda:%d): %s%s%s",
               op, dl_process_group_get_rank (pg), dl_process_group_get_size (pg), self->cuda_index,
               ncclGetErrorString (rc), last && *last ? ": " : "", last ? last : "");
  return TRUE;
}

static gboolean
cuda_failed (DlNcclProcessGroup *self, cudaError_t rc, const gchar *op, GError **error)
{
  if (rc == cudaSuccess)
    return FALSE;
  g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "%s: CUDA failed (rank %d, cuda:%d): %s", op,
               dl_process_group_get_rank (DL_PROCESS_GROUP (self)), self->cuda_index,
               cudaGetErrorString (rc));
  return TRUE;
}

/* The communicator, or an error once it was aborted; makes the group's
 * GPU the calling thread's current device (NCCL's calls and the copies
 * here use it) */
static ncclComm_t
comm_of (DlNcclProcessGroup *self, const gchar *op, GError **error)
{
  if (self->comm == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "%s: the NCCL communicator of rank %d was aborted after an earlier failure "
                   "or timeout; make a new group",
                   op, dl_process_group_get_rank (DL_PROCESS_GROUP (self)));
      return NULL;
    }
  if (cuda_failed (self, cudaSetDevice (self->cuda_index), op, error))
    return NULL;
  return self->comm;
}

/* Waits on the host for the group's stream, watching NCCL's asynchronous
 * errors; after the group's timeout (or such an error) the communicator
 * is aborted, which ends its kernels, and the group fails from then on */
static gboolean
wait_stream (DlNcclProcessGroup *self, const gchar *op, GError **error)
{
  gdouble timeout = dl_process_group_get_timeout (DL_PROCESS_GROUP (self));
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = timeout > 0 ? start + (gint64)(timeout * G_USEC_PER_SEC) : 0;

  for (;;)
    {
      cudaError_t rc = cudaStreamQuery (stream_of (self));
      ncclResult_t async = ncclSuccess;
      gint64 now;

      if (rc == cudaSuccess)
        return TRUE;
      if (rc != cudaErrorNotReady)
        return !cuda_failed (self, rc, op, error);
      ncclCommGetAsyncError (self->comm, &async);
      now = g_get_monotonic_time ();
      if (async != ncclSuccess && async != ncclInProgress)
        nccl_failed (self, async, op, error);
      else if (deadline && now > deadline)
        g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                     "%s: timed out after %g s in NCCL (rank %d of %d): a rank died or did not "
                     "call %s; the communicator was aborted",
                     op, timeout, dl_process_group_get_rank (DL_PROCESS_GROUP (self)),
                     dl_process_group_get_size (DL_PROCESS_GROUP (self)), op);
      else
        {
          g_usleep (now - start > 20000 ? 1000 : 20);
          continue;
        }
      /* ends the communicator's kernels still waiting on the GPU */
      ncclCommAbort (self->comm);
      self->comm = NULL;
      return FALSE;
    }
}

/* The communicator of a reducing slot, with NCCL's type for @dtype and
 * reduction for @op; NULL with @error set */
static ncclComm_t
reduction_comm (DlNcclProcessGroup *self,
                DlDType dtype,
                DlReduceOpKind op,
                ncclDataType_t *type,
                ncclRedOp_t *red,
                const gchar *name,
                GError **error)
{
  if (!dl_nccl_plan_dtype (dtype, type))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: NCCL has no type for %s tensors", name,
                   dl_dtype_get_name (dtype));
      return NULL;
    }
  if (!dl_nccl_plan_op (op, red))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: this NCCL has no %s reduction", name,
                   dl_reduce_op_kind_name (op));
      return NULL;
    }
  return comm_of (self, name, error);
}

/* A slot that queues one NCCL @call on the group's stream, with @comm
 * (and, for REDUCING, @type and @red) in scope */
#define ENQUEUE(pg, name, call)                                                                    \
  G_STMT_START                                                                                     \
  {                                                                                                \
    DlNcclProcessGroup *self = DL_NCCL_PROCESS_GROUP (pg);                                         \
    ncclComm_t comm = comm_of (self, (name), error);                                               \
    return comm && !nccl_failed (self, (call), (name), error);                                     \
  }                                                                                                \
  G_STMT_END
#define REDUCING(pg, name, call)                                                                   \
  G_STMT_START                                                                                     \
  {                                                                                                \
    DlNcclProcessGroup *self = DL_NCCL_PROCESS_GROUP (pg);                                         \
    ncclDataType_t type;                                                                           \
    ncclRedOp_t red;                                                                               \
    ncclComm_t comm = reduction_comm (self, dtype, op, &type, &red, (name), error);                \
    return comm && !nccl_failed (self, (call), (name), error);                                     \
  }                                                                                                \
  G_STMT_END

static gboolean
nccl_all_reduce (DlProcessGroup *pg,
                 gpointer buf,
                 gsize count,
                 DlDType dtype,
                 DlReduceOpKind op,
                 GError **error)
{
  REDUCING (pg, "all_reduce", ncclAllReduce (buf, buf, count, type, red, comm, stream_of (self)));
}

static gboolean
nccl_broadcast (DlProcessGroup *pg, gpointer buf, gsize nbytes, gint root, GError **error)
{
  ENQUEUE (pg, "broadcast",
           ncclBroadcast (buf, buf, nbytes, ncclUint8, root, comm, stream_of (self)));
}

static gboolean
nccl_reduce (DlProcessGroup *pg,
             gpointer buf,
             gsize count,
             DlDType dtype,
             DlReduceOpKind op,
             gint root,
             GError **error)
{
  /* in place: the result lands in @buf on the root only */
  REDUCING (pg, "reduce", ncclReduce (buf, buf, count, type, red, root, comm, stream_of (self)));
}

static gboolean
nccl_all_gather (DlProcessGroup *pg,
                 gconstpointer send,
                 gpointer recv,
                 gsize nbytes,
                 GError **error)
{
  ENQUEUE (pg, "all_gather", ncclAllGather (send, recv, nbytes, ncclUint8, comm, stream_of (self)));
}

static gboolean
nccl_reduce_scatter (DlProcessGroup *pg,
                     gconstpointer send,
                     gpointer recv,
                     gsize count,
                     DlDType dtype,
                     DlReduceOpKind op,
                     GError **error)
{
  REDUCING (pg, "reduce_scatter",
            ncclReduceScatter (send, recv, count, type, red, comm, stream_of (self)));
}

/* The grouped exchange of parts (DlProcessGroupClass.exchange_parts):
 * ncclSend and ncclRecv between ncclGroupStart and ncclGroupEnd, in the
 * plan's order, the part to itself a copy on the stream. It runs gather,
 * scatter, all_to_all and the list forms: errors name it as OP. */
#define OP "grouped send/recv (gather, scatter, all_to_all)"
static gboolean
nccl_exchange_parts (DlProcessGroup *pg,
                     const gconstpointer *sends,
                     const gsize *send_bytes,
                     gpointer const *recvs,
                     const gsize *recv_bytes,
                     GError **error)
{
  DlNcclProcessGroup *self = DL_NCCL_PROCESS_GROUP (pg);
  gint rank = dl_process_group_get_rank (pg), size = dl_process_group_get_size (pg);
  g_autofree DlNcclStep *steps = g_new (DlNcclStep, 2 * size);
  ncclComm_t comm = comm_of (self, OP, error);
  ncclResult_t rc = ncclSuccess, end;
  gint n;

  if (comm == NULL)
    return FALSE;
  n = dl_nccl_plan_parts (rank, size, send_bytes, recv_bytes, steps);
  if (n < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   OP ": rank %d sends itself %" G_GSIZE_FORMAT
                      " bytes but expects %" G_GSIZE_FORMAT,
                   rank, send_bytes[rank], recv_bytes[rank]);
      return FALSE;
    }
  if (nccl_failed (self, ncclGroupStart (), OP, error))
    return FALSE;
  for (gint i = 0; i < n && rc == ncclSuccess; i++)
    {
      gint peer = steps[i].peer;

      if (peer == rank)
        {
          cudaError_t crc = cudaMemcpyAsync (recvs[rank], sends[rank], steps[i].send_bytes,
                                             cudaMemcpyDeviceToDevice, stream_of (self));

          if (crc != cudaSuccess)
            {
              ncclGroupEnd ();
              return !cuda_failed (self, crc, OP, error);
            }
          continue;
        }
      if (steps[i].send_bytes)
        rc = ncclSend (sends[peer], steps[i].send_bytes, ncclUint8, peer, comm, stream_of (self));
      if (rc == ncclSuccess && steps[i].recv_bytes)
        rc = ncclRecv (recvs[peer], steps[i].recv_bytes, ncclUint8, peer, comm, stream_of (self));
    }
  end = ncclGroupEnd ();
  return !nccl_failed (self, rc != ncclSuccess ? rc : end, OP, error);
}

#undef OP

static gboolean
nccl_send (DlProcessGroup *pg, gconstpointer buf, gsize nbytes, gint dst, gint tag, GError **error)
{
  /* NCCL has no tags: the messages between two ranks match in order */
  ENQUEUE (pg, "send", ncclSend (buf, nbytes, ncclUint8, dst, comm, stream_of (self)));
}

static gboolean
nccl_recv (DlProcessGroup *pg, gpointer buf, gsize nbytes, gint src, gint tag, GError **error)
{
  ENQUEUE (pg, "recv", ncclRecv (buf, nbytes, ncclUint8, src, comm, stream_of (self)));
}

/* Device scratch for the exchange: @n bytes at least */
static gboolean
ensure_scratch (DlNcclProcessGroup *self, gsize n, GError **error)
{
  if (self->scratch_bytes >= n)
    return TRUE;
  if (self->scratch)
    cudaFree (self->scratch);
  self->scratch = NULL;
  self->scratch_bytes = 0;
  g_free (self->host);
  self->host = g_malloc (n);
  if (cuda_failed (self, cudaMalloc ((void **)&self->scratch, n), "exchange", error))
    return FALSE;
  self->scratch_bytes = n;
  return TRUE;
}

/* The exchange of arguments (DlProcessGroupClass.exchange): an
 * ncclAllGather of one frame per rank (dl_nccl_plan_frame_bytes()) on the
 * group's stream, waited for on the host with the group's timeout. It
 * goes through NCCL rather than the rendezvous store because the store is
 * one TCP server on rank 0, a round trip through it per rank and per
 * collective, while the gather is one NCCL call over the links the
 * collective itself uses (NVLink, InfiniBand), in order with the other
 * operations on the stream; and a dead peer shows up here, before the
 * data's kernels are queued, where the host can still abort. The data of
 * a device group never travels with it (exchange_data_max is 0). */
static gboolean
nccl_exchange (DlProcessGroup *pg,
               gconstpointer meta,
               gsize meta_bytes,
               gconstpointer data,
               gsize data_bytes,
               gpointer metas,
               gconstpointer *datas,
               GError **error)
{
  DlNcclProcessGroup *self = DL_NCCL_PROCESS_GROUP (pg);
  gint size = dl_process_group_get_size (pg);
  gsize frame = dl_nccl_plan_frame_bytes (meta_bytes);
  ncclComm_t comm = comm_of (self, "exchange", error);

  if (comm == NULL || !ensure_scratch (self, dl_nccl_plan_scratch_bytes (meta_bytes, size), error))
    return FALSE;
  memset (self->host, 0, frame);
  memcpy (self->host, meta, meta_bytes);
  if (cuda_failed (self,
                   cudaMemcpyAsync (self->scratch, self->host, frame, cudaMemcpyHostToDevice,
                                    stream_of (self)),
                   "exchange", error)
      || nccl_failed (self,
                      ncclAllGather (self->scratch, self->scratch + frame, frame, ncclUint8, comm,
                                     stream_of (self)),
                      "exchange", error)
      || cuda_failed (self,
                      cudaMemcpyAsync (self->host, self->scratch + frame, frame * size,
                                       cudaMemcpyDeviceToHost, stream_of (self)),
                      "exchange", error)
      || !wait_stream (self, "exchange", error))
    return FALSE;
  for (gint r = 0; r < size; r++)
    {
      memcpy ((guint8 *)metas + (gsize)r * meta_bytes, self->host + (gsize)r * frame, meta_bytes);
      datas[r] = NULL;
    }
  return TRUE;
}

static gboolean
nccl_barrier (DlProcessGroup *pg, GError **error)
{
  DlNcclProcessGroup *self = DL_NCCL_PROCESS_GROUP (pg);
  ncclComm_t comm = comm_of (self, "barrier", error);

  /* one byte all-reduced, waited for on the host */
  return comm && ensure_scratch (self, 16, error)
         && !nccl_failed (self,
                          ncclAllReduce (self->scratch, self->scratch, 1, ncclUint8, ncclMax, comm,
                                         stream_of (self)),
                          "barrier", error)
         && wait_stream (self, "barrier", error);
}

static DlStream *
nccl_communication_stream (DlProcessGroup *pg)
{
  return DL_NCCL_PROCESS_GROUP (pg)->stream;
}

static DlProcessGroup *
wrap_comm (ncclComm_t comm, gint cuda_index, DlStream *stream, gdouble timeout)
{
  DlNcclProcessGroup *group;
  int rank = 0, size = 1;

  ncclCommUserRank (comm, &rank);
  ncclCommCount (comm, &size);
  group = g_object_new (DL_TYPE_NCCL_PROCESS_GROUP, "rank", rank, "size", size, "timeout", timeout,
                        "backend-name", "nccl", NULL);
  group->comm = comm;
  group->cuda_index = cuda_index;
  group->stream = g_object_ref (stream);
  return DL_PROCESS_GROUP (group);
}

static DlProcessGroup *
nccl_new_group (DlProcessGroup *pg, const gint *ranks, gint n_ranks, GError **error)
{
  DlNcclProcessGroup *self = DL_NCCL_PROCESS_GROUP (pg);
  gint me = dl_process_group_get_rank (pg), key = -1;
  ncclComm_t comm = comm_of (self, "new_group", error), child = NULL;
  g_autoptr (DlStream) stream = NULL;

  if (comm == NULL)
    return NULL;
  for (gint i = 0; i < n_ranks; i++)
    if (ranks[i] == me)
      key = i;
  /* collective over this group: the members get a communicator, ranked
   * by their place in @ranks; the others none */
  if (nccl_failed (
          self, ncclCommSplit (comm, key >= 0 ? 0 : NCCL_SPLIT_NOCOLOR, MAX (key, 0), &child, NULL),
          "new_group", error)
      || child == NULL)
    return NULL;
  /* a stream of its own: the subgroup's operations are queued from its
   * own thread, and must not wait behind the parent's */
  stream = dl_stream_new (dl_stream_get_device (self->stream), 0, error);
  if (stream == NULL)
    {
      ncclCommDestroy (child);
      return NULL;
    }
  return wrap_comm (child, self->cuda_index, stream, dl_process_group_get_timeout (pg));
}

static void
dl_nccl_process_group_finalize (GObject *object)
{
  DlNcclProcessGroup *self = DL_NCCL_PROCESS_GROUP (object);

  if (self->comm)
    {
      int previous = 0;

      /* after the work queued on the stream; the calling thread keeps its
       * current device */
      cudaGetDevice (&previous);
      cudaSetDevice (self->cuda_index);
      cudaStreamSynchronize (stream_of (self));
      ncclCommDestroy (self->comm);
      cudaSetDevice (previous);
    }
  if (self->scratch)
    cudaFree (self->scratch);
  g_free (self->host);
  g_clear_object (&self->stream);
  G_OBJECT_CLASS (dl_nccl_process_group_parent_class)->finalize (object);
}

static void
dl_nccl_process_group_class_init (DlNcclProcessGroupClass *klass)
{
  DlProcessGroupClass *pg_class = DL_PROCESS_GROUP_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = dl_nccl_process_group_finalize;
  pg_class->device_type = DL_DEVICE_TYPE_CUDA;
  pg_class->communication_stream = nccl_communication_stream;
  pg_class->exchange = nccl_exchange;
  pg_class->exchange_data_max = 0;
  pg_class->exchange_parts = nccl_exchange_parts;
  pg_class->all_reduce = nccl_all_reduce;
  pg_class->broadcast = nccl_broadcast;
  pg_class->reduce = nccl_reduce;
  pg_class->all_gather = nccl_all_gather;
  pg_class->reduce_scatter = nccl_reduce_scatter;
  /* gather, scatter, all_to_all and the list forms run on exchange_parts */
  pg_class->send = nccl_send;
  pg_class->recv = nccl_recv;
  pg_class->barrier = nccl_barrier;
  pg_class->new_group = nccl_new_group;
}

static void
dl_nccl_process_group_init (DlNcclProcessGroup *self)
{
}

/* ---- the factory --------------------------------------------------------- */

/* Why no GPU can be used: the CUDA module's own error when it cannot load,
 * else that there is no device */
static gchar *
why_no_device (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) device = dl_device_get ("cuda", &error);

  if (device == NULL)
    return g_strdup_printf ("no CUDA device: %s", error->message);
  return g_strdup ("no CUDA device is available (torch.cuda.device_count() is 0)");
}

static DlProcessGroup *
nccl_factory (const gchar *init_method, gint rank, gint world_size, gdouble timeout, GError **error)
{
  g_autoptr (DlStore) store = NULL;
  g_autoptr (DlDevice) device = NULL;
  g_autoptr (DlStream) stream = NULL;
  g_autofree gchar *why = NULL, *name = NULL;
  ncclUniqueId id;
  ncclComm_t comm = NULL;
  ncclResult_t rc;
  gint n_devices, index;
  int previous = 0;
  cudaError_t crc;

  if ((rank < 0 && !dl_store_env_int ("nccl", "RANK", &rank, error))
      || (world_size < 0 && !dl_store_env_int ("nccl", "WORLD_SIZE", &world_size, error)))
    return NULL;
  if (world_size < 1 || rank >= world_size)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: nccl: rank %d is not in a world of size %d", rank,
                   world_size);
      return NULL;
    }
  n_devices = dl_cuda_device_count ();
  if (n_devices <= 0)
    {
      why = why_no_device ();
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "init_process_group: nccl: rank %d: %s; the nccl backend needs one GPU per "
                   "process (use gloo or mpi on the CPU)",
                   rank, why);
      return NULL;
    }
  index = dl_nccl_plan_device (g_getenv ("LOCAL_RANK"), rank, n_devices, &why);
  if (index < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "init_process_group: nccl: rank %d: %s", rank,
                   why);
      return NULL;
    }
  name = g_strdup_printf ("cuda:%d", index);
  if ((device = dl_device_get (name, error)) == NULL
      || (stream = dl_stream_new (device, 0, error)) == NULL)
    return NULL;
  if (!(timeout > 0))
    timeout = DL_DISTRIBUTED_DEFAULT_TIMEOUT;
  if (world_size > 1)
    {
      store = dl_store_new ("nccl", init_method, rank, timeout, error);
      if (store == NULL)
        return NULL;
    }
  if (rank == 0 || world_size == 1)
    {
      rc = ncclGetUniqueId (&id);
      if (rc != ncclSuccess)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                       "init_process_group: nccl: ncclGetUniqueId failed: %s",
                       ncclGetErrorString (rc));
          return NULL;
        }
      if (store && !dl_store_set (store, "nccl/unique-id", &id, sizeof id, error))
        return NULL;
    }
  else if (!dl_store_get (store, "nccl/unique-id", &id, sizeof id, error))
    return NULL;
  cudaGetDevice (&previous);
  crc = cudaSetDevice (index);
  if (crc != cudaSuccess)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "init_process_group: nccl: cuda:%d: %s", index,
                   cudaGetErrorString (crc));
      return NULL;
    }
  /* waits until every rank has joined; rank 0's store (and the id in it)
   * is needed until then */
  rc = ncclCommInitRank (&comm, world_size, id, rank);
  cudaSetDevice (previous); /* the caller's current device stays */
  if (rc != ncclSuccess)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "init_process_group: nccl: rank %d of %d on cuda:%d: ncclCommInitRank failed: "
                   "%s",
                   rank, world_size, index, ncclGetErrorString (rc));
      return NULL;
    }
  return wrap_comm (comm, index, stream, timeout);
}

/* The module's entry point (see dl-distributed-private.h) */
G_MODULE_EXPORT DlProcessGroupFactory dl_nccl_module_init (void);

DlProcessGroupFactory
dl_nccl_module_init (void)
{
  return nccl_factory;
}

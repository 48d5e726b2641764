/* test-device-group.c: the base's path for an engine whose buffers live
 * on a device (DlProcessGroupClass.device_type, what the NCCL engine
 * uses), run on a machine without a GPU: a loopback engine joins three
 * ranks of one process (a thread each) and says its buffers are on a
 * device whose stream is a CPU stream, so that every part of that path
 * runs here: the events that order an operation after the caller's
 * stream and end its work, every operation on one thread, AVG passed to
 * the engine, the list forms, gather, scatter and all_to_all as one
 * grouped exchange of parts, the exchange of arguments through the
 * engine's exchange slot (mismatches fail on every rank), sends and
 * receives whose metadata is staged in device tensors, the device check
 * and DistributedDataParallel on the group's device. Every result is
 * compared with the same computation on the CPU.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <string.h>

#include <dl.h>

#include "dist-expect.h"

#define SIZE 3
#define N 5

/* ---- the loopback world -------------------------------------------------- */

typedef struct
{
  GMutex lock;
  GCond cond;
  guint arrived;
  guint64 generation;
  /* what each rank posted for the collective under way */
  guint8 *staging[SIZE];
  const gconstpointer *sends[SIZE];
  const gsize *send_bytes[SIZE];
  /* point to point: messages (GBytes) from rank s to rank r */
  GQueue mail[SIZE][SIZE];
  /* which slots ran */
  gint parts_calls, exchange_calls, threads_seen;
  GThread *lane[SIZE];
} World;

static World world;

static void
world_barrier (void)
{
  guint64 gen;

  g_mutex_lock (&world.lock);
  gen = world.generation;
  if (++world.arrived == SIZE)
    {
      world.arrived = 0;
      world.generation++;
      g_cond_broadcast (&world.cond);
    }
  else
    while (world.generation == gen)
      g_cond_wait (&world.cond, &world.lock);
  g_mutex_unlock (&world.lock);
}

#define DL_TYPE_LOOP_GROUP (dl_loop_group_get_type ())
G_DECLARE_FINAL_TYPE (DlLoopGroup, dl_loop_group, DL, LOOP_GROUP, DlProcessGroup)

struct _DlLoopGroup
{
  DlProcessGroup parent_instance;
  DlStream *stream;
};

G_DEFINE_FINAL_TYPE (DlLoopGroup, dl_loop_group, DL_TYPE_PROCESS_GROUP)

static gint
rank_of (DlProcessGroup *pg)
{
  gint rank = dl_process_group_get_rank (pg);

  /* every slot of a device group runs on the group's one thread */
  g_mutex_lock (&world.lock);
  if (world.lane[rank] == NULL)
    {
      world.lane[rank] = g_thread_self ();
      world.threads_seen++;
    }
  g_assert_true (world.lane[rank] == g_thread_self ());
  g_mutex_unlock (&world.lock);
  return rank;
}

static gdouble
get (DlDType dtype, gconstpointer p, gsize i)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        return ((const gfloat *)p)[i];
      case DL_DTYPE_FLOAT64:
        return ((const gdouble *)p)[i];
      case DL_DTYPE_INT32:
        return ((const gint32 *)p)[i];
      case DL_DTYPE_INT64:
        return (gdouble)((const gint64 *)p)[i];
      case DL_DTYPE_UINT8:
        return ((const guint8 *)p)[i];
      default:
        g_assert_not_reached ();
    }
  return 0;
}

static void
put (DlDType dtype, gpointer p, gsize i, gdouble v)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        ((gfloat *)p)[i] = (gfloat)v;
        break;
      case DL_DTYPE_FLOAT64:
        ((gdouble *)p)[i] = v;
        break;
      case DL_DTYPE_INT32:
        ((gint32 *)p)[i] = (gint32)v;
        break;
      case DL_DTYPE_INT64:
        ((gint64 *)p)[i] = (gint64)v;
        break;
      case DL_DTYPE_UINT8:
        ((guint8 *)p)[i] = (guint8)v;
        break;
      default:
        g_assert_not_reached ();
    }
}

/* posts a copy of @n bytes at @p, waits for every rank's */
static gint
post (DlProcessGroup *pg, gconstpointer p, gsize n)
{
  gint rank = rank_of (pg);

  world.staging[rank] = g_memdup2 (p, MAX (n, 1));
  world_barrier ();
  return rank;
}

static void
unpost (gint rank)
{
  world_barrier ();
  g_clear_pointer (&world.staging[rank], g_free);
}

/* out[i] = the reduction over the ranks of element @from + i of their
 * staging, as a device engine does it (AVG divides itself) */
static void
reduce_into (gpointer out, gsize from, gsize count, DlDType dtype, DlReduceOpKind op)
{
  for (gsize i = 0; i < count; i++)
    {
      gdouble acc = get (dtype, world.staging[0], from + i);

      for (gint r = 1; r < SIZE; r++)
        acc = dist_expect_step (op, dtype, acc, get (dtype, world.staging[r], from + i));
      put (dtype, out, i, dist_expect_finish (op, dtype, acc, SIZE));
    }
}

static gboolean
loop_all_reduce (DlProcessGroup *pg,
                 gpointer buf,
                 gsize count,
                 DlDType dtype,
                 DlReduceOpKind op,
                 GError **error)
{
  gint rank = post (pg, buf, count * dl_dtype_get_size (dtype));

  reduce_into (buf, 0, count, dtype, op);
  unpost (rank);
  return TRUE;
}

static gboolean
loop_reduce (DlProcessGroup *pg,
             gpointer buf,
             gsize count,
             DlDType dtype,
             DlReduceOpKind op,
             gint root,
             GError **error)
{
  gint rank = post (pg, buf, count * dl_dtype_get_size (dtype));

  if (rank == root)
    reduce_into (buf, 0, count, dtype, op);
  unpost (rank);
  return TRUE;
}

static gboolean
loop_broadcast (DlProcessGroup *pg, gpointer buf, gsize nbytes, gint root, GError **error)
{
  gint rank = post (pg, buf, nbytes);

  memcpy (buf, world.staging[root], nbytes);
  unpost (rank);
  return TRUE;
}

static gboolean
loop_all_gather (DlProcessGroup *pg,
                 gconstpointer send,
                 gpointer recv,
                 gsize nbytes,
                 GError **error)
{
  gint rank = post (pg, send, nbytes);

  for (gint r = 0; r < SIZE; r++)
    memcpy ((guint8 *)recv + r * nbytes, world.staging[r], nbytes);
  unpost (rank);
  return TRUE;
}

static gboolean
loop_reduce_scatter (DlProcessGroup *pg,
                     gconstpointer send,
                     gpointer recv,
                     gsize count,
                     DlDType dtype,
                     DlReduceOpKind op,
                     GError **error)
{
  gint rank = post (pg, send, SIZE * count * dl_dtype_get_size (dtype));

  reduce_into (recv, rank * count, count, dtype, op);
  unpost (rank);
  return TRUE;
}

static gboolean
loop_exchange (DlProcessGroup *pg,
               gconstpointer meta,
               gsize meta_bytes,
               gconstpointer data,
               gsize data_bytes,
               gpointer metas,
               gconstpointer *datas,
               GError **error)
{
  g_assert_null (data); /* a device group's data stays on its device */
  g_atomic_int_inc (&world.exchange_calls);
  return loop_all_gather (pg, meta, metas, meta_bytes, error)
         && (memset (datas, 0, SIZE * sizeof (gpointer)), TRUE);
}

static gboolean
loop_exchange_parts (DlProcessGroup *pg,
                     const gconstpointer *sends,
                     const gsize *send_bytes,
                     gpointer const *recvs,
                     const gsize *recv_bytes,
                     GError **error)
{
  gint rank = rank_of (pg);

  g_atomic_int_inc (&world.parts_calls);
  world.sends[rank] = sends;
  world.send_bytes[rank] = send_bytes;
  world_barrier ();
  for (gint s = 0; s < SIZE; s++)
    {
      /* the base checked the sizes agree */
      g_assert_cmpuint (world.send_bytes[s][rank], ==, recv_bytes[s]);
      if (recv_bytes[s])
        memcpy (recvs[s], world.sends[s][rank], recv_bytes[s]);
    }
  world_barrier ();
  return TRUE;
}

static gboolean
loop_send (DlProcessGroup *pg, gconstpointer buf, gsize nbytes, gint dst, gint tag, GError **error)
{
  gint rank = rank_of (pg);

  g_mutex_lock (&world.lock);
  g_queue_push_tail (&world.mail[rank][dst], g_bytes_new (buf, nbytes));
  g_cond_broadcast (&world.cond);
  g_mutex_unlock (&world.lock);
  return TRUE;
}

static gboolean
loop_recv (DlProcessGroup *pg, gpointer buf, gsize nbytes, gint src, gint tag, GError **error)
{
  gint rank = rank_of (pg);
  g_autoptr (GBytes) msg = NULL;

  g_mutex_lock (&world.lock);
  while (g_queue_is_empty (&world.mail[src][rank]))
    g_cond_wait (&world.cond, &world.lock);
  msg = g_queue_pop_head (&world.mail[src][rank]);
  g_mutex_unlock (&world.lock);
  /* as NCCL: the receive is posted for exactly what comes */
  g_assert_cmpuint (g_bytes_get_size (msg), ==, nbytes);
  memcpy (buf, g_bytes_get_data (msg, NULL), nbytes);
  return TRUE;
}

static gboolean
loop_barrier (DlProcessGroup *pg, GError **error)
{
  rank_of (pg);
  world_barrier ();
  return TRUE;
}

static DlStream *
loop_stream (DlProcessGroup *pg)
{
  return DL_LOOP_GROUP (pg)->stream;
}

static void
dl_loop_group_finalize (GObject *object)
{
  g_clear_object (&DL_LOOP_GROUP (object)->stream);
  G_OBJECT_CLASS (dl_loop_group_parent_class)->finalize (object);
}

static void
dl_loop_group_class_init (DlLoopGroupClass *klass)
{
  DlProcessGroupClass *pg = DL_PROCESS_GROUP_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = dl_loop_group_finalize;
  /* "a device": the base's device path, on a stream of the CPU */
  pg->device_type = DL_DEVICE_TYPE_CUDA;
  pg->communication_stream = loop_stream;
  pg->exchange = loop_exchange;
  pg->exchange_parts = loop_exchange_parts;
  pg->all_reduce = loop_all_reduce;
  pg->reduce = loop_reduce;
  pg->broadcast = loop_broadcast;
  pg->all_gather = loop_all_gather;
  pg->reduce_scatter = loop_reduce_scatter;
  pg->send = loop_send;
  pg->recv = loop_recv;
  pg->barrier = loop_barrier;
}

static void
dl_loop_group_init (DlLoopGroup *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", &error);

  g_assert_no_error (error);
  self->stream = dl_stream_new (cpu, 0, &error);
  g_assert_no_error (error);
}

/* ---- the scenarios, one thread per rank ----------------------------------- */

static DlTensor *
tensor_of (const gdouble *v, gint64 n, DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) f64
      = dl_tensor_new_from_data (v, n * sizeof (gdouble), &n, 1, DL_DTYPE_FLOAT64, &error);
  DlTensor *t;

  g_assert_no_error (error);
  t = dl_tensor_to_dtype (f64, dtype, &error);
  g_assert_no_error (error);
  return t;
}

static gdouble
value (gint rank, gint i)
{
  return 1 + (rank * 5 + i * 3) % 4;
}

static DlTensor *
rank_tensor (gint rank, DlDType dtype)
{
  gdouble v[N];

  for (gint i = 0; i < N; i++)
    v[i] = dtype == DL_DTYPE_BOOL ? (rank + i) % 3 == 0 : value (rank, i);
  return tensor_of (v, N, dtype);
}

static void
assert_tensor (DlTensor *t, const gdouble *expected, gsize n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) f64 = dl_tensor_to_dtype (t, DL_DTYPE_FLOAT64, &error);
  g_autoptr (GBytes) bytes = NULL;
  const gdouble *got;
  gsize len = 0;

  g_assert_no_error (error);
  bytes = dl_tensor_to_bytes (f64, &error);
  g_assert_no_error (error);
  got = g_bytes_get_data (bytes, &len);
  g_assert_cmpuint (len, ==, n * sizeof (gdouble));
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat (got[i], ==, expected[i]);
}

/* @work succeeded (@error: where its call put its error, read after it) */
static void
ok (DlWork *work, GError **error)
{
  g_assert_no_error (*error);
  g_assert_nonnull (work);
  g_assert_true (dl_work_wait (work, error));
  g_assert_no_error (*error);
  /* its event (a CPU stream's) has completed */
  g_assert_true (dl_work_is_completed (work));
  g_object_unref (work);
}

static void
scenario_reductions (DlProcessGroup *g, gint rank)
{
  static const DlDType dtypes[] = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_INT32,
                                    DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL };
  GError *error = NULL;

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    for (gint op = DL_REDUCE_OP_KIND_SUM; op <= DL_REDUCE_OP_KIND_AVG; op++)
      {
        DlDType dtype = dtypes[d];
        g_autoptr (DlTensor) t = rank_tensor (rank, dtype);
        gdouble expected[N];

        if (dtype == DL_DTYPE_BOOL && op == DL_REDUCE_OP_KIND_AVG)
          continue;
        for (gint i = 0; i < N; i++)
          {
            gdouble acc = dtype == DL_DTYPE_BOOL ? (i % 3 == 0) : value (0, i);

            for (gint r = 1; r < SIZE; r++)
              acc = dist_expect_step (op, dtype, acc,
                                      dtype == DL_DTYPE_BOOL ? (r + i) % 3 == 0 : value (r, i));
            expected[i] = dist_expect_finish (op, dtype, acc, SIZE);
            if (dtype == DL_DTYPE_FLOAT32) /* a mean such as 7 / 3, rounded */
              expected[i] = (gfloat)expected[i];
          }
        /* asynchronously every other time: the work ends on its event */
        ok (dl_process_group_all_reduce (g, t, op, op % 2, &error), &error);
        assert_tensor (t, expected, N);
      }
}

static void
scenario_lists (DlProcessGroup *g, gint rank)
{
  GError *error = NULL;
  g_autoptr (DlTensor) mine = rank_tensor (rank, DL_DTYPE_FLOAT32);
  g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);
  gdouble zeros[N] = { 0 }, expected[N];
  gint parts = g_atomic_int_get (&world.parts_calls);

  for (gint r = 0; r < SIZE; r++)
    g_ptr_array_add (list, tensor_of (zeros, N, DL_DTYPE_FLOAT32));
  ok (dl_process_group_all_gather (g, list, mine, FALSE, &error), &error);
  for (gint r = 0; r < SIZE; r++)
    {
      for (gint i = 0; i < N; i++)
        expected[i] = value (r, i);
      assert_tensor (g_ptr_array_index (list, r), expected, N);
    }
  /* the list form ran as grouped parts, on every rank */
  g_assert_cmpint (g_atomic_int_get (&world.parts_calls), >, parts);
  /* gather onto rank 1 into fresh tensors */
  {
    g_autoptr (GPtrArray) into = g_ptr_array_new_with_free_func (g_object_unref);

    for (gint r = 0; r < SIZE; r++)
      g_ptr_array_add (into, tensor_of (zeros, N, DL_DTYPE_FLOAT32));
    ok (dl_process_group_gather (g, mine, rank == 1 ? into : NULL, 1, FALSE, &error), &error);
    for (gint r = 0; rank == 1 && r < SIZE; r++)
      {
        for (gint i = 0; i < N; i++)
          expected[i] = value (r, i);
        assert_tensor (g_ptr_array_index (into, r), expected, N);
      }
  }
  /* scatter from rank 2 of what it gathered: rank r gets value (r) */
  {
    g_autoptr (DlTensor) got = tensor_of (zeros, N, DL_DTYPE_FLOAT32);

    ok (dl_process_group_scatter (g, got, rank == 2 ? list : NULL, 2, FALSE, &error), &error);
    for (gint i = 0; i < N; i++)
      expected[i] = value (rank, i);
    assert_tensor (got, expected, N);
  }
  /* reduce_scatter of a list: rank r gets the sum of the ranks' list[r],
   * list[r] being value (rank) + r */
  {
    g_autoptr (GPtrArray) in = g_ptr_array_new_with_free_func (g_object_unref);
    g_autoptr (DlTensor) out = tensor_of (zeros, N, DL_DTYPE_FLOAT32);
    gdouble v[N];

    for (gint r = 0; r < SIZE; r++)
      {
        for (gint i = 0; i < N; i++)
          v[i] = value (rank, i) + r;
        g_ptr_array_add (in, tensor_of (v, N, DL_DTYPE_FLOAT32));
      }
    ok (dl_process_group_reduce_scatter (g, out, in, DL_REDUCE_OP_KIND_SUM, FALSE, &error), &error);
    for (gint i = 0; i < N; i++)
      {
        expected[i] = 0;
        for (gint s = 0; s < SIZE; s++)
          expected[i] += value (s, i) + rank;
      }
    assert_tensor (out, expected, N);
    /* the inputs are left as they were */
    for (gint i = 0; i < N; i++)
      v[i] = value (rank, i) + 0;
    assert_tensor (g_ptr_array_index (in, 0), v, N);
  }
  /* broadcast, reduce and reduce_scatter_tensor on the engine's slots */
  {
    g_autoptr (DlTensor) t = rank_tensor (rank, DL_DTYPE_INT64);

    ok (dl_process_group_broadcast (g, t, 2, FALSE, &error), &error);
    for (gint i = 0; i < N; i++)
      expected[i] = value (2, i);
    assert_tensor (t, expected, N);
  }
}

static void
scenario_all_to_all (DlProcessGroup *g, gint rank)
{
  GError *error = NULL;
  /* rank s sends s + 1 rows of 2 to rank r, valued 100 s + 10 r + j */
  gdouble in[64], out_expected[64], zeros[64] = { 0 };
  gint64 in_splits[SIZE], out_splits[SIZE], rows_in = 0, rows_out = 0, k = 0;
  g_autoptr (DlTensor) flat_in = NULL, flat_out = NULL, input = NULL, output = NULL;

  for (gint r = 0; r < SIZE; r++)
    {
      in_splits[r] = rank + 1;
      out_splits[r] = r + 1;
      for (gint j = 0; j < 2 * (rank + 1); j++)
        in[rows_in * 2 + j] = 100 * rank + 10 * r + j;
      rows_in += rank + 1;
    }
  for (gint s = 0; s < SIZE; s++)
    {
      for (gint j = 0; j < 2 * (s + 1); j++)
        out_expected[k++] = 100 * s + 10 * rank + j;
      rows_out += s + 1;
    }
  flat_in = tensor_of (in, rows_in * 2, DL_DTYPE_FLOAT64);
  flat_out = tensor_of (zeros, rows_out * 2, DL_DTYPE_FLOAT64);
  input = dl_tensor_reshape (flat_in, DL_SHAPE (rows_in, 2), &error);
  g_assert_no_error (error);
  output = dl_tensor_reshape (flat_out, DL_SHAPE (rows_out, 2), &error);
  g_assert_no_error (error);
  ok (dl_process_group_all_to_all_single_split (g, output, input, out_splits, SIZE, in_splits, SIZE,
                                                FALSE, &error),
      &error);
  assert_tensor (output, out_expected, rows_out * 2);
  /* the list form, parts of one size per pair: rank s sends rank r
   * r + s + 1 elements */
  {
    g_autoptr (GPtrArray) outs = g_ptr_array_new_with_free_func (g_object_unref);
    g_autoptr (GPtrArray) ins = g_ptr_array_new_with_free_func (g_object_unref);
    gdouble v[8];

    for (gint r = 0; r < SIZE; r++)
      {
        for (gint j = 0; j < r + rank + 1; j++)
          v[j] = 10 * rank + r + j;
        g_ptr_array_add (ins, tensor_of (v, r + rank + 1, DL_DTYPE_FLOAT64));
        g_ptr_array_add (outs, tensor_of (zeros, r + rank + 1, DL_DTYPE_FLOAT64));
      }
    ok (dl_process_group_all_to_all (g, outs, ins, FALSE, &error), &error);
    for (gint s = 0; s < SIZE; s++)
      {
        for (gint j = 0; j < s + rank + 1; j++)
          v[j] = 10 * s + rank + j;
        assert_tensor (g_ptr_array_index (outs, s), v, s + rank + 1);
      }
  }
}

static void
scenario_checks (DlProcessGroup *g, gint rank)
{
  GError *error = NULL;
  gdouble v[N] = { 1, 2, 3, 4, 5 };
  gint exchanges = g_atomic_int_get (&world.exchange_calls);

  /* [5] on ranks 0 and 1, [4] on rank 2: every rank fails */
  {
    g_autoptr (DlTensor) t = tensor_of (v, rank == 2 ? N - 1 : N, DL_DTYPE_FLOAT32);
    DlWork *work = dl_process_group_all_reduce (g, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);

    g_assert_null (work);
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_assert_nonnull (strstr (error->message, "the ranks disagree"));
    g_clear_error (&error);
  }
  /* through the engine's exchange slot */
  g_assert_cmpint (g_atomic_int_get (&world.exchange_calls), >, exchanges);
  /* a tensor elsewhere than the group's device: torch's words */
  {
    g_autoptr (DlDevice) meta = dl_device_get ("meta", &error);
    g_autoptr (DlTensor) t = NULL;
    DlWork *work;

    g_assert_no_error (error);
    t = dl_empty (DL_SHAPE (2), DL_DTYPE_FLOAT32, meta, &error);
    g_assert_no_error (error);
    work = dl_process_group_broadcast (g, t, 0, FALSE, &error);
    g_assert_null (work);
    g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
    g_assert_nonnull (strstr (error->message, "Tensors must be CUDA and dense"));
    g_clear_error (&error);
  }
  /* the group goes on: a barrier */
  ok (dl_process_group_barrier (g, FALSE, &error), &error);
  /* send and recv around the ring (metadata staged on the device first) */
  {
    g_autoptr (DlTensor) t = rank_tensor (rank, DL_DTYPE_FLOAT32);
    gdouble zeros[N] = { 0 }, expected[N];
    g_autoptr (DlTensor) in = tensor_of (zeros, N, DL_DTYPE_FLOAT32);
    gint from = (rank + SIZE - 1) % SIZE;
    DlWork *sent = dl_process_group_send (g, t, (rank + 1) % SIZE, 7, TRUE, &error);

    g_assert_no_error (error);
    ok (dl_process_group_recv (g, in, from, 7, FALSE, &error), &error);
    ok (sent, &error);
    for (gint i = 0; i < N; i++)
      expected[i] = value (from, i);
    assert_tensor (in, expected, N);
  }
  /* a receive of another size than was sent fails, naming both */
  {
    g_autoptr (DlTensor) t = tensor_of (v, rank == 0 ? N : N - 2, DL_DTYPE_FLOAT32);

    if (rank == 0)
      ok (dl_process_group_send (g, t, 1, 3, FALSE, &error), &error);
    else if (rank == 1)
      {
        DlWork *work = dl_process_group_recv (g, t, 0, 3, FALSE, &error);

        g_assert_null (work);
        g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
        g_assert_nonnull (strstr (error->message, "recv: the peers disagree"));
        g_clear_error (&error);
      }
    ok (dl_process_group_barrier (g, FALSE, &error), &error);
  }
}

/* DistributedDataParallel on the group: the gradients of each rank's own
 * batch, averaged, as one process gets them on the three batches; the
 * buckets live where the parameters are */
static gdouble ddp_grads[SIZE][8];

static void
scenario_ddp (DlProcessGroup *g, gint rank)
{
  GError *error = NULL;
  g_autoptr (DlLinear) fc = NULL;
  g_autoptr (DlDistributedDataParallel) ddp = NULL;

  fc = dl_linear_new (3, 2, FALSE, &error);
  g_assert_no_error (error);
  /* different weights on every rank: DDP copies rank 0's */
  {
    DlTensor *w = dl_module_get_parameter (DL_MODULE (fc), "weight");
    gdouble wv[6];
    g_autoptr (DlTensor) nw = NULL;

    for (gint i = 0; i < 6; i++)
      wv[i] = 0.25 * (i + 1) + rank;
    nw = tensor_of (wv, 6, DL_DTYPE_FLOAT32);
    {
      g_autoptr (DlTensor) shaped = dl_tensor_reshape (nw, DL_SHAPE (2, 3), &error);
      gboolean was = dl_set_grad_enabled (FALSE);

      g_assert_no_error (error);
      g_assert_nonnull (dl_tensor_copy_ (w, shaped, &error));
      g_assert_no_error (error);
      dl_set_grad_enabled (was);
    }
  }
  ddp = dl_distributed_data_parallel_new (DL_MODULE (fc), g, &error);
  g_assert_no_error (error);
  dist_ddp_step (DL_MODULE (ddp), DL_MODULE (fc), NULL, rank, ddp_grads[rank]);
}

typedef struct
{
  DlProcessGroup *group;
  gint rank;
  void (*scenario) (DlProcessGroup *, gint);
} RankRun;

static gpointer
rank_main (gpointer data)
{
  RankRun *run = data;

  run->scenario (run->group, run->rank);
  return NULL;
}

static void
run_world (void (*scenario) (DlProcessGroup *, gint))
{
  DlProcessGroup *groups[SIZE];
  GThread *threads[SIZE];
  RankRun runs[SIZE];

  memset (world.lane, 0, sizeof world.lane);
  world.threads_seen = 0;
  for (gint r = 0; r < SIZE; r++)
    groups[r] = g_object_new (DL_TYPE_LOOP_GROUP, "rank", r, "size", SIZE, "timeout", 60.0,
                              "backend-name", "loop", NULL);
  for (gint r = 0; r < SIZE; r++)
    {
      runs[r] = (RankRun){ groups[r], r, scenario };
      threads[r] = g_thread_new ("rank", rank_main, &runs[r]);
    }
  for (gint r = 0; r < SIZE; r++)
    g_thread_join (threads[r]);
  /* one thread per group ran every slot (rank_of() checks it) */
  g_assert_cmpint (world.threads_seen, ==, SIZE);
  for (gint r = 0; r < SIZE; r++)
    g_assert_finalize_object (groups[r]);
  for (gint s = 0; s < SIZE; s++)
    for (gint r = 0; r < SIZE; r++)
      g_assert_true (g_queue_is_empty (&world.mail[s][r]));
}

static void
test_reductions (void)
{
  run_world (scenario_reductions);
}

static void
test_lists (void)
{
  run_world (scenario_lists);
}

static void
test_all_to_all (void)
{
  run_world (scenario_all_to_all);
}

static void
test_checks (void)
{
  run_world (scenario_checks);
}

/* without the exchange of arguments (DL_DISTRIBUTED_CHECK=0): the
 * engine's barrier slot, and the exchange only for what all_to_all's
 * parts need (their sizes) */
static void
scenario_unchecked (DlProcessGroup *g, gint rank)
{
  GError *error = NULL;

  ok (dl_process_group_barrier (g, FALSE, &error), &error);
  scenario_reductions (g, rank);
  scenario_all_to_all (g, rank);
}

static void
test_unchecked (void)
{
  gint exchanges = g_atomic_int_get (&world.exchange_calls);

  g_setenv ("DL_DISTRIBUTED_CHECK", "0", TRUE);
  run_world (scenario_unchecked);
  g_unsetenv ("DL_DISTRIBUTED_CHECK");
  /* the two all_to_all's sizes on every rank, nothing else */
  g_assert_cmpint (g_atomic_int_get (&world.exchange_calls) - exchanges, ==, 2 * SIZE);
}

static void
test_ddp (void)
{
  run_world (scenario_ddp);
  /* the same mean gradient everywhere */
  for (gint r = 0; r < SIZE; r++)
    for (gint k = 0; k < 6; k++)
      g_assert_cmpfloat_with_epsilon (ddp_grads[r][k], dist_ddp_expected_grad (SIZE, k % 3), 1e-5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_mutex_init (&world.lock);
  g_cond_init (&world.cond);
  g_test_add_func ("/device-group/reductions", test_reductions);
  g_test_add_func ("/device-group/lists", test_lists);
  g_test_add_func ("/device-group/all-to-all", test_all_to_all);
  g_test_add_func ("/device-group/checks", test_checks);
  g_test_add_func ("/device-group/unchecked", test_unchecked);
  g_test_add_func ("/device-group/ddp", test_ddp);
  return g_test_run ();
}

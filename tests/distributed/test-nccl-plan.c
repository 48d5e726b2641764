/* test-nccl-plan.c: what the NCCL engine decides on the host, without a
 * GPU (libdl/distributed/nccl/dl-nccl-plan.h): NCCL's type for every
 * dtype and its reduction for every op, the GPU of a rank, the steps of a
 * grouped exchange of parts (run here between simulated ranks, whose
 * results are checked against the all_to_all they stand for) and the
 * frames of the exchange of arguments.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "distributed/nccl/dl-nccl-plan.h"

/* the bytes of NCCL's types, from nccl.h's list */
static gsize
nccl_type_size (ncclDataType_t type)
{
  switch (type)
    {
      case ncclInt8:
      case ncclUint8:
        return 1;
      case ncclFloat16:
      case ncclBfloat16:
        return 2;
      case ncclInt32:
      case ncclUint32:
      case ncclFloat32:
        return 4;
      case ncclInt64:
      case ncclUint64:
      case ncclFloat64:
        return 8;
      default:
        return 0;
    }
}

static void
test_dtype (void)
{
  static const struct
  {
    DlDType dtype;
    ncclDataType_t type;
    gsize size;
  } expected[] = {
    { DL_DTYPE_FLOAT32, ncclFloat32, 4 }, { DL_DTYPE_FLOAT64, ncclFloat64, 8 },
    { DL_DTYPE_FLOAT16, ncclFloat16, 2 }, { DL_DTYPE_BFLOAT16, ncclBfloat16, 2 },
    { DL_DTYPE_INT32, ncclInt32, 4 },     { DL_DTYPE_INT64, ncclInt64, 8 },
    { DL_DTYPE_UINT8, ncclUint8, 1 },     { DL_DTYPE_BOOL, ncclUint8, 1 },
  };
  ncclDataType_t type = ncclInt8;

  /* every dtype of libdl, once */
  g_assert_cmpuint (G_N_ELEMENTS (expected), ==, DL_N_DTYPES);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_true (dl_nccl_plan_dtype (expected[i].dtype, &type));
      g_assert_cmpint (type, ==, expected[i].type);
      /* the bytes NCCL moves are the tensor's */
      g_assert_cmpuint (nccl_type_size (type), ==, expected[i].size);
    }
  g_assert_false (dl_nccl_plan_dtype ((DlDType)DL_N_DTYPES, &type));
  g_assert_false (dl_nccl_plan_dtype ((DlDType)-1, &type));
}

static void
test_op (void)
{
  ncclRedOp_t red = ncclSum;

  g_assert_true (dl_nccl_plan_op (DL_REDUCE_OP_KIND_SUM, &red));
  g_assert_cmpint (red, ==, ncclSum);
  g_assert_true (dl_nccl_plan_op (DL_REDUCE_OP_KIND_PRODUCT, &red));
  g_assert_cmpint (red, ==, ncclProd);
  g_assert_true (dl_nccl_plan_op (DL_REDUCE_OP_KIND_MIN, &red));
  g_assert_cmpint (red, ==, ncclMin);
  g_assert_true (dl_nccl_plan_op (DL_REDUCE_OP_KIND_MAX, &red));
  g_assert_cmpint (red, ==, ncclMax);
  /* the toolkit's NCCL is 2.10 or newer: AVG is NCCL's own */
  g_assert_cmpint (NCCL_VERSION_CODE, >=, NCCL_VERSION (2, 10, 0));
  g_assert_true (dl_nccl_plan_op (DL_REDUCE_OP_KIND_AVG, &red));
  g_assert_cmpint (red, ==, ncclAvg);
  g_assert_false (dl_nccl_plan_op ((DlReduceOpKind)(DL_REDUCE_OP_KIND_AVG + 1), &red));
}

static void
test_device (void)
{
  gchar *why = NULL;

  /* without LOCAL_RANK: the rank modulo the devices */
  for (gint n = 1; n <= 8; n++)
    for (gint rank = 0; rank < 20; rank++)
      {
        g_assert_cmpint (dl_nccl_plan_device (NULL, rank, n, &why), ==, rank % n);
        g_assert_null (why);
        g_assert_cmpint (dl_nccl_plan_device ("", rank, n, &why), ==, rank % n);
        g_assert_null (why);
      }
  /* LOCAL_RANK wins over the rank: rank 5 is the second process of its
   * machine */
  g_assert_cmpint (dl_nccl_plan_device ("1", 5, 4, &why), ==, 1);
  g_assert_null (why);
  g_assert_cmpint (dl_nccl_plan_device ("3", 0, 4, &why), ==, 3);
  g_assert_null (why);
  /* more processes than GPUs on this machine */
  g_assert_cmpint (dl_nccl_plan_device ("4", 4, 4, &why), ==, -1);
  g_assert_nonnull (strstr (why, "LOCAL_RANK is 4 but this machine has 4 CUDA devices"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (dl_nccl_plan_device ("1", 1, 1, &why), ==, -1);
  g_assert_nonnull (strstr (why, "has 1 CUDA device:"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (dl_nccl_plan_device ("-1", 0, 2, &why), ==, -1);
  g_assert_nonnull (strstr (why, "LOCAL_RANK='-1' is not a non-negative integer"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (dl_nccl_plan_device ("0x", 0, 2, &why), ==, -1);
  g_assert_nonnull (why);
  g_clear_pointer (&why, g_free);
  /* no GPU at all */
  g_assert_cmpint (dl_nccl_plan_device (NULL, 0, 0, &why), ==, -1);
  g_assert_cmpstr (why, ==, "no CUDA device is available");
  g_clear_pointer (&why, g_free);
}

/* A message of a simulated exchange */
typedef struct
{
  gint src, dst;
  const guint8 *data;
  gsize bytes;
} Message;

/* Runs the grouped exchange of @size simulated ranks by their steps, as
 * NCCL would (every send of a group is matched by the peer's receive of
 * the same size, in order between each pair), and checks the result
 * against the all_to_all it stands for: rank s's part for rank r (rows
 * @rows[s][r] of @row_bytes, at the plan's offsets) lands at rank r's
 * offset for s */
static void
check_exchange (gint size, gint64 rows[][6], gsize row_bytes)
{
  guint8 *send[6], *recv[6];
  gsize send_bytes[6][6], recv_bytes[6][6], send_off[6][6], recv_off[6][6];
  DlNcclStep steps[6][12];
  gint n_steps[6];
  GQueue mail = G_QUEUE_INIT;

  for (gint me = 0; me < size; me++)
    {
      gsize total_send, total_recv;

      for (gint r = 0; r < size; r++)
        {
          send_bytes[me][r] = (gsize)rows[me][r] * row_bytes; /* me -> r */
          recv_bytes[me][r] = (gsize)rows[r][me] * row_bytes; /* r -> me */
        }
      total_send = dl_nccl_plan_offsets (send_bytes[me], size, send_off[me]);
      total_recv = dl_nccl_plan_offsets (recv_bytes[me], size, recv_off[me]);
      send[me] = g_malloc (total_send + 1);
      recv[me] = g_malloc0 (total_recv + 1);
      for (gsize i = 0; i < total_send; i++)
        send[me][i] = (guint8)(me * 37 + i * 11 + 1);
      n_steps[me] = dl_nccl_plan_parts (me, size, send_bytes[me], recv_bytes[me], steps[me]);
      g_assert_cmpint (n_steps[me], >=, 0);
      g_assert_cmpint (n_steps[me], <=, 2 * size);
    }
  /* each rank posts its sends, then takes its receives: within a group
   * NCCL lets them meet in any order */
  for (gint me = 0; me < size; me++)
    for (gint i = 0; i < n_steps[me]; i++)
      {
        DlNcclStep *st = &steps[me][i];

        g_assert_true (st->send_bytes || st->recv_bytes); /* no empty step */
        if (st->peer == me)
          {
            g_assert_cmpint (i, ==, 0); /* its own part first: a copy */
            g_assert_cmpuint (st->send_bytes, ==, st->recv_bytes);
            memcpy (recv[me] + recv_off[me][me], send[me] + send_off[me][me], st->send_bytes);
          }
        else if (st->send_bytes)
          {
            Message *m = g_new (Message, 1);

            g_assert_cmpuint (st->send_bytes, ==, send_bytes[me][st->peer]);
            *m = (Message){ me, st->peer, send[me] + send_off[me][st->peer], st->send_bytes };
            g_queue_push_tail (&mail, m);
          }
      }
  for (gint me = 0; me < size; me++)
    for (gint i = 0; i < n_steps[me]; i++)
      {
        DlNcclStep *st = &steps[me][i];
        gboolean found = FALSE;

        if (st->peer == me || st->recv_bytes == 0)
          continue;
        g_assert_cmpuint (st->recv_bytes, ==, recv_bytes[me][st->peer]);
        for (GList *l = mail.head; l; l = l->next)
          {
            Message *m = l->data;

            if (m->src == st->peer && m->dst == me)
              {
                g_assert_cmpuint (m->bytes, ==, st->recv_bytes);
                memcpy (recv[me] + recv_off[me][st->peer], m->data, m->bytes);
                g_free (m);
                g_queue_delete_link (&mail, l);
                found = TRUE;
                break;
              }
          }
        g_assert_true (found);
      }
  /* every message was received */
  g_assert_cmpuint (g_queue_get_length (&mail), ==, 0);
  /* the all_to_all: rank r's block s is rank s's block r */
  for (gint s = 0; s < size; s++)
    for (gint r = 0; r < size; r++)
      for (gsize i = 0; i < send_bytes[s][r]; i++)
        g_assert_cmpuint (recv[r][recv_off[r][s] + i], ==, send[s][send_off[s][r] + i]);
  for (gint me = 0; me < size; me++)
    {
      g_free (send[me]);
      g_free (recv[me]);
    }
}

static void
test_parts (void)
{
  GRand *rand = g_rand_new_with_seed (17);
  gint64 rows[6][6];
  gsize send[3] = { 4, 4, 4 }, recv[3] = { 4, 4, 8 };
  DlNcclStep steps[6];

  for (gint size = 1; size <= 6; size++)
    for (gint trial = 0; trial < 40; trial++)
      {
        for (gint s = 0; s < size; s++)
          for (gint r = 0; r < size; r++)
            /* a third of the parts empty */
            rows[s][r] = g_rand_int_range (rand, 0, 3) == 0 ? 0 : g_rand_int_range (rand, 1, 9);
        check_exchange (size, rows, (gsize)g_rand_int_range (rand, 1, 17));
      }
  /* equal parts: every rank's steps are itself, then one send to rank + k
   * and one receive from rank - k per k, in ring order */
  for (gint s = 0; s < 4; s++)
    for (gint r = 0; r < 4; r++)
      rows[s][r] = 2;
  check_exchange (4, rows, 4);
  {
    gsize bytes[4] = { 8, 8, 8, 8 };
    DlNcclStep st[8];

    g_assert_cmpint (dl_nccl_plan_parts (1, 4, bytes, bytes, st), ==, 6);
    g_assert_cmpint (st[0].peer, ==, 1);
    g_assert_cmpint (st[1].peer, ==, 2); /* send to 2 */
    g_assert_cmpuint (st[1].recv_bytes, ==, 0);
    g_assert_cmpint (st[2].peer, ==, 0); /* receive from 0 */
    g_assert_cmpuint (st[2].send_bytes, ==, 0);
    g_assert_cmpint (st[3].peer, ==, 3); /* k = 2: to 3 and from 3, one step */
    g_assert_cmpuint (st[3].send_bytes, ==, 8);
    g_assert_cmpuint (st[3].recv_bytes, ==, 8);
    g_assert_cmpint (st[4].peer, ==, 0); /* k = 3: to 0 */
    g_assert_cmpint (st[5].peer, ==, 2); /* from 2 */
  }
  /* a rank that sends itself another size than it expects */
  g_assert_cmpint (dl_nccl_plan_parts (2, 3, send, recv, steps), ==, -1);
  /* nothing at all */
  {
    gsize zero[3] = { 0, 0, 0 };

    g_assert_cmpint (dl_nccl_plan_parts (0, 3, zero, zero, steps), ==, 0);
  }
  g_rand_free (rand);
}

static void
test_offsets (void)
{
  gsize bytes[5] = { 3, 0, 7, 1, 0 }, offsets[5];

  g_assert_cmpuint (dl_nccl_plan_offsets (bytes, 5, offsets), ==, 11);
  g_assert_cmpuint (offsets[0], ==, 0);
  g_assert_cmpuint (offsets[1], ==, 3);
  g_assert_cmpuint (offsets[2], ==, 3);
  g_assert_cmpuint (offsets[3], ==, 10);
  g_assert_cmpuint (offsets[4], ==, 11);
}

static void
test_frame (void)
{
  /* the frames are aligned to 16 bytes and hold the arguments */
  for (gsize meta = 1; meta < 300; meta++)
    {
      gsize frame = dl_nccl_plan_frame_bytes (meta);

      g_assert_cmpuint (frame % 16, ==, 0);
      g_assert_cmpuint (frame, >=, meta);
      g_assert_cmpuint (frame, <, meta + 16);
      for (gint size = 1; size <= 8; size++)
        g_assert_cmpuint (dl_nccl_plan_scratch_bytes (meta, size), ==, frame * (gsize)(size + 1));
    }
  g_assert_cmpuint (dl_nccl_plan_frame_bytes (144), ==, 144);
  g_assert_cmpuint (dl_nccl_plan_frame_bytes (145), ==, 160);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nccl/plan/dtype", test_dtype);
  g_test_add_func ("/nccl/plan/op", test_op);
  g_test_add_func ("/nccl/plan/device", test_device);
  g_test_add_func ("/nccl/plan/parts", test_parts);
  g_test_add_func ("/nccl/plan/offsets", test_offsets);
  g_test_add_func ("/nccl/plan/frame", test_frame);
  return g_test_run ();
}

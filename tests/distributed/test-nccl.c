/* test-nccl.c: the NCCL engine (libdl/distributed/nccl). Everywhere: the
 * module loads, and on a machine without a GPU init_process_group fails
 * with a DL_ERROR_DEVICE naming the reason. On a GPU: a world of one
 * process (file:// rendezvous), and of two when there are two GPUs (this
 * program starts its second rank itself), run every collective on CUDA
 * tensors of every dtype and compare each with the same reduction done
 * on the CPU; ranks that disagree fail, and a CPU tensor is refused.
 * Without a GPU those skip, saying why.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <sys/wait.h>

#include <dl.h>
#include <glib/gstdio.h>

#include "dist-expect.h"

#define N 6 /* elements per rank's tensor */

static const DlDType dtypes[] = {
  DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16,
  DL_DTYPE_INT32,   DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL,
};

/* Rank @rank's element @i: small integers, exact in every dtype, and
 * their sums, products and means over two ranks too (0 or 1 for bool) */
static gdouble
value (DlDType dtype, gint rank, gint i)
{
  if (dtype == DL_DTYPE_BOOL)
    return (rank + i) % 3 == 0 ? 1 : 0;
  return 1 + (rank * 7 + i * 3) % 3 + (i == 5 ? rank * 2 : 0);
}

/* The reduction of element @i over @world ranks, on the CPU */
static gdouble
reduced (DlDType dtype, DlReduceOpKind op, gint world, gint i)
{
  gdouble acc = value (dtype, 0, i);

  for (gint r = 1; r < world; r++)
    acc = dist_expect_step (op, dtype, acc, value (dtype, r, i));
  return dist_expect_finish (op, dtype, acc, world);
}

/* A tensor of @dtype on @device holding @values (@n of them) */
static DlTensor *
make (DlDevice *device, DlDType dtype, const gdouble *values, gint64 n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) f64
      = dl_tensor_new_from_data (values, n * sizeof (gdouble), &n, 1, DL_DTYPE_FLOAT64, &error);
  g_autoptr (DlTensor) cast = NULL;
  DlTensor *t;

  g_assert_no_error (error);
  cast = dl_tensor_to_dtype (f64, dtype, &error);
  g_assert_no_error (error);
  t = dl_tensor_to_device (cast, device, &error);
  g_assert_no_error (error);
  return t;
}

/* rank @rank's tensor of @dtype on @device */
static DlTensor *
make_rank (DlDevice *device, DlDType dtype, gint rank)
{
  gdouble v[N];

  for (gint i = 0; i < N; i++)
    v[i] = value (dtype, rank, i);
  return make (device, dtype, v, N);
}

/* @t's values (read back on the CPU, through float64): @n of them */
static void
values_of (DlTensor *t, gdouble *out, gsize n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", &error);
  g_autoptr (DlTensor) host = dl_tensor_to_device (t, cpu, &error);
  g_autoptr (DlTensor) f64 = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize len = 0;
  const gdouble *data;

  g_assert_no_error (error);
  f64 = dl_tensor_to_dtype (host, DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  bytes = dl_tensor_to_bytes (f64, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &len);
  g_assert_cmpuint (len, ==, n * sizeof (gdouble));
  memcpy (out, data, len);
}

/* @work succeeded (@error: where its call put its error, read after it) */
static void
wait_ok (DlWork *work, GError **error)
{
  g_assert_no_error (*error);
  g_assert_nonnull (work);
  g_assert_true (dl_work_wait (work, error));
  g_assert_no_error (*error);
  g_object_unref (work);
}

/* Every collective on @group (@rank of @world) against the CPU */
static void
run_collectives (DlProcessGroup *group, DlDevice *device, gint rank, gint world)
{
  GError *error = NULL;
  gdouble got[N * 4];

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      DlDType dtype = dtypes[d];

      /* all_reduce with every op, synchronous and asynchronous */
      for (gint op = DL_REDUCE_OP_KIND_SUM; op <= DL_REDUCE_OP_KIND_AVG; op++)
        {
          g_autoptr (DlTensor) t = make_rank (device, dtype, rank);

          if (dtype == DL_DTYPE_BOOL && op == DL_REDUCE_OP_KIND_AVG)
            continue;
          wait_ok (dl_process_group_all_reduce (group, t, op, op % 2 == 1, &error), &error);
          values_of (t, got, N);
          for (gint i = 0; i < N; i++)
            g_assert_cmpfloat (got[i], ==, reduced (dtype, op, world, i));
        }
      /* broadcast from the last rank */
      {
        g_autoptr (DlTensor) t = make_rank (device, dtype, rank);

        wait_ok (dl_process_group_broadcast (group, t, world - 1, FALSE, &error), &error);
        values_of (t, got, N);
        for (gint i = 0; i < N; i++)
          g_assert_cmpfloat (got[i], ==, value (dtype, world - 1, i));
      }
      /* reduce onto rank 0 */
      {
        g_autoptr (DlTensor) t = make_rank (device, dtype, rank);

        wait_ok (dl_process_group_reduce (group, t, 0, DL_REDUCE_OP_KIND_MAX, FALSE, &error),
                 &error);
        values_of (t, got, N);
        if (rank == 0)
          for (gint i = 0; i < N; i++)
            g_assert_cmpfloat (got[i], ==, reduced (dtype, DL_REDUCE_OP_KIND_MAX, world, i));
      }
      /* all_gather into one tensor, and into a list */
      {
        g_autoptr (DlTensor) t = make_rank (device, dtype, rank);
        gdouble zeros[N * 4] = { 0 };
        g_autoptr (DlTensor) out = make (device, dtype, zeros, (gint64)N * world);
        g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);

        wait_ok (dl_process_group_all_gather_into_tensor (group, out, t, FALSE, &error), &error);
        values_of (out, got, (gsize)N * world);
        for (gint r = 0; r < world; r++)
          for (gint i = 0; i < N; i++)
            g_assert_cmpfloat (got[r * N + i], ==, value (dtype, r, i));
        for (gint r = 0; r < world; r++)
          g_ptr_array_add (list, make (device, dtype, zeros, N));
        wait_ok (dl_process_group_all_gather (group, list, t, TRUE, &error), &error);
        for (gint r = 0; r < world; r++)
          {
            values_of (g_ptr_array_index (list, r), got, N);
            for (gint i = 0; i < N; i++)
              g_assert_cmpfloat (got[i], ==, value (dtype, r, i));
          }
        /* gather onto the last rank, scatter from rank 0 */
        wait_ok (dl_process_group_gather (group, t, rank == world - 1 ? list : NULL, world - 1,
                                          FALSE, &error),
                 &error);
        {
          g_autoptr (DlTensor) mine = make (device, dtype, zeros, N);

          wait_ok (
              dl_process_group_scatter (group, mine, rank == 0 ? list : NULL, 0, FALSE, &error),
              &error);
          values_of (mine, got, N);
          for (gint i = 0; i < N; i++)
            g_assert_cmpfloat (got[i], ==, value (dtype, rank, i));
        }
      }
      /* reduce_scatter: rank r gets the sums of block r */
      if (dtype != DL_DTYPE_BOOL)
        {
          gdouble in[N * 4], zeros[N] = { 0 };
          g_autoptr (DlTensor) input = NULL;
          g_autoptr (DlTensor) out = make (device, dtype, zeros, N);

          for (gint b = 0; b < world; b++)
            for (gint i = 0; i < N; i++)
              in[b * N + i] = value (dtype, rank, i) + b;
          input = make (device, dtype, in, (gint64)N * world);
          wait_ok (dl_process_group_reduce_scatter_tensor (group, out, input, DL_REDUCE_OP_KIND_SUM,
                                                           FALSE, &error),
                   &error);
          values_of (out, got, N);
          for (gint i = 0; i < N; i++)
            g_assert_cmpfloat (got[i], ==,
                               reduced (dtype, DL_REDUCE_OP_KIND_SUM, world, i) + world * rank);
        }
      /* all_to_all_single with parts of any size: rank s sends s + 1
       * rows of 2 to every rank */
      {
        gdouble in[64], zeros[64] = { 0 };
        gint64 in_splits[2], out_splits[2], rows_in = (gint64)world * (rank + 1), rows_out = 0;
        g_autoptr (DlTensor) input = NULL, output = NULL, flat_in = NULL;

        for (gint r = 0; r < world; r++)
          {
            in_splits[r] = rank + 1;
            out_splits[r] = r + 1;
            rows_out += r + 1;
          }
        for (gint64 i = 0; i < rows_in * 2; i++)
          in[i] = dtype == DL_DTYPE_BOOL ? (rank + i) % 2 : rank * 10 + i % 10;
        flat_in = make (device, dtype, in, rows_in * 2);
        input = dl_tensor_reshape (flat_in, DL_SHAPE (rows_in, 2), &error);
        g_assert_no_error (error);
        {
          g_autoptr (DlTensor) flat_out = make (device, dtype, zeros, rows_out * 2);

          output = dl_tensor_reshape (flat_out, DL_SHAPE (rows_out, 2), &error);
          g_assert_no_error (error);
        }
        wait_ok (dl_process_group_all_to_all_single_split (group, output, input, out_splits, world,
                                                           in_splits, world, FALSE, &error),
                 &error);
        values_of (output, got, (gsize)rows_out * 2);
        for (gint s = 0, row = 0; s < world; s++)
          for (gint j = 0; j < s + 1; j++, row++)
            for (gint c = 0; c < 2; c++)
              {
                /* rank s's rows for this rank start at rank × (s + 1) */
                gint64 i = ((gint64)rank * (s + 1) + j) * 2 + c;

                g_assert_cmpfloat (got[row * 2 + c], ==,
                                   dtype == DL_DTYPE_BOOL ? (s + i) % 2 : s * 10 + i % 10);
              }
      }
    }
  /* send and recv, around the ring */
  if (world > 1)
    {
      g_autoptr (DlTensor) t = make_rank (device, DL_DTYPE_FLOAT32, rank);
      gdouble zeros[N] = { 0 };
      g_autoptr (DlTensor) in = make (device, DL_DTYPE_FLOAT32, zeros, N);

      if (rank == 0)
        {
          wait_ok (dl_process_group_send (group, t, 1, 0, FALSE, &error), &error);
          wait_ok (dl_process_group_recv (group, in, 1, 0, FALSE, &error), &error);
        }
      else
        {
          wait_ok (dl_process_group_recv (group, in, 0, 0, FALSE, &error), &error);
          wait_ok (dl_process_group_send (group, t, 0, 0, FALSE, &error), &error);
        }
      values_of (in, got, N);
      for (gint i = 0; i < N; i++)
        g_assert_cmpfloat (got[i], ==, value (DL_DTYPE_FLOAT32, 1 - rank, i));
    }
  wait_ok (dl_process_group_barrier (group, FALSE, &error), &error);
  /* the ranks disagree: [6] on one, [5] on the other: an error on both,
   * not a hang; the group goes on after it */
  if (world > 1)
    {
      gdouble v[N] = { 1, 2, 3, 4, 5, 6 };
      g_autoptr (DlTensor) t = make (device, DL_DTYPE_FLOAT32, v, rank == 0 ? N : N - 1);
      g_autoptr (DlWork) work
          = dl_process_group_all_reduce (group, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);

      g_assert_null (work);
      g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
      g_assert_nonnull (strstr (error->message, "the ranks disagree"));
      g_clear_error (&error);
      wait_ok (dl_process_group_barrier (group, FALSE, &error), &error);
    }
  /* a CPU tensor: torch's words */
  {
    g_autoptr (DlTensor) cpu = dl_tensor_new_from_data ((gfloat[]){ 1, 2 }, 8, (gint64[]){ 2 }, 1,
                                                        DL_DTYPE_FLOAT32, &error);
    g_autoptr (DlWork) work = NULL;

    g_assert_no_error (error);
    work = dl_process_group_all_reduce (group, cpu, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
    g_assert_null (work);
    g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
    g_assert_nonnull (strstr (error->message, "Tensors must be CUDA and dense"));
    g_clear_error (&error);
  }
}

/* DistributedDataParallel on the GPU: a linear layer with rank-dependent
 * weights (rank 0's win) on each rank's own batch; the weight's gradient
 * is the mean over the ranks of the batch's column sums, on every rank */
static void
run_ddp (DlProcessGroup *group, DlDevice *device, gint rank, gint world)
{
  GError *error = NULL;
  g_autoptr (DlLinear) fc = dl_linear_new (3, 2, FALSE, &error);
  g_autoptr (DlDistributedDataParallel) ddp = NULL;
  gdouble grad[6];

  g_assert_no_error (error);
  g_assert_true (dl_module_to_device (DL_MODULE (fc), device, &error));
  g_assert_no_error (error);
  ddp = dl_distributed_data_parallel_new (DL_MODULE (fc), group, &error);
  g_assert_no_error (error);
  dist_ddp_step (DL_MODULE (ddp), DL_MODULE (fc), device, rank, grad);
  for (gint k = 0; k < 6; k++)
    g_assert_cmpfloat_with_epsilon (grad[k], dist_ddp_expected_grad (world, k % 3), 1e-4);
}

/* One rank of a world of @world meeting in @dir */
static void
run_rank (gint rank, gint world, const gchar *dir)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *init = g_strdup_printf ("file://%s", dir);
  g_autofree gchar *name = g_strdup_printf ("cuda:%d", rank);
  g_autoptr (DlProcessGroup) group
      = dl_distributed_new_process_group ("nccl", init, rank, world, 120, &error);
  g_autoptr (DlDevice) device = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_process_group_get_rank (group), ==, rank);
  g_assert_cmpint (dl_process_group_get_size (group), ==, world);
  g_assert_cmpstr (dl_process_group_get_backend_name (group), ==, "nccl");
  device = dl_device_get (name, &error);
  g_assert_no_error (error);
  run_collectives (group, device, rank, world);
  run_ddp (group, device, rank, world);
}

static void
test_available (void)
{
  /* registered only where the module is built: it loads, GPU or not */
  g_assert_true (dl_distributed_is_backend_available ("nccl"));
}

static void
test_no_gpu (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = NULL;
  g_autoptr (DlProcessGroup) group = NULL;

  if (dl_cuda_device_count () > 0)
    {
      g_test_skip ("a GPU is here: the engine runs instead (/nccl/world-1)");
      return;
    }
  dir = g_dir_make_tmp ("dl-nccl-XXXXXX", &error);
  g_assert_no_error (error);
  {
    g_autofree gchar *init = g_strdup_printf ("file://%s", dir);

    group = dl_distributed_new_process_group ("nccl", init, 0, 1, 10, &error);
  }
  g_assert_null (group);
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "init_process_group: nccl: rank 0: no CUDA device"));
  g_clear_error (&error);
  /* the default group too; nothing is left initialized */
  g_assert_false (dl_distributed_init_process_group ("nccl", NULL, 0, 1, 10, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_assert_false (dl_distributed_is_initialized ());
  g_rmdir (dir);
}

static void
test_world_1 (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = NULL;

  if (dl_cuda_device_count () < 1)
    {
      g_test_skip ("no GPU: the NCCL engine needs one (nothing ran on a GPU)");
      return;
    }
  dir = g_dir_make_tmp ("dl-nccl-XXXXXX", &error);
  g_assert_no_error (error);
  run_rank (0, 1, dir);
  g_rmdir (dir);
}

static const gchar *self_path;

static void
test_world_2 (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = NULL;
  g_auto (GStrv) env = NULL;
  GPid child;
  gint status = 0;

  if (dl_cuda_device_count () < 2)
    {
      g_test_skip ("fewer than 2 GPUs: two ranks need one each");
      return;
    }
  dir = g_dir_make_tmp ("dl-nccl-XXXXXX", &error);
  g_assert_no_error (error);
  /* rank 1 is this program again */
  env = g_environ_setenv (g_get_environ (), "DL_NCCL_TEST_RANK1_DIR", dir, TRUE);
  env = g_environ_unsetenv (env, "LOCAL_RANK");
  g_assert_true (g_spawn_async (NULL, (gchar *[]){ (gchar *)self_path, NULL }, env,
                                G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &child, &error));
  g_assert_no_error (error);
  run_rank (0, 2, dir);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  const gchar *rank1_dir = g_getenv ("DL_NCCL_TEST_RANK1_DIR");

  if (rank1_dir)
    {
      /* the second rank of /nccl/world-2 */
      run_rank (1, 2, rank1_dir);
      return 0;
    }
  self_path = argv[0];
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nccl/available", test_available);
  g_test_add_func ("/nccl/no-gpu", test_no_gpu);
  g_test_add_func ("/nccl/world-1", test_world_1);
  g_test_add_func ("/nccl/world-2", test_world_2);
  return g_test_run ();
}

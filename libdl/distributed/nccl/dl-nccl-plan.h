/* dl-nccl-plan.h: what the NCCL engine decides on the host, apart from
 * its calls into NCCL and CUDA, so that a test without a GPU checks it
 * (tests/distributed/test-nccl-plan.c): the dtypes and reductions in
 * NCCL's terms, the GPU a rank takes, the order of a grouped exchange of
 * parts, the offsets of parts of any size, and the frames of the
 * exchange of arguments.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <nccl.h>

#include "dl-dtype.h"
#include "distributed/dl-process-group.h"

G_BEGIN_DECLS

/* NCCL's type for @dtype. Bool travels as uint8 (one byte holding 0 or
 * 1; the base reduces it as uint8 max for sum and max, min for product
 * and min). Every dtype of libdl has one: FALSE only for a value outside
 * DlDType. */
static inline gboolean
dl_nccl_plan_dtype (DlDType dtype, ncclDataType_t *type)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        *type = ncclFloat32;
        return TRUE;
      case DL_DTYPE_FLOAT64:
        *type = ncclFloat64;
        return TRUE;
      case DL_DTYPE_FLOAT16:
        *type = ncclFloat16;
        return TRUE;
      case DL_DTYPE_BFLOAT16:
        *type = ncclBfloat16;
        return TRUE;
      case DL_DTYPE_INT32:
        *type = ncclInt32;
        return TRUE;
      case DL_DTYPE_INT64:
        *type = ncclInt64;
        return TRUE;
      case DL_DTYPE_UINT8:
      case DL_DTYPE_BOOL:
        *type = ncclUint8;
        return TRUE;
      default:
        return FALSE;
    }
}

/* NCCL's reduction for @op: AVG is NCCL's own (ncclAvg, NCCL >= 2.10:
 * floats are scaled by 1/size and summed, integers summed and divided,
 * truncating as the CPU engines do) */
static inline gboolean
dl_nccl_plan_op (DlReduceOpKind op, ncclRedOp_t *red)
{
  switch (op)
    {
      case DL_REDUCE_OP_KIND_SUM:
        *red = ncclSum;
        return TRUE;
      case DL_REDUCE_OP_KIND_PRODUCT:
        *red = ncclProd;
        return TRUE;
      case DL_REDUCE_OP_KIND_MIN:
        *red = ncclMin;
        return TRUE;
      case DL_REDUCE_OP_KIND_MAX:
        *red = ncclMax;
        return TRUE;
      case DL_REDUCE_OP_KIND_AVG:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0)
        *red = ncclAvg;
        return TRUE;
#else
        return FALSE;
#endif
      default:
        return FALSE;
    }
}

/* The GPU of rank @rank when the machine has @n_devices: @local_rank (the
 * launcher's LOCAL_RANK, NULL when unset) when given, else @rank modulo
 * @n_devices, as torch does (one process per GPU). -1 with *@why set
 * (free it) when there is none. */
static inline gint
dl_nccl_plan_device (const gchar *local_rank, gint rank, gint n_devices, gchar **why)
{
  gint64 v;

  *why = NULL;
  if (n_devices <= 0)
    {
      *why = g_strdup ("no CUDA device is available");
      return -1;
    }
  if (local_rank == NULL || *local_rank == 0)
    return rank % n_devices;
  if (!g_ascii_string_to_signed (local_rank, 10, 0, G_MAXINT, &v, NULL))
    {
      *why = g_strdup_printf ("LOCAL_RANK='%s' is not a non-negative integer", local_rank);
      return -1;
    }
  if (v >= n_devices)
    {
      *why = g_strdup_printf ("LOCAL_RANK is %" G_GINT64_FORMAT " but this machine has %d CUDA "
                              "device%s: start one process per GPU",
                              v, n_devices, n_devices == 1 ? "" : "s");
      return -1;
    }
  return (gint)v;
}

/* One step of a grouped exchange: the bytes to send to and receive from
 * @peer (either may be 0) */
typedef struct
{
  gint peer;
  gsize send_bytes;
  gsize recv_bytes;
} DlNcclStep;

/* The steps of a grouped exchange of parts (@send_bytes[r] to rank r,
 * @recv_bytes[r] from it, size entries each) on rank @rank, into @steps
 * (size entries): this rank's own part first (a copy; its send and
 * receive sizes must agree), then the peers in ring order from the next
 * rank on, sending to rank + k while receiving from rank - k, so that
 * every rank's k-th pair of calls meets its peers' k-th pair; parts of
 * no bytes are left out. Returns the number of steps, or -1 when the
 * part to itself has different sizes to send and to receive. */
static inline gint
dl_nccl_plan_parts (gint rank,
                    gint size,
                    const gsize *send_bytes,
                    const gsize *recv_bytes,
                    DlNcclStep *steps)
{
  gint n = 0;

  if (send_bytes[rank] != recv_bytes[rank])
    return -1;
  for (gint k = 0; k < size; k++)
    {
      gint to = (rank + k) % size, from = (rank - k + size) % size;

      if (send_bytes[to] == 0 && recv_bytes[from] == 0)
        continue;
      if (to == from)
        steps[n++] = (DlNcclStep){ to, send_bytes[to], recv_bytes[from] };
      else
        {
          if (send_bytes[to])
            steps[n++] = (DlNcclStep){ to, send_bytes[to], 0 };
          if (recv_bytes[from])
            steps[n++] = (DlNcclStep){ from, 0, recv_bytes[from] };
        }
    }
  return n;
}

/* The offsets of @size parts of @bytes each, one after the other, into
 * @offsets; returns their total */
static inline gsize
dl_nccl_plan_offsets (const gsize *bytes, gint size, gsize *offsets)
{
  gsize total = 0;

  for (gint r = 0; r < size; r++)
    {
      offsets[r] = total;
      total += bytes[r];
    }
  return total;
}

/* The exchange of arguments is an ncclAllGather of one frame per rank on
 * the group's GPU: @meta_bytes rounded up to 16 bytes (so that every
 * rank's frame is aligned for NCCL's vectorised copies). The scratch
 * holds this rank's frame, then every rank's: returns its bytes, and the
 * offset of rank r's frame in the gathered part is r times the frame. */
static inline gsize
dl_nccl_plan_frame_bytes (gsize meta_bytes)
{
  return (meta_bytes + 15) / 16 * 16;
}

static inline gsize
dl_nccl_plan_scratch_bytes (gsize meta_bytes, gint size)
{
  return dl_nccl_plan_frame_bytes (meta_bytes) * (gsize)(size + 1);
}

G_END_DECLS

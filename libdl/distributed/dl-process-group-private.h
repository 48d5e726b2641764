/* dl-process-group-private.h: what the three files of DlProcessGroup
 * share: dl-process-group.c (the object, its lanes and the submission of
 * jobs), dl-process-group-run.c (running a job on a lane: the argument
 * exchange, the engine's slot, the finished-job queue) and
 * dl-process-group-collectives.c (the public collectives and their
 * argument checks).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "distributed/dl-process-group.h"

G_BEGIN_DECLS

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

/* the collectives' names, by Coll (dl-process-group.c) */
extern const gchar *const dl_process_group_coll_names[];

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
  DlEvent *ready;     /* (owned) (nullable): a device group's: recorded on the
                       * caller's current stream when it was submitted */
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
  gboolean check_args;  /* exchange the arguments before each collective (DL_DISTRIBUTED_CHECK) */
} DlProcessGroupPrivate;

/* A thread and its FIFO queue of Job. A synchronous operation submitted
 * while its lane is idle runs on the caller's thread instead (when the
 * engine's slots time out by themselves,
 * DlProcessGroupClass.slots_time_out): @busy counts the lane's jobs queued or
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

DlProcessGroupPrivate *dl_process_group_get_priv (DlProcessGroup *self);

/* whether @self's engine works on device memory (NCCL): see
 * DlProcessGroupClass.device_type */
static inline gboolean
dl_process_group_on_device (DlProcessGroup *self)
{
  return DL_PROCESS_GROUP_GET_CLASS (self)->device_type != DL_DEVICE_TYPE_CPU;
}

/* the bytes of a contiguous tensor's elements */
static inline gsize
dl_process_group_tensor_nbytes (DlTensor *t)
{
  return (gsize)dl_tensor_numel (t) * dl_tensor_element_size (t);
}

/* dl-process-group.c */
void dl_process_group_job_free (Job *job);
Job *
dl_process_group_job_new (DlProcessGroup *self, Coll coll, DlTensor *tensor, gint root, gint op);
DlWork *dl_process_group_submit (DlProcessGroup *self, Job *job, gboolean async_op, GError **error);
DlWork *dl_process_group_fail_collective (DlProcessGroup *self, Coll coll, GError **error);

/* dl-process-group-run.c */
void dl_process_group_run_and_complete (Job *job, gboolean by_caller);
gpointer dl_process_group_worker_main (gpointer data);

G_END_DECLS

/* dl-process-group.h: DlProcessGroup, a group of processes that run
 * collectives together, the base class of the communication engines.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-stream.h"
#include "dl-tensor.h"
#include "distributed/dl-work.h"

G_BEGIN_DECLS

/**
 * DlReduceOpKind:
 * @DL_REDUCE_OP_KIND_SUM: the sum of the ranks' values
 * @DL_REDUCE_OP_KIND_PRODUCT: their product
 * @DL_REDUCE_OP_KIND_MIN: their minimum
 * @DL_REDUCE_OP_KIND_MAX: their maximum
 * @DL_REDUCE_OP_KIND_AVG: their mean (the sum divided by the group's size;
 *   integer tensors divide with truncation, as the engines' integer
 *   division does)
 *
 * How a reducing collective (dl_process_group_all_reduce(),
 * dl_process_group_reduce(), dl_process_group_reduce_scatter()) combines
 * the values of the ranks, element by element: torch.distributed.ReduceOp.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_REDUCE_OP_KIND_SUM,
  DL_REDUCE_OP_KIND_PRODUCT,
  DL_REDUCE_OP_KIND_MIN,
  DL_REDUCE_OP_KIND_MAX,
  DL_REDUCE_OP_KIND_AVG,
} DlReduceOpKind;

#define DL_TYPE_PROCESS_GROUP (dl_process_group_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlProcessGroup, dl_process_group, DL, PROCESS_GROUP, GObject)

/**
 * DlProcessGroupClass:
 * @parent_class: the parent class
 * @all_reduce: reduces @count elements of @dtype in @buf across the ranks
 *   with @op (never %DL_REDUCE_OP_KIND_AVG: the base sums and divides),
 *   leaving the result in @buf on every rank
 * @broadcast: copies @nbytes of @buf from rank @root to every rank
 * @reduce: as @all_reduce, with the result in @buf on rank @root only
 *   (the other ranks' @buf is left as the engine leaves it)
 * @all_gather: every rank's @nbytes of @send, in rank order, into @recv
 *   (size × @nbytes) on every rank
 * @gather: as @all_gather, into @recv on rank @root only (@recv is %NULL
 *   on the other ranks)
 * @scatter: the r-th @nbytes of @send (size × @nbytes, on rank @root only;
 *   %NULL elsewhere) into @recv on rank r
 * @reduce_scatter: reduces @send (size × @count elements) across the
 *   ranks with @op and leaves the r-th @count elements of the result in
 *   @recv on rank r
 * @all_to_all: the r-th @nbytes of @send go to rank r, whose @recv holds
 *   what rank s sent it at offset s × @nbytes
 * @send: sends @nbytes of @buf to rank @dst with @tag
 * @recv: receives @nbytes into @buf from rank @src with @tag
 * @barrier: returns once every rank of the group has entered it
 * @new_group: the subgroup of the ranks @ranks (ranks of this group, in
 *   the new group's rank order); called on every rank of this group;
 *   returns %NULL without an error on a rank that is not in @ranks
 * @recv_any: as @recv, from whichever rank sends a message with @tag
 *   first; sets @src to that rank (runs on the group's thread for
 *   receives from any source)
 * @slots_time_out: %TRUE when every slot of the engine returns by itself,
 *   with an error naming the operation, once #DlProcessGroup:timeout has
 *   passed (Gloo's do; MPI's enter a blocking call only once every rank
 *   has committed to it, and end the job should it outlive the timeout
 *   all the same). The base then
 *   runs a synchronous operation whose lane is idle on the caller's
 *   thread instead of handing it to the lane's thread and waiting for it
 *   (two wake-ups between threads per call); the caller still gets the
 *   timeout's error, from the slot. %FALSE (the default) for an engine
 *   that cannot promise it: the base's own wait enforces the timeout.
 *   Set in the engine's class_init.
 * @exchange: the exchange of arguments before each collective: every
 *   rank's @meta (@meta_bytes, the same on every call) into @metas, and
 *   the data each rank sends with it (of any size up to
 *   @exchange_data_max divided by the number of peers) into @datas
 *   (optional: the base sends fixed frames with @all_gather when %NULL)
 * @exchange_data_max: the most bytes of data a rank's @exchange sends to
 *   all its peers together
 * @device_type: where the slots' buffers live: %DL_DEVICE_TYPE_CPU (the
 *   default) for host memory, %DL_DEVICE_TYPE_CUDA for an engine whose
 *   slots take device pointers of the group's GPU and only queue their
 *   work on @communication_stream (NCCL). The base then takes tensors on
 *   that device only, runs every operation of the group, sends and
 *   receives included, on one thread, orders each after the caller's
 *   current stream and completes each work on the GPU's timeline (see
 *   dl_work_wait()); @exchange (which such an engine must have) takes and
 *   fills host memory as always
 * @communication_stream: (nullable): for a @device_type other than the
 *   CPU, the group's own stream, on which its slots queue their work
 * @exchange_parts: one grouped exchange of parts of any size: for every
 *   rank r, the @send_bytes[r] bytes at @sends[r] go to rank r and the
 *   @recv_bytes[r] bytes from rank r land at @recvs[r] (0: nothing; the
 *   part to this rank itself is a copy); what a device engine's
 *   gather, scatter, all_to_all and list forms run on (optional for the
 *   CPU engines)
 *
 * The class of process groups: each engine (MPI, Gloo) is a subclass that
 * fills these slots. Every slot is synchronous, works on contiguous host
 * buffers and returns %FALSE (%NULL) with @error set on failure. The
 * collectives run on the group's worker thread, one at a time, in the
 * order they were submitted (the same on every rank); @send and @recv run
 * on a thread of their own per peer and direction (in order for each
 * peer), so they may run while a collective or another peer's message is
 * under way: an engine's @send and @recv must be safe to call alongside
 * its other slots. A slot should give up once #DlProcessGroup:timeout has
 * passed (dl_process_group_get_timeout()), so that its thread is free
 * again. The base class checks the
 * tensors, exchanges their metadata across the ranks before each
 * collective (so that a mismatch is an error on every rank instead of a
 * hang), queues the jobs, divides for %DL_REDUCE_OP_KIND_AVG and enforces
 * #DlProcessGroup:timeout. A %NULL slot is %DL_ERROR_NOT_SUPPORTED naming
 * the collective and the engine.
 *
 * The buffers are C memory: the slots are for engines written in C, not
 * for bindings.
 *
 * Since: 0.1
 */
struct _DlProcessGroupClass
{
  GObjectClass parent_class;

  gboolean (*all_reduce) (DlProcessGroup *self,
                          gpointer buf,
                          gsize count,
                          DlDType dtype,
                          DlReduceOpKind op,
                          GError **error);
  gboolean (
      *broadcast) (DlProcessGroup *self, gpointer buf, gsize nbytes, gint root, GError **error);
  gboolean (*reduce) (DlProcessGroup *self,
                      gpointer buf,
                      gsize count,
                      DlDType dtype,
                      DlReduceOpKind op,
                      gint root,
                      GError **error);
  gboolean (*all_gather) (DlProcessGroup *self,
                          gconstpointer send,
                          gpointer recv,
                          gsize nbytes,
                          GError **error);
  gboolean (*gather) (DlProcessGroup *self,
                      gconstpointer send,
                      gpointer recv,
                      gsize nbytes,
                      gint root,
                      GError **error);
  gboolean (*scatter) (DlProcessGroup *self,
                       gconstpointer send,
                       gpointer recv,
                       gsize nbytes,
                       gint root,
                       GError **error);
  gboolean (*reduce_scatter) (DlProcessGroup *self,
                              gconstpointer send,
                              gpointer recv,
                              gsize count,
                              DlDType dtype,
                              DlReduceOpKind op,
                              GError **error);
  gboolean (*all_to_all) (DlProcessGroup *self,
                          gconstpointer send,
                          gpointer recv,
                          gsize nbytes,
                          GError **error);
  gboolean (*send) (DlProcessGroup *self,
                    gconstpointer buf,
                    gsize nbytes,
                    gint dst,
                    gint tag,
                    GError **error);
  gboolean (
      *recv) (DlProcessGroup *self, gpointer buf, gsize nbytes, gint src, gint tag, GError **error);
  gboolean (*barrier) (DlProcessGroup *self, GError **error);
  DlProcessGroup *(*new_group) (DlProcessGroup *self,
                                const gint *ranks,
                                gint n_ranks,
                                GError **error);
  gboolean (*recv_any) (DlProcessGroup *self,
                        gpointer buf,
                        gsize nbytes,
                        gint *src,
                        gint tag,
                        GError **error);
  gboolean slots_time_out;
  gboolean (*exchange) (DlProcessGroup *self,
                        gconstpointer meta,
                        gsize meta_bytes,
                        gconstpointer data,
                        gsize data_bytes,
                        gpointer metas,
                        gconstpointer *datas,
                        GError **error);
  gsize exchange_data_max;
  DlDeviceType device_type;
  DlStream *(*communication_stream) (DlProcessGroup *self);
  gboolean (*exchange_parts) (DlProcessGroup *self,
                              const gconstpointer *sends,
                              const gsize *send_bytes,
                              gpointer const *recvs,
                              const gsize *recv_bytes,
                              GError **error);

  /*< private >*/
  /* slots_time_out, exchange and exchange_data_max took three pointers of
   * the padding (a gboolean and its alignment fill a pointer's place),
   * device_type, communication_stream and exchange_parts three more, so
   * the class keeps its size */
  gpointer padding[1];
};

DL_EXPORT
gint dl_process_group_get_rank (DlProcessGroup *self);
DL_EXPORT
gint dl_process_group_get_size (DlProcessGroup *self);
DL_EXPORT
gdouble dl_process_group_get_timeout (DlProcessGroup *self);
DL_EXPORT
const gchar *dl_process_group_get_backend_name (DlProcessGroup *self);

DL_EXPORT
DlWork *dl_process_group_all_reduce (DlProcessGroup *self,
                                     DlTensor *tensor,
                                     DlReduceOpKind op,
                                     gboolean async_op,
                                     GError **error);
DL_EXPORT
DlWork *dl_process_group_broadcast (DlProcessGroup *self,
                                    DlTensor *tensor,
                                    gint src,
                                    gboolean async_op,
                                    GError **error);
DL_EXPORT
DlWork *dl_process_group_reduce (DlProcessGroup *self,
                                 DlTensor *tensor,
                                 gint dst,
                                 DlReduceOpKind op,
                                 gboolean async_op,
                                 GError **error);
DL_EXPORT
DlWork *dl_process_group_all_gather (DlProcessGroup *self,
                                     GPtrArray *tensor_list,
                                     DlTensor *tensor,
                                     gboolean async_op,
                                     GError **error);
DL_EXPORT
DlWork *dl_process_group_all_gather_into_tensor (DlProcessGroup *self,
                                                 DlTensor *output,
                                                 DlTensor *input,
                                                 gboolean async_op,
                                                 GError **error);
DL_EXPORT
DlWork *dl_process_group_gather (DlProcessGroup *self,
                                 DlTensor *tensor,
                                 GPtrArray *gather_list,
                                 gint dst,
                                 gboolean async_op,
                                 GError **error);
DL_EXPORT
DlWork *dl_process_group_scatter (DlProcessGroup *self,
                                  DlTensor *tensor,
                                  GPtrArray *scatter_list,
                                  gint src,
                                  gboolean async_op,
                                  GError **error);
DL_EXPORT
DlWork *dl_process_group_reduce_scatter (DlProcessGroup *self,
                                         DlTensor *output,
                                         GPtrArray *input_list,
                                         DlReduceOpKind op,
                                         gboolean async_op,
                                         GError **error);
DL_EXPORT
DlWork *dl_process_group_reduce_scatter_tensor (DlProcessGroup *self,
                                                DlTensor *output,
                                                DlTensor *input,
                                                DlReduceOpKind op,
                                                gboolean async_op,
                                                GError **error);
DL_EXPORT
DlWork *dl_process_group_all_to_all (DlProcessGroup *self,
                                     GPtrArray *output_list,
                                     GPtrArray *input_list,
                                     gboolean async_op,
                                     GError **error);
DL_EXPORT
DlWork *dl_process_group_all_to_all_single (DlProcessGroup *self,
                                            DlTensor *output,
                                            DlTensor *input,
                                            gboolean async_op,
                                            GError **error);
DL_EXPORT
DlWork *dl_process_group_send (DlProcessGroup *self,
                               DlTensor *tensor,
                               gint dst,
                               gint tag,
                               gboolean async_op,
                               GError **error);
DL_EXPORT
DlWork *dl_process_group_recv (DlProcessGroup *self,
                               DlTensor *tensor,
                               gint src,
                               gint tag,
                               gboolean async_op,
                               GError **error);
DL_EXPORT
DlWork *dl_process_group_recv_any_source (DlProcessGroup *self,
                                          DlTensor *tensor,
                                          gint tag,
                                          gboolean async_op,
                                          GError **error);
DL_EXPORT
DlWork *dl_process_group_all_to_all_single_split (DlProcessGroup *self,
                                                  DlTensor *output,
                                                  DlTensor *input,
                                                  const gint64 *output_split_sizes,
                                                  gsize n_output_split_sizes,
                                                  const gint64 *input_split_sizes,
                                                  gsize n_input_split_sizes,
                                                  gboolean async_op,
                                                  GError **error);
DL_EXPORT
DlWork *dl_process_group_barrier (DlProcessGroup *self, gboolean async_op, GError **error);
DL_EXPORT
DlProcessGroup *
dl_process_group_new_group (DlProcessGroup *self, const gint *ranks, gsize n_ranks, GError **error);

G_END_DECLS

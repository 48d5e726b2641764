/* dl-device.h: DlDevice, a physical device tensors live on.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-types.h"

G_BEGIN_DECLS

/**
 * DlDeviceType:
 * @DL_DEVICE_TYPE_CPU: the host CPU
 * @DL_DEVICE_TYPE_CUDA: an NVIDIA GPU through the CUDA backend
 * @DL_DEVICE_TYPE_META: the meta device: tensors with a shape, a dtype and
 *   strides but no data, on which ops compute their outputs' geometry only
 *
 * The kind of a #DlDevice.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_DEVICE_TYPE_CPU,
  DL_DEVICE_TYPE_CUDA,
  DL_DEVICE_TYPE_META,
} DlDeviceType;

/**
 * DlMemoryStats:
 * @allocated_bytes: bytes of tensor storage allocated now
 *   (`allocated_bytes.all.current` of `torch.cuda.memory_stats ()`)
 * @max_allocated_bytes: the peak of @allocated_bytes since the program
 *   started or dl_device_reset_peak_memory_stats() was called
 * @reserved_bytes: bytes the device's caching allocator holds: allocated
 *   plus cached (`reserved_bytes.all.current`)
 * @max_reserved_bytes: the peak of @reserved_bytes, reset with
 *   @max_allocated_bytes
 * @cached_bytes: bytes held and not allocated: freed blocks kept for reuse
 * @n_allocations: blocks allocated now (`allocation.all.current`)
 * @n_segments: the memory regions the caching allocator got from the
 *   device and holds (`segment.all.current`)
 * @n_free_blocks: freed blocks kept for reuse
 * @largest_free_block: the size of the largest of them
 * @inactive_split_bytes: bytes of the free blocks that are a piece of a
 *   segment in part allocated, which only requests that fit the piece can
 *   use (`inactive_split_bytes.all.current`): a measure of fragmentation
 * @n_inactive_split: the number of those blocks (`inactive_split.all.current`)
 * @n_alloc_retries: allocations that failed, emptied the cache and were
 *   tried again (`num_alloc_retries`)
 *
 * The memory figures of a device, as dl_device_get_memory_stats() reads
 * them. The CUDA backend's stream allocator fills every field; a device
 * whose allocator does not split blocks (the CPU) has only the byte
 * figures, and 0 in the counts of blocks, segments and retries. The meta
 * device allocates nothing and reports 0 everywhere.
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 allocated_bytes;
  guint64 max_allocated_bytes;
  guint64 reserved_bytes;
  guint64 max_reserved_bytes;
  guint64 cached_bytes;
  guint64 n_allocations;
  guint64 n_segments;
  guint64 n_free_blocks;
  guint64 largest_free_block;
  guint64 inactive_split_bytes;
  guint64 n_inactive_split;
  guint64 n_alloc_retries;
} DlMemoryStats;

#define DL_TYPE_MEMORY_STATS (dl_memory_stats_get_type ())
DL_EXPORT
GType dl_memory_stats_get_type (void) G_GNUC_CONST;
DL_EXPORT
DlMemoryStats *dl_memory_stats_copy (const DlMemoryStats *self);
DL_EXPORT
void dl_memory_stats_free (DlMemoryStats *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DlMemoryStats, dl_memory_stats_free)

#define DL_TYPE_DEVICE (dl_device_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlDevice, dl_device, DL, DEVICE, GObject)

DL_EXPORT
DlDevice *dl_device_get (const gchar *name, GError **error);
DL_EXPORT
DlDevice *dl_device_get_default (void);
DL_EXPORT
gint dl_cuda_device_count (void);
DL_EXPORT
gboolean dl_cuda_is_available (void);
DL_EXPORT
void dl_set_default_device (DlDevice *device);
DL_EXPORT
gboolean dl_set_num_threads (gint n, GError **error);
DL_EXPORT
gint dl_get_num_threads (void);
DL_EXPORT
gboolean dl_set_flush_denormal (gboolean enabled);
DL_EXPORT
DlDeviceType dl_device_get_device_type (DlDevice *self);
DL_EXPORT
gint dl_device_get_index (DlDevice *self);
DL_EXPORT
const gchar *dl_device_get_name (DlDevice *self);
DL_EXPORT
const gchar *dl_device_get_product_name (DlDevice *self);
DL_EXPORT
guint64 dl_device_get_total_memory (DlDevice *self);
DL_EXPORT
gint dl_device_get_multi_processor_count (DlDevice *self);
DL_EXPORT
void dl_device_get_capability (DlDevice *self, gint *major, gint *minor);
DL_EXPORT
gboolean dl_device_equal (DlDevice *self, DlDevice *other);
DL_EXPORT
guint64 dl_device_get_memory_allocated (DlDevice *self);
DL_EXPORT
guint64 dl_device_get_max_memory_allocated (DlDevice *self);
DL_EXPORT
guint64 dl_device_get_memory_reserved (DlDevice *self);
DL_EXPORT
guint64 dl_device_get_max_memory_reserved (DlDevice *self);
DL_EXPORT
DlMemoryStats *dl_device_get_memory_stats (DlDevice *self);
DL_EXPORT
void dl_device_reset_peak_memory_stats (DlDevice *self);
DL_EXPORT
void dl_device_empty_cache (DlDevice *self);
DL_EXPORT
gboolean dl_device_synchronize (DlDevice *self, GError **error);

G_END_DECLS

/* dl-storage.c
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#define _GNU_SOURCE /* memfd_create */

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "dl-storage-private.h"
#include "dl-error.h"

/**
 * DlStorage:
 *
 * A refcounted block of memory on one device. Tensors are views into a
 * storage; the memory goes back to the device's allocator when the last
 * view and the last reference are gone.
 *
 * Since: 0.1
 */
G_DEFINE_BOXED_TYPE (DlStorage, dl_storage, dl_storage_ref, dl_storage_unref)

static gchar *
format_bytes (gsize nbytes)
{
  return g_format_size_full (nbytes, G_FORMAT_SIZE_IEC_UNITS);
}

/* The struct's size rounded up so that inline data keeps malloc's 16-byte
 * alignment (enough for small tensors; big ones come from the allocator,
 * 64-byte aligned). */
#define HEADER_SIZE ((sizeof (DlStorage) + 15) & ~(gsize)15)

DlStorage *
dl_storage_new (DlDevice *device, gsize nbytes, GError **error)
{
  return dl_storage_new_at (device, nbytes, -1, error);
}

/* Storages of at least this many bytes placed by dl_storage_new_at() take
 * a page more and sit where their model sits in a page */
#define PLACE_IN_PAGE_MIN ((gsize)64 << 10)
#define PAGE 4096

/* As dl_storage_new, with the data placed like data at @place (an address
 * modulo 4096, or -1 for no preference) in host memory from the allocator.
 * An elementwise result placed like its input: at the same offset within a
 * cache line, its kernel runs all its streams on line boundaries (numpy's
 * buffers start 16 bytes into one); and, for big ones, at the same offset
 * within a page, so that no store of the result shares its address's low
 * 12 bits with a load of the input a few elements ahead (a store just
 * ahead of a load that does makes the CPU wait for the store: "4K
 * aliasing", which made a + b of numpy-backed vectors 20 % slower on the
 * AMD Zen 4 measured). Inline and device storages ignore @place. */
DlStorage *
dl_storage_new_at (DlDevice *device, gsize nbytes, gssize place, GError **error)
{
  DlStorage *self;
  gsize block_size = 0;
  gsize head = 0, extra = 0;
  gboolean in_page = FALSE;
  char *data;

  if (nbytes <= DL_STORAGE_INLINE_MAX && dl_device_get_backend (device)->host_memory)
    {
      /* one allocation for struct and data: small tensors are made and
       * freed at the rate of Python operators */
      void *p = malloc (HEADER_SIZE + MAX (nbytes, 1));

      if (p == NULL)
        goto oom;
      self = p;
      memset (self, 0, sizeof (DlStorage));
      self->kind = DL_STORAGE_INLINE;
      self->ref_count = 1;
      self->device = g_object_ref (device);
      self->data = (char *)p + HEADER_SIZE;
      self->nbytes = nbytes;
      self->block_size = HEADER_SIZE + nbytes;
      dl_allocator_track (dl_device_get_allocator (device), self->block_size);
      return self;
    }

  if (G_UNLIKELY (dl_device_get_backend (device)->meta))
    {
      /* the meta device: the size and no memory */
      self = g_new0 (DlStorage, 1);
      self->kind = DL_STORAGE_META;
      self->ref_count = 1;
      self->device = g_object_ref (device);
      self->nbytes = nbytes;
      return self;
    }
  if (place >= 0 && dl_device_get_backend (device)->host_memory)
    {
      /* a page more whatever the place, so that the block's size, and its
       * size class in the allocator's cache, stay the same */
      in_page = nbytes >= PLACE_IN_PAGE_MIN;
      extra = head = in_page ? PAGE : (gsize)place % 64;
    }
  data = dl_allocator_alloc (dl_device_get_allocator (device), nbytes + extra, &block_size);
  if (data == NULL)
    goto oom;
  if (in_page)
    head = ((gsize)place - (guintptr)data) % PAGE;
  self = g_new0 (DlStorage, 1);
  self->kind = DL_STORAGE_ALLOCATED;
  self->ref_count = 1;
  self->device = g_object_ref (device);
  self->data = data + head;
  self->head = head;
  self->nbytes = nbytes;
  self->block_size = block_size;
  return self;

oom:
  {
    g_autofree gchar *size = format_bytes (nbytes);
    g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                 "%s: out of memory: tried to allocate %s (%" G_GSIZE_FORMAT " bytes)",
                 dl_device_get_name (device), size, nbytes);
    return NULL;
  }
}

DlStorage *
dl_storage_new_external (DlDevice *device,
                         gpointer data,
                         gsize nbytes,
                         DlReleaseFunc release,
                         gpointer user_data,
                         GDestroyNotify notify)
{
  DlStorage *self = g_new0 (DlStorage, 1);

  self->kind = DL_STORAGE_EXTERNAL;
  self->ref_count = 1;
  self->device = g_object_ref (device);
  self->data = data;
  self->nbytes = nbytes;
  self->release = release;
  self->release_data = user_data;
  self->release_notify = notify;
  return self;
}

/**
 * dl_storage_ref:
 * @self: a #DlStorage
 *
 * Takes a reference to the storage; dl_storage_unref() drops it. A storage
 * lives while a tensor views it or a reference is held.
 *
 * Returns: (transfer full): @self, with one more reference
 *
 * Since: 0.1
 */
DlStorage *
dl_storage_ref (DlStorage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

/**
 * dl_storage_unref:
 * @self: (transfer full): a #DlStorage
 *
 * Drops a reference; the memory is released with the last one.
 *
 * Since: 0.1
 */
void
dl_storage_unref (DlStorage *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;
  if (self->shared)
    {
      munmap (self->data, self->map_size);
      close (self->shm_fd);
    }
  switch (self->kind)
    {
      case DL_STORAGE_ALLOCATED:
        if (!self->shared)
          dl_allocator_release (dl_device_get_allocator (self->device), self->data - self->head,
                                self->block_size);
        g_object_unref (self->device);
        g_free (self);
        break;
      case DL_STORAGE_INLINE:
        dl_allocator_track (dl_device_get_allocator (self->device), -(gssize)self->block_size);
        g_object_unref (self->device);
        free (self);
        break;
      case DL_STORAGE_META:
        g_object_unref (self->device);
        g_free (self);
        break;
      case DL_STORAGE_EXTERNAL:
        if (self->release && !self->shared)
          self->release (self->release_data);
        if (self->release_notify && !self->shared)
          self->release_notify (self->release_data);
        g_object_unref (self->device);
        g_free (self);
        break;
    }
}

static gboolean
set_errno_error (GError **error, const gchar *what, gsize nbytes)
{
  int saved = errno;

  g_set_error (error, DL_ERROR, saved == ENOMEM ? DL_ERROR_OUT_OF_MEMORY : DL_ERROR_IO,
               "share_memory_: %s of %" G_GSIZE_FORMAT " bytes failed: %s", what, nbytes,
               g_strerror (saved));
  return FALSE;
}

/* Moves the storage's bytes into a new memfd mapped MAP_SHARED: every
 * view keeps working, and the fd lets another process map the same
 * memory. The memory the storage had goes back where it came from. Host
 * storages only. */
gboolean
dl_storage_share_memory (DlStorage *self, GError **error)
{
  gsize size = MAX (self->nbytes, 1);
  gint fd;
  void *p;

  if (self->shared)
    return TRUE;
  if (!dl_device_get_backend (self->device)->host_memory)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "share_memory_: storage on %s is not host memory",
                   dl_device_get_name (self->device));
      return FALSE;
    }
  if ((fd = memfd_create ("dl-shared-storage", MFD_CLOEXEC)) < 0)
    return set_errno_error (error, "memfd_create", self->nbytes);
  if (ftruncate (fd, size) != 0)
    {
      set_errno_error (error, "ftruncate", self->nbytes);
      close (fd);
      return FALSE;
    }
  if ((p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
    {
      set_errno_error (error, "mmap", self->nbytes);
      close (fd);
      return FALSE;
    }
  memcpy (p, self->data, self->nbytes);
  switch (self->kind)
    {
      case DL_STORAGE_ALLOCATED:
        dl_allocator_release (dl_device_get_allocator (self->device), self->data - self->head,
                              self->block_size);
        self->head = 0;
        break;
      case DL_STORAGE_INLINE: /* part of the struct's own block */
      case DL_STORAGE_META:   /* not host memory: refused above */
        break;
      case DL_STORAGE_EXTERNAL:
        if (self->release)
          self->release (self->release_data);
        if (self->release_notify)
          self->release_notify (self->release_data);
        break;
    }
  self->data = p;
  self->shm_fd = fd;
  self->map_size = size;
  self->shared = TRUE;
  return TRUE;
}

/* A storage over the shared memory of @fd (which another process shared,
 * dl_storage_share_memory), at least @nbytes long; @fd is duplicated. */
DlStorage *
dl_storage_new_from_fd (DlDevice *device, gint fd, gsize nbytes, GError **error)
{
  struct stat st;
  DlStorage *self;
  gsize size = MAX (nbytes, 1);
  gint own;
  void *p;

  if (fstat (fd, &st) != 0)
    {
      set_errno_error (error, "fstat", nbytes);
      return NULL;
    }
  if ((gsize)st.st_size < size)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "share_memory_: the shared memory holds %" G_GINT64_FORMAT
                   " bytes, %" G_GSIZE_FORMAT " were expected",
                   (gint64)st.st_size, nbytes);
      return NULL;
    }
  if ((own = fcntl (fd, F_DUPFD_CLOEXEC, 0)) < 0)
    {
      set_errno_error (error, "dup", nbytes);
      return NULL;
    }
  if ((p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0)) == MAP_FAILED)
    {
      set_errno_error (error, "mmap", nbytes);
      close (own);
      return NULL;
    }
  self = dl_storage_new_external (device, p, nbytes, NULL, NULL, NULL);
  self->shared = TRUE;
  self->shm_fd = own;
  self->map_size = size;
  return self;
}

/**
 * dl_storage_get_nbytes:
 * @self: a #DlStorage
 *
 * Gives the size of the storage's memory in bytes, as
 * `torch.UntypedStorage.nbytes ()`.
 *
 * Returns: the size of the storage in bytes
 *
 * Since: 0.1
 */
gsize
dl_storage_get_nbytes (DlStorage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->nbytes;
}

/**
 * dl_storage_get_device:
 * @self: a #DlStorage
 *
 * Gives the device that holds the storage's memory.
 *
 * Returns: (transfer none): the device that owns the memory
 *
 * Since: 0.1
 */
DlDevice *
dl_storage_get_device (DlStorage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->device;
}

/**
 * dl_storage_is_external:
 * @self: a #DlStorage
 *
 * Says whether the storage borrows its memory from another owner (an array
 * from dl_tensor_new_from_address(), a mapped checkpoint file) instead of
 * allocating it, and gives it back to that owner when done.
 *
 * Returns: whether the storage wraps memory that another owner (a numpy
 *   array, a mapped file) lent it
 *
 * Since: 0.1
 */
gboolean
dl_storage_is_external (DlStorage *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->kind == DL_STORAGE_EXTERNAL;
}

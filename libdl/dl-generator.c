/* dl-generator.c: DlGenerator, the state of a counter-based random stream.
 *
 * A generator is a Philox key (the seed) and a counter (the offset).  Each
 * request reserves the blocks it needs by advancing the offset under a lock;
 * the backend then derives element i of the request from block offset + i /
 * per_block alone, so the numbers a seed gives do not depend on the number
 * of threads.  Each device has one default generator, used when a random op
 * is given none.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include <string.h>

#include "dl-generator-private.h"
#include "dl-device-private.h"
#include "dl-error.h"

#define DL_DEFAULT_SEED G_GUINT64_CONSTANT (67280421310721)
#define DL_STATE_MAGIC G_GUINT64_CONSTANT (0x31474e52444c4400) /* "\0DLDRNG1" */
#define DL_STATE_SIZE (3 * sizeof (guint64))

/**
 * DlGenerator:
 *
 * A seedable source of random numbers for one device, as torch.Generator.
 * Random ops (dl_rand_gen(), dl_tensor_uniform_gen_(), dl_randperm(), ...)
 * take an optional generator; without one they use the device's default
 * generator, which dl_manual_seed() seeds.
 *
 * Since: 0.1
 */
struct _DlGenerator
{
  GObject parent_instance;

  DlDevice *device;
  GMutex lock;
  guint64 seed;
  guint64 offset;
};

/**
 * DlGeneratorClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlGenerator. The type is final: its class adds no
 * virtual method to that of GObject, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlGenerator, dl_generator, G_TYPE_OBJECT)

static void
dl_generator_finalize (GObject *object)
{
  DlGenerator *self = DL_GENERATOR (object);

  g_clear_object (&self->device);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (dl_generator_parent_class)->finalize (object);
}

static void
dl_generator_class_init (DlGeneratorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_generator_finalize;
}

static void
dl_generator_init (DlGenerator *self)
{
  g_mutex_init (&self->lock);
  self->seed = DL_DEFAULT_SEED;
  self->device = g_object_ref (dl_device_cpu ());
}

/**
 * dl_generator_new:
 * @device: (nullable): the device whose tensors it fills, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Creates a generator seeded with the default seed, as torch.Generator.
 *
 * Returns: (transfer full): a new #DlGenerator, or %NULL with @error set
 *
 * Since: 0.1
 */
DlGenerator *
dl_generator_new (DlDevice *device, GError **error)
{
  DlGenerator *self;

  g_return_val_if_fail (device == NULL || DL_IS_DEVICE (device), NULL);
  self = g_object_new (DL_TYPE_GENERATOR, NULL);
  if (device != NULL)
    g_set_object (&self->device, device);
  return self;
}

/**
 * dl_generator_manual_seed:
 * @self: a #DlGenerator
 * @seed: the seed
 *
 * Restarts the stream of @self from @seed.
 *
 * Since: 0.1
 */
void
dl_generator_manual_seed (DlGenerator *self, guint64 seed)
{
  g_return_if_fail (DL_IS_GENERATOR (self));
  dl_mutex_lock (&self->lock);
  self->seed = seed;
  self->offset = 0;
  dl_mutex_unlock (&self->lock);
}

/**
 * dl_generator_seed:
 * @self: a #DlGenerator
 *
 * Seeds @self with a nondeterministic seed, as torch.Generator.seed.
 *
 * Returns: the seed chosen
 *
 * Since: 0.1
 */
guint64
dl_generator_seed (DlGenerator *self)
{
  guint64 seed;

  g_return_val_if_fail (DL_IS_GENERATOR (self), 0);
  /* GLib seeds its global generator from /dev/urandom */
  seed = ((guint64)g_random_int () << 32) | g_random_int ();
  dl_generator_manual_seed (self, seed);
  return seed;
}

/**
 * dl_generator_initial_seed:
 * @self: a #DlGenerator
 *
 * Gives the seed the generator was last seeded with, as
 * `torch.Generator.initial_seed ()`.
 *
 * Returns: the seed the stream of @self started from
 *
 * Since: 0.1
 */
guint64
dl_generator_initial_seed (DlGenerator *self)
{
  guint64 seed;

  g_return_val_if_fail (DL_IS_GENERATOR (self), 0);
  dl_mutex_lock (&self->lock);
  seed = self->seed;
  dl_mutex_unlock (&self->lock);
  return seed;
}

/**
 * dl_generator_get_offset:
 * @self: a #DlGenerator
 *
 * Gives how far the generator has advanced since it was last seeded, counted
 * in blocks of its counter-based (Philox) stream. Seeding again resets it to
 * 0; two generators with the same seed and offset give the same numbers.
 *
 * Returns: the number of Philox blocks used since the last seeding
 *
 * Since: 0.1
 */
guint64
dl_generator_get_offset (DlGenerator *self)
{
  guint64 offset;

  g_return_val_if_fail (DL_IS_GENERATOR (self), 0);
  dl_mutex_lock (&self->lock);
  offset = self->offset;
  dl_mutex_unlock (&self->lock);
  return offset;
}

/**
 * dl_generator_get_device:
 * @self: a #DlGenerator
 *
 * Gives the device the generator makes random numbers for; the random
 * functions refuse a generator of another device than their result's.
 *
 * Returns: (transfer none): the device of @self
 *
 * Since: 0.1
 */
DlDevice *
dl_generator_get_device (DlGenerator *self)
{
  g_return_val_if_fail (DL_IS_GENERATOR (self), NULL);
  return self->device;
}

/**
 * dl_generator_get_state:
 * @self: a #DlGenerator
 *
 * Saves the position of @self in its stream: 24 bytes (a tag, the seed
 * and the offset, little-endian) that dl_generator_set_state() restores.
 *
 * Returns: (transfer full): the state
 *
 * Since: 0.1
 */
GBytes *
dl_generator_get_state (DlGenerator *self)
{
  guint64 words[3];

  g_return_val_if_fail (DL_IS_GENERATOR (self), NULL);
  dl_mutex_lock (&self->lock);
  words[0] = GUINT64_TO_LE (DL_STATE_MAGIC);
  words[1] = GUINT64_TO_LE (self->seed);
  words[2] = GUINT64_TO_LE (self->offset);
  dl_mutex_unlock (&self->lock);
  return g_bytes_new (words, sizeof words);
}

/**
 * dl_generator_set_state:
 * @self: a #DlGenerator
 * @state: a state from dl_generator_get_state()
 * @error: return location for a #GError
 *
 * Puts @self back where it was when @state was saved.
 *
 * Returns: %TRUE, or %FALSE with @error set (not a generator state)
 *
 * Since: 0.1
 */
gboolean
dl_generator_set_state (DlGenerator *self, GBytes *state, GError **error)
{
  guint64 words[3];
  gsize size = 0;
  const void *data;

  g_return_val_if_fail (DL_IS_GENERATOR (self), FALSE);
  g_return_val_if_fail (state != NULL, FALSE);
  data = g_bytes_get_data (state, &size);
  if (size == DL_STATE_SIZE)
    memcpy (words, data, sizeof words);
  if (size != DL_STATE_SIZE || GUINT64_FROM_LE (words[0]) != DL_STATE_MAGIC)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_ARGUMENT,
          "set_state: expected a generator state of %u bytes from get_state, got %" G_GSIZE_FORMAT
          " bytes%s",
          (guint)DL_STATE_SIZE, size, size == DL_STATE_SIZE ? " with a wrong tag" : "");
      return FALSE;
    }
  dl_mutex_lock (&self->lock);
  self->seed = GUINT64_FROM_LE (words[1]);
  self->offset = GUINT64_FROM_LE (words[2]);
  dl_mutex_unlock (&self->lock);
  return TRUE;
}

static GMutex defaults_lock;
static GHashTable *defaults; /* DlDevice* -> DlGenerator*, never freed */
/* the seed of the last dl_generator_manual_seed_all(), which a device's
 * default generator made after it starts from (torch seeds a GPU that is
 * initialised after manual_seed the same way) */
static gboolean seeded_all;
static guint64 seed_all;

/**
 * dl_device_get_default_generator:
 * @device: (nullable): a #DlDevice, or %NULL for the CPU
 *
 * The generator random ops on @device use when they are given none.
 *
 * Returns: (transfer none): the default generator of @device
 *
 * Since: 0.1
 */
DlGenerator *
dl_device_get_default_generator (DlDevice *device)
{
  DlGenerator *gen;

  g_return_val_if_fail (device == NULL || DL_IS_DEVICE (device), NULL);
  if (device == NULL)
    device = dl_device_cpu ();
  dl_mutex_lock (&defaults_lock);
  if (defaults == NULL)
    defaults = g_hash_table_new (NULL, NULL);
  gen = g_hash_table_lookup (defaults, device);
  if (gen == NULL)
    {
      gen = dl_generator_new (device, NULL);
      if (seeded_all)
        dl_generator_manual_seed (gen, seed_all);
      g_hash_table_insert (defaults, g_object_ref (device), gen);
    }
  dl_mutex_unlock (&defaults_lock);
  return gen;
}

/**
 * dl_default_generator:
 *
 * The default generator of the CPU, as torch.default_generator.
 *
 * Returns: (transfer none): the CPU's default generator
 *
 * Since: 0.1
 */
DlGenerator *
dl_default_generator (void)
{
  return dl_device_get_default_generator (NULL);
}

void
dl_generator_reserve (DlGenerator *self,
                      DlDevice *device,
                      guint64 n_blocks,
                      guint64 *seed,
                      guint64 *offset)
{
  if (self == NULL)
    self = dl_device_get_default_generator (device);
  dl_mutex_lock (&self->lock);
  *seed = self->seed;
  *offset = self->offset;
  self->offset += n_blocks;
  dl_mutex_unlock (&self->lock);
}

/* Seeds the default generator of every device, those made so far and
 * those made later, with @seed. */
void
dl_generator_manual_seed_all (guint64 seed)
{
  GHashTableIter iter;
  gpointer gen;

  /* the CPU's exists from here on */
  dl_device_get_default_generator (NULL);
  dl_mutex_lock (&defaults_lock);
  seeded_all = TRUE;
  seed_all = seed;
  g_hash_table_iter_init (&iter, defaults);
  while (g_hash_table_iter_next (&iter, NULL, &gen))
    dl_generator_manual_seed (gen, seed);
  dl_mutex_unlock (&defaults_lock);
}

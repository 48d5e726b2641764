/* dl-generator.c: DlGenerator, the state of a random stream.
 *
 * A CPU generator is PyTorch's: a Mersenne Twister (backends/dl-mt19937.h)
 * that the CPU's kernels draw from one element after the other, under the
 * generator's lock, so a seed gives PyTorch's numbers; its state is saved
 * in the layout of torch.get_rng_state(). Every other device's generator
 * is counter-based: a Philox key (the seed) and a counter (the offset).
 * Each request reserves the blocks it needs by advancing the offset under
 * the lock; the backend then derives element i of the request from block
 * offset + i / per_block alone, so the numbers do not depend on the number
 * of threads. Each device has one default generator, used when a random op
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
#include "backends/dl-mt19937.h"

#define DL_DEFAULT_SEED G_GUINT64_CONSTANT (67280421310721)
#define DL_STATE_MAGIC G_GUINT64_CONSTANT (0x31474e52444c4400) /* "\0DLDRNG1" */
#define DL_STATE_SIZE (3 * sizeof (guint64))

/* PyTorch's CPU generator state (torch.get_rng_state ()), little-endian
 * x86-64 layout: the initial seed (u64), left (i32), seeded (i32), next
 * (u64), the 624 words of state each in a u64, three doubles of which the
 * second is the cached float64 normal, its validity (i32), padding, then
 * the cached float32 normal and its validity (one byte), padding */
#define DL_MT_STATE_SIZE 5056
#define DL_MT_AT_SEED 0
#define DL_MT_AT_LEFT 8
#define DL_MT_AT_SEEDED 12
#define DL_MT_AT_NEXT 16
#define DL_MT_AT_WORDS 24
#define DL_MT_AT_NORMAL_Y (DL_MT_AT_WORDS + 8 * DL_MT_N + 8)
#define DL_MT_AT_NORMAL_VALID (DL_MT_AT_WORDS + 8 * DL_MT_N + 24)
#define DL_MT_AT_FLOAT_NORMAL (DL_MT_AT_WORDS + 8 * DL_MT_N + 32)
#define DL_MT_AT_FLOAT_VALID (DL_MT_AT_FLOAT_NORMAL + 4)

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
  DlMtState *mt; /* the CPU's stream, or NULL for a counter-based one */
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
  g_clear_pointer (&self->mt, g_free);
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
  self->mt = g_new (DlMtState, 1);
  dl_mt_seed (self->mt, DL_DEFAULT_SEED);
}

/**
 * dl_generator_new:
 * @device: (nullable): the device whose tensors it fills, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Creates a generator seeded with the default seed, as torch.Generator.
 * A generator of the CPU draws PyTorch's numbers: the same seed gives the
 * same tensors as torch.manual_seed() does in PyTorch.
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
  if (dl_device_get_device_type (self->device) != DL_DEVICE_TYPE_CPU)
    g_clear_pointer (&self->mt, g_free);
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
  if (self->mt)
    dl_mt_seed (self->mt, seed);
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
  seed = self->mt ? self->mt->seed : self->seed;
  dl_mutex_unlock (&self->lock);
  return seed;
}

/**
 * dl_generator_get_offset:
 * @self: a #DlGenerator
 *
 * Gives how far the generator has advanced since it was last seeded. A
 * counter-based generator (every device's but the CPU's) counts blocks of
 * its Philox stream, and two of them with the same seed and offset give the
 * same numbers. A CPU generator counts the 32-bit words its Mersenne Twister
 * has given since it was seeded or its state was set. Seeding again resets
 * the count to 0.
 *
 * Returns: the number of Philox blocks, or of the CPU's words, drawn since
 *   the last seeding
 *
 * Since: 0.1
 */
guint64
dl_generator_get_offset (DlGenerator *self)
{
  guint64 offset;

  g_return_val_if_fail (DL_IS_GENERATOR (self), 0);
  dl_mutex_lock (&self->lock);
  offset = self->mt ? self->mt->drawn : self->offset;
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

static void
put_u64 (guint8 *at, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (at, &v, 8);
}

static void
put_u32 (guint8 *at, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (at, &v, 4);
}

static guint64
get_u64 (const guint8 *at)
{
  guint64 v;

  memcpy (&v, at, 8);
  return GUINT64_FROM_LE (v);
}

static guint32
get_u32 (const guint8 *at)
{
  guint32 v;

  memcpy (&v, at, 4);
  return GUINT32_FROM_LE (v);
}

/* @mt in PyTorch's layout (DL_MT_STATE_SIZE bytes at @out, zeroed) */
static void
mt_state_write (const DlMtState *mt, guint8 *out)
{
  guint64 bits;
  guint32 fbits;

  put_u64 (out + DL_MT_AT_SEED, mt->seed);
  put_u32 (out + DL_MT_AT_LEFT, (guint32)mt->left);
  put_u32 (out + DL_MT_AT_SEEDED, 1);
  put_u64 (out + DL_MT_AT_NEXT, mt->next);
  for (gint i = 0; i < DL_MT_N; i++)
    put_u64 (out + DL_MT_AT_WORDS + 8 * i, mt->state[i]);
  if (mt->has_normal)
    {
      memcpy (&bits, &mt->normal, 8);
      put_u64 (out + DL_MT_AT_NORMAL_Y, bits);
      put_u32 (out + DL_MT_AT_NORMAL_VALID, 1);
    }
  if (mt->has_float_normal)
    {
      memcpy (&fbits, &mt->float_normal, 4);
      put_u32 (out + DL_MT_AT_FLOAT_NORMAL, fbits);
      out[DL_MT_AT_FLOAT_VALID] = 1;
    }
}

/* reads PyTorch's layout into @mt; FALSE when it is not a valid state */
static gboolean
mt_state_read (DlMtState *mt, const guint8 *in)
{
  gint32 left = (gint32)get_u32 (in + DL_MT_AT_LEFT);
  guint64 next = get_u64 (in + DL_MT_AT_NEXT);
  guint64 bits;
  guint32 fbits;

  /* PyTorch's own test of a state it is given */
  if (get_u32 (in + DL_MT_AT_SEEDED) == 0 || left <= 0 || left > DL_MT_N || next > DL_MT_N)
    return FALSE;
  mt->seed = get_u64 (in + DL_MT_AT_SEED);
  mt->left = left;
  mt->next = (guint32)next;
  mt->drawn = 0;
  for (gint i = 0; i < DL_MT_N; i++)
    mt->state[i] = (guint32)get_u64 (in + DL_MT_AT_WORDS + 8 * i);
  mt->has_normal = get_u32 (in + DL_MT_AT_NORMAL_VALID) != 0;
  bits = get_u64 (in + DL_MT_AT_NORMAL_Y);
  memcpy (&mt->normal, &bits, 8);
  mt->has_float_normal = in[DL_MT_AT_FLOAT_VALID] != 0;
  fbits = get_u32 (in + DL_MT_AT_FLOAT_NORMAL);
  memcpy (&mt->float_normal, &fbits, 4);
  return TRUE;
}

/**
 * dl_generator_get_state:
 * @self: a #DlGenerator
 *
 * Saves the position of @self in its stream, for dl_generator_set_state().
 * A CPU generator's state is PyTorch's, byte for byte: the 5056 bytes of
 * torch.get_rng_state() (the Mersenne Twister's words and the cached
 * normal number), which PyTorch's set_rng_state() also takes. Another
 * device's is 24 bytes: a tag, the seed and the offset, little-endian.
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
  if (self->mt)
    {
      guint8 *out = g_malloc0 (DL_MT_STATE_SIZE);

      dl_mutex_lock (&self->lock);
      mt_state_write (self->mt, out);
      dl_mutex_unlock (&self->lock);
      return g_bytes_new_take (out, DL_MT_STATE_SIZE);
    }
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
 * @state: a state from dl_generator_get_state() (for a CPU generator, also
 *   one from PyTorch's torch.get_rng_state())
 * @error: return location for a #GError
 *
 * Puts @self back where it was when @state was saved.
 *
 * Returns: %TRUE, or %FALSE with @error set (not a state of this device's
 *   generators)
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
  if (self->mt)
    {
      DlMtState mt;

      if (size != DL_MT_STATE_SIZE)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "set_state: Expected a CPUGeneratorImplState of size %d but found the "
                       "input RNG state size to be %" G_GSIZE_FORMAT,
                       DL_MT_STATE_SIZE, size);
          return FALSE;
        }
      if (!mt_state_read (&mt, data))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "set_state: Invalid mt19937 state");
          return FALSE;
        }
      dl_mutex_lock (&self->lock);
      *self->mt = mt;
      self->seed = mt.seed;
      dl_mutex_unlock (&self->lock);
      return TRUE;
    }
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
 * The generator random ops on @device use when they are given none. The
 * CPU's starts from a nondeterministic seed (dl_generator_seed()), as
 * PyTorch's default generator does, until dl_manual_seed() seeds it; those
 * of other devices start from the default seed, as a new #DlGenerator.
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
      else if (dl_device_get_device_type (device) == DL_DEVICE_TYPE_CPU)
        /* as PyTorch's: a process that never seeds draws other numbers
         * each run */
        dl_generator_seed (gen);
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
  if (self->mt)
    {
      /* a fresh Philox key from the CPU's stream */
      *seed = dl_mt_wide (self->mt);
      *offset = 0;
    }
  else
    {
      *seed = self->seed;
      *offset = self->offset;
      self->offset += n_blocks;
    }
  dl_mutex_unlock (&self->lock);
}

DlGenerator *
dl_generator_begin (DlGenerator *self, DlDevice *device, guint64 n_blocks, DlRandomDraw *draw)
{
  if (self == NULL)
    self = dl_device_get_default_generator (device);
  memset (draw, 0, sizeof *draw);
  dl_mutex_lock (&self->lock);
  if (self->mt)
    {
      draw->mt = self->mt;
      return self;
    }
  draw->seed = self->seed;
  draw->offset = self->offset;
  self->offset += n_blocks;
  dl_mutex_unlock (&self->lock);
  return NULL;
}

void
dl_generator_end (DlGenerator *held)
{
  if (held)
    dl_mutex_unlock (&held->lock);
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

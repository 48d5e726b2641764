/* dl-distributed.c: the engine modules and the default process group.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gmodule.h>

#include "dl-device-private.h"
#include "dl-error.h"
#include "distributed/dl-distributed-private.h"
#include "distributed/dl-work-private.h"
#include "distributed/dl-distributed.h"

/* The engines libdl knows, by the name torch gives them */
static const gchar *const engines[] = { "mpi", "gloo", "nccl" };

static GMutex lock;
static DlProcessGroupFactory factories[G_N_ELEMENTS (engines)];
static gchar *unavailable[G_N_ELEMENTS (engines)]; /* why an engine cannot load, once tried */
static DlProcessGroup *default_group;              /* (owned) (nullable) */

static gint
engine_index (const gchar *backend)
{
  for (guint i = 0; i < G_N_ELEMENTS (engines); i++)
    if (g_ascii_strcasecmp (backend, engines[i]) == 0)
      return (gint)i;
  return -1;
}

/* The factory of engine @i, loading its module on first use; NULL with
 * @error set when it cannot */
static DlProcessGroupFactory
engine_factory (gint i, GError **error)
{
  g_mutex_lock (&lock);
  if (factories[i] == NULL && unavailable[i] == NULL)
    {
      g_autofree gchar *file = g_strdup_printf ("libdl-%s-1.0.so", engines[i]);
      g_autofree gchar *subdir = g_build_filename ("distributed", engines[i], NULL);
      g_autofree gchar *symbol = g_strdup_printf ("dl_%s_module_init", engines[i]);
      g_autofree gchar *where = NULL;
      g_autofree gchar *path = dl_backend_module_find (file, subdir, &where);
      DlDistributedModuleInit init = NULL;
      GModule *module;

      if (path == NULL)
        unavailable[i] = g_strdup_printf ("the %s engine module %s was not found (it is built only "
                                          "when its library is installed; looked in %s)",
                                          engines[i], file, where);
      /* global, not local: Open MPI's own plugins look up libmpi's symbols
       * in the global scope */
      else if ((module = g_module_open (path, G_MODULE_BIND_LAZY)) == NULL)
        unavailable[i] = g_strdup_printf ("the %s engine module %s cannot be loaded: %s",
                                          engines[i], path, g_module_error ());
      else if (!g_module_symbol (module, symbol, (gpointer *)&init) || init == NULL
               || (factories[i] = init ()) == NULL)
        {
          unavailable[i]
              = g_strdup_printf ("the %s engine module %s has no %s", engines[i], path, symbol);
          g_module_close (module);
        }
      else
        g_module_make_resident (module);
    }
  if (factories[i] == NULL)
    g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "init_process_group: %s", unavailable[i]);
  g_mutex_unlock (&lock);
  return factories[i];
}

/**
 * dl_distributed_is_backend_available:
 * @backend: an engine's name: "mpi", "gloo" or "nccl"
 *
 * Whether the engine @backend can be used: its module was built and
 * loads (torch's `is_mpi_available()`, `is_gloo_available()`,
 * `is_nccl_available()`). The first call loads the module. For "nccl"
 * that says nothing of the GPUs: on a machine without one the module
 * loads, and dl_distributed_new_process_group() fails naming the reason.
 *
 * Returns: %TRUE when the engine is there
 *
 * Since: 0.1
 */
gboolean
dl_distributed_is_backend_available (const gchar *backend)
{
  gint i;

  g_return_val_if_fail (backend != NULL, FALSE);
  i = engine_index (backend);
  return i >= 0 && engine_factory (i, NULL) != NULL;
}

/**
 * dl_distributed_new_process_group:
 * @backend: the engine: "mpi", "gloo" or "nccl"
 * @init_method: (nullable): how the ranks find each other: "env://" (the
 *   default, from `MASTER_ADDR`, `MASTER_PORT`, `RANK` and `WORLD_SIZE`),
 *   "tcp://HOST:PORT" or "file://PATH", as the engine supports them
 * @rank: this process's rank, or -1 to take it from the environment (or,
 *   for MPI, from MPI itself)
 * @world_size: the number of ranks, or -1 likewise
 * @timeout: the group's #DlProcessGroup:timeout in seconds (0 or less:
 *   none)
 * @error: return location for a #GError
 *
 * Loads the engine @backend, joins the other ranks and returns the group
 * of all of them, without making it the default group (see
 * dl_distributed_init_process_group()).
 *
 * With "mpi" the ranks are MPI's own (launch with `mpirun -np N`):
 * @init_method is ignored, and a @rank or @world_size other than -1 must
 * agree with MPI's. With "nccl" each process takes one GPU (`LOCAL_RANK`'s,
 * else the rank modulo the number of GPUs) and the group's collectives
 * take tensors on it; without a GPU the call fails with
 * %DL_ERROR_DEVICE naming the reason.
 *
 * Returns: (transfer full): the new group, or %NULL with @error set
 *
 * Since: 0.1
 */
DlProcessGroup *
dl_distributed_new_process_group (const gchar *backend,
                                  const gchar *init_method,
                                  gint rank,
                                  gint world_size,
                                  gdouble timeout,
                                  GError **error)
{
  DlProcessGroupFactory factory;
  gint i;

  g_return_val_if_fail (backend != NULL, NULL);
  i = engine_index (backend);
  if (i < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: unknown backend '%s' (known: mpi, gloo, nccl)", backend);
      return NULL;
    }
  if (rank < -1 || world_size < -1 || world_size == 0
      || (rank >= 0 && world_size > 0 && rank >= world_size))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: rank %d and world_size %d are not a rank of a group", rank,
                   world_size);
      return NULL;
    }
  factory = engine_factory (i, error);
  if (factory == NULL)
    return NULL;
  return factory (init_method, rank, world_size, timeout, error);
}

/**
 * dl_distributed_init_process_group:
 * @backend: the engine: "mpi", "gloo" or "nccl"
 * @init_method: (nullable): how the ranks find each other (see
 *   dl_distributed_new_process_group())
 * @rank: this process's rank, or -1 to take it from the environment
 * @world_size: the number of ranks, or -1 to take it from the environment
 * @timeout: the timeout of the group's operations in seconds
 *   (%DL_DISTRIBUTED_DEFAULT_TIMEOUT in torch; 0 or less: none)
 * @error: return location for a #GError
 *
 * Makes the default process group (torch's `init_process_group`): every
 * rank calls it once, before any collective, and
 * dl_distributed_get_default_group() returns the group after.
 *
 * Returns: %TRUE on success, %FALSE with @error set (also when a default
 *   group exists already)
 *
 * Since: 0.1
 */
gboolean
dl_distributed_init_process_group (const gchar *backend,
                                   const gchar *init_method,
                                   gint rank,
                                   gint world_size,
                                   gdouble timeout,
                                   GError **error)
{
  DlProcessGroup *group;

  g_return_val_if_fail (backend != NULL, FALSE);
  if (dl_distributed_is_initialized ())
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "init_process_group: trying to initialize the default process group twice");
      return FALSE;
    }
  group = dl_distributed_new_process_group (backend, init_method, rank, world_size, timeout, error);
  if (group == NULL)
    return FALSE;
  g_mutex_lock (&lock);
  if (default_group == NULL)
    default_group = group;
  g_mutex_unlock (&lock);
  if (default_group != group)
    {
      g_object_unref (group);
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "init_process_group: trying to initialize the default process group twice");
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_distributed_get_default_group:
 *
 * The default process group that dl_distributed_init_process_group()
 * made (torch's `group.WORLD`).
 *
 * Returns: (transfer none) (nullable): the group, or %NULL before
 *   initialization and after dl_distributed_destroy_process_group()
 *
 * Since: 0.1
 */
DlProcessGroup *
dl_distributed_get_default_group (void)
{
  DlProcessGroup *group;

  g_mutex_lock (&lock);
  group = default_group;
  g_mutex_unlock (&lock);
  return group;
}

/**
 * dl_distributed_is_initialized:
 *
 * Whether the default process group exists (torch's `is_initialized`).
 *
 * Returns: %TRUE between dl_distributed_init_process_group() and
 *   dl_distributed_destroy_process_group()
 *
 * Since: 0.1
 */
gboolean
dl_distributed_is_initialized (void)
{
  return dl_distributed_get_default_group () != NULL;
}

/**
 * dl_distributed_destroy_process_group:
 * @error: return location for a #GError
 *
 * Drops the default process group (torch's `destroy_process_group`); the
 * engine shuts down once the last reference to the group and to its
 * subgroups goes.
 *
 * Returns: %TRUE, or %FALSE with @error set when there is no default group
 *
 * Since: 0.1
 */
gboolean
dl_distributed_destroy_process_group (GError **error)
{
  DlProcessGroup *group;

  g_mutex_lock (&lock);
  group = g_steal_pointer (&default_group);
  g_mutex_unlock (&lock);
  if (group == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "destroy_process_group: the default process group has not been initialized");
      return FALSE;
    }
  /* the finished jobs' references to the group go first */
  dl_process_group_reap_finished ();
  g_object_unref (group);
  return TRUE;
}

/* dl-store.h: the rendezvous of the engines that join without MPI, for
 * code in C: where the store is (env://, tcp://HOST:PORT, file://DIR),
 * and a key-value store there. Compiled into the modules that need it
 * (dl-store.cc, dl-tcp-store.cc): the Gloo engine reads the address
 * with it, the NCCL engine also hands out its unique id through it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where @init_method (NULL: "env://") says the store is: a TCP store at
 * *@host:*@port (env:// from MASTER_ADDR and MASTER_PORT; a "[v6]" host
 * loses its brackets), or a directory *@dir (file://, *@port 0). Errors
 * are DL_ERROR_ARGUMENT "init_process_group: @engine: ...". */
gboolean dl_store_parse_init_method (const gchar *engine,
                                     const gchar *init_method,
                                     gchar **host,
                                     gint *port,
                                     gchar **dir,
                                     GError **error);

/* A rank or size the caller left at -1: the environment variable @name
 * (a non-negative integer), else an error naming it */
gboolean dl_store_env_int (const gchar *engine, const gchar *name, gint *value, GError **error);

typedef struct _DlStore DlStore;

/* The store of @init_method for rank @rank (rank 0 serves a TCP store);
 * every get waits up to @timeout seconds for its key */
DlStore *dl_store_new (const gchar *engine,
                       const gchar *init_method,
                       gint rank,
                       gdouble timeout,
                       GError **error);
gboolean
dl_store_set (DlStore *self, const gchar *key, gconstpointer data, gsize n, GError **error);
/* the value of @key, once some rank has set it: exactly @n bytes into
 * @data (a value of another size is an error) */
gboolean dl_store_get (DlStore *self, const gchar *key, gpointer data, gsize n, GError **error);
/* closes the store (rank 0: stops serving it; file://: removes the keys
 * this process wrote) */
void dl_store_free (DlStore *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DlStore, dl_store_free)

G_END_DECLS

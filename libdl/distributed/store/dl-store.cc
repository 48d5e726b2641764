/* dl-store.cc: the C API of the engines' rendezvous (dl-store.h): the
 * init method's address, and a store there: the TCP store of
 * dl-tcp-store.cc, or a directory of files (one per key, written under a
 * temporary name and renamed into place, so that a reader sees all of
 * the value or none of it).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <glib/gstdio.h>

#include "dl-error.h"
#include "distributed/store/dl-store.h"
#include "distributed/store/dl-tcp-store.h"

struct _DlStore
{
  std::unique_ptr<dl_store::TcpStore> tcp; /* or, when NULL: */
  std::string dir;
  std::vector<std::string> written; /* the files of this process's keys */
  std::chrono::milliseconds timeout;
  std::string engine, where;
};

extern "C" gboolean
dl_store_parse_init_method (const gchar *engine,
                            const gchar *init_method,
                            gchar **host,
                            gint *port,
                            gchar **dir,
                            GError **error)
{
  g_autofree gchar *joined = NULL;
  const gchar *text, *what, *colon;
  gchar *end = NULL;
  gint64 p;

  *host = *dir = NULL;
  *port = 0;
  if (init_method == NULL)
    init_method = "env://";
  if (g_str_has_prefix (init_method, "env://"))
    {
      const gchar *addr = g_getenv ("MASTER_ADDR"), *port_text = g_getenv ("MASTER_PORT");

      if (addr == NULL || port_text == NULL)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "init_process_group: %s: env:// needs MASTER_ADDR and MASTER_PORT "
                       "(MASTER_ADDR is %s, MASTER_PORT is %s)",
                       engine, addr ? addr : "not set", port_text ? port_text : "not set");
          return FALSE;
        }
      text = joined = g_strdup_printf ("%s:%s", addr, port_text);
      what = "MASTER_ADDR:MASTER_PORT";
    }
  else if (g_str_has_prefix (init_method, "tcp://"))
    {
      text = init_method + 6;
      what = "tcp://";
    }
  else if (g_str_has_prefix (init_method, "file://") && init_method[7] != 0)
    {
      *dir = g_strdup (init_method + 7);
      return TRUE;
    }
  else
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: %s: unknown init method '%s' (env://, tcp://HOST:PORT "
                   "or file://DIRECTORY)",
                   engine, init_method);
      return FALSE;
    }
  colon = strrchr (text, ':');
  if (colon == NULL || colon == text || colon[1] == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: %s: %s '%s' is not HOST:PORT", engine, what, text);
      return FALSE;
    }
  p = g_ascii_strtoll (colon + 1, &end, 10);
  if (*end != 0 || p <= 0 || p > 65535)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: %s: %s '%s': the port '%s' is not in 1..65535", engine,
                   what, text, colon + 1);
      return FALSE;
    }
  if (colon - text > 2 && text[0] == '[' && colon[-1] == ']')
    *host = g_strndup (text + 1, colon - text - 2);
  else
    *host = g_strndup (text, colon - text);
  *port = (gint)p;
  return TRUE;
}

extern "C" gboolean
dl_store_env_int (const gchar *engine, const gchar *name, gint *value, GError **error)
{
  const gchar *text = g_getenv (name);
  gchar *end = NULL;
  gint64 v;

  if (text == NULL || *text == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: %s: %s is not set (pass the value or set the "
                   "environment variable)",
                   engine, name);
      return FALSE;
    }
  v = g_ascii_strtoll (text, &end, 10);
  if (*end != 0 || v < 0 || v > G_MAXINT)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: %s: %s='%s' is not a non-negative integer", engine, name,
                   text);
      return FALSE;
    }
  *value = (gint)v;
  return TRUE;
}

/* the file of @key in a file:// store: '/' cannot be in a file name */
static std::string
key_path (DlStore *self, const gchar *key)
{
  g_autofree gchar *name = g_strdelimit (g_strdup (key), "/", '_');
  g_autofree gchar *path = g_build_filename (self->dir.c_str (), name, NULL);

  return path;
}

extern "C" DlStore *
dl_store_new (const gchar *engine,
              const gchar *init_method,
              gint rank,
              gdouble timeout,
              GError **error)
{
  g_autofree gchar *host = NULL, *dir = NULL;
  gint port = 0;
  auto self = std::make_unique<DlStore> ();

  if (!dl_store_parse_init_method (engine, init_method, &host, &port, &dir, error))
    return NULL;
  self->timeout = std::chrono::milliseconds ((gint64)(timeout * 1000.0));
  self->engine = engine;
  self->where = init_method ? init_method : "env://";
  if (dir)
    {
      if (g_mkdir_with_parents (dir, 0700) != 0)
        {
          int err = errno;

          g_set_error (error, DL_ERROR, DL_ERROR_IO,
                       "init_process_group: %s: cannot make the rendezvous directory %s: %s",
                       engine, dir, g_strerror (err));
          return NULL;
        }
      self->dir = dir;
      return self.release ();
    }
  try
    {
      self->tcp.reset (new dl_store::TcpStore (host, port, rank == 0, self->timeout));
    }
  catch (const std::exception &e)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "init_process_group: %s: rank %d, %s: %s",
                   engine, rank, self->where.c_str (), e.what ());
      return NULL;
    }
  return self.release ();
}

extern "C" gboolean
dl_store_set (DlStore *self, const gchar *key, gconstpointer data, gsize n, GError **error)
{
  if (self->tcp)
    {
      try
        {
          const char *p = static_cast<const char *> (data);

          self->tcp->set (key, std::vector<char> (p, p + n));
          return TRUE;
        }
      catch (const std::exception &e)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "init_process_group: %s: %s: %s",
                       self->engine.c_str (), self->where.c_str (), e.what ());
          return FALSE;
        }
    }
  std::string path = key_path (self, key);
  g_autofree gchar *tmp = g_strdup_printf ("%s.%d.tmp", path.c_str (), (int)getpid ());
  GError *local = NULL;

  if (!g_file_set_contents (tmp, static_cast<const gchar *> (data), (gssize)n, &local)
      || g_rename (tmp, path.c_str ()) != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_IO,
                   "init_process_group: %s: cannot write key '%s' in %s: %s", self->engine.c_str (),
                   key, self->dir.c_str (), local ? local->message : g_strerror (errno));
      g_clear_error (&local);
      g_unlink (tmp);
      return FALSE;
    }
  self->written.push_back (path);
  return TRUE;
}

extern "C" gboolean
dl_store_get (DlStore *self, const gchar *key, gpointer data, gsize n, GError **error)
{
  std::vector<char> value;

  if (self->tcp)
    {
      try
        {
          value = self->tcp->get (key);
        }
      catch (const std::exception &e)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "init_process_group: %s: %s: %s",
                       self->engine.c_str (), self->where.c_str (), e.what ());
          return FALSE;
        }
    }
  else
    {
      std::string path = key_path (self, key);
      auto deadline = std::chrono::steady_clock::now () + self->timeout;
      g_autofree gchar *contents = NULL;
      gsize len = 0;

      /* the writer renames the whole value into place: poll until then */
      while (!g_file_get_contents (path.c_str (), &contents, &len, NULL))
        {
          if (std::chrono::steady_clock::now () >= deadline)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                           "init_process_group: %s: timed out after %g s waiting for key '%s' "
                           "in %s (has every rank started?)",
                           self->engine.c_str (), self->timeout.count () / 1000.0, key,
                           self->dir.c_str ());
              return FALSE;
            }
          std::this_thread::sleep_for (std::chrono::milliseconds (10));
        }
      value.assign (contents, contents + len);
    }
  if (value.size () != n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "init_process_group: %s: key '%s' in %s holds %" G_GSIZE_FORMAT
                   " bytes, not %" G_GSIZE_FORMAT " (left from another run?)",
                   self->engine.c_str (), key, self->where.c_str (), value.size (), n);
      return FALSE;
    }
  memcpy (data, value.data (), n);
  return TRUE;
}

extern "C" void
dl_store_free (DlStore *self)
{
  if (self == NULL)
    return;
  for (const auto &path : self->written)
    g_unlink (path.c_str ());
  delete self;
}

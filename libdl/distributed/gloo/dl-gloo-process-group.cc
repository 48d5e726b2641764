/* dl-gloo-process-group.cc: the Gloo engine of DlProcessGroup, the loadable
 * module libdl-gloo-1.0.so.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each group is a Gloo context (gloo::rendezvous::Context) on Gloo's TCP
 * transport; its slots run Gloo's collectives on the group's worker thread.
 * The ranks meet through a key-value store:
 *
 *   env://             TcpStore (store/dl-tcp-store.cc) at MASTER_ADDR:MASTER_PORT,
 *                      served by rank 0; RANK and WORLD_SIZE when the caller
 *                      passes -1
 *   tcp://HOST:PORT    the same store at HOST:PORT
 *   file://DIR         Gloo's FileStore in the directory DIR (made when
 *                      missing): one small file per rank and group, removed
 *                      when the last group of the process goes
 *
 * Subgroups meet in the same store under a prefix of their own: the
 * parent's prefix and the number of new_group calls the parent has seen,
 * which is the same on every rank since every rank of the parent calls
 * new_group in the same order.
 *
 * Reductions are Gloo's with libdl's own element-wise function
 * (dl_reduce_host(), the one the MPI engine uses too), so every dtype
 * reduces the same way on both engines: float16 and bfloat16 through
 * float, bool as logical or / and. reduce_scatter is an all-reduce of the
 * whole input followed by a copy of this rank's part (Debian's Gloo has no
 * reduce-scatter on unbound buffers).
 *
 * The exchange of arguments before each collective (the exchange slot)
 * is the engine's own, on unbound buffers whose receives stay posted from
 * one collective to the next; it carries the data of a collective of up
 * to 2 MB divided by the number of peers, which then finishes in the base
 * without one of Gloo's collectives (see struct Exchange).
 *
 * The group's timeout is the context's: a collective whose peer is gone
 * fails at once (Gloo sees the closed connection), one whose peer hangs
 * fails after the timeout, both with a GError naming the collective.
 */
#include "config.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gmodule.h>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include "dl-error.h"
#include "distributed/dl-distributed-private.h"
#include "distributed/store/dl-store.h"
#include "distributed/store/dl-tcp-store.h"

namespace
{

/* Gloo's FileStore, waiting for a key as long as the group's timeout says
 * (Gloo's own get waits its default 30 s) */
class FileStore : public gloo::rendezvous::FileStore
{
public:
  FileStore (const std::string &dir, std::chrono::milliseconds timeout)
      : gloo::rendezvous::FileStore (dir), timeout_ (timeout)
  {
  }

  ~FileStore () override
  {
    /* the keys this process wrote; every rank has read them by now (each
     * rendezvous ends with a barrier) */
    for (const auto &path : getAllKeyFilePaths ())
      unlink (path.c_str ());
  }

  std::vector<char> get (const std::string &key) override
  {
    gloo::rendezvous::FileStore::wait ({ key }, timeout_);
    return gloo::rendezvous::FileStore::get (key);
  }

  void wait (const std::vector<std::string> &keys) override
  {
    gloo::rendezvous::FileStore::wait (keys, timeout_);
  }

  void wait (const std::vector<std::string> &keys,
             const std::chrono::milliseconds &timeout) override
  {
    gloo::rendezvous::FileStore::wait (keys, timeout);
  }

private:
  std::chrono::milliseconds timeout_;
};

/* The engines' TCP store (store/dl-tcp-store.cc, shared with the NCCL
 * engine) as Gloo's Store */
class TcpStore : public gloo::rendezvous::Store
{
public:
  TcpStore (const std::string &host, int port, bool is_server, std::chrono::milliseconds timeout)
      : store_ (host, port, is_server, timeout)
  {
  }

  void set (const std::string &key, const std::vector<char> &data) override
  {
    store_.set (key, data);
  }

  std::vector<char> get (const std::string &key) override
  {
    return store_.get (key);
  }

  void wait (const std::vector<std::string> &keys) override
  {
    store_.wait (keys);
  }

  void wait (const std::vector<std::string> &keys,
             const std::chrono::milliseconds &timeout) override
  {
    store_.wait (keys, timeout);
  }

private:
  dl_store::TcpStore store_;
};

/* What a group and the subgroups made from it share */
struct Shared
{
  std::shared_ptr<gloo::rendezvous::Store> store;
  std::shared_ptr<gloo::transport::Device> device;
  std::string where; /* the init method, for errors */
};

} // namespace

namespace
{

/* The exchange of arguments (DlProcessGroupClass::exchange): per peer,
 * an unbound buffer for its arguments and two for its data, in turn,
 * whose receives are posted again as soon as a part has come in (the data
 * buffer of this call stays the caller's until the next one, so the next
 * call's receive goes into the other), so that the peer's next part goes
 * out at once when it is sent (Gloo sends an unbound buffer only once the
 * receiver has said it is ready: without a receive posted in advance,
 * each part would wait for that notice to come back) */
struct Exchange
{
  size_t meta_bytes = 0;
  size_t data_bytes = 0;                   /* each data buffer's: the most a peer sends */
  std::vector<std::vector<char> > metas;   /* by peer */
  std::vector<std::vector<char> > data[2]; /* by peer, in turn */
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer> > meta_in, data_in[2];
  std::vector<bool> meta_posted, data_posted[2]; /* whether the receive is posted */
  int turn = 0;                                  /* the data buffer of this call */
};

/* the slots of the exchange's messages: prefixes none of Gloo's
 * collectives use (theirs are 0x01 to 0x08), above the user's tags of
 * send and recv */
const uint8_t kExchangeMetaSlotPrefix = 0x40;
const uint8_t kExchangeDataSlotPrefix = 0x41;

/* The most data a rank sends with its arguments, to all its peers
 * together: with 2 ranks an all_reduce of up to 2 MB is then one
 * exchange of the whole buffers (the bytes of Gloo's ring, in one step
 * instead of two, with the arguments in the same round trip) */
const gsize kExchangeDataMax = 2 << 20;

/* Posts a receive into @buf from @peer on @slot unless it is: a peer
 * that has left (its process ended after the last exchange) is the next
 * wait's error, not this post's */
void
post (std::unique_ptr<gloo::transport::UnboundBuffer> &buf,
      std::vector<bool>::reference posted,
      int peer,
      uint64_t slot)
{
  if (posted)
    return;
  try
    {
      buf->recv (peer, slot);
      posted = true;
    }
  catch (const std::exception &)
    {
    }
}

} // namespace

/* The group's own state, behind the GObject instance */
struct DlGlooState
{
  std::shared_ptr<Shared> shared;
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::string prefix;           /* this group's keys in the store */
  std::atomic<int> n_subgroups; /* new_group calls seen, on every rank alike */
  std::vector<char> scratch;    /* reduce's output on the ranks that are not root */
  std::unique_ptr<Exchange> exchange; /* (nullable): destroyed before the context it uses */
};

G_BEGIN_DECLS

#define DL_TYPE_GLOO_PROCESS_GROUP (dl_gloo_process_group_get_type ())
G_DECLARE_FINAL_TYPE (DlGlooProcessGroup,
                      dl_gloo_process_group,
                      DL,
                      GLOO_PROCESS_GROUP,
                      DlProcessGroup)

struct _DlGlooProcessGroup
{
  DlProcessGroup parent_instance;
  DlGlooState *state;
};

G_DEFINE_FINAL_TYPE (DlGlooProcessGroup, dl_gloo_process_group, DL_TYPE_PROCESS_GROUP)

G_END_DECLS

namespace
{

std::shared_ptr<gloo::rendezvous::Context> &
ctx_of (DlProcessGroup *pg)
{
  return DL_GLOO_PROCESS_GROUP (pg)->state->context;
}

/* Gloo's messages start with "[file.cc:123] " (nested, sometimes): the
 * part a user can read */
std::string
readable (const char *what)
{
  std::string s (what);

  for (;;)
    {
      size_t close;

      while (!s.empty () && s[0] == ' ')
        s.erase (0, 1);
      if (s.empty () || s[0] != '[' || (close = s.find ("] ")) == std::string::npos
          || s.find (':') > close)
        return s;
      s.erase (0, close + 2);
    }
}

/* @error from what Gloo threw in @op; with two ranks the peer is known */
void
set_error (GError **error, DlProcessGroup *pg, const char *op, const std::exception &e)
{
  gint rank = dl_process_group_get_rank (pg), size = dl_process_group_get_size (pg);
  std::string msg = readable (e.what ());
  g_autofree gchar *peer = NULL;

  if (size == 2)
    peer = g_strdup_printf (" (peer: rank %d)", 1 - rank);
  g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "%s: rank %d of %d (gloo, timeout %g s): %s%s", op,
               rank, size, dl_process_group_get_timeout (pg), msg.c_str (), peer ? peer : "");
}

#define GLOO_TRY(pg, op, ...)                                                                      \
  try                                                                                              \
    {                                                                                              \
      __VA_ARGS__                                                                                  \
    }                                                                                              \
  catch (const std::exception &e)                                                                  \
    {                                                                                              \
      set_error (error, (pg), (op), e);                                                            \
      return FALSE;                                                                                \
    }

/* Gloo's reduce function: c = a op b, elements of @dtype. Gloo calls it
 * with c aliasing a (or b) and with three distinct buffers; every op is
 * commutative, so the aliased operand is the one reduced into. */
gloo::AllreduceOptions::Func
reduce_function (DlDType dtype, DlReduceOpKind op)
{
  return [dtype, op] (void *c, const void *a, const void *b, size_t n) {
    const void *other = b;

    if (c == b)
      other = a;
    else if (c != a)
      memcpy (c, a, n * dl_dtype_get_size (dtype));
    dl_reduce_host (dtype, op, c, other, n);
  };
}

/* The largest message of Gloo's ring all_reduce (two are in flight at a
 * time): Gloo's default is 1 MB. Each message costs a "ready to receive"
 * notice and a wake-up of the waiting thread, which on a loaded machine
 * may wait for a core; with 4 MB, 16 and 64 MB all_reduces between two
 * ranks here went from a median of 1.53 and 1.49 GB/s to 1.97 and 1.60
 * (5 interleaved rounds; torch's Gloo, with the default: 1.38 and 1.31) */
const size_t kAllreduceSegmentBytes = 4 << 20;

/* The op must be one dl_reduce_host() knows (the base never passes AVG) */
gboolean
check_op (DlProcessGroup *pg, const char *name, DlDType dtype, DlReduceOpKind op, GError **error)
{
  guint8 x = 0, y = 0;

  if (op == DL_REDUCE_OP_KIND_AVG || !dl_reduce_host (dtype, op, &x, &y, 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "%s: the gloo engine has no %s reduction of %s", name,
                   dl_reduce_op_kind_name (op), dl_dtype_get_name (dtype));
      return FALSE;
    }
  return TRUE;
}

/* Gloo takes the element size from the pointer's type: @fn gets @buf as
 * a pointer to the unsigned type of @dtype's size */
template <typename Fn>
void
with_elements (gpointer buf, DlDType dtype, Fn fn)
{
  switch (dl_dtype_get_size (dtype))
    {
      case 1:
        fn (static_cast<guint8 *> (buf));
        break;
      case 2:
        fn (static_cast<guint16 *> (buf));
        break;
      case 4:
        fn (static_cast<guint32 *> (buf));
        break;
      default:
        fn (static_cast<guint64 *> (buf));
        break;
    }
}

template <typename Opts>
void
set_output (Opts &opts, gpointer buf, gsize count, DlDType dtype)
{
  with_elements (buf, dtype, [&] (auto *p) { opts.setOutput (p, count); });
}

template <typename Opts>
void
set_input (Opts &opts, gconstpointer buf, gsize count, DlDType dtype)
{
  with_elements (const_cast<gpointer> (buf), dtype, [&] (auto *p) { opts.setInput (p, count); });
}

/* Gloo's options take bytes as guint8 *, input or not */
guint8 *
bytes (gconstpointer p)
{
  return const_cast<guint8 *> (static_cast<const guint8 *> (p));
}

gboolean
gloo_all_reduce (DlProcessGroup *pg,
                 gpointer buf,
                 gsize count,
                 DlDType dtype,
                 DlReduceOpKind op,
                 GError **error)
{
  if (!check_op (pg, "all_reduce", dtype, op, error))
    return FALSE;
  if (count == 0)
    return TRUE;
  GLOO_TRY (pg, "all_reduce", {
    gloo::AllreduceOptions opts (ctx_of (pg));

    set_output (opts, buf, count, dtype);
    opts.setReduceFunction (reduce_function (dtype, op));
    opts.setMaxSegmentSize (kAllreduceSegmentBytes);
    gloo::allreduce (opts);
  });
  return TRUE;
}

gboolean
gloo_broadcast (DlProcessGroup *pg, gpointer buf, gsize nbytes, gint root, GError **error)
{
  if (nbytes == 0)
    return TRUE;
  GLOO_TRY (pg, "broadcast", {
    gloo::BroadcastOptions opts (ctx_of (pg));

    opts.setOutput (bytes (buf), nbytes);
    opts.setRoot (root);
    gloo::broadcast (opts);
  });
  return TRUE;
}

/* Gloo's ring reduce leaves partial sums in the output of the ranks that
 * are not root: there it reduces into a scratch buffer, so their @buf
 * keeps its values */
gboolean
gloo_reduce (DlProcessGroup *pg,
             gpointer buf,
             gsize count,
             DlDType dtype,
             DlReduceOpKind op,
             gint root,
             GError **error)
{
  DlGlooState *state = DL_GLOO_PROCESS_GROUP (pg)->state;
  gsize nbytes = count * dl_dtype_get_size (dtype);

  if (!check_op (pg, "reduce", dtype, op, error))
    return FALSE;
  if (count == 0)
    return TRUE;
  GLOO_TRY (pg, "reduce", {
    gloo::ReduceOptions opts (state->context);

    if (dl_process_group_get_rank (pg) == root)
      set_output (opts, buf, count, dtype);
    else
      {
        state->scratch.resize (nbytes);
        set_input (opts, buf, count, dtype);
        set_output (opts, state->scratch.data (), count, dtype);
      }
    opts.setRoot (root);
    opts.setReduceFunction (reduce_function (dtype, op));
    gloo::reduce (opts);
  });
  return TRUE;
}

/* all_gather, gather, all_to_all: @n_send bytes of @send in, @n_recv bytes
 * of @recv out (none where @recv is NULL: gather's other ranks), @more sets
 * the rest of the options */
template <typename Opts>
gboolean
move_bytes (DlProcessGroup *pg,
            const char *name,
            void (*run) (Opts &),
            gconstpointer send,
            gsize n_send,
            gpointer recv,
            gsize n_recv,
            const std::function<void (Opts &)> &more,
            GError **error)
{
  if (n_send == 0)
    return TRUE;
  GLOO_TRY (pg, name, {
    Opts opts (ctx_of (pg));

    opts.setInput (bytes (send), n_send);
    if (recv != NULL)
      opts.setOutput (bytes (recv), n_recv);
    if (more)
      more (opts);
    run (opts);
  });
  return TRUE;
}

gboolean
gloo_all_gather (DlProcessGroup *pg,
                 gconstpointer send,
                 gpointer recv,
                 gsize nbytes,
                 GError **error)
{
  gsize size = (gsize)dl_process_group_get_size (pg);

  return move_bytes<gloo::AllgatherOptions> (pg, "all_gather", gloo::allgather, send, nbytes, recv,
                                             nbytes * size, nullptr, error);
}

gboolean
gloo_gather (DlProcessGroup *pg,
             gconstpointer send,
             gpointer recv,
             gsize nbytes,
             gint root,
             GError **error)
{
  gsize size = (gsize)dl_process_group_get_size (pg);

  return move_bytes<gloo::GatherOptions> (
      pg, "gather", gloo::gather, send, nbytes,
      dl_process_group_get_rank (pg) == root ? recv : NULL, nbytes * size,
      [root] (gloo::GatherOptions &opts) { opts.setRoot (root); }, error);
}

gboolean
gloo_scatter (DlProcessGroup *pg,
              gconstpointer send,
              gpointer recv,
              gsize nbytes,
              gint root,
              GError **error)
{
  gsize size = (gsize)dl_process_group_get_size (pg);

  if (nbytes == 0)
    return TRUE;
  GLOO_TRY (pg, "scatter", {
    gloo::ScatterOptions opts (ctx_of (pg));

    if (dl_process_group_get_rank (pg) == root)
      {
        std::vector<guint8 *> parts (size);

        for (gsize r = 0; r < size; r++)
          parts[r] = bytes (send) + r * nbytes;
        opts.setInputs (parts, nbytes);
      }
    opts.setOutput (bytes (recv), nbytes);
    opts.setRoot (root);
    gloo::scatter (opts);
  });
  return TRUE;
}

gboolean
gloo_reduce_scatter (DlProcessGroup *pg,
                     gconstpointer send,
                     gpointer recv,
                     gsize count,
                     DlDType dtype,
                     DlReduceOpKind op,
                     GError **error)
{
  DlGlooState *state = DL_GLOO_PROCESS_GROUP (pg)->state;
  gsize size = (gsize)dl_process_group_get_size (pg);
  gsize esize = dl_dtype_get_size (dtype);
  gsize rank = (gsize)dl_process_group_get_rank (pg);

  if (!check_op (pg, "reduce_scatter", dtype, op, error))
    return FALSE;
  if (count == 0)
    return TRUE;
  GLOO_TRY (pg, "reduce_scatter", {
    gloo::AllreduceOptions opts (state->context);

    state->scratch.assign (static_cast<const char *> (send),
                           static_cast<const char *> (send) + size * count * esize);
    set_output (opts, state->scratch.data (), size * count, dtype);
    opts.setReduceFunction (reduce_function (dtype, op));
    opts.setMaxSegmentSize (kAllreduceSegmentBytes);
    gloo::allreduce (opts);
    memcpy (recv, state->scratch.data () + rank * count * esize, count * esize);
  });
  return TRUE;
}

gboolean
gloo_all_to_all (DlProcessGroup *pg,
                 gconstpointer send,
                 gpointer recv,
                 gsize nbytes,
                 GError **error)
{
  gsize size = (gsize)dl_process_group_get_size (pg);

  return move_bytes<gloo::AlltoallOptions> (pg, "all_to_all", gloo::alltoall, send, nbytes * size,
                                            recv, nbytes * size, nullptr, error);
}

/* Point to point: the user's tag is the slot (Gloo's collectives use slots
 * with a prefix in the top byte, which a gint tag never reaches) */
gboolean
gloo_send (DlProcessGroup *pg, gconstpointer buf, gsize nbytes, gint dst, gint tag, GError **error)
{
  auto &context = ctx_of (pg);

  GLOO_TRY (pg, "send", {
    auto ubuf = context->createUnboundBuffer (const_cast<gpointer> (buf), nbytes);

    ubuf->send (dst, (uint64_t)(guint32)tag);
    ubuf->waitSend (context->getTimeout ());
  });
  return TRUE;
}

gboolean
gloo_recv (DlProcessGroup *pg, gpointer buf, gsize nbytes, gint src, gint tag, GError **error)
{
  auto &context = ctx_of (pg);

  GLOO_TRY (pg, "recv", {
    auto ubuf = context->createUnboundBuffer (buf, nbytes);

    ubuf->recv (src, (uint64_t)(guint32)tag);
    ubuf->waitRecv (context->getTimeout ());
  });
  return TRUE;
}

gboolean
gloo_recv_any (DlProcessGroup *pg, gpointer buf, gsize nbytes, gint *src, gint tag, GError **error)
{
  auto &context = ctx_of (pg);
  std::vector<int> ranks;

  for (int r = 0; r < context->size; r++)
    if (r != context->rank)
      ranks.push_back (r);
  GLOO_TRY (pg, "recv", {
    auto ubuf = context->createUnboundBuffer (buf, nbytes);
    int from = -1;

    ubuf->recv (ranks, (uint64_t)(guint32)tag);
    ubuf->waitRecv (&from, context->getTimeout ());
    *src = from;
  });
  return TRUE;
}

gboolean
gloo_exchange (DlProcessGroup *pg,
               gconstpointer meta,
               gsize meta_bytes,
               gconstpointer data,
               gsize data_bytes,
               gpointer metas,
               gconstpointer *datas,
               GError **error)
{
  DlGlooState *state = DL_GLOO_PROCESS_GROUP (pg)->state;
  auto &context = state->context;
  const auto meta_slot = gloo::Slot::build (kExchangeMetaSlotPrefix, 0);
  const auto data_slot = gloo::Slot::build (kExchangeDataSlotPrefix, 0);
  const auto timeout = context->getTimeout ();
  int size = context->size, rank = context->rank;
  gsize limit = kExchangeDataMax / (gsize)MAX (size - 1, 1);
  static const char none = 0;

  if ((state->exchange && state->exchange->meta_bytes != meta_bytes) || data_bytes > limit)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "exchange: %" G_GSIZE_FORMAT " bytes of arguments and %" G_GSIZE_FORMAT
                   " of data, where the group's exchange takes %" G_GSIZE_FORMAT
                   " and at most %" G_GSIZE_FORMAT,
                   meta_bytes, data_bytes,
                   state->exchange ? state->exchange->meta_bytes : meta_bytes, limit);
      return FALSE;
    }
  GLOO_TRY (pg, "exchange", {
    auto &ex = state->exchange;

    if (!ex)
      {
        ex.reset (new Exchange ());
        ex->meta_bytes = meta_bytes;
        /* a message has at least a byte: data_bytes 0 sends one */
        ex->data_bytes = MAX (limit, 1);
        ex->metas.resize (size);
        ex->meta_in.resize (size);
        ex->meta_posted.assign (size, false);
        for (int k = 0; k < 2; k++)
          {
            ex->data[k].resize (size);
            ex->data_in[k].resize (size);
            ex->data_posted[k].assign (size, false);
          }
        for (int p = 0; p < size; p++)
          if (p != rank)
            {
              ex->metas[p].resize (meta_bytes);
              ex->meta_in[p] = context->createUnboundBuffer (ex->metas[p].data (), meta_bytes);
              for (int k = 0; k < 2; k++)
                {
                  ex->data[k][p].resize (ex->data_bytes);
                  ex->data_in[k][p]
                      = context->createUnboundBuffer (ex->data[k][p].data (), ex->data_bytes);
                }
            }
      }
    int turn = ex->turn;

    /* the receives of this call, where the last one could not post them */
    for (int p = 0; p < size; p++)
      if (p != rank)
        {
          if (!ex->meta_posted[p])
            {
              ex->meta_in[p]->recv (p, meta_slot);
              ex->meta_posted[p] = true;
            }
          if (!ex->data_posted[turn][p])
            {
              ex->data_in[turn][p]->recv (p, data_slot);
              ex->data_posted[turn][p] = true;
            }
        }
    auto meta_out = context->createUnboundBuffer (const_cast<gpointer> (meta), meta_bytes);
    auto data_out = data_bytes
                        ? context->createUnboundBuffer (const_cast<gpointer> (data), data_bytes)
                        : context->createUnboundBuffer (const_cast<char *> (&none), 1);

    for (int p = 0; p < size; p++)
      if (p != rank)
        {
          meta_out->send (p, meta_slot);
          data_out->send (p, data_slot);
        }
    memcpy (bytes (metas) + (gsize)rank * meta_bytes, meta, meta_bytes);
    datas[rank] = data;
    for (int p = 0; p < size; p++)
      if (p != rank)
        {
          ex->meta_in[p]->waitRecv (timeout);
          ex->meta_posted[p] = false;
          memcpy (bytes (metas) + (gsize)p * meta_bytes, ex->metas[p].data (), meta_bytes);
          post (ex->meta_in[p], ex->meta_posted[p], p, meta_slot);
          ex->data_in[turn][p]->waitRecv (timeout);
          ex->data_posted[turn][p] = false;
          datas[p] = ex->data[turn][p].data ();
          /* the next call's data goes into the other buffer: this one is
           * the caller's until then */
          post (ex->data_in[1 - turn][p], ex->data_posted[1 - turn][p], p, data_slot);
        }
    ex->turn = 1 - turn;
    for (int p = 0; p < size; p++)
      if (p != rank)
        {
          meta_out->waitSend (timeout);
          data_out->waitSend (timeout);
        }
  });
  return TRUE;
}

gboolean
gloo_barrier (DlProcessGroup *pg, GError **error)
{
  GLOO_TRY (pg, "barrier", {
    gloo::BarrierOptions opts (ctx_of (pg));

    gloo::barrier (opts);
  });
  return TRUE;
}

/* ---- rendezvous --------------------------------------------------------- */

/* The address this rank's Gloo device listens on: the interface named by
 * GLOO_SOCKET_IFNAME (as for torch), else the one the route to @peer_host
 * leaves by, else the host name's address, else loopback */
gloo::transport::tcp::attr
device_attr (const std::string &peer_host)
{
  gloo::transport::tcp::attr attr;
  const gchar *ifname = g_getenv ("GLOO_SOCKET_IFNAME");
  char name[256];

  if (ifname != NULL && *ifname)
    {
      attr.iface = ifname;
      return attr;
    }
  if (!peer_host.empty ())
    {
      struct addrinfo hints = {}, *res = nullptr;

      hints.ai_socktype = SOCK_DGRAM;
      if (getaddrinfo (peer_host.c_str (), "9", &hints, &res) == 0)
        {
          for (struct addrinfo *ai = res; ai && attr.hostname.empty (); ai = ai->ai_next)
            {
              struct sockaddr_storage local;
              socklen_t len = sizeof local;
              char host[NI_MAXHOST];
              int fd = socket (ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

              /* a UDP connect sends nothing: it only picks the route */
              if (fd >= 0 && connect (fd, ai->ai_addr, ai->ai_addrlen) == 0
                  && getsockname (fd, reinterpret_cast<struct sockaddr *> (&local), &len) == 0
                  && getnameinfo (reinterpret_cast<struct sockaddr *> (&local), len, host,
                                  sizeof host, nullptr, 0, NI_NUMERICHOST)
                         == 0)
                attr.hostname = host;
              if (fd >= 0)
                close (fd);
            }
          freeaddrinfo (res);
        }
      if (!attr.hostname.empty ())
        return attr;
    }
  if (gethostname (name, sizeof name) == 0)
    {
      struct addrinfo hints = {}, *res = nullptr;

      name[sizeof name - 1] = 0;
      hints.ai_socktype = SOCK_STREAM;
      if (getaddrinfo (name, nullptr, &hints, &res) == 0)
        {
          freeaddrinfo (res);
          attr.hostname = name;
          return attr;
        }
    }
  attr.hostname = "127.0.0.1";
  return attr;
}

/* Joins the @size ranks of the group whose keys are under @prefix in
 * @shared's store, then waits for all of them (so no rank leaves, and
 * perhaps takes the store with it, while another still reads it) */
std::shared_ptr<gloo::rendezvous::Context>
connect_group (const std::shared_ptr<Shared> &shared,
               const std::string &prefix,
               int rank,
               int size,
               std::chrono::milliseconds timeout)
{
  gloo::rendezvous::PrefixStore store (prefix, *shared->store);
  auto context = std::make_shared<gloo::rendezvous::Context> (rank, size);

  context->setTimeout (timeout);
  context->connectFullMesh (store, shared->device);
  gloo::BarrierOptions opts (context);
  gloo::barrier (opts);
  return context;
}

DlProcessGroup *
wrap_group (std::shared_ptr<Shared> shared,
            std::shared_ptr<gloo::rendezvous::Context> context,
            const std::string &prefix,
            gdouble timeout)
{
  DlGlooProcessGroup *self = DL_GLOO_PROCESS_GROUP (
      g_object_new (DL_TYPE_GLOO_PROCESS_GROUP, "rank", context->rank, "size", context->size,
                    "timeout", timeout, "backend-name", "gloo", NULL));

  self->state->shared = std::move (shared);
  self->state->context = std::move (context);
  self->state->prefix = prefix;
  return DL_PROCESS_GROUP (self);
}

DlProcessGroup *
gloo_new_group (DlProcessGroup *pg, const gint *ranks, gint n_ranks, GError **error)
{
  DlGlooState *state = DL_GLOO_PROCESS_GROUP (pg)->state;
  gint rank = dl_process_group_get_rank (pg);
  gdouble timeout = dl_process_group_get_timeout (pg);
  std::string prefix = state->prefix + "/" + std::to_string (state->n_subgroups++);
  gint new_rank = -1;

  for (gint i = 0; i < n_ranks; i++)
    if (ranks[i] == rank)
      new_rank = i;
  if (new_rank < 0)
    return NULL;
  try
    {
      auto context
          = connect_group (state->shared, prefix, new_rank, n_ranks, state->context->getTimeout ());

      return wrap_group (state->shared, std::move (context), prefix, timeout);
    }
  catch (const std::exception &e)
    {
      set_error (error, pg, "new_group", e);
      return NULL;
    }
}

DlProcessGroup *
gloo_factory (const gchar *init_method, gint rank, gint world_size, gdouble timeout, GError **error)
{
  auto shared = std::make_shared<Shared> ();
  g_autofree gchar *host = NULL, *dir = NULL;
  gint port = 0;
  auto ms = std::chrono::milliseconds ((gint64)(timeout * 1000.0));

  if (init_method == NULL)
    init_method = "env://";
  if ((rank < 0 && !dl_store_env_int ("gloo", "RANK", &rank, error))
      || (world_size < 0 && !dl_store_env_int ("gloo", "WORLD_SIZE", &world_size, error)))
    return NULL;
  if (world_size < 1 || rank >= world_size)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: gloo: rank %d is not in a world of size %d", rank,
                   world_size);
      return NULL;
    }
  if (!(timeout > 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "init_process_group: gloo: the timeout %g s is not positive", timeout);
      return NULL;
    }
  /* Gloo writes to its sockets with writev, which raises SIGPIPE when the
   * peer's end has closed (a rank died): by default that signal ends the
   * process before the write can fail with the error the collective
   * reports. As GLib's GSocket does, ignore it process-wide, unless the
   * program has a handler of its own (Python ignores it already) */
  {
    struct sigaction old_action;

    if (sigaction (SIGPIPE, NULL, &old_action) == 0 && old_action.sa_handler == SIG_DFL)
      signal (SIGPIPE, SIG_IGN);
  }
  shared->where = init_method;
  if (!dl_store_parse_init_method ("gloo", init_method, &host, &port, &dir, error))
    return NULL;
  try
    {
      if (port != 0)
        shared->store = std::make_shared<TcpStore> (host, port, rank == 0, ms);
      else
        {
          if (g_mkdir_with_parents (dir, 0700) != 0)
            {
              int err = errno;

              g_set_error (error, DL_ERROR, DL_ERROR_IO,
                           "init_process_group: gloo: cannot make the rendezvous directory "
                           "%s: %s",
                           dir, g_strerror (err));
              return NULL;
            }
          shared->store = std::make_shared<FileStore> (dir, ms);
        }
      shared->device = gloo::transport::tcp::CreateDevice (device_attr (host ? host : ""));
      auto context = connect_group (shared, "world", rank, world_size, ms);

      return wrap_group (shared, std::move (context), "world", timeout);
    }
  catch (const std::exception &e)
    {
      std::string msg = readable (e.what ());

      if (msg.find ("File already exists") != std::string::npos)
        msg += " (the directory holds the keys of an earlier run that did not end: empty it)";
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "init_process_group: gloo: rank %d of %d, %s: %s", rank, world_size, init_method,
                   msg.c_str ());
      return NULL;
    }
}

} // namespace

static void
dl_gloo_process_group_finalize (GObject *object)
{
  DlGlooProcessGroup *self = DL_GLOO_PROCESS_GROUP (object);

  delete self->state;
  G_OBJECT_CLASS (dl_gloo_process_group_parent_class)->finalize (object);
}

static void
dl_gloo_process_group_class_init (DlGlooProcessGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  DlProcessGroupClass *pg_class = DL_PROCESS_GROUP_CLASS (klass);

  object_class->finalize = dl_gloo_process_group_finalize;
  /* Gloo's calls give up with an error after the context's timeout */
  pg_class->slots_time_out = TRUE;
  pg_class->exchange = gloo_exchange;
  pg_class->exchange_data_max = kExchangeDataMax;
  pg_class->all_reduce = gloo_all_reduce;
  pg_class->broadcast = gloo_broadcast;
  pg_class->reduce = gloo_reduce;
  pg_class->all_gather = gloo_all_gather;
  pg_class->gather = gloo_gather;
  pg_class->scatter = gloo_scatter;
  pg_class->reduce_scatter = gloo_reduce_scatter;
  pg_class->all_to_all = gloo_all_to_all;
  pg_class->send = gloo_send;
  pg_class->recv = gloo_recv;
  pg_class->recv_any = gloo_recv_any;
  pg_class->barrier = gloo_barrier;
  pg_class->new_group = gloo_new_group;
}

static void
dl_gloo_process_group_init (DlGlooProcessGroup *self)
{
  self->state = new DlGlooState ();
  self->state->n_subgroups = 0;
}

/**
 * dl_gloo_module_init: (skip)
 *
 * The entry point of libdl-gloo-1.0.so, which libdl opens when a group
 * with the "gloo" backend is asked for.
 *
 * Returns: the engine's factory
 */
extern "C" G_MODULE_EXPORT DlProcessGroupFactory
dl_gloo_module_init (void)
{
  return gloo_factory;
}

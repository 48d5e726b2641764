/* dl-stream-private.h: what the registry, DlEvent and the backends' slots
 * ask of streams.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-stream.h"
#include "backends/dl-backend.h"

G_BEGIN_DECLS

/* DlBackendContext.current_stream of every device: the backend handle of
 * the calling thread's current stream on the context's device */
gpointer dl_stream_context_current (const DlBackendContext *ctx);

/* the backend's handle of @self (NULL for a default or trivial stream) */
gpointer dl_stream_get_handle (DlStream *self);

/* whether the device's backend has streams and events */
static inline gboolean
dl_backend_has_streams (const DlBackend *backend)
{
  return backend->stream_new != NULL;
}

G_END_DECLS

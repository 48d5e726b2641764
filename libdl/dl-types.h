/* dl-types.h: forward declarations and the export macro shared by every header.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

#define DL_EXPORT __attribute__ ((visibility ("default"))) extern

typedef struct _DlTensor DlTensor;
typedef struct _DlDevice DlDevice;
typedef struct _DlStream DlStream;
typedef struct _DlEvent DlEvent;
typedef struct _DlStorage DlStorage;
typedef struct _DlNode DlNode;

G_END_DECLS

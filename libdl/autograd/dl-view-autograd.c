/* dl-view-autograd.c: autograd for in-place writes through views.
 *
 * A view knows its base (the tensor whose storage it views). When an
 * in-place op writes through a view V of base B, B's value changes, so B's
 * history is replaced by a CopySlices node: the gradient of the new B is
 * the incoming gradient with V's slice taken out and sent to the history of
 * the op's result, and the rest sent to B's old history. The op's own
 * history reaches V's old history, which leads back to B's old history
 * through V's view node: the two parts add up at B's old history to the
 * gradient of the whole update. V itself gets an AsStridedBackward node
 * over B's new history.
 *
 * Other views of B learn about the change lazily: every in-place write
 * bumps the storage's version, and a view whose version is stale remakes
 * its history as AsStridedBackward over B's current one (dl_view_sync)
 * before an op records it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "ops/dl-ops-private.h"

/* Where a view sits in its base; offsets in elements, relative to the
 * base's first element. */
typedef struct
{
  gint base_ndim;
  gint ndim;
  gint64 offset;
  gint64 base_sizes[DL_MAX_DIMS];
  gint64 base_strides[DL_MAX_DIMS];
  gint64 sizes[DL_MAX_DIMS];
  gint64 strides[DL_MAX_DIMS];
} ViewGeometry;

/* Gives @node the geometry of @view in @base as its state. */
static void
save_geometry (DlNode *node, DlTensor *base, DlTensor *view)
{
  ViewGeometry *g = DL_NODE_NEW_STATE (node, ViewGeometry);

  g->base_ndim = base->ndim;
  g->ndim = view->ndim;
  g->offset = view->offset - base->offset;
  for (gint i = 0; i < base->ndim; i++)
    {
      g->base_sizes[i] = base->sizes[i];
      g->base_strides[i] = base->strides[i];
    }
  for (gint i = 0; i < view->ndim; i++)
    {
      g->sizes[i] = view->sizes[i];
      g->strides[i] = view->strides[i];
    }
}

/* Zeros laid out as the base is (its strides, in a buffer just big enough),
 * so that the view's geometry applies to it unchanged. */
static DlTensor *
base_zeros (const ViewGeometry *g, DlDType dtype, DlDevice *device, GError **error)
{
  g_autoptr (DlTensor) buf = NULL;
  gint64 extent = 1;

  for (gint i = 0; i < g->base_ndim; i++)
    {
      if (g->base_sizes[i] == 0)
        {
          extent = 0;
          break;
        }
      extent += (g->base_sizes[i] - 1) * g->base_strides[i];
    }
  if (!(buf = dl_zeros (&extent, 1, dtype, device, error)))
    return NULL;
  return dl_tensor_new_view_internal (buf, g->base_sizes, g->base_strides, g->base_ndim, 0);
}

static DlTensor *
view_in (DlTensor *buf, const ViewGeometry *g, const gint64 *sizes)
{
  return dl_tensor_new_view_internal (buf, sizes ? sizes : g->sizes, g->strides, g->ndim,
                                      buf->offset + g->offset);
}

/* The three backward functions below are linear maps of the incoming
 * gradient, each the adjoint of another: scatter (a view's gradient into
 * zeros shaped as the base) and gather (a base-shaped gradient's view
 * elements), and mask (a base-shaped gradient with the view's elements
 * zeroed), its own adjoint. Each computes with grad mode off and, when
 * create_graph records the backward pass, records its result as the output
 * of a node whose backward is its adjoint: gradients of every order flow
 * through views. */
static gboolean scatter_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);
static gboolean gather_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);
static gboolean mask_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);

/* With create_graph: @out, computed from @grad by a linear map, becomes the
 * output of a node named @name, with @node's geometry, whose backward is
 * @adjoint. */
static void
record_linear (DlNode *node,
               const gchar *name,
               DlBackwardFunc adjoint,
               DlTensor *grad,
               DlTensor *out)
{
  g_autoptr (DlNode) rec = NULL;
  ViewGeometry *g;

  if (!dl_autograd_any_requires (1, &grad))
    return;
  rec = dl_node_new_for_op (name, adjoint, 1, &grad);
  g = DL_NODE_NEW_STATE (rec, ViewGeometry);
  *g = *(const ViewGeometry *)dl_node_state (node);
  dl_node_set_output (rec, out, 0);
}

/* A base-shaped @t laid out as the base is, so that the view's geometry
 * applies to it. */
static DlTensor *
as_base_layout (const ViewGeometry *g, DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) buf = base_zeros (g, t->dtype, dl_tensor_get_device (t), error);

  if (buf == NULL || !dl_tensor_copy_ (buf, t, error))
    return NULL;
  return g_steal_pointer (&buf);
}

/* Gradient of a view made by as_strided: the view's gradient placed into
 * zeros shaped as the base; dims the view broadcasts (stride 0) are summed
 * first, since their elements all are one element of the base. */
static gboolean
scatter_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ViewGeometry *g = dl_node_state (node);
  g_autoptr (DlTensor) buf = NULL;
  g_autoptr (DlTensor) part = NULL;
  g_autoptr (DlTensor) slice = NULL;
  DlTensor *done = NULL;
  gint64 sizes[DL_MAX_DIMS];
  gboolean was;

  for (gint i = 0; i < g->ndim; i++)
    sizes[i] = g->strides[i] == 0 ? MIN (g->sizes[i], 1) : g->sizes[i];
  was = dl_set_grad_enabled (FALSE);
  if ((buf = base_zeros (g, go[0]->dtype, dl_tensor_get_device (go[0]), error))
      && (part = dl_sum_to (go[0], sizes, g->ndim, error)))
    {
      slice = view_in (buf, g, sizes);
      done = dl_tensor_copy_ (slice, part, error);
    }
  dl_set_grad_enabled (was);
  if (done == NULL)
    return FALSE;
  record_linear (node, "AsStridedScatterBackward0", gather_backward, go[0], buf);
  gi[0] = g_steal_pointer (&buf);
  return TRUE;
}

/* The view's elements of a base-shaped gradient (broadcast dims repeat). */
static gboolean
gather_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ViewGeometry *g = dl_node_state (node);
  g_autoptr (DlTensor) buf = NULL;
  g_autoptr (DlTensor) slice = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);

  if ((buf = as_base_layout (g, go[0], error)))
    {
      slice = view_in (buf, g, NULL);
      gi[0] = dl_tensor_clone (slice, error);
    }
  dl_set_grad_enabled (was);
  if (gi[0] == NULL)
    return FALSE;
  record_linear (node, "AsStridedBackward0", scatter_backward, go[0], gi[0]);
  return TRUE;
}

/* A base-shaped gradient with the view's elements zeroed. */
static gboolean
mask_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ViewGeometry *g = dl_node_state (node);
  g_autoptr (DlTensor) buf = NULL;
  g_autoptr (DlTensor) slice = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);
  gboolean ok = FALSE;

  if ((buf = as_base_layout (g, go[0], error)))
    {
      slice = view_in (buf, g, NULL);
      ok = dl_tensor_fill_ (slice, 0, error) != NULL;
    }
  dl_set_grad_enabled (was);
  if (!ok)
    return FALSE;
  record_linear (node, "CopySlicesMaskBackward0", mask_backward, go[0], buf);
  gi[0] = g_steal_pointer (&buf);
  return TRUE;
}

/* Input 0: the base before the write; input 1: the result the op wrote
 * into the view. */
static gboolean
copy_slices_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  if (dl_node_needs_input_grad (node, 1) && !gather_backward (node, go, &gi[1], error))
    return FALSE;
  if (dl_node_needs_input_grad (node, 0) && !mask_backward (node, go, &gi[0], error))
    return FALSE;
  return TRUE;
}

/* Remakes @view's history, after its storage changed, as an
 * AsStridedBackward node over its base's current history when the base
 * requires grad. */
static void
view_regenerate (DlTensor *view)
{
  DlTensor *base = view->base;
  g_autoptr (DlNode) node = NULL;

  view->view_version = view->storage->version;
  if (!base->requires_grad)
    return;
  node = dl_node_new_for_op ("AsStridedBackward0", scatter_backward, 1, &base);
  save_geometry (node, base, view);
  dl_node_set_output (node, view, 0);
}

/* Records a write into @view (done, version bumped) in its base's history
 * as CopySlices, and remakes the view's history over it. @holder has
 * @view's shape and carries the history of the values written (the
 * in-place op's out-of-place result). */
static void
view_take_history (DlTensor *view, DlTensor *holder)
{
  DlTensor *base = view->base;
  g_autoptr (DlNode) node = NULL;

  node = dl_node_new_for_op ("CopySlices", copy_slices_backward, 2, (DlTensor *[]){ base, holder });
  save_geometry (node, base, view);
  dl_node_set_output (node, base, 0);
  view_regenerate (view);
}

static const DlAutogradHooks hooks = {
  .view_regenerate = view_regenerate,
  .view_take_history = view_take_history,
};

/* The graph record and the ops below reach this layer through the hooks,
 * installed when the library loads, before any tensor exists. */
__attribute__ ((constructor)) static void
install_hooks (void)
{
  dl_autograd_install_hooks (&hooks);
}

/* dl-ops-linalg.c: matmul with PyTorch's rules for 1-d operands and
 * broadcast batch dims, over one batched-GEMM primitive (gemm_batched).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"
#include "dl-ops-einsum.h"
#include "dl-ops-autocast-private.h"

static DlTensor *bmm_prim (DlTensor *a, DlTensor *b, GError **error);

/* A matrix operand fit for the backend: unit stride in one of its two dims. */
static DlTensor *
gemm_ready (DlTensor *t, GError **error)
{
  gint n = t->ndim;
  gint64 rs = t->strides[n - 2], cs = t->strides[n - 1];

  gint64 r = t->sizes[n - 2], c = t->sizes[n - 1];

  /* a single column needs rows 1 apart or more, a single row likewise */
  if ((cs == 1 && rs >= MAX (c, 1)) || (rs == 1 && cs >= MAX (r, 1))
      || (c == 1 && (rs >= 1 || r <= 1)) || (r == 1 && (cs >= 1 || c <= 1)))
    return g_object_ref (t);
  return dl_contiguous_nograd (t, error);
}

/* Merges the batch dims of @g that are contiguous in all three operands
 * (and drops those of size 1), so that a plain or broadcast batch is one
 * dim. */
static void
merge_batch_dims (DlGemmArgs *g)
{
  gint out = -1;

  for (gint i = 0; i < g->batch_ndim; i++)
    {
      gint64 s = g->batch_shape[i];

      if (s == 1)
        continue;
      if (out >= 0 && g->a_batch_strides[out] == g->a_batch_strides[i] * s
          && g->b_batch_strides[out] == g->b_batch_strides[i] * s
          && g->c_batch_strides[out] == g->c_batch_strides[i] * s)
        g->batch_shape[out] *= s;
      else
        g->batch_shape[++out] = s;
      g->a_batch_strides[out] = g->a_batch_strides[i];
      g->b_batch_strides[out] = g->b_batch_strides[i];
      g->c_batch_strides[out] = g->c_batch_strides[i];
    }
  g->batch_ndim = out + 1;
}

/* Batched matrix product of a[..., n, k] and b[..., k, m] with equal batch
 * shapes (strides may be 0), in one backend call; the result is
 * contiguous. With @init, the result starts as @init broadcast to it times
 * @beta and the products are added to that in the same call (the
 * accumulate of DlGemmArgs: no pass of its own over the result, as torch's
 * addmm); @init is then of the operands' dtype and device. */
static DlTensor *
bmm_raw_into (DlTensor *a0, DlTensor *b0, DlTensor *init, gdouble beta, GError **error)
{
  gint nd = a0->ndim;
  gint64 n = a0->sizes[nd - 2], k = a0->sizes[nd - 1], m = b0->sizes[nd - 1];
  gint64 shape[DL_MAX_DIMS];
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  DlTensor *out;
  DlBackendContext *ctx;
  DlGemmArgs g;

  if (!(ctx = DL_TENSOR_BACKEND (a0, gemm_batched, "matmul", error))
      || !(a = gemm_ready (a0, error)) || !(b = gemm_ready (b0, error)))
    return NULL;
  for (gint i = 0; i < nd - 2; i++)
    shape[i] = a->sizes[i];
  shape[nd - 2] = n;
  shape[nd - 1] = m;
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (a), a->dtype, shape, nd, error)))
    return NULL;
  g.accumulate = init != NULL;
  if (init)
    {
      gboolean was = dl_set_grad_enabled (FALSE);
      gboolean done = dl_tensor_copy_ (out, init, error)
                      && (beta == 1 || dl_tensor_mul_scalar_ (out, beta, error));

      dl_set_grad_enabled (was);
      if (!done)
        {
          g_object_unref (out);
          return NULL;
        }
    }

  g.m = n;
  g.n = m;
  g.k = k;
  g.a = dl_tensor_data (a);
  g.a_rs = a->strides[nd - 2];
  g.a_cs = a->strides[nd - 1];
  g.b = dl_tensor_data (b);
  g.b_rs = b->strides[nd - 2];
  g.b_cs = b->strides[nd - 1];
  g.c = dl_tensor_data (out);
  g.c_rs = m;
  g.c_cs = 1;
  /* the stride of a size-1 dim is never used to address an element:
   * replace it with one that makes the layout one BLAS accepts */
  if (k == 1)
    {
      g.a_cs = 1;
      g.a_rs = MAX (g.a_rs, 1);
    }
  else if (n == 1)
    {
      g.a_rs = 1;
      g.a_cs = MAX (g.a_cs, 1);
    }
  if (m == 1)
    {
      g.b_cs = 1;
      g.b_rs = MAX (g.b_rs, 1);
    }
  else if (k == 1)
    {
      g.b_rs = 1;
      g.b_cs = MAX (g.b_cs, 1);
    }
  g.batch_ndim = nd - 2;
  for (gint i = 0; i < nd - 2; i++)
    {
      g.batch_shape[i] = a->sizes[i];
      g.a_batch_strides[i] = a->strides[i];
      g.b_batch_strides[i] = b->strides[i];
      g.c_batch_strides[i] = out->strides[i];
    }
  merge_batch_dims (&g);
  ctx->backend->gemm_batched (ctx, a->dtype, &g);
  return out;
}

static DlTensor *
bmm_raw (DlTensor *a0, DlTensor *b0, GError **error)
{
  return bmm_raw_into (a0, b0, NULL, 1, error);
}

/* Each operand's gradient reads the other operand: a is saved only when
 * b needs a gradient, and b when a does; the layouts are kept apart. */
typedef struct
{
  DlSavedTensor a, b;
  gboolean a_column_major, b_column_major;
} BmmState;

/* Whether @t's last two dims are laid out column-major (a transposed
 * matrix, such as the weight.t() of a linear layer). */
static gboolean
column_major (DlTensor *t)
{
  gint n = t->ndim;

  return t->strides[n - 2] == 1 && t->strides[n - 1] != 1 && t->sizes[n - 2] > 1;
}

/* op (l) @ op (r), op transposing the last two dims where asked */
static DlTensor *
bmm_t (DlTensor *l, gboolean tl, DlTensor *r, gboolean tr, GError **error)
{
  gint nd = l->ndim;
  g_autoptr (DlTensor) lt = NULL;
  g_autoptr (DlTensor) rt = NULL;

  if (!(lt = tl ? dl_tensor_transpose (l, nd - 2, nd - 1, error) : g_object_ref (l))
      || !(rt = tr ? dl_tensor_transpose (r, nd - 2, nd - 1, error) : g_object_ref (r)))
    return NULL;
  return bmm_prim (lt, rt, error);
}

/* The gradient of one operand of a @ b: x @ y^T (@transpose_first
 * FALSE: x is the output gradient, y is b) or x^T @ y (TRUE: x is a, y
 * the output gradient), laid out as @input is. For a column-major input
 * (the transposed weight of a linear layer) it is computed as the
 * transpose of the product the other way round, (X Y)^T = Y^T X^T, so
 * that the gradient that reaches the weight through the transpose's
 * backward is contiguous and becomes its grad without a copy (as
 * PyTorch's mm backward does). @input_column_major: whether the input
 * is laid out column-major. */
static DlTensor *
grad_in_layout (DlTensor *x,
                DlTensor *y,
                gboolean input_column_major,
                gboolean transpose_first,
                GError **error)
{
  g_autoptr (DlTensor) p = NULL;

  if (!input_column_major)
    return bmm_t (x, transpose_first, y, !transpose_first, error);
  if (!(p = bmm_t (y, transpose_first, x, !transpose_first, error)))
    return NULL;
  return dl_tensor_transpose (p, p->ndim - 2, p->ndim - 1, error);
}

/* The gradients of the product a @ b, inputs @first (a) and @first + 1
 * (b) of @node, into gi[0] and gi[1], from its output gradient @go. */
static gboolean
product_grads (DlNode *node,
               const BmmState *s,
               guint first,
               DlTensor *go,
               DlTensor **gi,
               GError **error)
{
  DlTensor *a, *b;

  if (dl_node_needs_input_grad (node, first)
      && (!(b = dl_node_saved (node, &s->b, error))
          || !(gi[0] = grad_in_layout (go, b, s->a_column_major, FALSE, error))))
    return FALSE;
  if (dl_node_needs_input_grad (node, first + 1)
      && (!(a = dl_node_saved (node, &s->a, error))
          || !(gi[1] = grad_in_layout (a, go, s->b_column_major, TRUE, error))))
    return FALSE;
  return TRUE;
}

/* Saves what product_grads() reads of a @ b, inputs @first and @first + 1 */
static void
product_save (DlNode *node, BmmState *s, guint first, DlTensor *a, DlTensor *b)
{
  s->a_column_major = column_major (a);
  s->b_column_major = column_major (b);
  if (dl_node_needs_input_grad (node, first + 1))
    dl_node_save (node, &s->a, a, FALSE);
  if (dl_node_needs_input_grad (node, first))
    dl_node_save (node, &s->b, b, FALSE);
}

static gboolean
bmm_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  return product_grads (node, dl_node_state (node), 0, go[0], gi, error);
}

static DlTensor *
bmm_prim (DlTensor *a, DlTensor *b, GError **error)
{
  DlTensor *out = bmm_raw (a, b, error);

  if (out && dl_autograd_any_requires (2, (DlTensor *[]){ a, b }))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (a->ndim == 2 ? "MmBackward0" : "BmmBackward0",
                                                    bmm_backward, 2, (DlTensor *[]){ a, b });

      product_save (node, DL_NODE_NEW_STATE (node, BmmState), 0, a, b);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_matmul:
 * @self: a tensor of at least 1 dim
 * @other: a tensor of at least 1 dim and the same dtype
 * @error: return location for a #GError
 *
 * The matrix product as torch.matmul computes it: vectors are promoted to
 * matrices (and the added dim removed after), and the batch dims, all but
 * the last two, broadcast.
 *
 * A batch of matrices times one matrix:
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) a = NULL;
 * g_autoptr (DlTensor) b = NULL;
 * g_autoptr (DlTensor) c = NULL;
 *
 * if (!(a = dl_randn (DL_SHAPE (8, 2, 3), DL_DTYPE_FLOAT32, NULL, &error))
 *     || !(b = dl_randn (DL_SHAPE (3, 4), DL_DTYPE_FLOAT32, NULL, &error))
 *     || !(c = dl_tensor_matmul (a, b, &error)))
 *   g_printerr ("%s\n", error->message);
 * ]|
 *
 * gives `c` of shape [8, 2, 4]: `b` broadcasts over the batch dim of `a`.
 * Differentiable. Fails with %DL_ERROR_SHAPE when the inner dims differ or
 * the batch dims do not broadcast, and with %DL_ERROR_DTYPE when the dtypes
 * differ.
 *
 * Returns: (transfer full): the product, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_matmul (DlTensor *self, DlTensor *other, GError **error)
{
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) ae = NULL;
  g_autoptr (DlTensor) be = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) ca = NULL;
  g_autoptr (DlTensor) cb = NULL;
  gint64 batch[DL_MAX_DIMS], shape[DL_MAX_DIMS];
  gint nb, nd;
  DlDType dt;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER, dl_tensor_matmul (a_[0], a_[1], error), error, self, other);
  if (self->ndim == 0 || other->ndim == 0)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_SHAPE,
          "matmul: both arguments to matmul need to be at least 1D, but they are %dD and %dD",
          self->ndim, other->ndim);
      return NULL;
    }
  if (!dl_check_same_device ("matmul", self, other, error))
    return NULL;
  if (self->dtype != other->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "matmul: expected both operands to have the same dtype, but got %s and %s",
                   dl_dtype_get_name (self->dtype), dl_dtype_get_name (other->dtype));
      return NULL;
    }
  if (self->dtype == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "matmul: bool tensors are not supported; convert them to a number dtype first");
      return NULL;
    }
  dt = self->dtype;
  if (dt == DL_DTYPE_FLOAT16 || dt == DL_DTYPE_BFLOAT16)
    {
      /* compute in float32 through differentiable casts */
      if (!(ca = dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error))
          || !(cb = dl_tensor_to_dtype (other, DL_DTYPE_FLOAT32, error))
          || !(out = dl_tensor_matmul (ca, cb, error)))
        return NULL;
      return dl_tensor_to_dtype (out, dt, error);
    }

  if (self->ndim == 2 && other->ndim == 2)
    {
      /* plain matrices: no batch dims to broadcast, no views to make */
      if (self->sizes[1] != other->sizes[0])
        {
          g_autofree gchar *as = dl_shape_to_string (self->sizes, 2);
          g_autofree gchar *bs = dl_shape_to_string (other->sizes, 2);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "matmul: %s @ %s: inner dimensions %" G_GINT64_FORMAT
                       " and %" G_GINT64_FORMAT " differ",
                       as, bs, self->sizes[1], other->sizes[0]);
          return NULL;
        }
      return bmm_prim (self, other, error);
    }

  if (self->ndim >= 3 && other->ndim == 2 && self->sizes[self->ndim - 1] == other->sizes[0])
    {
      /* [..., n, k] @ [k, m] as torch folds it: one GEMM over all the rows
       * (the weight's gradient is then one GEMM too, not a sum over a
       * broadcast batch) */
      gint64 k = other->sizes[0], rows = 1;
      g_autoptr (DlTensor) a2 = NULL;
      g_autoptr (DlTensor) o2 = NULL;

      for (gint i = 0; i < self->ndim - 1; i++)
        rows *= self->sizes[i];
      memcpy (shape, self->sizes, self->ndim * sizeof (gint64));
      shape[self->ndim - 1] = other->sizes[1];
      if (!(a2 = dl_tensor_reshape (self, (gint64[]){ rows, k }, 2, error))
          || !(o2 = bmm_prim (a2, other, error)))
        return NULL;
      return dl_unsafe_view (o2, shape, self->ndim, error);
    }
  if (!(a = self->ndim == 1 ? dl_tensor_unsqueeze (self, 0, error) : g_object_ref (self))
      || !(b = other->ndim == 1 ? dl_tensor_unsqueeze (other, 1, error) : g_object_ref (other)))
    return NULL;
  if (a->sizes[a->ndim - 1] != b->sizes[b->ndim - 2])
    {
      g_autofree gchar *as = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *bs = dl_shape_to_string (other->sizes, other->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "matmul: %s @ %s: inner dimensions %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT
                   " differ",
                   as, bs, a->sizes[a->ndim - 1], b->sizes[b->ndim - 2]);
      return NULL;
    }
  if (!dl_broadcast_shapes ("matmul", a->sizes, a->ndim - 2, b->sizes, b->ndim - 2, batch, &nb,
                            error))
    return NULL;
  nd = nb + 2;
  memcpy (shape, batch, nb * sizeof (gint64));
  shape[nb] = a->sizes[a->ndim - 2];
  shape[nb + 1] = a->sizes[a->ndim - 1];
  if (!(ae = dl_tensor_expand (a, shape, nd, error)))
    return NULL;
  shape[nb] = b->sizes[b->ndim - 2];
  shape[nb + 1] = b->sizes[b->ndim - 1];
  if (!(be = dl_tensor_expand (b, shape, nd, error)))
    return NULL;
  if (!(out = bmm_prim (ae, be, error)))
    return NULL;

  /* drop the dims that vectors gained */
  if (self->ndim == 1 && other->ndim == 1)
    return dl_reshape_view (out, NULL, 0, error);
  if (self->ndim == 1)
    return dl_tensor_squeeze_dim (out, -2, error);
  if (other->ndim == 1)
    return dl_tensor_squeeze_dim (out, -1, error);
  return g_steal_pointer (&out);
}

static gboolean
check_ndim (const gchar *op, const gchar *what, DlTensor *t, gint ndim, GError **error)
{
  if (t->ndim == ndim)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: %s must be a %dD tensor, but got a %dD tensor",
               op, what, ndim, t->ndim);
  return FALSE;
}

static gboolean
check_same_dtype (const gchar *op, DlTensor *a, DlTensor *b, GError **error)
{
  if (a->dtype == b->dtype)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
               "%s: expected both operands to have the same dtype, but got %s and %s", op,
               dl_dtype_get_name (a->dtype), dl_dtype_get_name (b->dtype));
  return FALSE;
}

/* mm's operands: two live matrices of one dtype whose inner dims agree */
static gboolean
check_mm (const gchar *op, DlTensor *a, DlTensor *b, GError **error)
{
  if (!dl_check_live (op, a, error) || !dl_check_live (op, b, error)
      || !check_ndim (op, "self", a, 2, error) || !check_ndim (op, "mat2", b, 2, error)
      || !check_same_dtype (op, a, b, error))
    return FALSE;
  if (a->sizes[1] != b->sizes[0])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT
                   "x%" G_GINT64_FORMAT " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                   op, a->sizes[0], a->sizes[1], b->sizes[0], b->sizes[1]);
      return FALSE;
    }
  return TRUE;
}

/* bmm's operands: two live batches of matrices of one dtype, of one
 * batch size, whose inner dims agree */
static gboolean
check_bmm (const gchar *op, DlTensor *a, DlTensor *b, GError **error)
{
  if (!dl_check_live (op, a, error) || !dl_check_live (op, b, error)
      || !check_ndim (op, "batch1", a, 3, error) || !check_ndim (op, "batch2", b, 3, error)
      || !check_same_dtype (op, a, b, error))
    return FALSE;
  if (a->sizes[0] != b->sizes[0] || a->sizes[2] != b->sizes[1])
    {
      g_autofree gchar *as = dl_shape_to_string (a->sizes, 3);
      g_autofree gchar *bs = dl_shape_to_string (b->sizes, 3);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: batch1 %s and batch2 %s: expected the same batch size and "
                   "batch1.size(2) == batch2.size(1)",
                   op, as, bs);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_tensor_mm:
 * @self: an n x k matrix
 * @other: a k x m matrix of the same dtype
 * @error: return location for a #GError
 *
 * The matrix product of two 2-D tensors, as torch.mm (no broadcasting).
 *
 * Returns: (transfer full): the n x m product, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_mm (DlTensor *self, DlTensor *other, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER, dl_tensor_mm (a_[0], a_[1], error), error, self, other);
  if (!check_mm ("mm", self, other, error))
    return NULL;
  return dl_tensor_matmul (self, other, error);
}

/**
 * dl_tensor_bmm:
 * @self: a b x n x k batch of matrices
 * @other: a b x k x m batch of matrices of the same dtype
 * @error: return location for a #GError
 *
 * The batched matrix product of two 3-D tensors, as torch.bmm (no
 * broadcasting).
 *
 * Returns: (transfer full): the b x n x m products, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bmm (DlTensor *self, DlTensor *other, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER, dl_tensor_bmm (a_[0], a_[1], error), error, self, other);
  if (!check_bmm ("bmm", self, other, error))
    return NULL;
  return dl_tensor_matmul (self, other, error);
}

/**
 * dl_tensor_dot:
 * @self: a 1-D tensor
 * @other: a 1-D tensor of the same size and dtype
 * @error: return location for a #GError
 *
 * The inner product of two vectors, as torch.dot.
 *
 * Returns: (transfer full): a 0-d tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_dot (DlTensor *self, DlTensor *other, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (!dl_check_live ("dot", self, error) || !dl_check_live ("dot", other, error))
    return NULL;
  if (self->ndim != 1 || other->ndim != 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "dot: 1D tensors expected, but got %dD and %dD tensors", self->ndim,
                   other->ndim);
      return NULL;
    }
  if (!check_same_dtype ("dot", self, other, error))
    return NULL;
  if (self->sizes[0] != other->sizes[0])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "dot: inconsistent tensor size, expected tensor [%" G_GINT64_FORMAT
                   "] and src [%" G_GINT64_FORMAT
                   "] to have the same number of elements, but got %" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT " elements respectively",
                   self->sizes[0], other->sizes[0], self->sizes[0], other->sizes[0]);
      return NULL;
    }
  return dl_tensor_matmul (self, other, error);
}

/**
 * dl_tensor_outer:
 * @self: a 1-D tensor of n elements
 * @other: a 1-D tensor of m elements
 * @error: return location for a #GError
 *
 * The outer product of two vectors, as torch.outer: an n x m tensor whose
 * element (i, j) is self[i] * other[j], in the promoted dtype.
 *
 * Returns: (transfer full): the product, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_outer (DlTensor *self, DlTensor *other, GError **error)
{
  g_autoptr (DlTensor) col = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (!dl_check_live ("outer", self, error) || !dl_check_live ("outer", other, error))
    return NULL;
  if (self->ndim != 1 || other->ndim != 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "outer: 1D tensors expected, but got %dD and %dD tensors", self->ndim,
                   other->ndim);
      return NULL;
    }
  if (!(col = dl_tensor_unsqueeze (self, 1, error)))
    return NULL;
  return dl_tensor_mul (col, other, error);
}

/**
 * dl_tensor_mv:
 * @self: an n x m matrix
 * @vec: a vector of m elements and the same dtype
 * @error: return location for a #GError
 *
 * The matrix-vector product, as torch.mv.
 *
 * Returns: (transfer full): the n elements of the product, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_mv (DlTensor *self, DlTensor *vec, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (vec), NULL);
  if (!dl_check_live ("mv", self, error) || !dl_check_live ("mv", vec, error))
    return NULL;
  if (!check_ndim ("mv", "self", self, 2, error) || !check_ndim ("mv", "vec", vec, 1, error)
      || !check_same_dtype ("mv", self, vec, error))
    return NULL;
  if (self->sizes[1] != vec->sizes[0])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "mv: size mismatch, got input (%" G_GINT64_FORMAT "), mat (%" G_GINT64_FORMAT
                   "x%" G_GINT64_FORMAT "), vec (%" G_GINT64_FORMAT ")",
                   self->sizes[0], self->sizes[0], self->sizes[1], vec->sizes[0]);
      return NULL;
    }
  return dl_tensor_matmul (self, vec, error);
}

/* beta * input + alpha * product, input broadcast to the product's shape */
static DlTensor *
add_scaled_product (const gchar *op,
                    DlTensor *input,
                    DlTensor *product,
                    gdouble beta,
                    gdouble alpha,
                    GError **error)
{
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) in = NULL;

  if (!(in = dl_tensor_expand (input, product->sizes, product->ndim, error)))
    {
      g_prefix_error (error, "%s: input does not broadcast to the product: ", op);
      return NULL;
    }
  if (alpha != 1)
    p = dl_tensor_mul_scalar (product, alpha, error);
  else
    p = g_object_ref (product);
  if (p == NULL)
    return NULL;
  /* beta = 0 ignores the input, NaN and infinities included, as torch does */
  if (beta == 0)
    return g_steal_pointer (&p);
  return dl_tensor_add_scaled (p, in, beta, error);
}

/* What addmm's node keeps: the product's operands and the two factors */
typedef struct
{
  BmmState product;
  gdouble beta, alpha;
} AddmmState;

/* The gradient of one input of addmm times its factor (the gradient
 * itself when the factor is 1) */
static DlTensor *
scaled_grad (DlTensor *g, gdouble factor, GError **error)
{
  if (g == NULL || factor == 1)
    return g;
  DlTensor *scaled = dl_tensor_mul_scalar (g, factor, error);
  g_object_unref (g);
  return scaled;
}

/* add_scaled_product () of another op's result, @product (transfer full;
 * NULL with @error set when that op failed, whose message then starts
 * with @op's name) */
static DlTensor *
add_scaled_result (const gchar *op,
                   DlTensor *input,
                   DlTensor *product,
                   gdouble beta,
                   gdouble alpha,
                   GError **error)
{
  g_autoptr (DlTensor) p = product;

  if (p == NULL)
    {
      g_prefix_error (error, "%s: ", op);
      return NULL;
    }
  return add_scaled_product (op, input, p, beta, alpha, error);
}

/* addmm's backward, inputs (input, mat1, mat2) in torch's order: the
 * input gets beta times the output gradient summed to its shape, the
 * matrices alpha times the product's gradients */
static gboolean
addmm_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const AddmmState *s = dl_node_state (node);

  if (dl_node_needs_input_grad (node, 0)
      && !(gi[0] = scaled_grad (dl_sum_to (go[0], d->inputs[0].sizes, d->inputs[0].ndim, error),
                                s->beta, error)))
    return FALSE;
  if (!product_grads (node, &s->product, 1, go[0], gi + 1, error))
    return FALSE;
  for (gint i = 1; i < 3; i++)
    if (gi[i] && !(gi[i] = scaled_grad (gi[i], s->alpha, error)))
      return FALSE;
  return TRUE;
}

/* beta * input + alpha * (a @ b) where addmm_fuses(): one GEMM (batched
 * for 3-D operands), recorded as one node named @node_name (torch's
 * AddmmBackward0 of addmm and of a linear layer, BaddbmmBackward0). With
 * alpha = 1 (a linear layer's bias) the result starts as beta * input and
 * the GEMM adds to it; otherwise the product is scaled and the input
 * added to it in place. beta = 0 ignores the input, NaN and infinities
 * included, as torch does. */
static DlTensor *
addmm_prim (const gchar *node_name,
            DlTensor *input,
            DlTensor *a,
            DlTensor *b,
            gdouble beta,
            gdouble alpha,
            GError **error)
{
  gboolean fold = alpha == 1 && beta != 0;
  g_autoptr (DlTensor) out = bmm_raw_into (a, b, fold ? input : NULL, beta, error);
  gboolean was, done;

  if (!out)
    return NULL;
  if (!fold)
    {
      was = dl_set_grad_enabled (FALSE);
      done = (alpha == 1 || dl_tensor_mul_scalar_ (out, alpha, error) != NULL)
             && (beta == 0 || dl_tensor_add_scaled_ (out, input, beta, error) != NULL);
      dl_set_grad_enabled (was);
      if (!done)
        return NULL;
    }
  if (dl_autograd_any_requires (3, (DlTensor *[]){ input, a, b }))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (node_name, addmm_backward, 3, (DlTensor *[]){ input, a, b });
      AddmmState *s = DL_NODE_NEW_STATE (node, AddmmState);

      s->beta = beta;
      s->alpha = alpha;
      product_save (node, &s->product, 1, a, b);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/* Whether beta * input + alpha * (a @ b) can run as addmm_prim: matrices
 * (or batches of them) a [.., n, k] and b [.., k, m] and an input that
 * broadcasts to the product without growing it, all of float32 or all of
 * float64, on one device */
static gboolean
addmm_fuses (DlTensor *input, DlTensor *a, DlTensor *b)
{
  gint nd = a->ndim;

  if (input->ndim > nd)
    return FALSE;
  for (gint i = 1; i <= input->ndim; i++)
    {
      gint64 n = input->sizes[input->ndim - i];
      gint64 want = i == 1 ? b->sizes[b->ndim - 1] : a->sizes[nd - i];

      if (n != 1 && n != want)
        return FALSE;
    }
  return (a->dtype == DL_DTYPE_FLOAT32 || a->dtype == DL_DTYPE_FLOAT64) && b->dtype == a->dtype
         && input->dtype == a->dtype && dl_tensor_device (a) == dl_tensor_device (b)
         && dl_tensor_device (input) == dl_tensor_device (a);
}

/**
 * dl_tensor_addmm:
 * @self: the input, broadcastable to n x m
 * @mat1: an n x k matrix
 * @mat2: a k x m matrix
 * @beta: the factor for @self (0 ignores it)
 * @alpha: the factor for the product
 * @error: return location for a #GError
 *
 * Computes beta * self + alpha * (mat1 @ mat2), as torch.addmm: one
 * matrix product scaled and added to in place, recorded as one
 * AddmmBackward0 node, when all three are float32 or all float64 on one
 * device (other dtypes go through matmul and add).
 *
 * Returns: (transfer full): the n x m result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addmm (DlTensor *self,
                 DlTensor *mat1,
                 DlTensor *mat2,
                 gdouble beta,
                 gdouble alpha,
                 GError **error)
{
  g_autoptr (DlTensor) p = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER, dl_tensor_addmm (a_[0], a_[1], a_[2], beta, alpha, error), error,
               self, mat1, mat2);
  if (!check_mm ("addmm", mat1, mat2, error) || !dl_check_live ("addmm", self, error))
    return NULL;
  if (addmm_fuses (self, mat1, mat2))
    return addmm_prim ("AddmmBackward0", self, mat1, mat2, beta, alpha, error);
  if (!(p = dl_tensor_matmul (mat1, mat2, error)))
    return NULL;
  return add_scaled_product ("addmm", self, p, beta, alpha, error);
}

/**
 * dl_tensor_baddbmm:
 * @self: the input, broadcastable to b x n x m
 * @batch1: a b x n x k batch of matrices
 * @batch2: a b x k x m batch of matrices
 * @beta: the factor for @self (0 ignores it)
 * @alpha: the factor for the products
 * @error: return location for a #GError
 *
 * Computes beta * self + alpha * (batch1 @ batch2), as torch.baddbmm.
 *
 * Returns: (transfer full): the b x n x m result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_baddbmm (DlTensor *self,
                   DlTensor *batch1,
                   DlTensor *batch2,
                   gdouble beta,
                   gdouble alpha,
                   GError **error)
{
  g_autoptr (DlTensor) p = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER, dl_tensor_baddbmm (a_[0], a_[1], a_[2], beta, alpha, error),
               error, self, batch1, batch2);
  if (!check_bmm ("baddbmm", batch1, batch2, error) || !dl_check_live ("baddbmm", self, error))
    return NULL;
  if (addmm_fuses (self, batch1, batch2))
    return addmm_prim ("BaddbmmBackward0", self, batch1, batch2, beta, alpha, error);
  if (!(p = dl_tensor_matmul (batch1, batch2, error)))
    return NULL;
  return add_scaled_product ("baddbmm", self, p, beta, alpha, error);
}

/**
 * dl_tensor_addbmm:
 * @self: the input, broadcastable to n x m
 * @batch1: a b x n x k batch of matrices
 * @batch2: a b x k x m batch of matrices
 * @beta: the factor for @self (0 ignores it)
 * @alpha: the factor for the sum of the products
 * @error: return location for a #GError
 *
 * Computes beta * self + alpha * sum over i of (batch1[i] @ batch2[i]),
 * as torch.addbmm.
 *
 * Returns: (transfer full): the n x m result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addbmm (DlTensor *self,
                  DlTensor *batch1,
                  DlTensor *batch2,
                  gdouble beta,
                  gdouble alpha,
                  GError **error)
{
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER, dl_tensor_addbmm (a_[0], a_[1], a_[2], beta, alpha, error), error,
               self, batch1, batch2);
  if (!check_bmm ("addbmm", batch1, batch2, error) || !dl_check_live ("addbmm", self, error)
      || !(p = dl_tensor_matmul (batch1, batch2, error))
      || !(s = dl_tensor_sum_dims (p, (gint64[]){ 0 }, 1, FALSE, error)))
    return NULL;
  return add_scaled_product ("addbmm", self, s, beta, alpha, error);
}

/**
 * dl_tensor_addmv:
 * @self: the input, broadcastable to n elements
 * @mat: an n x m matrix
 * @vec: a vector of m elements and the matrix's dtype
 * @beta: the factor for @self (0 ignores it)
 * @alpha: the factor for the product
 * @error: return location for a #GError
 *
 * Computes beta * self + alpha * (mat @ vec), as torch.addmv.
 *
 * Returns: (transfer full): the n elements of the result, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addmv (DlTensor *self,
                 DlTensor *mat,
                 DlTensor *vec,
                 gdouble beta,
                 gdouble alpha,
                 GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("addmv", self, error))
    return NULL;
  return add_scaled_result ("addmv", self, dl_tensor_mv (mat, vec, error), beta, alpha, error);
}

/**
 * dl_tensor_addr:
 * @self: the input, broadcastable to n x m
 * @vec1: a vector of n elements
 * @vec2: a vector of m elements
 * @beta: the factor for @self (0 ignores it)
 * @alpha: the factor for the outer product
 * @error: return location for a #GError
 *
 * Computes beta * self + alpha * outer (vec1, vec2), as torch.addr.
 *
 * Returns: (transfer full): the n x m result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addr (DlTensor *self,
                DlTensor *vec1,
                DlTensor *vec2,
                gdouble beta,
                gdouble alpha,
                GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("addr", self, error))
    return NULL;
  return add_scaled_result ("addr", self, dl_tensor_outer (vec1, vec2, error), beta, alpha, error);
}

/* ---- the in-place forms of addmm, addmv, addbmm, baddbmm and addr ---------- */

typedef DlTensor *(*AddProductFn) (DlTensor *self,
                                   DlTensor *a,
                                   DlTensor *b,
                                   gdouble beta,
                                   gdouble alpha,
                                   GError **error);

typedef struct
{
  AddProductFn fn;
  DlTensor *a, *b;
  gdouble beta, alpha;
} AddProductArgs;

/* the in-place protocol's compute step: the op out of place on @src */
static DlTensor *
add_product_compute (DlTensor *src, gpointer data, DlTensor *into, GError **error)
{
  const AddProductArgs *p = data;

  return p->fn (src, p->a, p->b, p->beta, p->alpha, error);
}

/* self = beta * self + alpha * (the product of @a and @b that @fn makes);
 * the product must have @self's shape (the in-place form does not
 * broadcast @self) */
static DlTensor *
add_product_ (const gchar *name,
              AddProductFn fn,
              DlTensor *self,
              DlTensor *a,
              DlTensor *b,
              gdouble beta,
              gdouble alpha,
              GError **error)
{
  AddProductArgs p = { fn, a, b, beta, alpha };

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (a) && DL_IS_TENSOR (b), NULL);
  if (!dl_check_write_target (name, self, error))
    return NULL;
  return dl_inplace_run (name, self, 2, (DlTensor *[]){ a, b }, FALSE, add_product_compute, &p,
                         error);
}

/**
 * dl_tensor_addmm_:
 * @self: an n x m #DlTensor, written in place
 * @mat1: an n x k matrix
 * @mat2: a k x m matrix
 * @beta: the factor for @self (0 ignores its old values)
 * @alpha: the factor for the product
 * @error: return location for a #GError
 *
 * In place, self = beta * self + alpha * (mat1 @ mat2), as
 * torch.Tensor.addmm_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addmm_ (DlTensor *self,
                  DlTensor *mat1,
                  DlTensor *mat2,
                  gdouble beta,
                  gdouble alpha,
                  GError **error)
{
  return add_product_ ("addmm_", dl_tensor_addmm, self, mat1, mat2, beta, alpha, error);
}

/**
 * dl_tensor_baddbmm_:
 * @self: a b x n x m #DlTensor, written in place
 * @batch1: a b x n x k batch of matrices
 * @batch2: a b x k x m batch of matrices
 * @beta: the factor for @self (0 ignores its old values)
 * @alpha: the factor for the products
 * @error: return location for a #GError
 *
 * In place, self = beta * self + alpha * (batch1 @ batch2), as
 * torch.Tensor.baddbmm_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_baddbmm_ (DlTensor *self,
                    DlTensor *batch1,
                    DlTensor *batch2,
                    gdouble beta,
                    gdouble alpha,
                    GError **error)
{
  return add_product_ ("baddbmm_", dl_tensor_baddbmm, self, batch1, batch2, beta, alpha, error);
}

/**
 * dl_tensor_addbmm_:
 * @self: an n x m #DlTensor, written in place
 * @batch1: a b x n x k batch of matrices
 * @batch2: a b x k x m batch of matrices
 * @beta: the factor for @self (0 ignores its old values)
 * @alpha: the factor for the sum of the products
 * @error: return location for a #GError
 *
 * In place, self = beta * self + alpha * sum over i of
 * (batch1[i] @ batch2[i]), as torch.Tensor.addbmm_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addbmm_ (DlTensor *self,
                   DlTensor *batch1,
                   DlTensor *batch2,
                   gdouble beta,
                   gdouble alpha,
                   GError **error)
{
  return add_product_ ("addbmm_", dl_tensor_addbmm, self, batch1, batch2, beta, alpha, error);
}

/**
 * dl_tensor_addmv_:
 * @self: a #DlTensor of n elements, written in place
 * @mat: an n x m matrix
 * @vec: a vector of m elements
 * @beta: the factor for @self (0 ignores its old values)
 * @alpha: the factor for the product
 * @error: return location for a #GError
 *
 * In place, self = beta * self + alpha * (mat @ vec), as
 * torch.Tensor.addmv_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addmv_ (DlTensor *self,
                  DlTensor *mat,
                  DlTensor *vec,
                  gdouble beta,
                  gdouble alpha,
                  GError **error)
{
  return add_product_ ("addmv_", dl_tensor_addmv, self, mat, vec, beta, alpha, error);
}

/**
 * dl_tensor_addr_:
 * @self: an n x m #DlTensor, written in place
 * @vec1: a vector of n elements
 * @vec2: a vector of m elements
 * @beta: the factor for @self (0 ignores its old values)
 * @alpha: the factor for the outer product
 * @error: return location for a #GError
 *
 * In place, self = beta * self + alpha * outer (vec1, vec2), as
 * torch.Tensor.addr_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addr_ (DlTensor *self,
                 DlTensor *vec1,
                 DlTensor *vec2,
                 gdouble beta,
                 gdouble alpha,
                 GError **error)
{
  return add_product_ ("addr_", dl_tensor_addr, self, vec1, vec2, beta, alpha, error);
}

/**
 * dl_tensor_linear:
 * @self: the input, shape [..., in_features] (at least 1 dim)
 * @weight: the weight, shape [out_features, in_features]
 * @bias: (nullable): the bias, shape [out_features]
 * @error: return location for a #GError
 *
 * The affine map self @ weight^T + bias, as torch.nn.functional.linear,
 * recorded as PyTorch records it: a batch of rows with a bias is one
 * addmm (AddmmBackward0; inputs of more dims are viewed as rows and the
 * result viewed back, ViewBackward0), without a bias one matrix product
 * (MmBackward0; UnsafeViewBackward0 over it for more dims), a 1-D input
 * a row of one (UnsqueezeBackward0, then SqueezeBackward1 and
 * AddBackward0), and the weight enters through its transpose (TBackward0).
 *
 * Returns: (transfer full): the result, shape [..., out_features], or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linear (DlTensor *self, DlTensor *weight, DlTensor *bias, GError **error)
{
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) x2 = NULL;
  g_autoptr (DlTensor) y = NULL;
  gint64 shape[DL_MAX_DIMS], rows = 1;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER, dl_tensor_linear (a_[0], a_[1], a_[2], error), error, self,
               weight, bias);
  if (!dl_check_live ("linear", self, error) || !dl_check_live ("linear", weight, error)
      || (bias && !dl_check_live ("linear", bias, error)))
    return NULL;
  if (!check_ndim ("linear", "weight", weight, 2, error))
    return NULL;
  if (self->ndim == 0 || self->sizes[self->ndim - 1] != weight->sizes[1])
    {
      g_autofree gchar *xs = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *ws = dl_shape_to_string (weight->sizes, 2);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "linear: input %s and weight %s: the input's last dim must be the weight's "
                   "in_features, %" G_GINT64_FORMAT,
                   xs, ws, weight->sizes[1]);
      return NULL;
    }
  if (!(wt = dl_tensor_t (weight, error)))
    return NULL;
  if (self->ndim >= 2 && bias && addmm_fuses (bias, self, wt))
    {
      /* rows of the input in one addmm, viewed back to its batch dims */
      for (gint i = 0; i < self->ndim - 1; i++)
        rows *= self->sizes[i];
      if (!(x2 = self->ndim == 2
                     ? g_object_ref (self)
                     : dl_reshape_view (self, (gint64[]){ rows, weight->sizes[1] }, 2, error))
          || !(y = dl_tensor_addmm (bias, x2, wt, 1, 1, error)))
        return NULL;
      if (self->ndim == 2)
        return g_steal_pointer (&y);
      memcpy (shape, self->sizes, self->ndim * sizeof (gint64));
      shape[self->ndim - 1] = weight->sizes[0];
      return dl_tensor_view (y, shape, self->ndim, error);
    }
  if (self->ndim == 1)
    {
      /* a row, as torch: [1, in] @ weight^T, the row dim dropped again */
      g_autoptr (DlTensor) row = NULL;
      g_autoptr (DlTensor) p = NULL;

      if (!(row = dl_tensor_unsqueeze (self, 0, error)) || !(p = dl_tensor_matmul (row, wt, error))
          || !(y = dl_tensor_squeeze_dim (p, 0, error)))
        return NULL;
    }
  else if (!(y = dl_tensor_matmul (self, wt, error)))
    return NULL;
  return bias ? dl_tensor_add (y, bias, error) : g_steal_pointer (&y);
}

/* bilinear's checks, with torch's messages */
static gboolean
check_bilinear (DlTensor *x1, DlTensor *x2, DlTensor *weight, DlTensor *bias, GError **error)
{
  const gchar *what = NULL;
  gint64 got = 0, want = 0;

  if (!check_ndim ("bilinear", "weight", weight, 3, error)
      || (bias && !check_ndim ("bilinear", "bias", bias, 1, error)))
    return FALSE;
  if (x1->ndim != x2->ndim || x1->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "bilinear(): input dimensions do not match: got %d and %d (inputs need at "
                   "least 1 dim)",
                   x1->ndim, x2->ndim);
      return FALSE;
    }
  for (gint i = 0; i < x1->ndim - 1; i++)
    if (x1->sizes[i] != x2->sizes[i])
      {
        g_set_error (
            error, DL_ERROR, DL_ERROR_SHAPE,
            "bilinear(): input batch dimensions do not match at dim %d: got %" G_GINT64_FORMAT
            " and %" G_GINT64_FORMAT,
            i, x1->sizes[i], x2->sizes[i]);
        return FALSE;
      }
  if (x1->sizes[x1->ndim - 1] != weight->sizes[1])
    what = "input1", got = x1->sizes[x1->ndim - 1], want = weight->sizes[1];
  else if (x2->sizes[x2->ndim - 1] != weight->sizes[2])
    what = "input2", got = x2->sizes[x2->ndim - 1], want = weight->sizes[2];
  else if (bias && bias->sizes[0] != weight->sizes[0])
    what = "bias", got = bias->sizes[0], want = weight->sizes[0];
  if (what)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "bilinear(): %s size does not match weight size: got %" G_GINT64_FORMAT
                   " but expected %" G_GINT64_FORMAT,
                   what, got, want);
      return FALSE;
    }
  return check_same_dtype ("bilinear", x1, x2, error)
         && check_same_dtype ("bilinear", x1, weight, error)
         && (!bias || check_same_dtype ("bilinear", x1, bias, error));
}

/**
 * dl_bilinear:
 * @input1: the first input, shape [..., in1_features] (at least 1 dim)
 * @input2: the second input, shape [..., in2_features], the same batch dims
 * @weight: the weight, shape [out_features, in1_features, in2_features]
 * @bias: (nullable): the bias, shape [out_features]
 * @error: return location for a #GError
 *
 * The bilinear map y[..., o] = sum_ij input1[..., i] weight[o, i, j]
 * input2[..., j] + bias[o], as torch.nn.functional.bilinear: one matrix
 * product of the rows of @input1 with the weight laid out as [in1,
 * out * in2], then a batched product with the rows of @input2 (so the
 * gradients of both inputs, the weight and the bias are those of the
 * matrix products).
 *
 * Fails with %DL_ERROR_SHAPE when the inputs' ranks or batch dims differ
 * or a size does not match the weight's, with PyTorch's messages, and
 * with %DL_ERROR_DTYPE when the dtypes differ.
 *
 * Returns: (transfer full): the result, shape [..., out_features], or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_bilinear (DlTensor *input1, DlTensor *input2, DlTensor *weight, DlTensor *bias, GError **error)
{
  g_autoptr (DlTensor) wp = NULL;
  g_autoptr (DlTensor) w2 = NULL;
  g_autoptr (DlTensor) r1 = NULL;
  g_autoptr (DlTensor) r2 = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) t3 = NULL;
  g_autoptr (DlTensor) y3 = NULL;
  g_autoptr (DlTensor) y = NULL;
  gint64 shape[DL_MAX_DIMS], rows = 1, out, in1, in2;

  g_return_val_if_fail (DL_IS_TENSOR (input1) && DL_IS_TENSOR (input2), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!dl_check_live ("bilinear", input1, error) || !dl_check_live ("bilinear", input2, error)
      || !dl_check_live ("bilinear", weight, error)
      || (bias && !dl_check_live ("bilinear", bias, error))
      || !check_bilinear (input1, input2, weight, bias, error))
    return NULL;
  out = weight->sizes[0], in1 = weight->sizes[1], in2 = weight->sizes[2];
  for (gint i = 0; i < input1->ndim - 1; i++)
    rows *= input1->sizes[i];
  /* t[n, o, j] = sum_i x1[n, i] w[o, i, j]; y[n, o] = sum_j t[n, o, j] x2[n, j] */
  if (!(wp = dl_tensor_permute (weight, (gint64[]){ 1, 0, 2 }, 3, error))
      || !(w2 = dl_reshape_view (wp, (gint64[]){ in1, out * in2 }, 2, error))
      || !(r1 = dl_reshape_view (input1, (gint64[]){ rows, in1 }, 2, error))
      || !(r2 = dl_reshape_view (input2, (gint64[]){ rows, in2, 1 }, 3, error))
      || !(t = dl_tensor_mm (r1, w2, error))
      || !(t3 = dl_reshape_view (t, (gint64[]){ rows, out, in2 }, 3, error))
      || !(y3 = dl_tensor_bmm (t3, r2, error)))
    return NULL;
  memcpy (shape, input1->sizes, input1->ndim * sizeof (gint64));
  shape[input1->ndim - 1] = out;
  if (!(y = dl_reshape_view (y3, shape, input1->ndim, error)))
    return NULL;
  return bias ? dl_tensor_add (y, bias, error) : g_steal_pointer (&y);
}

/**
 * dl_tensor_tensordot:
 * @self: a tensor
 * @other: a tensor of the same dtype
 * @dims_self: (array length=n_dims_self): the dims of @self to contract
 * @n_dims_self: the number of dims in @dims_self
 * @dims_other: (array length=n_dims_other): the dims of @other to contract,
 *   paired with @dims_self
 * @n_dims_other: the number of dims in @dims_other, equal to @n_dims_self
 * @error: return location for a #GError
 *
 * Sums the products of @self and @other over the paired dims, as
 * torch.tensordot: the result has the remaining dims of @self, then those
 * of @other.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_tensordot (DlTensor *self,
                     DlTensor *other,
                     const gint64 *dims_self,
                     gsize n_dims_self,
                     const gint64 *dims_other,
                     gsize n_dims_other,
                     GError **error)
{
  gchar eq[4 * DL_MAX_DIMS + 8], *p = eq;
  gchar la[DL_MAX_DIMS], lb[DL_MAX_DIMS];
  gboolean used_a[DL_MAX_DIMS] = { FALSE }, used_b[DL_MAX_DIMS] = { FALSE };

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (n_dims_self != n_dims_other)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "tensordot: both dimension lists should have same length, got %" G_GSIZE_FORMAT
                   " and %" G_GSIZE_FORMAT,
                   n_dims_self, n_dims_other);
      return NULL;
    }
  if (!check_same_dtype ("tensordot", self, other, error))
    return NULL;
  if (self->ndim + other->ndim > 52)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "tensordot: at most 52 dims in both operands together, got %d and %d",
                   self->ndim, other->ndim);
      return NULL;
    }
  for (gint i = 0; i < self->ndim + other->ndim; i++)
    {
      gchar c = i < 26 ? 'a' + i : 'A' + (i - 26);

      if (i < self->ndim)
        la[i] = c;
      else
        lb[i - self->ndim] = c;
    }
  for (gsize i = 0; i < n_dims_self; i++)
    {
      gint64 da = dims_self[i], db = dims_other[i];

      if (!dl_normalize_dim ("tensordot", &da, self->ndim, error)
          || !dl_normalize_dim ("tensordot", &db, other->ndim, error))
        return NULL;
      if (used_a[da] || used_b[db])
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "tensordot: dim %" G_GINT64_FORMAT
                       " appears multiple times in the list of dims",
                       used_a[da] ? da : db);
          return NULL;
        }
      if (self->sizes[da] != other->sizes[db])
        {
          g_set_error (
              error, DL_ERROR, DL_ERROR_SHAPE,
              "tensordot: contracted dimensions need to match, but first has size %" G_GINT64_FORMAT
              " in dim %" G_GINT64_FORMAT " and second has size %" G_GINT64_FORMAT
              " in dim %" G_GINT64_FORMAT,
              self->sizes[da], da, other->sizes[db], db);
          return NULL;
        }
      used_a[da] = used_b[db] = TRUE;
      lb[db] = la[da];
    }
  /* self's labels, other's labels, then the free ones of each */
  for (gint i = 0; i < self->ndim; i++)
    *p++ = la[i];
  *p++ = ',';
  for (gint i = 0; i < other->ndim; i++)
    *p++ = lb[i];
  *p++ = '-';
  *p++ = '>';
  for (gint i = 0; i < self->ndim; i++)
    if (!used_a[i])
      *p++ = la[i];
  for (gint i = 0; i < other->ndim; i++)
    if (!used_b[i])
      *p++ = lb[i];
  *p = '\0';
  return dl_einsum (eq, (DlTensor *[]){ self, other }, 2, error);
}

/**
 * dl_tensor_diag:
 * @self: a vector or a matrix
 * @diagonal: which diagonal: 0 the main one, above it when positive, below
 *   when negative
 * @error: return location for a #GError
 *
 * As torch.diag(): a vector becomes the square matrix with it on diagonal
 * @diagonal and zeros elsewhere; a matrix gives a copy of its diagonal
 * @diagonal. Differentiable.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_diag (DlTensor *self, gint64 diagonal, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (self->ndim == 2)
    {
      g_autoptr (DlTensor) d = dl_tensor_diagonal (self, diagonal, 0, 1, error);
      return d ? dl_tensor_clone (d, error) : NULL;
    }
  if (self->ndim == 1)
    {
      const gint64 n = self->sizes[0] + ABS (diagonal);
      g_autoptr (DlTensor) out
          = dl_zeros ((gint64[]){ n, n }, 2, self->dtype, dl_tensor_get_device (self), error);
      g_autoptr (DlTensor) d = out ? dl_tensor_diagonal (out, diagonal, 0, 1, error) : NULL;

      /* copy_ gives d back (transfer none); the write is recorded */
      return d && dl_tensor_copy_ (d, self, error) ? g_steal_pointer (&out) : NULL;
    }
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "diag: matrix or a vector expected, got %dD",
               self->ndim);
  return NULL;
}

/**
 * dl_tensor_trace:
 * @self: a matrix
 * @error: return location for a #GError
 *
 * The sum of the main diagonal, as torch.trace(). Differentiable.
 *
 * Returns: (transfer full): the 0-d sum, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_trace (DlTensor *self, GError **error)
{
  g_autoptr (DlTensor) d = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("trace", self, error))
    return NULL;
  if (self->ndim != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "trace: expected a matrix, but got tensor with dim %d", self->ndim);
      return NULL;
    }
  d = dl_tensor_diagonal (self, 0, 0, 1, error);
  return d ? dl_tensor_sum (d, error) : NULL;
}

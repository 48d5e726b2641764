/* test-graph.c: the graph record from the side of an op that records
 * itself: nodes with several outputs, many inputs, and typed state that
 * holds saved tensors, inline or on the heap.
 *
 * Built from the library's objects, so that it reaches the private record
 * API (see tests/meson.build).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"
#include "dl-node-private.h"

/* ---- an op with two outputs: (2x, 3x), one node ------------------------ */

typedef struct
{
  gint calls;
  gboolean got_first, got_second;
} TwoState;

static gboolean
two_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  TwoState *s = dl_node_state (node);
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;

  s->calls++;
  s->got_first = go[0] != NULL;
  s->got_second = go[1] != NULL;
  /* d/dx = 2 g0 + 3 g1, a missing gradient counting as zero */
  if (go[0] && !(a = dl_tensor_mul_scalar (go[0], 2, error)))
    return FALSE;
  if (go[1] && !(b = dl_tensor_mul_scalar (go[1], 3, error)))
    return FALSE;
  if (a && b)
    gi[0] = dl_tensor_add (a, b, error);
  else
    gi[0] = g_object_ref (a ? a : b);
  return gi[0] != NULL;
}

static DlNode *
two_outputs (DlTensor *x, DlTensor **out0, DlTensor **out1)
{
  DlNode *node;
  gboolean was = dl_set_grad_enabled (FALSE);

  *out0 = dl_tensor_mul_scalar (x, 2, NULL);
  *out1 = dl_tensor_mul_scalar (x, 3, NULL);
  dl_set_grad_enabled (was);
  node = dl_node_new_for_op ("TwoBackward0", two_backward, 1, &x);
  DL_NODE_NEW_STATE (node, TwoState);
  dl_node_set_output (node, *out0, 0);
  dl_node_set_output (node, *out1, 1);
  return node;
}

static void
test_two_outputs (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64, NULL, NULL);
  g_autoptr (DlTensor) o0 = NULL, o1 = NULL, s0 = NULL, s1 = NULL, s = NULL;
  g_autoptr (DlNode) node = NULL;
  TwoState *state;

  dl_tensor_set_requires_grad (x, TRUE, NULL);
  node = two_outputs (x, &o0, &o1);
  state = dl_node_state (node);
  g_assert_cmpuint (dl_node_data (node)->n_outputs, ==, 2);
  g_assert_true (dl_tensor_get_grad_fn (o1) == node);

  /* through the second output only: the first's gradient is missing */
  s1 = dl_tensor_sum (o1, &error);
  g_assert_true (dl_tensor_backward (s1, NULL, TRUE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpint (state->calls, ==, 1);
  g_assert_false (state->got_first);
  g_assert_true (state->got_second);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 3, 3, 3 }, 3, 0);

  /* through both: one run of the node with both gradients summed in */
  dl_tensor_set_grad (x, NULL, NULL);
  s0 = dl_tensor_sum (o0, &error);
  s = dl_tensor_add (s0, s1, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpint (state->calls, ==, 2);
  g_assert_true (state->got_first && state->got_second);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 5, 5, 5 }, 3, 0);
}

/* ---- state: saved tensors inline and on the heap ------------------------- */

typedef struct
{
  gdouble pad[12]; /* more than fits inline */
  DlSavedTensor a, b;
} BigState;

static gboolean
big_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const BigState *s = dl_node_state (node);
  DlTensor *a, *b;

  if (!(a = dl_node_saved (node, &s->a, error)) || !(b = dl_node_saved (node, &s->b, error)))
    return FALSE;
  g_assert_cmpfloat (s->pad[11], ==, 11);
  /* d (a * b) / da = g b */
  gi[0] = dl_tensor_mul (go[0], b, error);
  return gi[0] != NULL;
}

/* The saved tensors of a state too big for the node go with the node, and
 * a saved tensor changed in place is refused at backward. */
static void
test_heap_state (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_ones (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT64, NULL, NULL);
  g_autoptr (DlTensor) w = dl_full (DL_TEST_SHAPE (2), 4, DL_DTYPE_FLOAT64, NULL, NULL);
  g_autoptr (DlTensor) y = NULL, s = NULL;
  gpointer weak_w = w;
  BigState *state;

  g_assert_cmpuint (sizeof (BigState), >, DL_NODE_INLINE_STATE);
  dl_tensor_set_requires_grad (x, TRUE, NULL);
  {
    g_autoptr (DlNode) node = dl_node_new_for_op ("BigBackward0", big_backward, 1, &x);
    gboolean was = dl_set_grad_enabled (FALSE);

    y = dl_tensor_mul (x, w, NULL);
    dl_set_grad_enabled (was);
    state = DL_NODE_NEW_STATE (node, BigState);
    for (gint i = 0; i < 12; i++)
      state->pad[i] = i;
    dl_node_save (node, &state->a, x, FALSE);
    dl_node_save (node, &state->b, w, FALSE);
    dl_node_set_output (node, y, 0);
  }
  g_object_add_weak_pointer (G_OBJECT (w), &weak_w);
  g_clear_object (&w); /* the node holds it now */
  g_assert_nonnull (weak_w);

  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, TRUE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 4, 4 }, 2, 0);

  /* an in-place change of a saved tensor: refused */
  dl_tensor_mul_scalar_ (weak_w, 2, &error);
  g_assert_no_error (error);
  g_assert_false (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);

  /* dropping the graph frees the saved tensors */
  g_clear_object (&s);
  g_clear_object (&y);
  g_assert_null (weak_w);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph/two-outputs", test_two_outputs);
  g_test_add_func ("/graph/heap-state", test_heap_state);
  return g_test_run ();
}

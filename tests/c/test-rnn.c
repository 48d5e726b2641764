/* test-rnn.c: the recurrent layers and cells from C: values worked out by
 * hand, a multi-layer LSTM forward and backward, the packed form, and the
 * errors.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <string.h>

#include <dl.h>

#include "dl-test-utils.h"

static void
fill_param (DlModule *m, const gchar *name, gdouble value)
{
  g_autoptr (GError) error = NULL;
  DlTensor *p = dl_module_get_parameter (m, name);
  gboolean was = dl_set_grad_enabled (FALSE);

  g_assert_nonnull (p);
  g_assert_nonnull (dl_tensor_fill_ (p, value, &error));
  g_assert_no_error (error);
  dl_set_grad_enabled (was);
}

/* one feature, one hidden unit, w_ih 1, w_hh 0.5, no bias, x = (1, 2):
 * y1 = tanh (1), y2 = tanh (2 + y1 / 2); d (y1 + y2) / dx2 = 1 - y2^2,
 * d / dx1 = (1 - y1^2) (1 + (1 - y2^2) / 2) */
static void
test_rnn_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlRnn) rnn
      = dl_rnn_new (1, 1, 1, DL_RNN_NONLINEARITY_TANH, FALSE, FALSE, 0, FALSE, &error);
  g_autoptr (DlTensor) x
      = dl_test_tensor ((gdouble[]){ 1, 2 }, (gint64[]){ 2, 1, 1 }, 3, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) h_n = NULL;
  g_autoptr (DlTensor) c_n = NULL;
  g_autoptr (DlTensor) s = NULL;
  const gdouble y1 = tanh (1.0), y2 = tanh (2.0 + 0.5 * y1);

  g_assert_no_error (error);
  fill_param (DL_MODULE (rnn), "weight_ih_l0", 1.0);
  fill_param (DL_MODULE (rnn), "weight_hh_l0", 0.5);
  g_assert_cmpint (dl_rnn_base_get_mode (DL_RNN_BASE (rnn)), ==, DL_RNN_MODE_RNN_TANH);
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_rnn_base_forward_state (DL_RNN_BASE (rnn), x, NULL, NULL, &h_n, &c_n, &error);
  g_assert_no_error (error);
  g_assert_null (c_n);
  dl_test_assert_shape (y, DL_TEST_SHAPE (2, 1, 1));
  dl_test_assert_values (y, (gdouble[]){ y1, y2 }, 2, 1e-6);
  dl_test_assert_values (h_n, (gdouble[]){ y2 }, 1, 1e-6);
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x),
                         (gdouble[]){ (1 - y1 * y1) * (1 + 0.5 * (1 - y2 * y2)), 1 - y2 * y2 }, 2,
                         1e-5);
}

/* a 2-layer bidirectional LSTM with a projection: shapes of every output,
 * and a gradient for every parameter and the input after backward */
static void
test_lstm_forward_backward (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLstm) lstm = dl_lstm_new (3, 5, 2, TRUE, TRUE, 0.0, TRUE, 2, &error);
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) h_n = NULL;
  g_autoptr (DlTensor) c_n = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) outputs = NULL;
  g_auto (GStrv) names = NULL;

  g_assert_no_error (error);
  x = dl_randn ((gint64[]){ 4, 6, 3 }, 3, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_rnn_base_forward_state (DL_RNN_BASE (lstm), x, NULL, NULL, &h_n, &c_n, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (4, 6, 4));
  dl_test_assert_shape (h_n, DL_TEST_SHAPE (4, 4, 2));
  dl_test_assert_shape (c_n, DL_TEST_SHAPE (4, 4, 5));
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_shape (dl_tensor_get_grad (x), DL_TEST_SHAPE (4, 6, 3));
  names = dl_module_parameter_names (DL_MODULE (lstm));
  g_assert_cmpuint (g_strv_length (names), ==, 20);
  g_assert_cmpstr (names[0], ==, "weight_ih_l0");
  g_assert_cmpstr (names[4], ==, "weight_hr_l0");
  g_assert_cmpstr (names[5], ==, "weight_ih_l0_reverse");
  params = dl_module_parameters (DL_MODULE (lstm));
  for (guint i = 0; i < params->len; i++)
    g_assert_nonnull (dl_tensor_get_grad (params->pdata[i]));

  /* forward_many: [input, hx, cx] -> [output, h_n, c_n] */
  g_ptr_array_add (inputs, g_object_ref (x));
  g_ptr_array_add (inputs, g_object_ref (h_n));
  g_ptr_array_add (inputs, g_object_ref (c_n));
  outputs = dl_module_forward_many (DL_MODULE (lstm), inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 3);
}

/* a GRU over a packed batch of lengths 3, 2, 1 from zero states: the
 * final state of each sequence is its state at its own last step */
static void
test_gru_packed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlGru) gru = dl_gru_new (2, 3, 1, TRUE, FALSE, 0.0, FALSE, &error);
  g_autoptr (DlTensor) data = NULL;
  g_autoptr (DlTensor) bs = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) h_n = NULL;
  g_autoptr (DlTensor) bad = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) h2 = NULL;
  g_autofree gdouble *yv = NULL;
  g_autofree gdouble *hv = NULL;
  g_autoptr (DlTensor) sizes
      = dl_test_tensor ((gdouble[]){ 3, 2, 1 }, (gint64[]){ 3 }, 1, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) bad_sizes
      = dl_test_tensor ((gdouble[]){ 2, 3, 1 }, (gint64[]){ 3 }, 1, DL_DTYPE_FLOAT64);

  g_assert_no_error (error);
  data = dl_randn ((gint64[]){ 6, 2 }, 2, DL_DTYPE_FLOAT64, NULL, &error);
  bs = dl_tensor_to_dtype (sizes, DL_DTYPE_INT64, &error);
  g_assert_no_error (error);
  g_assert_true (dl_module_to_dtype (DL_MODULE (gru), DL_DTYPE_FLOAT64, &error));
  g_assert_no_error (error);
  y = dl_rnn_base_forward_packed (DL_RNN_BASE (gru), data, bs, NULL, NULL, &h_n, NULL, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (6, 3));
  dl_test_assert_shape (h_n, DL_TEST_SHAPE (1, 3, 3));
  /* rows of step 0: 0, 1, 2; step 1: 3, 4; step 2: 5. Sequence 0 ends at
   * row 5, sequence 1 at row 4, sequence 2 at row 2 */
  yv = dl_test_values (y);
  hv = dl_test_values (h_n);
  for (gint j = 0; j < 3; j++)
    {
      g_assert_cmpfloat (hv[j], ==, yv[5 * 3 + j]);
      g_assert_cmpfloat (hv[3 + j], ==, yv[4 * 3 + j]);
      g_assert_cmpfloat (hv[6 + j], ==, yv[2 * 3 + j]);
    }
  /* the padded form of one full-length step agrees with the packed one */
  {
    g_autoptr (DlTensor) x0 = dl_tensor_narrow (data, 0, 0, 3, &error);
    g_autoptr (DlTensor) x3 = x0 ? dl_tensor_unsqueeze (x0, 0, &error) : NULL;
    g_autoptr (DlTensor) y0 = dl_tensor_narrow (y, 0, 0, 3, &error);

    out = dl_rnn_base_forward_state (DL_RNN_BASE (gru), x3, NULL, NULL, &h2, NULL, &error);
    g_assert_no_error (error);
    {
      g_autofree gdouble *a = dl_test_values (out);
      dl_test_assert_values (y0, a, 9, 1e-12);
    }
  }
  /* increasing batch sizes are refused */
  bad = dl_tensor_to_dtype (bad_sizes, DL_DTYPE_INT64, &error);
  g_clear_object (&h_n);
  g_assert_null (
      dl_rnn_base_forward_packed (DL_RNN_BASE (gru), data, bad, NULL, NULL, &h_n, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "GRU"));
}

static void
test_cells (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLstmCell) lstm = dl_lstm_cell_new (3, 4, TRUE, &error);
  g_autoptr (DlGruCell) gru = dl_gru_cell_new (3, 4, TRUE, &error);
  g_autoptr (DlRnnCell) rnn = dl_rnn_cell_new (3, 4, FALSE, DL_RNN_NONLINEARITY_RELU, &error);
  g_autoptr (DlTensor) x = dl_randn ((gint64[]){ 2, 3 }, 2, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) h = NULL;
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) h2 = NULL;
  g_autoptr (DlTensor) h3 = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) one = NULL;

  g_assert_no_error (error);
  h = dl_lstm_cell_step (lstm, x, NULL, NULL, &c, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (h, DL_TEST_SHAPE (2, 4));
  dl_test_assert_shape (c, DL_TEST_SHAPE (2, 4));
  h2 = dl_gru_cell_step (gru, x, h, &error);
  g_assert_no_error (error);
  h3 = dl_rnn_cell_step (rnn, x, h2, &error);
  g_assert_no_error (error);
  s = dl_tensor_sum (h3, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_nonnull (dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (lstm), "weight_ih")));
  g_assert_null (dl_module_get_parameter (DL_MODULE (rnn), "bias_ih"));
  /* unbatched */
  {
    g_autoptr (DlTensor) x1 = dl_tensor_select (x, 0, 0, &error);
    one = dl_gru_cell_step (gru, x1, NULL, &error);
    g_assert_no_error (error);
    dl_test_assert_shape (one, DL_TEST_SHAPE (4));
  }
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLstm) lstm = dl_lstm_new (10, 20, 1, TRUE, FALSE, 0, FALSE, 0, &error);
  g_autoptr (DlGruCell) cell = dl_gru_cell_new (10, 20, TRUE, &error);
  g_autoptr (DlTensor) x = dl_randn ((gint64[]){ 5, 3, 7 }, 3, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) good = dl_randn ((gint64[]){ 5, 3, 10 }, 3, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) h = dl_randn ((gint64[]){ 1, 3, 20 }, 3, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) c = dl_randn ((gint64[]){ 2, 3, 20 }, 3, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) cx = dl_randn ((gint64[]){ 3, 7 }, 2, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) h_n = NULL;
  g_autoptr (DlLstm) bad = NULL;
  g_autoptr (DlGru) bad2 = NULL;

  g_assert_no_error (error);
  g_assert_null (dl_rnn_base_forward_state (DL_RNN_BASE (lstm), x, NULL, NULL, &h_n, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==,
                   "LSTM: input.size(-1) must be equal to input_size. Expected 10, got 7");
  g_clear_error (&error);
  g_assert_null (dl_rnn_base_forward_state (DL_RNN_BASE (lstm), good, h, c, &h_n, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==, "LSTM: Expected hidden[1] size (1, 3, 20), got [2, 3, 20]");
  g_clear_error (&error);
  g_assert_null (dl_rnn_base_forward_state (DL_RNN_BASE (lstm), good, h, NULL, &h_n, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_gru_cell_step (cell, cx, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==,
                   "GRUCell: input has inconsistent input_size: got 7 expected 10");
  g_clear_error (&error);
  bad = dl_lstm_new (10, 20, 1, TRUE, FALSE, 0, FALSE, 20, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "proj_size has to be smaller than hidden_size"));
  g_clear_error (&error);
  bad2 = dl_gru_new (10, 20, 2, TRUE, FALSE, 1.5, FALSE, &error);
  g_assert_null (bad2);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* gradients of gradients: autograd.grad with create_graph through a
 * bidirectional LSTM with a projection and a GRU (the recorded backward
 * through time), then backward of the gradient's sum */
static void
check_double_backward (DlModule *layer, gboolean lstm)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_randn ((gint64[]){ 3, 2, 2 }, 3, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) h_n = NULL;
  g_autoptr (DlTensor) c_n = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) gs = NULL;
  g_autoptr (GPtrArray) grads = NULL;
  DlTensor *w;

  g_assert_no_error (error);
  g_assert_true (dl_module_to_dtype (layer, DL_DTYPE_FLOAT64, &error));
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_rnn_base_forward_state (DL_RNN_BASE (layer), x, NULL, NULL, &h_n, lstm ? &c_n : NULL,
                                 &error);
  g_assert_no_error (error);
  s = dl_tensor_sum (y, &error);
  grads = dl_autograd_grad (&s, 1, &x, 1, NULL, 0, TRUE, TRUE, FALSE, &error);
  g_assert_no_error (error);
  g_ptr_array_set_free_func (grads, g_object_unref); /* handed over without one */
  g_assert_true (dl_tensor_get_requires_grad (grads->pdata[0]));
  gs = dl_tensor_sum (grads->pdata[0], &error);
  g_assert_true (dl_tensor_backward (gs, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  w = dl_module_get_parameter (layer, "weight_hh_l0");
  g_assert_nonnull (dl_tensor_get_grad (w));
  dl_test_assert_shape (dl_tensor_get_grad (x), DL_TEST_SHAPE (3, 2, 2));
}

static void
test_double_backward (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLstm) lstm = dl_lstm_new (2, 3, 1, TRUE, FALSE, 0, TRUE, 2, &error);
  g_autoptr (DlGru) gru = dl_gru_new (2, 3, 2, TRUE, FALSE, 0, FALSE, &error);

  g_assert_no_error (error);
  check_double_backward (DL_MODULE (lstm), TRUE);
  check_double_backward (DL_MODULE (gru), FALSE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rnn/rnn-values", test_rnn_values);
  g_test_add_func ("/rnn/lstm-forward-backward", test_lstm_forward_backward);
  g_test_add_func ("/rnn/gru-packed", test_gru_packed);
  g_test_add_func ("/rnn/cells", test_cells);
  g_test_add_func ("/rnn/errors", test_errors);
  g_test_add_func ("/rnn/double-backward", test_double_backward);
  return g_test_run ();
}

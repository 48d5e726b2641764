/* train.c: train a small neural network with libdl, from C.
 *
 * The task: points drawn uniformly from the square [-1, 1]^2 belong to
 * class 1 when both coordinates have the same sign and to class 0
 * otherwise (XOR of the signs). No straight line separates the classes, so
 * the model needs its hidden layer.
 *
 * The model, MyNet, is a DlModule subclass written in C: two DlLinear
 * layers registered as children, and a forward that runs
 * fc2 (relu (fc1 (x))). Training uses cross-entropy and SGD with momentum.
 *
 * Build (from an installed libdl):
 *   cc train.c $(pkg-config --cflags --libs dl-1.0) -o train
 *
 * Exits with status 0 when the loss fell, 1 otherwise.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>

#include <dl.h>

/* MyNet: a two-layer perceptron ------------------------------------------ */

#define MY_TYPE_NET (my_net_get_type ())
G_DECLARE_FINAL_TYPE (MyNet, my_net, MY, NET, DlModule)

struct _MyNet
{
  DlModule parent_instance;

  DlLinear *fc1; /* (owned) */
  DlLinear *fc2; /* (owned) */
};

G_DEFINE_FINAL_TYPE (MyNet, my_net, DL_TYPE_MODULE)

/* The override of DlModuleClass.forward. Callers use dl_module_forward(),
 * which dispatches here. Every op can fail (a shape that does not fit, for
 * one): pass the error on and return NULL. */
static DlTensor *
my_net_forward (DlModule *module, DlTensor *input, GError **error)
{
  MyNet *self = MY_NET (module);
  g_autoptr (DlTensor) hidden = dl_module_forward (DL_MODULE (self->fc1), input, error);
  g_autoptr (DlTensor) activated = hidden ? dl_tensor_relu (hidden, error) : NULL;

  return activated ? dl_module_forward (DL_MODULE (self->fc2), activated, error) : NULL;
}

static void
my_net_dispose (GObject *object)
{
  MyNet *self = MY_NET (object);

  g_clear_object (&self->fc1);
  g_clear_object (&self->fc2);
  G_OBJECT_CLASS (my_net_parent_class)->dispose (object);
}

static void
my_net_class_init (MyNetClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = my_net_dispose;
  DL_MODULE_CLASS (klass)->forward = my_net_forward;
}

static void
my_net_init (MyNet *self)
{
}

static MyNet *
my_net_new (gint64 n_in, gint64 n_hidden, gint64 n_out, GError **error)
{
  g_autoptr (MyNet) self = g_object_new (MY_TYPE_NET, NULL);

  if (!(self->fc1 = dl_linear_new (n_in, n_hidden, TRUE, error))
      || !(self->fc2 = dl_linear_new (n_hidden, n_out, TRUE, error)))
    return NULL;

  /* Registered children contribute their parameters, named "fc1.weight",
   * "fc1.bias", ..., to dl_module_parameters(). */
  dl_module_register_module (DL_MODULE (self), "fc1", DL_MODULE (self->fc1));
  dl_module_register_module (DL_MODULE (self), "fc2", DL_MODULE (self->fc2));
  return g_steal_pointer (&self);
}

/* The data ---------------------------------------------------------------- */

/* Fills @points ([n, 2], float32, uniform in [-1, 1)) and @labels ([n],
 * int64). The labels are computed on the host from the points' values and
 * come back as a tensor through dl_tensor_new_from_data (a copy of a C
 * array). */
static gboolean
make_data (gint64 n, DlTensor **points, DlTensor **labels, GError **error)
{
  g_autoptr (DlTensor) x = dl_empty (DL_SHAPE (n, 2), DL_DTYPE_FLOAT32, NULL, error);
  g_autoptr (GBytes) x_bytes = NULL;
  g_autofree gint64 *yv = g_new (gint64, n);
  const gfloat *xv;

  if (!x || !dl_tensor_uniform_ (x, -1, 1, error) || !(x_bytes = dl_tensor_to_bytes (x, error)))
    return FALSE;
  xv = g_bytes_get_data (x_bytes, NULL);
  for (gint64 i = 0; i < n; i++)
    yv[i] = (xv[2 * i] > 0) == (xv[2 * i + 1] > 0);
  if (!(*labels
        = dl_tensor_new_from_data (yv, n * sizeof (gint64), DL_SHAPE (n), DL_DTYPE_INT64, error)))
    return FALSE;
  *points = g_steal_pointer (&x);
  return TRUE;
}

/* The fraction of @points that @net classifies right, computed without
 * recording a graph (PyTorch's torch.no_grad()). */
static gdouble
accuracy (DlModule *net, DlTensor *points, DlTensor *labels, GError **error)
{
  gboolean was_enabled = dl_set_grad_enabled (FALSE);
  g_autoptr (DlTensor) logits = NULL;
  g_autoptr (DlTensor) predicted = NULL;
  g_autoptr (DlTensor) right = NULL;
  g_autoptr (DlTensor) right_f = NULL;
  g_autoptr (DlTensor) mean = NULL;
  gdouble result = -1;

  if ((logits = dl_module_forward (net, points, error))
      && (predicted = dl_tensor_argmax (logits, 1, FALSE, error))
      && (right = dl_tensor_eq (predicted, labels, error))
      && (right_f = dl_tensor_to_dtype (right, DL_DTYPE_FLOAT32, error))
      && (mean = dl_tensor_mean (right_f, error)))
    result = dl_tensor_item (mean, error);
  dl_set_grad_enabled (was_enabled);
  return result;
}

/* Training --------------------------------------------------------------- */

static int
fail (const GError *error)
{
  g_printerr ("train: %s\n", error->message);
  return EXIT_FAILURE;
}

int
main (int argc, char *argv[])
{
  const gint64 n_points = 256;
  const gint n_steps = 400;
  g_autoptr (GError) error = NULL;
  g_autoptr (MyNet) net = NULL;
  g_autoptr (DlTensor) points = NULL;
  g_autoptr (DlTensor) labels = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (DlSgd) sgd = NULL;
  g_auto (GStrv) names = NULL;
  g_autofree gchar *joined = NULL;
  gdouble first_loss = 0, last_loss = 0, acc;

  dl_manual_seed (2026);
  if (!make_data (n_points, &points, &labels, &error) || !(net = my_net_new (2, 16, 2, &error)))
    return fail (error);

  names = dl_module_parameter_names (DL_MODULE (net));
  joined = g_strjoinv (", ", names);
  g_print ("parameters: %s\n", joined);

  /* The optimizer keeps its own references to the parameter tensors and
   * updates them in place. */
  params = dl_module_parameters (DL_MODULE (net));
  if (!(sgd = dl_sgd_new (params, 0.2, 0.9, 0.0, 0.0, FALSE, &error)))
    return fail (error);

  for (gint step = 0; step <= n_steps; step++)
    {
      /* forward: records the graph backward will walk */
      g_autoptr (DlTensor) logits = dl_module_forward (DL_MODULE (net), points, &error);
      g_autoptr (DlTensor) loss = logits ? dl_cross_entropy (logits, labels, &error) : NULL;

      if (!loss)
        return fail (error);

      /* backward and update: clear the old gradients first, since
       * backward accumulates into them */
      dl_optimizer_zero_grad (DL_OPTIMIZER (sgd), TRUE);
      if (!dl_tensor_backward (loss, NULL, FALSE, FALSE, &error)
          || !dl_optimizer_step (DL_OPTIMIZER (sgd), &error))
        return fail (error);

      last_loss = dl_tensor_item (loss, &error);
      if (step == 0)
        first_loss = last_loss;
      if (step % 50 == 0)
        g_print ("step %3d  loss %.4f\n", step, last_loss);
      /* logits, loss and the graph behind them are freed here */
    }

  acc = accuracy (DL_MODULE (net), points, labels, &error);
  if (error)
    return fail (error);
  g_print ("loss %.4f -> %.4f, training accuracy %.1f%%\n", first_loss, last_loss, 100 * acc);

  if (!(last_loss < 0.5 * first_loss))
    {
      g_printerr ("train: the loss did not fall enough\n");
      return EXIT_FAILURE;
    }
  return EXIT_SUCCESS;
}

/* cnn.c: the main job from C: a CNN trained on Fashion-MNIST.
 *
 * The model, CnnNet, is a DlModule subclass written in C with the layers of
 * examples/python/fashion_mnist.py under the same names (conv1, bn1, conv2,
 * bn2, fc1, fc2), so the checkpoint it saves is one the Python example
 * evaluates:
 *
 *   examples/python/fashion_mnist.py --evaluate --checkpoint cnn-c.safetensors
 *
 * The data comes from Debian's dataset-fashion-mnist package through
 * DlFashionMnistDataset; a DlDataLoader batches and shuffles it on worker
 * threads; DlAdam trains.
 *
 * Build (from an installed libdl):
 *   cc cnn.c $(pkg-config --cflags --libs dl-1.0) -o cnn
 * Run:
 *   ./cnn [--epochs N] [--train-limit N] [--test-limit N] [--checkpoint FILE]
 *
 * Exits with status 0 when the test accuracy reaches --min-accuracy.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <unistd.h>

#include <dl.h>

#define MEAN 0.2860
#define STD 0.3530

/* CnnNet -------------------------------------------------------------------- */

#define CNN_TYPE_NET (cnn_net_get_type ())
G_DECLARE_FINAL_TYPE (CnnNet, cnn_net, CNN, NET, DlModule)

struct _CnnNet
{
  DlModule parent_instance;

  /* (not owned): the registered children hold them */
  DlModule *conv1, *bn1, *conv2, *bn2, *pool, *drop, *fc1, *fc2;
};

G_DEFINE_FINAL_TYPE (CnnNet, cnn_net, DL_TYPE_MODULE)

/* pool (relu (bn (conv (x)))) */
static DlTensor *
block (CnnNet *self, DlModule *conv, DlModule *bn, DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) r = NULL;

  if (!(c = dl_module_forward (conv, x, error)) || !(b = dl_module_forward (bn, c, error))
      || !(r = dl_tensor_relu (b, error)))
    return NULL;
  return dl_module_forward (self->pool, r, error);
}

static DlTensor *
cnn_net_forward (DlModule *module, DlTensor *input, GError **error)
{
  CnnNet *self = CNN_NET (module);
  g_autoptr (DlTensor) x1 = NULL;
  g_autoptr (DlTensor) x2 = NULL;
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) d1 = NULL;
  g_autoptr (DlTensor) h = NULL;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) d2 = NULL;

  if (!(x1 = block (self, self->conv1, self->bn1, input, error))
      || !(x2 = block (self, self->conv2, self->bn2, x1, error))
      || !(flat = dl_tensor_flatten (x2, 1, -1, error))
      || !(d1 = dl_module_forward (self->drop, flat, error))
      || !(h = dl_module_forward (self->fc1, d1, error)) || !(r = dl_tensor_relu (h, error))
      || !(d2 = dl_module_forward (self->drop, r, error)))
    return NULL;
  return dl_module_forward (self->fc2, d2, error);
}

static void
cnn_net_class_init (CnnNetClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = cnn_net_forward;
}

static void
cnn_net_init (CnnNet *self)
{
}

/* registers @child as @name and keeps a borrowed pointer in @slot */
static gboolean
add (CnnNet *self, const gchar *name, gpointer child, DlModule **slot)
{
  g_autoptr (DlModule) owned = child;

  if (owned == NULL)
    return FALSE;
  dl_module_register_module (DL_MODULE (self), name, owned);
  *slot = owned;
  return TRUE;
}

static CnnNet *
cnn_net_new (gint64 c1, gint64 c2, gint64 hidden, gdouble dropout, GError **error)
{
  g_autoptr (CnnNet) self = g_object_new (CNN_TYPE_NET, NULL);
  const gint64 k3[2] = { 3, 3 }, one[2] = { 1, 1 }, zero[2] = { 0, 0 }, two[2] = { 2, 2 };

  if (!add (self, "conv1", dl_conv2d_layer_new (1, c1, k3, one, one, one, 1, FALSE, error),
            &self->conv1)
      || !add (self, "bn1", dl_batch_norm2d_layer_new (c1, error), &self->bn1)
      || !add (self, "conv2", dl_conv2d_layer_new (c1, c2, k3, one, one, one, 1, FALSE, error),
               &self->conv2)
      || !add (self, "bn2", dl_batch_norm2d_layer_new (c2, error), &self->bn2)
      || !add (self, "pool", dl_max_pool2d_layer_new (two, two, zero, one, FALSE, error),
               &self->pool)
      || !add (self, "drop", dl_dropout_layer_new (dropout, FALSE, error), &self->drop)
      || !add (self, "fc1", dl_linear_new (c2 * 7 * 7, hidden, TRUE, error), &self->fc1)
      || !add (self, "fc2", dl_linear_new (hidden, 10, TRUE, error), &self->fc2))
    return NULL;
  return g_steal_pointer (&self);
}

/* Data ------------------------------------------------------------------------ */

/* the data set, or its first @limit samples */
static DlDataset *
fashion_mnist (gboolean train, gint64 limit, GError **error)
{
  g_autoptr (DlFashionMnistDataset) all
      = dl_fashion_mnist_dataset_new (NULL, train, MEAN, STD, error);
  g_autofree gint64 *indices = NULL;

  if (all == NULL)
    return NULL;
  if (limit <= 0 || limit >= dl_dataset_get_length (DL_DATASET (all)))
    return DL_DATASET (g_steal_pointer (&all));
  indices = g_new (gint64, limit);
  for (gint64 i = 0; i < limit; i++)
    indices[i] = i;
  return DL_DATASET (dl_subset_new (DL_DATASET (all), indices, limit, error));
}

static DlDataLoader *
loader_new (DlDataset *dataset, gint64 batch_size, gboolean shuffle, guint workers, GError **error)
{
  return g_initable_new (DL_TYPE_DATA_LOADER, NULL, error, "dataset", dataset, "batch-size",
                         batch_size, "shuffle", shuffle, "num-workers", workers, NULL);
}

/* Training and evaluation ----------------------------------------------------- */

/* the fraction of @loader's samples classified right */
static gboolean
evaluate (DlModule *model, DlDataLoader *loader, gdouble *accuracy, GError **error)
{
  g_autoptr (DlDataLoaderIter) it = dl_data_loader_iterate (loader, error);
  g_autoptr (GPtrArray) batch = NULL;
  gboolean was_enabled = dl_set_grad_enabled (FALSE);
  gint64 correct = 0, total = 0;

  dl_module_set_training (model, FALSE);
  while (it && dl_data_loader_iter_next (it, &batch, error))
    {
      DlTensor *labels = g_ptr_array_index (batch, 1);
      g_autoptr (DlTensor) logits = dl_module_forward (model, g_ptr_array_index (batch, 0), error);
      g_autoptr (DlTensor) pred = logits ? dl_tensor_argmax (logits, 1, FALSE, error) : NULL;
      g_autoptr (DlTensor) hits = pred ? dl_tensor_eq (pred, labels, error) : NULL;
      g_autoptr (DlTensor) n = hits ? dl_tensor_sum (hits, error) : NULL;

      if (n == NULL)
        break;
      correct += (gint64)dl_tensor_item (n, NULL);
      total += dl_tensor_get_size (labels, 0, NULL);
    }
  dl_set_grad_enabled (was_enabled);
  dl_module_set_training (model, TRUE);
  if (error && *error)
    return FALSE;
  *accuracy = total ? (gdouble)correct / total : 0;
  return TRUE;
}

static gboolean
train_epoch (DlModule *model,
             DlModule *criterion,
             DlOptimizer *optimizer,
             DlDataLoader *loader,
             gint epoch,
             gdouble *mean_loss,
             GError **error)
{
  g_autoptr (DlDataLoaderIter) it = dl_data_loader_iterate (loader, error);
  g_autoptr (GPtrArray) batch = NULL;
  const gint64 n_batches = dl_data_loader_get_length (loader);
  const gboolean tty = isatty (STDOUT_FILENO);
  gdouble total = 0;
  gint64 seen = 0;
  gint64 start = g_get_monotonic_time ();

  while (it && dl_data_loader_iter_next (it, &batch, error))
    {
      g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
      g_autoptr (GPtrArray) losses = NULL;
      g_autoptr (DlTensor) logits = dl_module_forward (model, g_ptr_array_index (batch, 0), error);
      gint64 b = dl_tensor_get_size (g_ptr_array_index (batch, 1), 0, NULL);
      DlTensor *loss;

      if (logits == NULL)
        return FALSE;
      g_ptr_array_add (inputs, logits);
      g_ptr_array_add (inputs, g_ptr_array_index (batch, 1));
      if (!(losses = dl_module_forward_many (criterion, inputs, error)))
        return FALSE;
      loss = g_ptr_array_index (losses, 0);
      dl_optimizer_zero_grad (optimizer, TRUE);
      if (!dl_tensor_backward (loss, NULL, FALSE, FALSE, error)
          || !dl_optimizer_step (optimizer, error))
        return FALSE;
      total += dl_tensor_item (loss, NULL) * b;
      seen += b;
      if (tty)
        {
          gdouble secs = (g_get_monotonic_time () - start) / 1e6;

          printf ("\repoch %d: batch %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                  "  loss %.4f  %.0f samples/s",
                  epoch, dl_data_loader_iter_get_position (it), n_batches,
                  dl_tensor_item (loss, NULL), seen / MAX (secs, 1e-9));
          fflush (stdout);
        }
    }
  if (tty)
    printf ("\n");
  if (error && *error)
    return FALSE;
  *mean_loss = seen ? total / seen : 0;
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  gint epochs = 2, workers = 2;
  gint64 batch_size = 128, train_limit = 0, test_limit = 0;
  gdouble lr = 2e-3, min_accuracy = 0, accuracy = 0;
  g_autofree gchar *checkpoint = NULL;
  GOptionEntry entries[] = {
    { "epochs", 0, 0, G_OPTION_ARG_INT, &epochs, "Passes over the training set", "N" },
    { "batch-size", 0, 0, G_OPTION_ARG_INT64, &batch_size, "Samples per batch", "N" },
    { "lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr, "Adam's learning rate", "LR" },
    { "workers", 0, 0, G_OPTION_ARG_INT, &workers, "DataLoader worker threads", "N" },
    { "train-limit", 0, 0, G_OPTION_ARG_INT64, &train_limit, "Use only N training images", "N" },
    { "test-limit", 0, 0, G_OPTION_ARG_INT64, &test_limit, "Use only N test images", "N" },
    { "checkpoint", 0, 0, G_OPTION_ARG_FILENAME, &checkpoint, "Where to save the model",
      "FILE" },
    { "min-accuracy", 0, 0, G_OPTION_ARG_DOUBLE, &min_accuracy,
      "Exit with status 1 below this test accuracy", "A" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- a CNN on Fashion-MNIST");
  g_autoptr (DlDataset) train_set = NULL;
  g_autoptr (DlDataset) test_set = NULL;
  g_autoptr (DlDataLoader) train_loader = NULL;
  g_autoptr (DlDataLoader) test_loader = NULL;
  g_autoptr (CnnNet) model = NULL;
  g_autoptr (DlCrossEntropyLoss) criterion = dl_cross_entropy_loss_new ();
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (DlAdam) adam = NULL;
  g_autoptr (GFile) file = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    goto fail;
  if (checkpoint == NULL)
    checkpoint = g_strdup ("cnn-c.safetensors");
  dl_manual_seed (0);
  if (!(train_set = fashion_mnist (TRUE, train_limit, &error))
      || !(test_set = fashion_mnist (FALSE, test_limit, &error))
      || !(train_loader = loader_new (train_set, batch_size, TRUE, workers, &error))
      || !(test_loader = loader_new (test_set, 1000, FALSE, workers, &error))
      || !(model = cnn_net_new (32, 64, 128, 0.25, &error)))
    goto fail;
  params = dl_module_parameters (DL_MODULE (model));
  if (!(adam = dl_adam_new (params, lr, 0.9, 0.999, 1e-8, 0, FALSE, &error)))
    goto fail;
  printf ("train %" G_GINT64_FORMAT " images, test %" G_GINT64_FORMAT " images\n",
          dl_dataset_get_length (train_set), dl_dataset_get_length (test_set));

  for (gint epoch = 1; epoch <= epochs; epoch++)
    {
      gint64 start = g_get_monotonic_time ();
      gdouble loss, secs;

      if (!train_epoch (DL_MODULE (model), DL_MODULE (criterion), DL_OPTIMIZER (adam),
                        train_loader, epoch, &loss, &error)
          || !evaluate (DL_MODULE (model), test_loader, &accuracy, &error))
        goto fail;
      secs = (g_get_monotonic_time () - start) / 1e6;
      printf ("epoch %d/%d: loss %.4f, test accuracy %.4f, %.1f s\n", epoch, epochs, loss,
              accuracy, secs);
      fflush (stdout);
    }

  file = g_file_new_for_commandline_arg (checkpoint);
  if (!dl_module_save_state (DL_MODULE (model), file, NULL, &error))
    goto fail;
  printf ("checkpoint: %s\n", checkpoint);
  printf ("final test accuracy: %.4f\n", accuracy);
  return accuracy >= min_accuracy ? 0 : 1;

fail:
  fprintf (stderr, "cnn: %s\n", error->message);
  return 1;
}

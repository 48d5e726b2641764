/* cnn.vala: the main job from Vala: a CNN trained on Fashion-MNIST.
 *
 * CnnNet, a Dl.Module subclass, has the layers of
 * examples/python/fashion_mnist.py under the same names, so the checkpoint
 * it saves is one the Python example evaluates:
 *   examples/python/fashion_mnist.py --evaluate --checkpoint cnn-vala.safetensors
 * Dl.FashionMnistDataset reads the data; a Dl.DataLoader batches and
 * shuffles it on worker threads; Dl.Adam trains.
 *
 * Build (from an installed libdl):
 *   valac --pkg dl-1.0 --pkg gio-2.0 cnn.vala
 * Run:
 *   ./cnn [epochs] [train-limit] [test-limit] [checkpoint]
 *
 * Exits with status 0 when the test accuracy reaches 0.7, 1 otherwise.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const double MEAN = 0.2860;
const double STD = 0.3530;

class CnnNet : Dl.Module {
    private Dl.Conv2d conv1;
    private Dl.BatchNorm2d bn1;
    private Dl.Conv2d conv2;
    private Dl.BatchNorm2d bn2;
    private Dl.MaxPool2d pool;
    private Dl.Dropout drop;
    private Dl.Linear fc1;
    private Dl.Linear fc2;

    public CnnNet () throws GLib.Error {
        Object ();
        int64 k3[2] = { 3, 3 }, one[2] = { 1, 1 }, two[2] = { 2, 2 }, zero[2] = { 0, 0 };
        conv1 = new Dl.Conv2d (1, 32, k3, one, one, one, 1, false);
        bn1 = new Dl.BatchNorm2d (32);
        conv2 = new Dl.Conv2d (32, 64, k3, one, one, one, 1, false);
        bn2 = new Dl.BatchNorm2d (64);
        pool = new Dl.MaxPool2d (two, two, zero, one, false);
        drop = new Dl.Dropout (0.25, false);
        fc1 = new Dl.Linear (64 * 7 * 7, 128, true);
        fc2 = new Dl.Linear (128, 10, true);
        /* the names of the Python example's layers */
        register_module ("conv1", conv1);
        register_module ("bn1", bn1);
        register_module ("conv2", conv2);
        register_module ("bn2", bn2);
        register_module ("pool", pool);
        register_module ("drop", drop);
        register_module ("fc1", fc1);
        register_module ("fc2", fc2);
    }

    public override Dl.Tensor forward (Dl.Tensor input) throws GLib.Error {
        var x = pool.forward (bn1.forward (conv1.forward (input)).relu ());
        x = pool.forward (bn2.forward (conv2.forward (x)).relu ());
        x = drop.forward (x.flatten (1, -1));
        x = drop.forward (fc1.forward (x).relu ());
        return fc2.forward (x);
    }
}

/* the data set, or its first @limit samples */
Dl.Dataset fashion_mnist (bool train, int64 limit) throws GLib.Error {
    var all = new Dl.FashionMnistDataset (null, train, MEAN, STD);
    if (limit <= 0 || limit >= all.get_length ())
        return all;
    var indices = new int64[limit];
    for (int64 i = 0; i < limit; i++)
        indices[i] = i;
    return new Dl.Subset (all, indices);
}

Dl.DataLoader loader (Dl.Dataset dataset, int64 batch_size, bool shuffle) throws GLib.Error {
    var l = (Dl.DataLoader) Object.new (typeof (Dl.DataLoader), "dataset", dataset,
                                        "batch-size", batch_size, "shuffle", shuffle,
                                        "num-workers", 2u);
    l.init (null);
    return l;
}

double evaluate (CnnNet model, Dl.DataLoader test) throws GLib.Error {
    var was_enabled = Dl.set_grad_enabled (false);
    model.set_training (false);
    int64 correct = 0, total = 0;
    try {
        var pass = test.iterate ();
        GenericArray<weak Dl.Tensor> batch;
        while (pass.next (out batch)) {
            var pred = model.forward (batch[0]).argmax (1);
            correct += (int64) pred.eq (batch[1]).sum ().item ();
            total += batch[1].get_size (0);
        }
    } finally {
        model.set_training (true);
        Dl.set_grad_enabled (was_enabled);
    }
    return (double) correct / total;
}

int main (string[] args) {
    int epochs = args.length > 1 ? int.parse (args[1]) : 2;
    int64 train_limit = args.length > 2 ? int64.parse (args[2]) : 0;
    int64 test_limit = args.length > 3 ? int64.parse (args[3]) : 0;
    string checkpoint = args.length > 4 ? args[4] : "cnn-vala.safetensors";
    try {
        Dl.manual_seed (0);
        var train = loader (fashion_mnist (true, train_limit), 128, true);
        var test = loader (fashion_mnist (false, test_limit), 1000, false);
        var model = new CnnNet ();
        var adam = new Dl.Adam ((GenericArray<Dl.Tensor>) model.parameters (), 2e-3, 0.9, 0.999,
                                1e-8, 0, false);
        var criterion = new Dl.CrossEntropyLoss ();
        double accuracy = 0;
        for (int epoch = 1; epoch <= epochs; epoch++) {
            var timer = new Timer ();
            double total = 0;
            int64 seen = 0;
            var pass = train.iterate ();
            GenericArray<weak Dl.Tensor> batch;
            while (pass.next (out batch)) {
                var inputs = new GenericArray<Dl.Tensor?> ();
                inputs.add (model.forward (batch[0]));
                inputs.add (batch[1]);
                var loss = criterion.forward_many (inputs)[0];
                adam.zero_grad (true);
                loss.backward ();
                adam.step ();
                var n = batch[1].get_size (0);
                total += loss.item () * n;
                seen += n;
            }
            accuracy = evaluate (model, test);
            print ("epoch %d/%d: loss %.4f, test accuracy %.4f, %.1f s\n", epoch, epochs,
                   total / seen, accuracy, timer.elapsed ());
        }
        model.save_state (File.new_for_commandline_arg (checkpoint));
        print ("checkpoint: %s\nfinal test accuracy: %.4f\n", checkpoint, accuracy);
        return accuracy >= 0.7 ? 0 : 1;
    } catch (GLib.Error e) {
        printerr ("cnn: %s\n", e.message);
        return 1;
    }
}

/* train.vala: train a small neural network with libdl, from Vala.
 *
 * The task: points drawn uniformly from the square [-1, 1]^2 belong to
 * class 1 when both coordinates have the same sign, to class 0 otherwise
 * (XOR of the signs). Net, a Dl.Module subclass, is two Dl.Linear layers
 * with a ReLU between them; it learns with cross-entropy and SGD.
 *
 * Build (from an installed libdl):
 *   valac --pkg dl-1.0 train.vala
 *
 * Exits with status 0 when the loss fell, 1 otherwise.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

class Net : Dl.Module {
    private Dl.Linear fc1;
    private Dl.Linear fc2;

    public Net (int64 n_in, int64 n_hidden, int64 n_out) throws GLib.Error {
        Object ();
        fc1 = new Dl.Linear (n_in, n_hidden, true);
        fc2 = new Dl.Linear (n_hidden, n_out, true);
        /* children contribute their parameters ("fc1.weight", ...) */
        register_module ("fc1", fc1);
        register_module ("fc2", fc2);
    }

    /* Called by Dl.Module.forward (), from Vala or from C. Errors of the
     * ops (a shape that does not fit, say) propagate to the caller. */
    public override Dl.Tensor forward (Dl.Tensor input) throws GLib.Error {
        return fc2.forward (fc1.forward (input).relu ());
    }
}

/* n points in [-1, 1)^2 and their labels; the labels are computed from the
 * points' bytes and turned back into a tensor through GLib.Bytes. */
void make_data (int n, out Dl.Tensor points, out Dl.Tensor labels) throws GLib.Error {
    points = Dl.rand ({ n, 2 }).mul_scalar (2).sub_scalar (1);

    var xs = new float[2 * n];
    Memory.copy (xs, points.to_bytes ().get_data (), xs.length * sizeof (float));
    var ys = new int64[n];
    for (int i = 0; i < n; i++)
        ys[i] = (xs[2 * i] > 0) == (xs[2 * i + 1] > 0) ? 1 : 0;
    var bytes = new uint8[n * sizeof (int64)];
    Memory.copy (bytes, ys, bytes.length);
    labels = new Dl.Tensor.from_bytes (new Bytes (bytes), { n }, Dl.DType.INT64);
}

/* The fraction of points classified right, without recording a graph. */
double accuracy (Net net, Dl.Tensor points, Dl.Tensor labels) throws GLib.Error {
    var was_enabled = Dl.set_grad_enabled (false);
    try {
        var predicted = net.forward (points).argmax (1);
        return predicted.eq (labels).to_dtype (Dl.DType.FLOAT32).mean ().item ();
    } finally {
        Dl.set_grad_enabled (was_enabled);
    }
}

int main (string[] args) {
    try {
        Dl.manual_seed (2026);
        Dl.Tensor points, labels;
        make_data (256, out points, out labels);

        var net = new Net (2, 16, 2);
        print ("parameters: %s\n", string.joinv (", ", net.parameter_names ()));

        /* parameters () hands back GenericArray<weak Tensor> (transfer
         * container); the array holds its own references, so the cast to
         * what Sgd takes is safe. */
        var sgd = new Dl.Sgd ((GenericArray<Dl.Tensor>) net.parameters (),
                              0.2, 0.9, 0, 0, false);

        double first_loss = 0, last_loss = 0;
        for (int step = 0; step <= 400; step++) {
            var loss = Dl.cross_entropy (net.forward (points), labels);
            sgd.zero_grad ();          /* backward accumulates: clear first */
            loss.backward ();
            sgd.step ();

            last_loss = loss.item ();
            if (step == 0)
                first_loss = last_loss;
            if (step % 50 == 0)
                print ("step %3d  loss %.4f\n", step, last_loss);
        }

        print ("loss %.4f -> %.4f, training accuracy %.1f%%\n",
               first_loss, last_loss, 100 * accuracy (net, points, labels));
        if (!(last_loss < 0.5 * first_loss)) {
            printerr ("train: the loss did not fall enough\n");
            return 1;
        }
    } catch (Dl.Error e) {
        printerr ("train: libdl: %s\n", e.message);
        return 1;
    } catch (GLib.Error e) {
        printerr ("train: %s\n", e.message);
        return 1;
    }
    return 0;
}

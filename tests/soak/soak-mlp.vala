/* soak-mlp.vala: the Vala twin of soak-mlp.c: a 784-256-10 MLP trained on
 * random batches, printing "rss STEP KIB" every EVERY steps.
 *
 * Usage: soak-mlp-vala STEPS EVERY
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

long rss_kib () {
    string text;
    try {
        FileUtils.get_contents ("/proc/self/statm", out text);
    } catch (FileError e) {
        return -1;
    }
    return long.parse (text.split (" ")[1]) * (Posix.sysconf (Posix._SC_PAGESIZE) / 1024);
}

int main (string[] args) {
    int steps = args.length > 1 ? int.parse (args[1]) : 10000;
    int every = args.length > 2 ? int.parse (args[2]) : 500;
    try {
        Dl.manual_seed (14);
        var net = new Dl.Sequential (null);
        net.append (new Dl.Linear (784, 256, true));
        net.append (new Dl.Relu (false));
        net.append (new Dl.Linear (256, 10, true));
        var sgd = new Dl.Sgd ((GenericArray<Dl.Tensor>) net.parameters (), 0.01, 0.9, 0, 0, false);
        for (int step = 1; step <= steps; step++) {
            var x = Dl.randn ({ 64, 784 });
            var y = Dl.randint (0, 10, { 64 }, Dl.DType.INT64);
            var loss = Dl.cross_entropy (net.forward (x), y);
            sgd.zero_grad (true);
            loss.backward (null, false, false);
            sgd.step ();
            if (step % every == 0)
                print ("rss %d %ld\n", step, rss_kib ());
        }
    } catch (GLib.Error e) {
        printerr ("soak-mlp-vala: %s\n", e.message);
        return 1;
    }
    return 0;
}

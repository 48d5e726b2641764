/* installed.vala: a small Vala program built with valac --pkg dl-1.0
 * against an installed libdl: a tensor op, a Linear layer, an SGD step.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
int main () {
    try {
        var x = Dl.ones ({ 3, 4 }).add_scalar (1);
        var fc = new Dl.Linear (4, 2, true);
        var sgd = new Dl.Sgd ((GenericArray<Dl.Tensor>) fc.parameters (), 0.1, 0, 0, 0, false);
        var loss = fc.forward (x).sum ();
        loss.backward ();
        sgd.step ();
        var after = fc.forward (x).sum ().item ();
        print ("Vala: loss %g -> %g\n", loss.item (), after);
        return after < loss.item () ? 0 : 1;
    } catch (Error e) {
        printerr ("Vala: %s\n", e.message);
        return 1;
    }
}

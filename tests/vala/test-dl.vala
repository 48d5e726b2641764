/* test-dl.vala: libdl from Vala, through the generated dl-1.0.vapi:
 * tensors, ops, Dl.Error, a Dl.Module subclass overriding forward, SGD.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Tensor contents in row-major order. */
double[] values (Dl.Tensor t) throws GLib.Error {
    var bytes = t.to_dtype (Dl.DType.FLOAT64).to_bytes ();
    unowned uint8[] data = bytes.get_data ();
    var result = new double[t.numel ()];
    assert (data.length == result.length * sizeof (double));
    Memory.copy (result, data, data.length);
    return result;
}

Dl.Tensor from_array (double[] array, int64[] shape, Dl.DType dtype = Dl.DType.FLOAT32) throws GLib.Error {
    var buf = new uint8[array.length * sizeof (double)];
    Memory.copy (buf, array, buf.length);
    var t = new Dl.Tensor.from_bytes (new Bytes (buf), Dl.DType.FLOAT64, shape);
    return t.to_dtype (dtype);
}

void assert_values (Dl.Tensor t, double[] expected, double tol = 0) throws GLib.Error {
    var got = values (t);
    assert_cmpint (got.length, CompareOperator.EQ, expected.length);
    for (int i = 0; i < got.length; i++) {
        if (!(Math.fabs (got[i] - expected[i]) <= tol * (1 + Math.fabs (expected[i]))))
            error ("element %d: got %g, expected %g", i, got[i], expected[i]);
    }
}

/* A two-layer MLP whose forward is written in Vala. */
class Mlp : Dl.Module {
    public Dl.Linear fc1;
    public Dl.Linear fc2;
    public int calls = 0;

    public Mlp (int64 n_in, int64 n_hidden, int64 n_out) throws GLib.Error {
        Object ();
        fc1 = new Dl.Linear (n_in, n_hidden, true);
        fc2 = new Dl.Linear (n_hidden, n_out, true);
        register_module ("fc1", fc1);
        register_module ("fc2", fc2);
    }

    public override Dl.Tensor forward (Dl.Tensor input) throws GLib.Error {
        calls++;
        return fc2.forward (fc1.forward (input).relu ());
    }
}

void test_tensor_ops () {
    try {
        var a = from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 });
        var b = from_array ({ 10, 20, 30 }, { 3 });
        assert (a.get_shape ().length == 2);
        assert (a.get_shape ()[0] == 2 && a.get_shape ()[1] == 3);
        assert (a.get_strides ()[0] == 3);
        assert (a.get_dtype () == Dl.DType.FLOAT32);
        assert_values (a.add (b), { 11, 22, 33, 14, 25, 36 });
        assert_values (a.mul_scalar (2).sub (a), { 1, 2, 3, 4, 5, 6 });
        assert_values (a.t (), { 1, 4, 2, 5, 3, 6 });
        assert_values (a.matmul (a.t ()), { 14, 32, 32, 77 });
        assert (a.sum ().item () == 21);
        assert_values (a.sum_dims ({ 1 }, false), { 6, 15 });
        Dl.Tensor idx;
        var m = a.max_dim (0, false, out idx);
        assert_values (m, { 4, 5, 6 });
        assert_values (idx, { 1, 1, 1 });
        var r = Dl.arange (1, 5, 1, Dl.DType.FLOAT32, null).view ({ 2, 2 });
        assert (r.to_string () == "tensor([[1., 2.],\n        [3., 4.]])");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_errors () {
    Dl.Tensor a, b;
    try {
        a = Dl.ones ({ 2, 3 }, Dl.DType.FLOAT32, null);
        b = Dl.ones ({ 4 }, Dl.DType.FLOAT32, null);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }

    /* a specific code of the Dl.Error errordomain */
    bool caught = false;
    try {
        a.add (b);
    } catch (Dl.Error.SHAPE e) {
        caught = true;
        assert (e.domain == Dl.Error.quark ());
        assert ("add" in e.message && "[2, 3]" in e.message && "[4]" in e.message);
    } catch (GLib.Error e) {
        error ("wrong error: %s", e.message);
    }
    assert (caught);

    try {
        a.transpose (0, 7);
        assert_not_reached ();
    } catch (GLib.Error e) {
        assert (e is Dl.Error.INDEX);
    }
    try {
        Dl.zeros ({ -1 }, Dl.DType.FLOAT32, null);
        assert_not_reached ();
    } catch (GLib.Error e) {
        assert (e is Dl.Error.ARGUMENT);
    }
    try {
        Dl.Device.get ("cuda");
        assert_not_reached ();
    } catch (GLib.Error e) {
        assert (e is Dl.Error.DEVICE);
    }
}

void test_module_subclass () {
    try {
        var net = new Mlp (4, 8, 3);
        var names = net.parameter_names ();
        assert (string.joinv (",", names) == "fc1.weight,fc1.bias,fc2.weight,fc2.bias");
        assert (net.parameters ().length == 4);
        /* called through the C invoker, as the rest of the library would */
        var y = net.forward (Dl.randn ({ 5, 4 }, Dl.DType.FLOAT32, null));
        assert (net.calls == 1);
        assert (y.get_shape ()[0] == 5 && y.get_shape ()[1] == 3);
        assert (y.get_grad_fn () != null);
        try {
            net.forward (Dl.randn ({ 5, 7 }, Dl.DType.FLOAT32, null));
            assert_not_reached ();
        } catch (Dl.Error.SHAPE e) {
        }
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_training () {
    try {
        Dl.manual_seed (3);
        var net = new Mlp (2, 16, 2);
        /* two classes: x0 * x1 > 0 (a XOR of the signs) */
        var x = Dl.rand ({ 64, 2 }, Dl.DType.FLOAT32, null).mul_scalar (2).sub_scalar (1);
        var xv = values (x);
        var labels = new double[64];
        for (int i = 0; i < 64; i++)
            labels[i] = xv[2 * i] * xv[2 * i + 1] > 0 ? 1 : 0;
        var target = from_array (labels, { 64 }, Dl.DType.INT64);
        /* parameters () is (transfer container): GenericArray<weak Tensor>;
         * the array itself holds a reference to each tensor, so the cast is
         * safe */
        var sgd = new Dl.Sgd ((GenericArray<Dl.Tensor>) net.parameters (), 0.3, 0.9, 0, 0, false);
        double first = 0, last = 0;
        for (int step = 0; step < 300; step++) {
            var loss = Dl.cross_entropy (net.forward (x), target);
            sgd.zero_grad (true);
            loss.backward (null, false, false);
            sgd.step ();
            last = loss.item ();
            if (step == 0)
                first = last;
        }
        Test.message ("loss %.4f -> %.4f", first, last);
        assert (last < 0.5 * first);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/tensor/ops", test_tensor_ops);
    Test.add_func ("/vala/errors", test_errors);
    Test.add_func ("/vala/module/subclass", test_module_subclass);
    Test.add_func ("/vala/training", test_training);
    return Test.run ();
}

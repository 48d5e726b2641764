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
    var t = new Dl.Tensor.from_data (buf, shape, Dl.DType.FLOAT64);
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

void assert_shape (Dl.Tensor t, int64[] expected) {
    var shape = t.get_shape ();
    assert_cmpint (shape.length, CompareOperator.EQ, expected.length);
    for (int i = 0; i < shape.length; i++)
        assert_cmpint ((int) shape[i], CompareOperator.EQ, (int) expected[i]);
}

delegate void Thrower () throws GLib.Error;

/* fn must fail with a Dl.Error of the given code. */
void assert_dl_error (Thrower fn, int code, string what) {
    try {
        fn ();
    } catch (GLib.Error e) {
        if (e.domain != Dl.Error.quark () || e.code != code)
            error ("%s: error %s:%d (%s), expected code %d", what,
                   e.domain.to_string (), e.code, e.message, code);
        return;
    }
    error ("%s: no error", what);
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

/* The general form of forward: (a, [b]) -> (a + b, a * b); b defaults
 * to a. */
class Pair : Dl.Module {
    public override void forward_many_vfunc (GenericArray<Dl.Tensor?> inputs,
                                             out GenericArray<Dl.Tensor> outputs) throws GLib.Error {
        if (inputs.length < 1 || inputs.length > 2 || inputs[0] == null)
            throw new Dl.Error.ARGUMENT ("Pair: takes (a, [b])");
        Dl.Tensor a = inputs[0];
        Dl.Tensor b = inputs.length > 1 && inputs[1] != null ? inputs[1] : a;
        outputs = new GenericArray<Dl.Tensor> ();
        outputs.add (a.add (b));
        outputs.add (a.mul (b));
    }
}

/* A parametrization: twice its parameter "original", which a layer's C
 * forward reads as its weight. */
class Twice : Dl.Module {
    public override void forward_many_vfunc (GenericArray<Dl.Tensor?> inputs,
                                             out GenericArray<Dl.Tensor> outputs) throws GLib.Error {
        outputs = new GenericArray<Dl.Tensor> ();
        outputs.add (get_parameter ("original").mul_scalar (2));
    }
}

/* Autograd functions written in Vala. */

/* clamp (x, -0.5, 0.5) with a straight-through gradient */
class ClampSt : Dl.Function {
    public override void forward (GenericArray<Dl.Tensor?> inputs,
                                  out GenericArray<Dl.Tensor> outputs) throws GLib.Error {
        outputs = new GenericArray<Dl.Tensor> ();
        outputs.add (inputs[0].clamp_scalar (-0.5, 0.5));
    }

    public override void backward (GenericArray<Dl.Tensor?> grad_outputs,
                                   out GenericArray<Dl.Tensor?> grad_inputs) throws GLib.Error {
        grad_inputs = new GenericArray<Dl.Tensor?> ();
        grad_inputs.add (grad_outputs[0]);
    }
}

/* (a, b) -> (a * b, a + alpha b), b broadcast to a; null for a b that
 * needs no gradient */
class MulAdd : Dl.Function {
    double alpha = 0.5;

    public override void forward (GenericArray<Dl.Tensor?> inputs,
                                  out GenericArray<Dl.Tensor> outputs) throws GLib.Error {
        Dl.Tensor a = inputs[0], b = inputs[1];
        save_for_backward ({ a, b });
        outputs = new GenericArray<Dl.Tensor> ();
        outputs.add (a.mul (b));
        outputs.add (a.add (b.mul_scalar (alpha)));
    }

    public override void backward (GenericArray<Dl.Tensor?> grad_outputs,
                                   out GenericArray<Dl.Tensor?> grad_inputs) throws GLib.Error {
        var saved = get_saved_tensors ();
        Dl.Tensor a = saved[0], b = saved[1], g0 = grad_outputs[0], g1 = grad_outputs[1];
        grad_inputs = new GenericArray<Dl.Tensor?> ();
        grad_inputs.add (g0.mul (b).add (g1));
        /* summed to b's shape by the function */
        grad_inputs.add (needs_input_grad (1) ? g0.mul (a).add (g1.mul_scalar (alpha)) : null);
    }
}

/* x^3, its backward written with ops: differentiable again */
class Cube : Dl.Function {
    public override void forward (GenericArray<Dl.Tensor?> inputs,
                                  out GenericArray<Dl.Tensor> outputs) throws GLib.Error {
        Dl.Tensor x = inputs[0];
        save_for_backward ({ x });
        outputs = new GenericArray<Dl.Tensor> ();
        outputs.add (x.mul (x).mul (x));
    }

    public override void backward (GenericArray<Dl.Tensor?> grad_outputs,
                                   out GenericArray<Dl.Tensor?> grad_inputs) throws GLib.Error {
        Dl.Tensor x = get_saved_tensors ()[0];
        grad_inputs = new GenericArray<Dl.Tensor?> ();
        grad_inputs.add (x.mul (x).mul_scalar (3).mul (grad_outputs[0]));
    }
}

/* a backward that gives the wrong gradients */
class BadFunction : Dl.Function {
    public string kind = "count";

    public override void forward (GenericArray<Dl.Tensor?> inputs,
                                  out GenericArray<Dl.Tensor> outputs) throws GLib.Error {
        outputs = new GenericArray<Dl.Tensor> ();
        outputs.add (inputs[0].mul_scalar (2));
    }

    public override void backward (GenericArray<Dl.Tensor?> grad_outputs,
                                   out GenericArray<Dl.Tensor?> grad_inputs) throws GLib.Error {
        grad_inputs = new GenericArray<Dl.Tensor?> ();
        grad_inputs.add (kind == "shape" ? Dl.zeros ({ 5 }, Dl.DType.FLOAT64) : grad_outputs[0]);
        if (kind == "count")
            grad_inputs.add (grad_outputs[0]);
    }
}

Dl.Tensor leaf (double[] array, int64[] shape) throws GLib.Error {
    var t = from_array (array, shape, Dl.DType.FLOAT64);
    t.set_requires_grad (true);
    return t;
}

void test_function_gradients () {
    try {
        var x = leaf ({ -1, -0.25, 0.25, 1 }, { 4 });
        var y = new ClampSt ().apply ({ x })[0];
        assert_values (y, { -0.5, -0.25, 0.25, 0.5 });
        assert (y.get_grad_fn () is ClampSt);
        y.mul (from_array ({ 1, 2, 3, 4 }, { 4 }, Dl.DType.FLOAT64)).sum ().backward ();
        assert_values (x.get_grad (), { 1, 2, 3, 4 });

        foreach (var need_b in new bool[] { false, true }) {
            var a = leaf ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 });
            var b = from_array ({ 1, -1, 2 }, { 3 }, Dl.DType.FLOAT64);
            b.set_requires_grad (need_b);
            var outs = new MulAdd ().apply ({ a, b });
            assert_values (outs[0], { 1, -2, 6, 4, -5, 12 });
            assert_values (outs[1], { 1.5, 1.5, 4, 4.5, 4.5, 7 });
            outs[0].add (outs[1]).sum ().backward ();
            assert_values (a.get_grad (), { 2, 0, 3, 2, 0, 3 });
            if (need_b)
                assert_values (b.get_grad (), { 6, 8, 10 });
            else
                assert (b.get_grad () == null);
        }
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

void test_function_double_backward () {
    try {
        var x = leaf ({ 1, -2, 3 }, { 3 });
        var y = new Cube ().apply ({ x })[0];
        y.sum ().backward (null, true, true);
        var g = x.get_grad ();
        assert_values (g, { 3, 12, 27 });
        x.set_grad (null);
        g.sum ().backward ();
        assert_values (x.get_grad (), { 6, -12, 18 });
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

void test_function_errors () {
    try {
        foreach (var kind in new string[] { "count", "shape" }) {
            var fn = new BadFunction ();
            fn.kind = kind;
            var y = fn.apply ({ leaf ({ 1, 2 }, { 2 }) })[0];
            assert_dl_error (() => { y.sum ().backward (); }, Dl.Error.AUTOGRAD, kind);
        }
        var x = leaf ({ 1, 2 }, { 2 });
        var cube = new Cube ();
        var loss = cube.apply ({ x })[0].sum ();
        loss.backward ();
        assert_dl_error (() => { loss.backward (); }, Dl.Error.AUTOGRAD, "backward twice");
        assert_dl_error (() => { cube.apply ({ x }); }, Dl.Error.AUTOGRAD, "apply twice");
        var h = x.mul_scalar (1);
        var z = new Cube ().apply ({ h })[0];
        h.mul_scalar_ (2);
        assert_dl_error (() => { z.sum ().backward (); }, Dl.Error.AUTOGRAD, "saved tensor changed");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* Streams and events on the CPU (trivial, always complete) and the
 * device's memory figures. */
void test_parametrization () {
    try {
        var l = new Dl.Linear (2, 1, false);
        var twice = new Twice ();
        var w = from_array ({0.5, -1}, {1, 2});
        w.set_requires_grad (true);
        twice.register_parameter ("original", w);
        assert (l.remove ("weight"));
        l.register_parametrization ("weight", twice);
        assert (l.get_parametrization ("weight") == twice);
        var y = l.forward (from_array ({1, 2, 3, 4}, {2, 2}));
        assert_values (y, {-3, -5}, 1e-6);
        y.sum ().backward ();
        assert_values (w.get_grad (), {8, 12}, 1e-6);
        assert (l.get_parameter ("weight") == null);
        assert (l.remove_parametrization ("weight"));
        assert_dl_error (() => { l.forward (from_array ({1, 2}, {1, 2})); },
                         Dl.Error.ARGUMENT, "no weight");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

void test_num_threads () {
    int before = Dl.get_num_threads ();
    assert (before >= 1);
    try {
        assert (Dl.set_num_threads (1) && Dl.get_num_threads () == 1);
        Dl.set_num_threads (0);
        assert_not_reached ();
    } catch (Error e) {
        assert (e is Dl.Error.ARGUMENT && "positive integer" in e.message);
    }
    try {
        Dl.set_num_threads (before);
    } catch (Error e) {
        assert_not_reached ();
    }
    assert (Dl.get_num_threads () == before);
}

void test_autocast () {
    // a Linear layer's forward under CPU autocast computes in bfloat16,
    // and the gradient reaches its float32 weight as float32
    try {
        var fc = new Dl.Linear (3, 2, true);
        var x = Dl.ones ({ 4, 3 }, Dl.DType.FLOAT32, null);
        assert (!Dl.autocast_is_enabled (Dl.DeviceType.CPU));
        assert (Dl.autocast_get_dtype (Dl.DeviceType.CPU) == Dl.DType.BFLOAT16);
        Dl.autocast_set_enabled (Dl.DeviceType.CPU, true);
        Dl.autocast_increment_nesting ();
        var y = fc.forward (x);
        if (Dl.autocast_decrement_nesting () == 0)
            Dl.autocast_clear_cache ();
        Dl.autocast_set_enabled (Dl.DeviceType.CPU, false);
        assert (y.get_dtype () == Dl.DType.BFLOAT16);
        assert (fc.forward (x).get_dtype () == Dl.DType.FLOAT32);
        y.sum ().backward (null, false, false);
        var g = fc.get_parameter ("weight").get_grad ();
        assert (g != null && g.get_dtype () == Dl.DType.FLOAT32);
        // each weight's gradient is the sum of the input column: 4 ones
        assert (g.sum ().item () == 24.0);
        Dl.autocast_set_dtype (Dl.DeviceType.CPU, Dl.DType.INT64);
        assert_not_reached ();
    } catch (Error e) {
        assert (e is Dl.Error.DTYPE);
    }
    assert (Dl.autocast_get_dtype (Dl.DeviceType.CPU) == Dl.DType.BFLOAT16);
}

void test_streams_and_memory () {
    try {
        var cpu = Dl.Device.get ("cpu");
        var meta = Dl.Device.get ("meta");
        int major, minor;
        meta.get_capability (out major, out minor);
        assert (cpu.product_name.length > 0 && cpu.total_memory > 0 && cpu.multi_processor_count >= 1);
        assert (meta.product_name == "meta" && major == 0 && minor == 0);
        var def = Dl.Stream.get_default (cpu);
        assert (Dl.Stream.get_current (cpu) == def);
        var s = new Dl.Stream (cpu, -1);
        assert (s.priority == -1 && s.get_device () == cpu);
        s.set_current ();
        assert (Dl.Stream.get_current (null) == s);
        def.set_current ();

        var start = new Dl.Event (true, false);
        var end = new Dl.Event (true, true);
        start.record (s);
        assert (start.query () && s.query ());
        assert (start.get_device () == cpu);
        Thread.usleep (10000);
        s.record_event (end);
        double ms = start.elapsed_time (end);
        assert (ms >= 10.0 && ms < 5000.0);
        assert_dl_error (() => { start.record (Dl.Stream.get_default (meta)); },
                         Dl.Error.DEVICE, "an event of the CPU recorded on meta");
        assert_dl_error (() => { new Dl.Event (false, false).elapsed_time (end); },
                         Dl.Error.ARGUMENT, "elapsed_time without timing");

        cpu.reset_peak_memory_stats ();
        Dl.MemoryStats before = cpu.get_memory_stats ();
        var t = Dl.zeros ({ 128, 128 }, Dl.DType.FLOAT64, cpu);
        Dl.MemoryStats during = cpu.get_memory_stats ();
        assert (during.allocated_bytes - before.allocated_bytes >= 128 * 128 * 8);
        assert (during.max_allocated_bytes >= during.allocated_bytes);
        assert (cpu.get_max_memory_reserved () >= cpu.get_memory_reserved ());
        t = null;
        assert (cpu.get_memory_allocated () <= during.allocated_bytes - 128 * 128 * 8 + 1024);
        assert (meta.get_memory_stats ().reserved_bytes == 0);
        assert (cpu.synchronize ());
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_lapack () {
    try {
        var a = from_array ({ 4, 2, 2, 3 }, { 2, 2 }, Dl.DType.FLOAT64);
        assert_values (a.linalg_cholesky (false), { 2, 0, 1, Math.sqrt (2) }, 1e-15);
        assert_values (a.linalg_det (), { 8 }, 1e-14);
        Dl.Tensor sign, logabsdet;
        assert (a.linalg_slogdet (out sign, out logabsdet));
        assert_values (logabsdet, { Math.log (8) }, 1e-14);
        Dl.Tensor? u, s, vh;
        assert (a.linalg_svd (false, true, out u, out s, out vh));
        assert_values (s, { (7 + Math.sqrt (17)) / 2, (7 - Math.sqrt (17)) / 2 }, 1e-13);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
    try {
        from_array ({ -1, 0, 0, -1 }, { 2, 2 }, Dl.DType.FLOAT64).linalg_cholesky (false);
        assert_not_reached ();
    } catch (GLib.Error e) {
        assert (e is Dl.Error.ARGUMENT);
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
        assert_values (a.sum_dims ({ 1 }), { 6, 15 });
        Dl.Tensor idx;
        var m = a.max_dim (0, false, out idx);
        assert_values (m, { 4, 5, 6 });
        assert_values (idx, { 1, 1, 1 });
        var r = Dl.arange (1, 5, 1, Dl.DType.FLOAT32).view ({ 2, 2 });
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

/* The pointwise op table, as the library lists it; a generated in-place
 * variant and a reflected one. */
void test_op_table () {
    try {
        string[] binary = Dl.pointwise_op_names (Dl.OpFlags.BINARY | Dl.OpFlags.REFLECTED);
        assert (binary.length == 6);
        assert (binary[0] == "sub" && binary[1] == "div" && binary[2] == "pow");
        assert (binary[3] == "xlogy" && binary[4] == "bitwise_left_shift");
        assert (binary[5] == "bitwise_right_shift");
        var x = from_array ({1, 2, 4}, {3}, Dl.DType.FLOAT64);
        unowned Dl.Tensor same = x.log2_ ();
        assert (same == x);
        assert_values (x, {0, 1, 2});
        assert_values (x.rpow_scalar (2), {1, 2, 4});
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* Inverse trigonometric and special functions, square of integers and
 * digamma's derivative (trigamma at 1 is pi^2 / 6). */
void test_unary_special () {
    try {
        var x = from_array ({1.5, 3, 2}, {3}, Dl.DType.FLOAT64);
        assert_values (x.acosh (), {Math.acosh (1.5), Math.acosh (3), Math.acosh (2)}, 1e-15);
        assert_values (x.sinh (), {Math.sinh (1.5), Math.sinh (3), Math.sinh (2)}, 1e-15);
        assert_values (x.log10 (), {Math.log10 (1.5), Math.log10 (3), Math.log10 (2)}, 1e-15);
        var n = from_array ({-3, 4}, {2}, Dl.DType.INT64).square ();
        assert (n.get_dtype () == Dl.DType.INT64);
        assert_values (n, {9, 16});
        var one = from_array ({1}, {1}, Dl.DType.FLOAT64);
        one.set_requires_grad (true);
        one.digamma ().sum ().backward (null, false, false);
        assert_values (one.get_grad (), {Math.PI * Math.PI / 6}, 1e-14);
        assert_values (one.digamma (), {-0.57721566490153286}, 1e-15);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* The samplers beyond uniform and normal: Poisson counts and geometric
 * trials with fixed seeds, their means within a few standard errors. */
void test_samplers () {
    try {
        var g = new Dl.Generator (null);
        g.manual_seed (8);
        int64 n = 20000;
        var rates = Dl.full ({n}, 6, Dl.DType.FLOAT64, null);
        var counts = values (Dl.poisson (rates, g));
        double sum = 0;
        foreach (var c in counts) {
            assert (c >= 0 && c == Math.floor (c));
            sum += c;
        }
        assert (Math.fabs (sum / n - 6) < 0.1);
        var t = Dl.empty ({n}, Dl.DType.INT64, null);
        t.geometric_ (0.5, g);
        sum = 0;
        foreach (var k in values (t))
            sum += k;
        assert (Math.fabs (sum / n - 2) < 0.05);
        assert_dl_error (() => { t.geometric_ (0, null); }, Dl.Error.ARGUMENT, "geometric_");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* An in-place write through a view of a tensor in the graph: the base's
 * history records it (CopySlices) and the gradient follows. */
void test_autograd_inplace_view () {
    try {
        var x = from_array ({1, 2, 3, 4}, {2, 2}, Dl.DType.FLOAT64);
        x.set_requires_grad (true);
        var y = x.mul_scalar (1);
        var row = y.select (0, 1);
        row.mul_scalar_ (3);
        assert (y.get_grad_fn ().get_name () == "CopySlices");
        assert_values (y, {1, 2, 9, 12});
        y.sum ().backward ();
        assert_values (x.get_grad (), {1, 1, 3, 3});
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* autograd_grad with create_graph, a hook, retain_grad and anomaly mode */
void test_autograd_grad_hooks () {
    try {
        var x = from_array ({1, 2, 3}, {3}, Dl.DType.FLOAT64);
        x.set_requires_grad (true);
        var s = x.mul (x).mul (x).sum ();
        var g = Dl.autograd_grad ({ s }, { x }, null, true, true, false);
        assert_values (g[0], {3, 12, 27});
        var h = Dl.autograd_grad ({ g[0].sum () }, { x }, null, false, false, false);
        assert_values (h[0], {6, 12, 18});
        assert (x.get_grad () == null);

        var y = x.mul_scalar (2);
        y.retain_grad ();
        int calls = 0;
        var id = y.register_hook ((grad) => {
            calls++;
            return grad.mul_scalar (10);
        });
        y.sum ().backward (null, true);
        assert_values (y.get_grad (), {1, 1, 1});
        assert_values (x.get_grad (), {20, 20, 20});
        assert (calls == 1);
        assert (Dl.autograd_remove_hook (id));

        Dl.autograd_set_detect_anomaly (true);
        var r = from_array ({0, 1}, {2}, Dl.DType.FLOAT64);
        r.set_requires_grad (true);
        try {
            r.sqrt ().mul_scalar (0).sum ().backward ();
            assert_not_reached ();
        } catch (Dl.Error e) {
            assert (e is Dl.Error.AUTOGRAD);
            assert ("SqrtBackward0" in e.message);
        }
        Dl.autograd_set_detect_anomaly (false);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* an LSTM built, run and backpropagated; a GRU cell */
void test_rnn () {
    try {
        var lstm = new Dl.Lstm (3, 4, 2, true, false, 0.0, false, 0);
        var x = Dl.randn ({5, 2, 3});
        x.set_requires_grad (true);
        Dl.Tensor h_n;
        Dl.Tensor? c_n;
        var y = lstm.forward_state (x, null, null, out h_n, out c_n);
        assert (y.get_shape ()[0] == 5 && y.get_shape ()[2] == 4);
        assert (h_n.get_shape ()[0] == 2 && c_n != null);
        y.sum ().backward ();
        assert (x.get_grad () != null);
        assert (lstm.get_parameter ("weight_ih_l1").get_grad () != null);
        assert (lstm.get_mode () == Dl.RnnMode.LSTM);

        var cell = new Dl.GruCell (3, 4, true);
        var h = cell.step (Dl.randn ({2, 3}), null);
        assert (h.get_shape ()[1] == 4);
        try {
            lstm.forward (Dl.randn ({5, 2, 7}));
            assert_not_reached ();
        } catch (Dl.Error e) {
            assert (e is Dl.Error.SHAPE);
        }
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* Dl.conv2d on known values, and the Dl.Conv2d layer */
void test_conv () {
    try {
        var x = from_array ({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3}, Dl.DType.FLOAT64);
        x.set_requires_grad (true);
        var w = from_array ({1, 0, 0, -1}, {1, 1, 2, 2}, Dl.DType.FLOAT64);
        var y = Dl.conv2d (x, w, null, {1, 1}, {0, 0}, {1, 1}, 1);
        assert_values (y, {-4, -4, -4, -4});
        assert (y.get_grad_fn ().get_name () == "ConvolutionBackward0");
        y.sum ().backward ();
        assert_values (x.get_grad (), {1, 1, 0, 1, 0, -1, 0, -1, -1});

        // Vala's fixed-size arrays cannot be null: every pair is given
        var conv = new Dl.Conv2d (2, 4, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true);
        var res = conv.forward (Dl.randn ({3, 2, 5, 5}));
        assert (res.get_shape ()[1] == 4 && res.get_shape ()[3] == 5);
        res.sum ().backward ();
        assert (conv.get_parameter ("weight").get_grad () != null);

        Dl.Tensor where;
        var pooled = Dl.max_pool2d (x, {2, 2}, {1, 1}, {0, 0}, {1, 1}, false, out where);
        assert_values (pooled, {5, 6, 8, 9});
        assert_values (where, {4, 5, 7, 8});

        conv.register_buffer ("steps", from_array ({3}, {1}, Dl.DType.FLOAT64), true);
        conv.register_buffer ("scratch", from_array ({0}, {1}, Dl.DType.FLOAT64), false);
        assert (conv.get_buffer ("steps").item () == 3);
        assert (string.joinv (",", conv.buffer_names ()) == "steps,scratch");
        assert (string.joinv (",", conv.state_dict ().get_names ()) == "weight,bias,steps");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* Dl.batch_norm on known values, and the norm layers */
void test_norm () {
    try {
        var x = from_array ({1, 10, 3, 20}, {2, 2}, Dl.DType.FLOAT32);
        var rm = from_array ({0, 0}, {2}, Dl.DType.FLOAT32);
        var rv = from_array ({1, 1}, {2}, Dl.DType.FLOAT32);
        var y = Dl.batch_norm (x, rm, rv, null, null, true, 0.1, 0);
        assert_values (y, {-1, -1, 1, 1}, 1e-6);
        assert_values (rm, {0.2, 1.5}, 1e-6);

        var img = Dl.randn ({4, 3, 2, 2});
        img.set_requires_grad (true);
        var bn = new Dl.BatchNorm2d (3);
        var res = bn.forward (img);
        res.mul (res).sum ().backward ();
        assert (img.get_grad () != null);
        assert (bn.get_parameter ("weight").get_grad () != null);
        assert (bn.get_buffer ("num_batches_tracked").item () == 1);
        bn.set_training (false);
        bn.forward (img);
        try {
            bn.forward (Dl.randn ({4, 3, 2}));
            assert_not_reached ();
        } catch (Dl.Error e) {
            assert (e.message == "BatchNorm2d: expected 4D input (got 3D input)");
        }

        var ln = new Dl.LayerNorm ({2, 2}, 1e-5, true);
        ln.forward (img).sum ().backward ();
        assert (ln.get_parameter ("bias").get_grad () != null);
        assert (ln.get_normalized_shape ().length == 2);

        var gn = new Dl.GroupNorm (3, 3);
        gn.forward (img).sum ().backward ();
        assert (gn.get_parameter ("weight").get_grad () != null);
        try {
            new Dl.GroupNorm (4, 6);
            assert_not_reached ();
        } catch (Dl.Error e) {
            assert ("divisible" in e.message);
        }
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* dl_pad, pooling, interpolation, dropout and DlConv2d:padding-mode */
void test_resample () {
    try {
        var x = from_array ({1, 2, 3}, {1, 1, 3}, Dl.DType.FLOAT64);
        x.set_requires_grad (true);
        var y = Dl.pad (x, {2, 1}, Dl.PadMode.REPLICATE, 0);
        assert_values (y, {1, 1, 1, 2, 3, 3});
        y.sum ().backward ();
        assert_values (x.get_grad (), {3, 1, 2});

        var img = Dl.arange (1, 17, 1, Dl.DType.FLOAT64).reshape ({1, 1, 4, 4});
        assert_values (Dl.avg_pool2d (img, {2, 2}, {2, 2}, {0, 0}, false, true, 0),
                       {3.5, 5.5, 11.5, 13.5});
        assert_values (Dl.adaptive_avg_pool2d (img, {1, 1}), {8.5});
        assert_values (Dl.interpolate (from_array ({1, 2}, {1, 1, 2}, Dl.DType.FLOAT64), {4},
                                       null, Dl.InterpolateMode.NEAREST, false),
                       {1, 1, 2, 2});
        var d = Dl.dropout (Dl.ones ({100}), 1.0, true, null);
        assert (d.sum ().item () == 0);

        var conv = (Dl.Conv2d) GLib.Initable.new (typeof (Dl.Conv2d), null,
                                                  "in-channels", (int64) 1,
                                                  "out-channels", (int64) 2,
                                                  "kernel-height", (int64) 3,
                                                  "kernel-width", (int64) 3,
                                                  "padding-height", (int64) 1,
                                                  "padding-width", (int64) 1,
                                                  "padding-mode", Dl.PadMode.REFLECT);
        assert (conv.padding_mode == Dl.PadMode.REFLECT);
        var res = conv.forward (Dl.randn ({2, 1, 4, 4}));
        assert (res.get_shape ()[1] == 2 && res.get_shape ()[3] == 4);
        res.sum ().backward ();
        assert (conv.get_parameter ("weight").get_grad () != null);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* the pooling, dropout, embedding, activation and Conv1d/ConvTranspose2d/Conv3d
 * layers, 3-d pooling */
void test_new_layers () {
    try {
        var img = Dl.arange (1, 17, 1, Dl.DType.FLOAT64).reshape ({1, 1, 4, 4});
        var mp = new Dl.MaxPool2d ({2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
        assert_values (mp.forward (img), {6, 8, 14, 16});
        var ap = new Dl.AvgPool2d ({2, 2}, {2, 2}, {0, 0}, false, true, 0);
        assert_values (ap.forward (img), {3.5, 5.5, 11.5, 13.5});
        var aap = new Dl.AdaptiveAvgPool2d (1, 1);
        assert_values (aap.forward (img), {8.5});
        var drop = new Dl.Dropout (1.0, false);
        assert (drop.forward (img).sum ().item () == 0);
        drop.set_training (false);
        assert (drop.forward (img) == img);

        var emb = new Dl.Embedding (4, 2, 0);
        var e = emb.forward (Dl.arange (0, 4, 1, Dl.DType.INT64));
        e.sum ().backward ();
        var g = emb.get_parameter ("weight").get_grad ();
        assert_values (g, {0, 0, 1, 1, 1, 1, 1, 1});

        var v = from_array ({-1, 0.5, 3}, {3}, Dl.DType.FLOAT64);
        assert_values (new Dl.Hardtanh (0, 1, false).forward (v), {0, 0.5, 1});
        assert_values (new Dl.Elu (1, false).forward (v), {Math.expm1 (-1), 0.5, 3});
        assert ((new Dl.Softplus (1, 20).forward (v)).get_shape ()[0] == 3);
        var prelu = new Dl.Prelu (2, 0.25);
        var py = prelu.forward (from_array ({-4, 2, 1, -8}, {2, 2}));
        assert_values (py, {-1, 2, 1, -2});
        py.sum ().backward ();
        assert_values (prelu.get_parameter ("weight").get_grad (), {-4, -8});
        assert (prelu.to_string () == "PReLU(num_parameters=2)");
        assert_values (new Dl.Hardshrink (0.5).forward (v), {-1, 0, 3});

        var c1 = new Dl.Conv1d (2, 3, 3, 1, 1, 1, 1, true);
        var y1 = c1.forward (Dl.randn ({2, 2, 6}));
        assert (y1.get_shape ()[2] == 6);
        y1.sum ().backward ();
        assert (c1.get_parameter ("weight").get_grad () != null);
        var ct = new Dl.ConvTranspose2d (2, 1, {2, 2}, {2, 2}, {0, 0}, 1, true);
        assert (ct.forward (Dl.randn ({1, 2, 3, 3})).get_shape ()[3] == 6);
        var c3 = new Dl.Conv3d (2, 4, {3, 1, 2}, {2, 1, 1}, {0, 0, 1}, {1, 1, 1}, 2, true);
        var y3 = c3.forward (Dl.randn ({3, 2, 5, 4, 3}));
        assert (y3.get_shape ()[2] == 2 && y3.get_shape ()[4] == 4);
        y3.sum ().backward ();
        assert (c3.get_parameter ("weight").get_grad () != null);
        var vol = from_array ({3, 1, 4, 1, 5, 9, 2, 6}, {1, 1, 2, 2, 2}, Dl.DType.FLOAT64);
        Dl.Tensor where;
        assert_values (Dl.max_pool3d (vol, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false,
                                      out where), {9});
        assert_values (where, {5});
        assert_values (Dl.avg_pool3d (vol, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false, true, 0),
                       {31.0 / 8});
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* The defaults Dl-1.0.metadata gives nullable and optional arguments */
void test_gradcheck () {
    try {
        var x = from_array ({0.5, -1.25, 2}, {3}, Dl.DType.FLOAT64);
        var y = from_array ({1.5, 0.25, -0.75}, {3}, Dl.DType.FLOAT64);
        x.set_requires_grad (true);
        y.set_requires_grad (true);
        int calls = 0;
        /* two outputs: x * tanh (y) and the sum of x * x */
        Dl.GradcheckFunc f = (inputs) => {
            calls++;
            var out = new GenericArray<Dl.Tensor> ();
            out.add (inputs[0].mul (inputs[1].tanh ()));
            out.add (inputs[0].mul (inputs[0]).sum ());
            return out;
        };
        assert (Dl.autograd_gradcheck (f, {x, y}, 1e-6, 1e-5, 1e-3, true, 0, true));
        assert (calls > 12);
        assert (Dl.autograd_gradgradcheck (f, {x, y}, null, 1e-6, 1e-5, 1e-3, false, true, 0, true));
        assert_values (x, {0.5, -1.25, 2});

        /* a gradient that misses a term: x * |x| with |x| detached */
        Dl.GradcheckFunc wrong = (inputs) => {
            var out = new GenericArray<Dl.Tensor> ();
            out.add (inputs[0].mul (inputs[0].abs ().detach ()));
            return out;
        };
        try {
            Dl.autograd_gradcheck (wrong, {x}, 1e-6, 1e-5, 1e-3, true, 0, true);
            assert_not_reached ();
        } catch (Dl.Error.AUTOGRAD e) {
            assert (e.message.has_prefix ("Jacobian mismatch for output 0 with respect to input 0"));
            assert ("d output 0[0] / d input 0[0]: numerical 1" in e.message);
        }
        assert (!Dl.autograd_gradcheck (wrong, {x}, 1e-6, 1e-5, 1e-3, false, 0, true));

        /* an error of the function reaches the caller */
        Dl.GradcheckFunc failing = (inputs) => {
            throw new Dl.Error.SHAPE ("failing: no");
        };
        try {
            Dl.autograd_gradcheck (failing, {x}, 1e-6, 1e-5, 1e-3, false, 0, true);
            assert_not_reached ();
        } catch (Dl.Error.SHAPE e) {
            assert (e.message == "failing: no");
        }
        assert ("MulBackward0" in Dl.autograd_get_node_names ());
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

void test_defaults () {
    try {
        var z = Dl.zeros ({ 2, 3 });
        assert (z.get_dtype () == Dl.DType.FLOAT32);
        assert (z.get_device () == Dl.Device.get_default ());
        assert (Dl.randint (0, 5, { 4 }).get_dtype () == Dl.DType.INT64);
        assert (Dl.randperm (4).get_dtype () == Dl.DType.INT64);
        assert_shape (Dl.randn_gen ({ 3 }), { 3 });
        var g = new Dl.Generator ();
        g.manual_seed (5);
        var a = Dl.rand_gen ({ 4 }, Dl.DType.FLOAT64, null, g);
        g.manual_seed (5);
        assert_values (Dl.rand_gen ({ 4 }, Dl.DType.FLOAT64, null, g), values (a));
        /* PyTorch's numbers: torch.manual_seed (0); torch.randn (3) */
        g.manual_seed (0);
        assert_values (Dl.randn_gen ({ 3 }, Dl.DType.FLOAT32, null, g),
                       { 1.5409960746765137, -0.293428897857666, -2.1787893772125244 });
        assert (g.get_state ().get_size () == 5056);
        /* Tensor.random_ (): int64 over [0, 2^63) */
        var bits = Dl.zeros ({ 64 }, Dl.DType.INT64).random_ (g);
        foreach (var v in values (bits))
            assert (v >= 0);
        /* keepdim = false */
        assert_shape (Dl.ones ({ 2, 3 }).mean_dims ({ 1 }), { 2 });
        /* backward (): no gradient, graph freed */
        var x = Dl.ones ({ 3 });
        x.set_requires_grad (true);
        var loss = x.mul_scalar (2).sum ();
        loss.backward ();
        assert_values (x.get_grad (), { 2, 2, 2 });
        assert_dl_error (() => { loss.backward (); }, Dl.Error.AUTOGRAD, "second backward through freed buffers");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_module_subclass () {
    try {
        var net = new Mlp (4, 8, 3);
        var names = net.parameter_names ();
        assert (string.joinv (",", names) == "fc1.weight,fc1.bias,fc2.weight,fc2.bias");
        assert (net.parameters ().length == 4);
        /* called through the C invoker, as the rest of the library would */
        var y = net.forward (Dl.randn ({ 5, 4 }));
        assert (net.calls == 1);
        assert (y.get_shape ()[0] == 5 && y.get_shape ()[1] == 3);
        assert (y.get_grad_fn () != null);
        try {
            net.forward (Dl.randn ({ 5, 7 }));
            assert_not_reached ();
        } catch (Dl.Error.SHAPE e) {
        }
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_module_forward_many () {
    try {
        var a = from_array ({ 1, 2 }, { 2 }, Dl.DType.FLOAT64);
        var b = from_array ({ 3, 5 }, { 2 }, Dl.DType.FLOAT64);
        var pair = new Pair ();
        var inputs = new GenericArray<Dl.Tensor?> ();
        inputs.add (a);
        inputs.add (b);
        var outputs = pair.forward_many (inputs);
        assert (outputs.length == 2);
        assert_values (outputs[0], { 4, 7 });
        assert_values (outputs[1], { 3, 10 });
        /* an absent optional input */
        inputs[1] = null;
        outputs = pair.forward_many (inputs);
        assert_values (outputs[0], { 2, 4 });
        assert_values (outputs[1], { 1, 4 });
        /* forward needs exactly one output */
        assert_dl_error (() => { pair.forward (a); }, Dl.Error.ARGUMENT, "forward on two outputs");
        inputs.length = 0;
        assert_dl_error (() => { pair.forward_many (inputs); }, Dl.Error.ARGUMENT, "no inputs");

        /* a one-in/one-out subclass through the general entry point */
        var net = new Mlp (2, 3, 2);
        inputs.add (Dl.randn ({ 4, 2 }));
        outputs = net.forward_many (inputs);
        assert (outputs.length == 1 && net.calls == 1);
        assert_shape (outputs[0], { 4, 2 });
        inputs.add (a);
        assert_dl_error (() => { net.forward_many (inputs); }, Dl.Error.ARGUMENT, "two inputs to forward");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_bilinear_layer () {
    try {
        /* the C convenience, then a call with two inputs */
        var l = new Dl.Bilinear (2, 3, 1, true);
        assert (l.in1_features == 2 && l.in2_features == 3 && l.out_features == 1 && l.bias);
        l.to_dtype (Dl.DType.FLOAT64);
        var w = l.get_parameter ("weight");
        var b = l.get_parameter ("bias");
        assert_shape (w, { 1, 2, 3 });
        var wv = values (w);
        var bv = values (b);
        var inputs = new GenericArray<Dl.Tensor?> ();
        inputs.add (from_array ({ 1, -2 }, { 1, 2 }, Dl.DType.FLOAT64));
        inputs.add (from_array ({ 0.5, 1, 2 }, { 1, 3 }, Dl.DType.FLOAT64));
        var outputs = l.forward_many (inputs);
        assert (outputs.length == 1);
        assert_shape (outputs[0], { 1, 1 });
        double[] x1 = { 1, -2 };
        double[] x2 = { 0.5, 1, 2 };
        double sum = bv[0];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                sum += x1[i] * wv[i * 3 + j] * x2[j];
        assert_values (outputs[0], { sum }, 1e-12);
        /* one input is the layer's error */
        inputs.length = 1;
        assert_dl_error (() => { l.forward_many (inputs); }, Dl.Error.ARGUMENT, "one input");
        try {
            new Dl.Bilinear (2, -1, 1, true);
            assert_not_reached ();
        } catch (Dl.Error.ARGUMENT e) {
            assert ("in2_features" in e.message);
        }
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_linear_properties () {
    try {
        /* g_initable_new: construct properties, checked at once (gint64
         * varargs need the cast) */
        var l = (Dl.Linear) Initable.new (typeof (Dl.Linear), null,
                                          "in-features", (int64) 4, "out-features", (int64) 2);
        assert (l.in_features == 4 && l.out_features == 2 && l.bias);
        assert_shape (l.forward (Dl.randn ({ 3, 4 })), { 3, 2 });
        try {
            Initable.new (typeof (Dl.Linear), null, "in-features", (int64) 4);
            assert_not_reached ();
        } catch (Dl.Error.ARGUMENT e) {
            assert ("out_features is missing" in e.message);
        }
        /* Object.new does not call init: init and forward report it */
        var broken = (Dl.Linear) Object.new (typeof (Dl.Linear), "in-features", (int64) (-2),
                                             "out-features", (int64) 3);
        assert_dl_error (() => { broken.init (); }, Dl.Error.ARGUMENT, "init");
        assert_dl_error (() => { broken.forward (Dl.randn ({ 3, 4 })); }, Dl.Error.ARGUMENT, "forward");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

/* The dtype construct property: layers that make their parameters in
 * float64 and run in float64 */
void test_layer_dtype () {
    try {
        var fc = (Dl.Linear) Initable.new (typeof (Dl.Linear), null, "in-features", (int64) 3,
                                           "out-features", (int64) 2, "dtype", Dl.DType.FLOAT64);
        assert (fc.dtype == Dl.DType.FLOAT64);
        var w = fc.get_parameter ("weight");
        var b = fc.get_parameter ("bias");
        assert (w.get_dtype () == Dl.DType.FLOAT64 && b.get_dtype () == Dl.DType.FLOAT64);
        var x = from_array ({ 0.1, -0.2, 0.3, 1.5, 2.5, -3.5 }, { 2, 3 }, Dl.DType.FLOAT64);
        var y = fc.forward (x);
        assert (y.get_dtype () == Dl.DType.FLOAT64);
        var wv = values (w);
        var bv = values (b);
        var xv = values (x);
        var expected = new double[4];
        for (int i = 0; i < 2; i++) {
            for (int o = 0; o < 2; o++) {
                expected[i * 2 + o] = bv[o];
                for (int k = 0; k < 3; k++)
                    expected[i * 2 + o] += xv[i * 3 + k] * wv[o * 3 + k];
            }
        }
        assert_values (y, expected, 1e-14);

        /* a GRU cell in float64 computes what the float32 cell of the same
         * weights computes */
        var c32 = (Dl.Module) Initable.new (typeof (Dl.GruCell), null, "input-size", (int64) 2,
                                            "hidden-size", (int64) 3);
        var c64 = (Dl.Module) Initable.new (typeof (Dl.GruCell), null, "input-size", (int64) 2,
                                            "hidden-size", (int64) 3, "dtype", Dl.DType.FLOAT64);
        foreach (var p in c64.parameters ())
            assert (p.get_dtype () == Dl.DType.FLOAT64);
        string[] missing, unexpected;
        assert (c64.load_state_dict (c32.state_dict (), true, out missing, out unexpected));
        var input = from_array ({ 0.5, -1, 2, 0.25 }, { 2, 2 }, Dl.DType.FLOAT64);
        var h64 = c64.forward (input);
        assert (h64.get_dtype () == Dl.DType.FLOAT64);
        assert_values (h64, values (c32.forward (input.to_dtype (Dl.DType.FLOAT32))), 1e-5);

        /* an integer dtype is the construction's error */
        try {
            Initable.new (typeof (Dl.Linear), null, "in-features", (int64) 3, "out-features",
                          (int64) 2, "dtype", Dl.DType.INT64);
            assert_not_reached ();
        } catch (Dl.Error.DTYPE e) {
            assert ("floating point" in e.message);
        }
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_sgd_properties () {
    try {
        var w = Dl.zeros ({ 2 }, Dl.DType.FLOAT64);
        w.set_requires_grad (true);
        var params = new ListStore (typeof (Dl.Tensor));
        params.append (w);
        var sgd = (Dl.Sgd) Initable.new (typeof (Dl.Sgd), null, "params", params, "lr", 0.5,
                                         "momentum", 0.9);
        assert (sgd.lr == 0.5 && sgd.momentum == 0.9 && !sgd.nesterov);
        w.mul_scalar (3).sum ().backward ();
        sgd.step ();
        assert_values (w, { -1.5, -1.5 });
        sgd.weight_decay = -1;
        assert_dl_error (() => { sgd.step (); }, Dl.Error.ARGUMENT, "negative weight decay");
        try {
            Initable.new (typeof (Dl.Sgd), null, "lr", 0.1);
            assert_not_reached ();
        } catch (Dl.Error.ARGUMENT e) {
            assert ("empty parameter list" in e.message);
        }
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

/* Optimizers: each stepped once, one written in Vala, and schedulers */

/* halves the rate every second epoch; the rate goes back through the out
 * parameter of compute_lr */
class HalvingLr : Dl.LrScheduler {
    public override void compute_lr (uint group, double current_lr, out double lr) throws GLib.Error {
        var e = get_last_epoch ();
        lr = e > 0 && e % 2 == 0 ? current_lr / 2 : current_lr;
    }
}

class SignSgd : Dl.Optimizer {
    public override bool step () throws GLib.Error {
        for (uint g = 0; g < get_n_param_groups (); g++) {
            var lr = get_group_lr (g);
            foreach (var p in get_group_params (g)) {
                var grad = p.get_grad ();
                if (grad != null)
                    p.add_scaled_ (grad.sign (), -lr);
            }
        }
        return true;
    }
}

Dl.Tensor leaf_with_grad () throws GLib.Error {
    var p = from_array ({ 1, -2, 3 }, { 3 }, Dl.DType.FLOAT64);
    p.set_requires_grad (true);
    p.set_grad (from_array ({ 0.5, -1, 2 }, { 3 }, Dl.DType.FLOAT64));
    return p;
}

void test_optimizers () {
    try {
        /* torch.optim 1.13's first step from these values */
        var p = leaf_with_grad ();
        var ps = new GenericArray<Dl.Tensor> ();
        ps.add (p);
        new Dl.Adam (ps, 0.1, 0.9, 0.999, 1e-8, 0, false).step ();
        assert_values (p, { 0.9, -1.9, 2.9 }, 1e-6);
        ps[0] = p = leaf_with_grad ();
        new Dl.AdamW (ps, 0.1, 0.9, 0.999, 1e-8, 0.01, false).step ();
        assert_values (p, { 0.899, -1.898, 2.897 }, 1e-6);
        ps[0] = p = leaf_with_grad ();
        new Dl.Rmsprop (ps, 0.01, 0.99, 1e-8, 0, 0, false).step ();
        assert_values (p, { 0.9, -1.9, 2.9 }, 1e-6);
        ps[0] = p = leaf_with_grad ();
        var adagrad = new Dl.Adagrad (ps, 0.1, 0, 0, 0, 1e-10);
        adagrad.step ();
        assert_values (p, { 0.9, -1.9, 2.9 }, 1e-6);
        assert (adagrad.list_state (0)[0] == "step" && adagrad.list_state (0)[1] == "sum");
        ps[0] = p = leaf_with_grad ();
        var sgd = new Dl.Sgd (ps, 0.1, 0.9, 0, 0, false);
        sgd.step ();
        assert_values (p, { 0.95, -1.9, 2.8 }, 1e-12);
        assert_dl_error (() => { new Dl.Adam (ps, 0.1, 0.9, 1.5, 1e-8, 0, false); },
                         Dl.Error.ARGUMENT, "bad beta");
        ps[0] = p = leaf_with_grad ();
        var nadam = new Dl.Nadam (ps, 0.1, 0.9, 0.999, 1e-8, 0, 4e-3);
        nadam.step ();
        nadam.step ();
        assert_values (p, { 0.8171707556281658, -1.8171707537998734, 2.817170752885727 }, 1e-6);
        assert (nadam.list_state (0)[2] == "mu_product");
        ps[0] = p = leaf_with_grad ();
        new Dl.Rprop (ps, 0.1, 0.5, 1.2, 1e-6, 50).step ();
        assert_values (p, { 0.9, -1.9, 2.9 }, 1e-12);
        assert_dl_error (() => { new Dl.Rprop (ps, 0.1, 1.5, 2, 1e-6, 50); },
                         Dl.Error.ARGUMENT, "bad etas");

        /* an optimizer written in Vala, with its groups, under StepLR and
         * LambdaLR with a Vala closure */
        ps[0] = p = leaf_with_grad ();
        var params = new ListStore (typeof (Dl.Tensor));
        params.append (p);
        var sign = (SignSgd) Initable.new (typeof (SignSgd), null, "params", params, "lr", 0.5);
        var q = leaf_with_grad ();
        var qs = new GenericArray<Dl.Tensor> ();
        qs.add (q);
        sign.add_param_group (qs, { "lr" }, { 1.0 });
        sign.step ();
        assert_values (p, { 0.5, -1.5, 2.5 });
        assert_values (q, { 0, -1, 2 });
        var step_lr = new Dl.StepLr (sign, 1, 0.5);
        step_lr.step ();
        var last = step_lr.get_last_lr ();
        assert (last.length == 2 && last[0] == 0.25 && last[1] == 0.5);
        int calls = 0;
        var lambda = new Dl.LambdaLr (sign, (group, epoch, out factor) => {
            calls++;
            factor = group == 0 ? 1.0 : 1.0 / (epoch + 1);
        });
        lambda.step ();
        last = lambda.get_last_lr ();
        assert (last[0] == 0.5 && last[1] == 0.5 && calls == 4);
        sign.step ();
        assert_values (p, { 0, -1, 2 });
        var halving = (HalvingLr) Object.new (typeof (HalvingLr), "optimizer", sign);
        halving.init (null);
        double[] lrs = {};
        for (int i = 0; i < 4; i++) {
            halving.step ();
            lrs += halving.get_last_lr ()[0];
        }
        assert (lrs[0] == 0.5 && lrs[1] == 0.25 && lrs[2] == 0.25 && lrs[3] == 0.125);

        /* LBFGS with a Vala closure */
        ps[0] = p = leaf_with_grad ();
        var centre = from_array ({ 1, 2, 3 }, { 3 }, Dl.DType.FLOAT64);
        var lbfgs = new Dl.Lbfgs (ps, 1, 20, 10, "strong_wolfe");
        var loss = lbfgs.step_closure (() => {
            p.set_grad (null);
            var d = p.sub (centre);
            var l = d.mul (d).sum ();
            l.backward ();
            return l;
        });
        assert (loss.item () == 16);
        assert_values (p, { 1, 2, 3 }, 1e-6);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_activation_modules () {
    try {
        var x = from_array ({ -2, -0.5, 0, 1.5, 3, -1 }, { 2, 3 }, Dl.DType.FLOAT64);
        assert_values (new Dl.Relu (false).forward (x), { 0, 0, 0, 1.5, 3, 0 });
        assert_values (new Dl.Sigmoid ().forward (x), values (x.sigmoid ()));
        assert_values (new Dl.Tanh ().forward (x), values (x.tanh ()));
        assert_values (new Dl.Gelu ("tanh").forward (x), values (x.gelu_tanh ()));
        var silu = new Dl.Silu (true);
        var x_copy = x.clone ();
        assert (silu.forward (x_copy) == x_copy);
        assert_values (x_copy, values (x.silu ()));
        assert (new Dl.Identity ().forward (x) == x);
        assert_values (new Dl.Softmax (1).forward (x), values (x.softmax (1)));
        var log_softmax = (Dl.LogSoftmax) Object.new (typeof (Dl.LogSoftmax), "dim", (int64) (-1));
        assert (log_softmax.dim == -1);
        assert_values (log_softmax.forward (x), values (x.log_softmax (1)));
        var relu = (Dl.Relu) Object.new (typeof (Dl.Relu), "inplace", true);
        var copy = x.clone ();
        assert (relu.forward (copy) == copy);
        assert_values (copy, { 0, 0, 0, 1.5, 3, 0 });
        var leaky = new Dl.LeakyRelu (0.2, false);
        assert (leaky.negative_slope == 0.2 && !leaky.inplace);
        assert_values (leaky.forward (x), values (x.leaky_relu (0.2)));
        assert_values (x.leaky_relu (0.5), { -1, -0.25, 0, 1.5, 3, -0.5 });
        var leaky_default = (Dl.LeakyRelu) Object.new (typeof (Dl.LeakyRelu), "inplace", true);
        var leaky_copy = x.clone ();
        assert (leaky_default.negative_slope == 0.01);
        assert (leaky_default.forward (leaky_copy) == leaky_copy);
        assert_values (leaky_copy, { -0.02, -0.005, 0, 1.5, 3, -0.01 });
        var x4 = Dl.zeros ({ 2, 3, 4, 5 });
        var flatten = (Dl.Flatten) Object.new (typeof (Dl.Flatten));
        assert (flatten.start_dim == 1 && flatten.end_dim == -1);
        assert_shape (flatten.forward (x4), { 2, 60 });
        assert_shape (new Dl.Flatten (1, 2).forward (x4), { 2, 12, 5 });
        var no_dim = (Dl.Softmax) Object.new (typeof (Dl.Softmax));
        assert_dl_error (() => { no_dim.init (); }, Dl.Error.ARGUMENT, "Softmax without dim");
        assert_dl_error (() => { no_dim.forward (x); }, Dl.Error.ARGUMENT, "its forward");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_sequential () {
    try {
        var modules = new GenericArray<Dl.Module> ();
        modules.add (new Dl.Linear (4, 6, true));
        modules.add (new Dl.Relu (false));
        var seq = new Dl.Sequential (modules);
        seq.append (new Dl.Linear (6, 2, true));
        assert (seq.get_length () == 3);
        assert (string.joinv (",", seq.parameter_names ()) == "0.weight,0.bias,2.weight,2.bias");
        assert (seq.get (1) is Dl.Relu && seq.get (-1) is Dl.Linear);
        assert_dl_error (() => { seq.get (-4); }, Dl.Error.INDEX, "get out of range");
        var x = Dl.randn ({ 3, 4 });
        var reference = seq.get (2).forward (seq.get (0).forward (x).relu ());
        assert_values (seq.forward (x), values (reference));
        var empty = new Dl.Sequential ();
        assert (empty.forward (x) == x);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

/* the Module toolkit: dotted names, apply, to_dtype, hooks, containers */
void test_module_toolkit () {
    try {
        var net = (Dl.Module) Object.new (typeof (Dl.Module));
        var mods = new GenericArray<Dl.Module> ();
        mods.add (new Dl.Linear (2, 3, true));
        mods.add (new Dl.Relu (false));
        var features = new Dl.Sequential (mods);
        net.add_module ("features", features);
        var heads = new Dl.ModuleList (null);
        heads.append (new Dl.Linear (3, 1, false));
        heads.insert (0, new Dl.Linear (3, 2, true));
        net.add_module ("heads", heads);
        string[] names;
        var all = net.named_modules (true, out names);
        assert (all.length == 7);
        assert (string.joinv (",", names) == ",features,features.0,features.1,heads,heads.0,heads.1");
        string[] pnames;
        var params = net.named_parameters (true, out pnames);
        assert (string.joinv (",", pnames)
                == "features.0.weight,features.0.bias,heads.0.weight,heads.0.bias,heads.1.weight");
        assert (params[0].is_parameter ());
        assert_dl_error (() => { net.add_module ("a.b", new Dl.Relu (false)); },
                         Dl.Error.ARGUMENT, "a dotted name");

        int n = 0;
        net.apply ((m) => { n++; });
        assert (n == 7);

        var w = params[0];
        net.to_dtype (Dl.DType.FLOAT64);
        assert (w.get_dtype () == Dl.DType.FLOAT64);
        string[] again;
        assert (net.named_parameters (true, out again)[0] == w);
        net.to_dtype (Dl.DType.FLOAT32);

        var log = new GenericArray<string> ();
        var relu = features.get (1);
        var id = relu.register_forward_hook ((m, inputs, outputs) => {
            log.add ("post %u %u".printf (inputs.length, outputs.length));
            return null;
        });
        var pre = relu.register_forward_pre_hook ((m, inputs) => {
            log.add ("pre");
            var doubled = new GenericArray<Dl.Tensor> ();
            doubled.add (inputs[0].mul_scalar (2));
            return doubled;
        });
        var y = features.forward (from_array ({ 1, -1 }, { 1, 2 }));
        assert_shape (y, { 1, 3 });
        assert (log.length == 2 && log[0] == "pre" && log[1] == "post 1 1");
        assert (relu.remove_hook (id) && relu.remove_hook (pre) && !relu.remove_hook (pre));

        var dict = new Dl.ModuleDict ();
        dict.insert ("act", new Dl.Tanh ());
        assert (dict.get_length () == 1 && dict.lookup ("act") is Dl.Tanh);
        assert_dl_error (() => { dict.pop ("none"); }, Dl.Error.INDEX, "missing key");

        var un = new Dl.Unflatten (1, { 2, 2 });
        assert_shape (un.forward (from_array ({ 1, 2, 3, 4 }, { 1, 4 })), { 1, 2, 2 });
        assert (un.to_string () == "Unflatten(dim=1, unflattened_size=(2, 2))");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_loss_modules () {
    try {
        var logits = from_array ({ 0.5, -1, 2, 0, 1, -0.5 }, { 2, 3 }, Dl.DType.FLOAT64);
        var target = from_array ({ 2, 0 }, { 2 }, Dl.DType.INT64);
        var ce = new Dl.CrossEntropyLoss ();
        assert (ce.reduction == Dl.Reduction.MEAN);
        var inputs = new GenericArray<Dl.Tensor?> ();
        inputs.add (logits);
        inputs.add (target);
        var loss = ce.forward_many (inputs)[0];
        assert (loss.item () == Dl.cross_entropy (logits, target).item ());
        inputs[0] = logits.log_softmax (1);
        assert (Math.fabs (new Dl.NllLoss ().forward_many (inputs)[0].item () - loss.item ()) < 1e-15);
        assert_dl_error (() => { ce.forward (logits); }, Dl.Error.ARGUMENT, "one input");
        var bad = (Dl.CrossEntropyLoss) Object.new (typeof (Dl.CrossEntropyLoss), "reduction", Dl.Reduction.BATCHMEAN);
        assert_dl_error (() => { bad.init (); }, Dl.Error.ARGUMENT, "batchmean");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

/* the margin and embedding losses as modules (construct properties) and
 * as functions */
void test_margin_losses () {
    try {
        var a = from_array ({ 0, 0 }, { 2 }, Dl.DType.FLOAT64);
        var p = from_array ({ 3, 4 }, { 2 }, Dl.DType.FLOAT64);
        var n = from_array ({ 0, 1 }, { 2 }, Dl.DType.FLOAT64);
        var triplet = (Dl.TripletMarginLoss) Object.new (typeof (Dl.TripletMarginLoss), "margin", 2.0,
                                                         "eps", 0.0, "reduction", Dl.Reduction.SUM);
        triplet.init ();
        assert (triplet.margin == 2.0 && triplet.p == 2.0 && !triplet.swap);
        var inputs = new GenericArray<Dl.Tensor?> ();
        inputs.add (a);
        inputs.add (p);
        inputs.add (n);
        /* max (0, 2 + |a - p| - |a - n|) */
        assert_values (triplet.forward_many (inputs)[0], { 6 }, 1e-12);
        var ranking = new Dl.MarginRankingLoss ();
        ranking.init ();
        var x1 = from_array ({ 1, 2, 3 }, { 3 }, Dl.DType.FLOAT64);
        var x2 = from_array ({ 2, 0, 3 }, { 3 }, Dl.DType.FLOAT64);
        var y = from_array ({ 1, -1, 1 }, { 3 }, Dl.DType.FLOAT64);
        inputs[0] = x1;
        inputs[1] = x2;
        inputs[2] = y;
        /* max (0, -y (x1 - x2)): 1, 2, 0 */
        assert_values (ranking.forward_many (inputs)[0], { 1 }, 1e-12);
        assert_values (Dl.margin_ranking_loss (x1, x2, y, 0.5, Dl.Reduction.NONE), { 1.5, 2.5, 0.5 },
                       1e-12);
        assert_values (Dl.cosine_similarity (n, p, 0, 1e-8), { 0.8 }, 1e-12);
        var bad = (Dl.MultiMarginLoss) Object.new (typeof (Dl.MultiMarginLoss), "p", 3.0);
        assert_dl_error (() => { bad.init (); }, Dl.Error.ARGUMENT, "p = 3");
        assert_dl_error (() => { ranking.forward (x1); }, Dl.Error.ARGUMENT, "one input of three");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

/* the other losses as modules and functions, nn.init and clip_grad_norm_ */
void test_losses_init_clip () {
    try {
        var x = from_array ({ 0.5, -1, 2, 0 }, { 2, 2 }, Dl.DType.FLOAT64);
        var y = from_array ({ 1, 1, -0.5, 0.25 }, { 2, 2 }, Dl.DType.FLOAT64);
        var inputs = new GenericArray<Dl.Tensor?> ();
        inputs.add (x);
        inputs.add (y);
        var l1 = (Dl.L1Loss) Object.new (typeof (Dl.L1Loss), "reduction", Dl.Reduction.SUM);
        l1.init ();
        assert_values (l1.forward_many (inputs)[0], { 5.25 });
        var huber = (Dl.HuberLoss) Object.new (typeof (Dl.HuberLoss), "delta", 0.7);
        huber.init ();
        assert_values (huber.forward_many (inputs)[0], { 0.7040625 }, 1e-15);
        assert_values (Dl.huber_loss (x, y, Dl.Reduction.NONE, 0.7), { 0.125, 1.155, 1.505, 0.03125 },
                       1e-15);
        assert_values (Dl.smooth_l1_loss (x, y, Dl.Reduction.MEAN, 0.5), { 1.078125 }, 1e-15);
        var lp = from_array ({ Math.log (0.5), Math.log (0.5), Math.log (0.25), Math.log (0.75) },
                             { 2, 2 }, Dl.DType.FLOAT64);
        var tg = from_array ({ 0, 1, 0.5, 0.5 }, { 2, 2 }, Dl.DType.FLOAT64);
        var kl = (Dl.KlDivLoss) Object.new (typeof (Dl.KlDivLoss), "reduction", Dl.Reduction.BATCHMEAN);
        kl.init ();
        inputs[0] = lp;
        inputs[1] = tg;
        assert_values (kl.forward_many (inputs)[0], { 0.41849410839291784 }, 1e-14);
        assert_dl_error (() => { Dl.kl_div (lp, tg, (Dl.Reduction) 17, false); },
                         Dl.Error.ARGUMENT, "reduction");

        var w = Dl.empty ({ 20, 10 }, Dl.DType.FLOAT64, null);
        Dl.init_orthogonal_ (w, 1.0, null);
        assert_values (w.t ().matmul (w), identity (10), 1e-12);
        Dl.init_xavier_uniform_ (w, 1.0, null);
        foreach (var v in values (w))
            assert (Math.fabs (v) <= Math.sqrt (6.0 / 30) * (1 + 1e-9));

        var p = from_array ({ 1, 2, 3 }, { 3 });
        p.set_requires_grad (true);
        Dl.mse_loss (p, from_array ({ 4, -2, 3 }, { 3 }), Dl.Reduction.SUM).backward (null, false, false);
        var total = Dl.clip_grad_norm_ ({ p }, 1.0, 2.0, false);
        assert_values (total, { 10 }, 1e-6);
        assert_values (p.get_grad (), { -0.6, 0.8, 0 }, 1e-6);

        /* weight_norm's weight: rows [3, 4] and [0, 2] scaled to norms 10 and 1 */
        var v = from_array ({ 3, 4, 0, 2 }, { 2, 2 }, Dl.DType.FLOAT64);
        v.set_requires_grad (true);
        var wn = Dl.weight_norm (v, from_array ({ 10, 1 }, { 2, 1 }, Dl.DType.FLOAT64), 0);
        assert_values (wn, { 6, 8, 0, 1 }, 1e-12);
        assert (wn.get_grad_fn ().get_name () == "WeightNormInterfaceBackward0");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

double[] identity (int n) {
    var eye = new double[n * n];
    for (int i = 0; i < n; i++)
        eye[i * n + i] = 1;
    return eye;
}

/* Sequential (Linear, ReLU, Linear), CrossEntropyLoss and SGD */
void test_sequential_training () {
    try {
        Dl.manual_seed (4);
        var model = new Dl.Sequential ();
        model.append (new Dl.Linear (2, 16, true));
        model.append (new Dl.Relu (false));
        model.append (new Dl.Linear (16, 2, true));
        var loss_fn = new Dl.CrossEntropyLoss ();
        var params = new ListStore (typeof (Dl.Tensor));
        var parameters = model.parameters ();
        for (int i = 0; i < parameters.length; i++)
            params.append (parameters[i]);
        var sgd = (Dl.Sgd) Initable.new (typeof (Dl.Sgd), null, "params", params, "lr", 0.5,
                                         "momentum", 0.9);
        var x = Dl.rand ({ 64, 2 }).mul_scalar (2).sub_scalar (1);
        var xv = values (x);
        var labels = new double[64];
        for (int i = 0; i < 64; i++)
            labels[i] = xv[2 * i] * xv[2 * i + 1] > 0 ? 1 : 0;
        var inputs = new GenericArray<Dl.Tensor?> ();
        inputs.add (null);
        inputs.add (from_array (labels, { 64 }, Dl.DType.INT64));
        double first = 0, last = 0;
        for (int step = 0; step < 100; step++) {
            inputs[0] = model.forward (x);
            var loss = loss_fn.forward_many (inputs)[0];
            sgd.zero_grad ();
            loss.backward ();
            sgd.step ();
            last = loss.item ();
            if (step == 0)
                first = last;
        }
        Test.message ("loss %.4f -> %.4f", first, last);
        assert (last < 0.6 * first);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_training () {
    try {
        Dl.manual_seed (3);
        var net = new Mlp (2, 16, 2);
        /* two classes: x0 * x1 > 0 (a XOR of the signs) */
        var x = Dl.rand ({ 64, 2 }).mul_scalar (2).sub_scalar (1);
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
            sgd.zero_grad ();
            loss.backward ();
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

/* Every op family through the vapi, checked against hand-computed values */

void test_math () {
    try {
        var x = from_array ({ -1.5, -0.5, 0.5, 2.5 }, { 4 }, Dl.DType.FLOAT64);
        assert_values (x.sin (), { Math.sin (-1.5), Math.sin (-0.5), Math.sin (0.5), Math.sin (2.5) }, 1e-12);
        assert_values (x.exp (), { Math.exp (-1.5), Math.exp (-0.5), Math.exp (0.5), Math.exp (2.5) }, 1e-12);
        assert_values (x.pow_scalar (2), { 2.25, 0.25, 0.25, 6.25 });
        assert_values (x.floor (), { -2, -1, 0, 2 });
        /* clamp with nullable min / max tensors */
        var lo = Dl.full ({ 1 }, -1, Dl.DType.FLOAT64, null);
        var hi = from_array ({ 0, 0, 1, 1 }, { 4 }, Dl.DType.FLOAT64);
        assert_values (x.clamp (lo, null), { -1, -0.5, 0.5, 2.5 });
        assert_values (x.clamp (null, hi), { -1.5, -0.5, 0.5, 1 });
        assert_values (x.clamp (lo, hi), { -1, -0.5, 0.5, 1 });
        assert_values (x.clamp_min (lo), { -1, -0.5, 0.5, 2.5 });
        assert_values (x.clamp_max (hi), { -1.5, -0.5, 0.5, 1 });
        assert_values (x.clamp_scalar (-1, 1), { -1, -0.5, 0.5, 1 });
        /* in place: self back, its values clamped (-infinity: no bound) */
        var xc = x.clone ();
        assert (xc.clamp_scalar_ (-double.INFINITY, 0) == xc);
        assert_values (xc, { -1.5, -0.5, 0, 0 });
        /* alias (t[...]): another tensor object over the same elements */
        var al = xc.alias ();
        assert (al != xc);
        assert (al.get_base () == xc && xc.get_base () == null);
        al.fill_ (3);
        assert_values (xc, { 3, 3, 3, 3 });
        /* Python-style floor division and remainder (sign of the divisor) */
        var a = from_array ({ 7, -7, 7, -7 }, { 4 }, Dl.DType.INT64);
        var b = from_array ({ 2, 2, -2, -2 }, { 4 }, Dl.DType.INT64);
        assert_values (a.floor_divide (b), { 3, -4, -4, 3 });
        assert_values (a.remainder (b), { 1, 1, -1, -1 });
        assert (a.remainder (b).get_dtype () == Dl.DType.INT64);
        assert_values (from_array ({ 5.5, -5.5 }, { 2 }, Dl.DType.FLOAT64).remainder_scalar (2), { 1.5, 0.5 });
        /* C's fmod: the sign of the dividend; addcmul in place, as Adam's
         * second moment: v + (1 - beta2) g g */
        assert_values (a.fmod (b), { 1, -1, 1, -1 });
        var v = from_array ({ 1, 2 }, { 2 }, Dl.DType.FLOAT64);
        var g = from_array ({ 3, -4 }, { 2 }, Dl.DType.FLOAT64);
        assert (v.addcmul_ (g, g, 0.5) == v);
        assert_values (v, { 5.5, 10 });
        /* an exponential moving average in place, and the running products */
        assert (v.lerp_scalar_ (g, 0.5) == v);
        assert_values (v, { 4.25, 3 });
        assert_values (v.cumprod_ (0), { 4.25, 12.75 });
        /* as_strided: the two elements as a row, then repeated as a column */
        assert_values (v.as_strided ({ 2, 2 }, { 0, 1 }, -1).contiguous (), { 4.25, 12.75, 4.25, 12.75 });
        var n = from_array ({ 0, double.NAN, double.INFINITY, -1 }, { 4 }, Dl.DType.FLOAT64);
        var nan = n.isnan ();
        assert (nan.get_dtype () == Dl.DType.BOOL);
        assert_values (nan, { 0, 1, 0, 0 });
        assert_values (n.isfinite (), { 1, 0, 0, 1 });
        assert_values (n.nan_to_num (9, 8, 7), { 0, 9, 8, -1 });
        var zero = Dl.zeros ({ 4 }, Dl.DType.INT64, null);
        assert_dl_error (() => { a.floor_divide (zero); }, Dl.Error.ARGUMENT, "integer floor_divide by zero");
        assert_dl_error (() => { x.clamp (null, null); }, Dl.Error.ARGUMENT, "clamp without bounds");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_reduce_scan () {
    try {
        var a = from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 }, Dl.DType.FLOAT64);
        assert_values (a.prod_dims ({ 1 }, false), { 6, 120 });
        assert_values (a.var ({ 1 }, 1, false), { 1, 1 });
        assert_values (a.std ({ 0 }, 1, false), { Math.sqrt (4.5), Math.sqrt (4.5), Math.sqrt (4.5) }, 1e-12);
        assert_values (a.amax ({ 0 }, false), { 4, 5, 6 });
        var lse = a.logsumexp ({ 1 }, true);
        assert_shape (lse, { 2, 1 });
        assert_values (lse, { Math.log (Math.exp (1) + Math.exp (2) + Math.exp (3)),
                              Math.log (Math.exp (4) + Math.exp (5) + Math.exp (6)) }, 1e-12);
        assert_values (a.cumsum (1), { 1, 3, 6, 4, 9, 15 });
        assert_values (a.cumsum (0), { 1, 2, 3, 5, 7, 9 });

        var t = from_array ({ 3, 1, 4, 1, 5 }, { 5 }, Dl.DType.FLOAT64);
        Dl.Tensor order;
        var sorted = t.sort (0, false, out order);
        assert_values (sorted, { 1, 1, 3, 4, 5 });
        assert (order.get_dtype () == Dl.DType.INT64);
        var ov = values (order);
        /* ties may come in either order */
        assert (ov[2] == 0 && ov[3] == 2 && ov[4] == 4);
        assert ((ov[0] == 1 && ov[1] == 3) || (ov[0] == 3 && ov[1] == 1));
        Dl.Tensor desc_idx;
        assert_values (t.sort (0, true, out desc_idx), { 5, 4, 3, 1, 1 });
        var dv = values (desc_idx);
        assert (dv[0] == 4 && dv[1] == 2 && dv[2] == 0);
        Dl.Tensor top_idx;
        assert_values (t.topk (2, 0, true, out top_idx), { 5, 4 });
        assert_values (top_idx, { 4, 2 });
        Dl.Tensor bottom_idx;
        assert_values (from_array ({ 3, 1, 4, 2 }, { 4 }, Dl.DType.FLOAT64).topk (2, 0, false, out bottom_idx), { 1, 2 });
        assert_values (bottom_idx, { 1, 3 });

        var m = from_array ({ 1, 0, 1, 1, 1, 1 }, { 2, 3 }, Dl.DType.FLOAT64);
        var all = m.all ({ 1 }, false);
        assert (all.get_dtype () == Dl.DType.BOOL);
        assert_values (all, { 0, 1 });
        assert_values (m.sub_scalar (1).any ({ 1 }, false), { 1, 0 });
        assert_values (m.all (new int64[0], false), { 0 });
        assert_dl_error (() => { t.topk (6, 0, true, null); }, Dl.Error.ARGUMENT, "topk k too large");
        assert_dl_error (() => { a.amax ({ 2 }, false); }, Dl.Error.INDEX, "amax dim out of range");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_index_join () {
    try {
        var a = from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 }, Dl.DType.FLOAT64);
        var gi = from_array ({ 0, 0, 2, 1 }, { 2, 2 }, Dl.DType.INT64);
        assert_values (a.gather (1, gi), { 1, 1, 6, 5 });
        assert_values (a.index_select (0, from_array ({ 1, 0, 1 }, { 3 }, Dl.DType.INT64)),
                       { 4, 5, 6, 1, 2, 3, 4, 5, 6 });
        assert_values (a.index_select (1, from_array ({ 2 }, { 1 }, Dl.DType.INT64)), { 3, 6 });
        var mask = a.gt_scalar (3);
        assert (mask.get_dtype () == Dl.DType.BOOL);
        assert_values (a.masked_fill (mask, -1), { 1, 2, 3, -1, -1, -1 });
        var cond = from_array ({ 1, 0, 1 }, { 3 }, Dl.DType.BOOL);
        assert_values (Dl.where (cond, a, a.neg ()), { 1, -2, 3, 4, -5, 6 });
        var nz = from_array ({ 0, 1, 2, 0 }, { 2, 2 }, Dl.DType.FLOAT64).nonzero ();
        assert_shape (nz, { 2, 2 });
        assert (nz.get_dtype () == Dl.DType.INT64);
        assert_values (nz, { 0, 1, 1, 0 });

        var b = from_array ({ 7, 8, 9 }, { 1, 3 }, Dl.DType.FLOAT64);
        var c0 = Dl.cat ({ a, b }, 0);
        assert_shape (c0, { 3, 3 });
        assert_values (c0, { 1, 2, 3, 4, 5, 6, 7, 8, 9 });
        assert_values (Dl.cat ({ a, a }, 1), { 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6 });
        var x = from_array ({ 1, 2 }, { 2 }, Dl.DType.FLOAT64);
        var y = from_array ({ 3, 4 }, { 2 }, Dl.DType.FLOAT64);
        var s0 = Dl.stack ({ x, y, x }, 0);
        assert_shape (s0, { 3, 2 });
        assert_values (s0, { 1, 2, 3, 4, 1, 2 });
        var s1 = Dl.stack ({ x, y }, 1);
        assert_shape (s1, { 2, 2 });
        assert_values (s1, { 1, 3, 2, 4 });
        assert_values (a.flip ({ 1 }), { 3, 2, 1, 6, 5, 4 });
        assert_values (a.flip ({ 0, 1 }), { 6, 5, 4, 3, 2, 1 });
        var sq = Dl.arange (1, 10, 1, Dl.DType.FLOAT64, null).view ({ 3, 3 });
        assert_values (sq.tril (0), { 1, 0, 0, 4, 5, 0, 7, 8, 9 });
        assert_values (sq.tril (-1), { 0, 0, 0, 4, 0, 0, 7, 8, 0 });
        assert_values (sq.triu (1), { 0, 2, 3, 0, 0, 6, 0, 0, 0 });

        /* unbind and chunk return arrays of views of the same storage */
        var base_t = from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 }, Dl.DType.FLOAT64);
        var rows = base_t.unbind (0);
        assert (rows != null && rows.length == 2);
        assert_values (rows[0], { 1, 2, 3 });
        assert_values (rows[1], { 4, 5, 6 });
        rows[1].copy_ (Dl.full ({ 3 }, 0, Dl.DType.FLOAT64, null));
        assert_values (base_t, { 1, 2, 3, 0, 0, 0 });
        var cols = base_t.chunk (2, 1);
        assert (cols != null && cols.length == 2);
        assert_shape (cols[0], { 2, 2 });
        assert_shape (cols[1], { 2, 1 });
        assert_values (cols[0], { 1, 2, 0, 0 });
        assert_values (cols[1], { 3, 0 });
        cols[1].copy_ (Dl.full ({ 2, 1 }, 9, Dl.DType.FLOAT64, null));
        assert_values (base_t, { 1, 2, 9, 0, 0, 9 });
        /* with grad, one node has every piece as an output (SplitBackward0) */
        var leaf = from_array ({ 1, 2, 3, 4 }, { 4 }, Dl.DType.FLOAT64);
        leaf.set_requires_grad (true);
        var halves = leaf.chunk (2, 0);
        assert (halves[0].get_grad_fn () == halves[1].get_grad_fn ());
        assert (halves[1].get_output_nr () == 1 && halves[1].get_base () == leaf);
        /* unsafe_split: one UnsafeSplitBackward0 node, pieces that are no views */
        var loose = leaf.unsafe_split_with_sizes ({ 1, 3 }, 0);
        assert (loose[1].get_grad_fn ().get_name () == "UnsafeSplitWithSizesBackward0");
        assert (loose[1].get_base () == null && loose[1].get_output_nr () == 1);

        /* reducing scatters, with a repeated index along dim 0 */
        var si = from_array ({ 0, 0, 0, 0, 1, 0 }, { 2, 3 }, Dl.DType.INT64);
        var src = from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 }, Dl.DType.FLOAT64);
        assert_values (a.scatter_reduce (0, si, src, "sum", true), { 6, 4, 12, 4, 10, 6 });
        assert_values (a.scatter_reduce (0, si, src, "amax", false), { 4, 2, 6, 4, 5, 6 });
        assert_values (a.scatter_with_reduce (0, si, src, "multiply"), { 4, 4, 54, 4, 25, 6 });
        assert_values (a.scatter_value_with_reduce (0, si, 1, "add"), { 3, 3, 5, 4, 6, 6 });
        assert_dl_error (() => { a.scatter_reduce (0, si, src, "max", true); }, Dl.Error.ARGUMENT, "scatter_reduce with an unknown reduction");
        /* unique rows: [1, 2] twice and [0, 5] */
        Dl.Tensor rows_inv, rows_count;
        var rows_u = from_array ({ 1, 2, 1, 2, 0, 5 }, { 3, 2 }, Dl.DType.FLOAT64).unique_dim (0, out rows_inv, out rows_count);
        assert_shape (rows_u, { 2, 2 });
        assert_values (rows_u, { 0, 5, 1, 2 });
        assert_values (rows_inv, { 1, 1, 0 });
        assert_values (rows_count, { 1, 2 });
        assert_values (from_array ({ 1, 1, 2, 2, 1, 1 }, { 3, 2 }, Dl.DType.FLOAT64).unique_consecutive_dim (1, null, null), { 1, 2, 1 });

        var bad_index = from_array ({ 0, 3 }, { 2, 1 }, Dl.DType.INT64);
        assert_dl_error (() => { a.gather (1, bad_index); }, Dl.Error.INDEX, "gather index out of range");
        var bad_select = from_array ({ 2 }, { 1 }, Dl.DType.INT64);
        assert_dl_error (() => { a.index_select (0, bad_select); }, Dl.Error.INDEX, "index_select index out of range");
        var float_index = from_array ({ 0, 1 }, { 2, 1 }, Dl.DType.FLOAT32);
        assert_dl_error (() => { a.gather (1, float_index); }, Dl.Error.DTYPE, "gather with a float index");
        var narrow = from_array ({ 1, 2 }, { 1, 2 }, Dl.DType.FLOAT64);
        assert_dl_error (() => { Dl.cat ({ a, narrow }, 0); }, Dl.Error.SHAPE, "cat with mismatched sizes");
        assert_dl_error (() => { Dl.stack (new Dl.Tensor[0], 0); }, Dl.Error.ARGUMENT, "stack of nothing");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_creation_random () {
    try {
        assert_values (Dl.linspace (0, 1, 5, Dl.DType.FLOAT64, null), { 0, 0.25, 0.5, 0.75, 1 }, 1e-15);
        assert_values (Dl.linspace (2, -2, 3, Dl.DType.FLOAT32, null), { 2, 0, -2 });
        var e = Dl.eye (2, 3, Dl.DType.FLOAT32, null);
        assert_shape (e, { 2, 3 });
        assert_values (e, { 1, 0, 0, 0, 1, 0 });

        /* one generator seeded twice repeats itself; another seeded alike matches */
        var g = new Dl.Generator (null);
        g.manual_seed (1234);
        assert (g.initial_seed () == 1234);
        var r1 = Dl.rand_gen ({ 6 }, Dl.DType.FLOAT64, null, g);
        var n1 = Dl.randn_gen ({ 6 }, Dl.DType.FLOAT64, null, g);
        g.manual_seed (1234);
        assert_values (Dl.rand_gen ({ 6 }, Dl.DType.FLOAT64, null, g), values (r1));
        assert_values (Dl.randn_gen ({ 6 }, Dl.DType.FLOAT64, null, g), values (n1));
        var rv = values (r1);
        for (int i = 0; i < rv.length; i++) {
            assert (rv[i] >= 0 && rv[i] < 1);
            for (int j = 0; j < i; j++)
                assert (rv[i] != rv[j]);
        }
        var h = new Dl.Generator (null);
        h.manual_seed (1234);
        assert_values (Dl.rand_gen ({ 6 }, Dl.DType.FLOAT64, null, h), rv);
        h.manual_seed (4321);
        assert (values (Dl.rand_gen ({ 6 }, Dl.DType.FLOAT64, null, h))[0] != rv[0]);

        var p = Dl.randperm (10, Dl.DType.INT64, null, g);
        assert (p.get_dtype () == Dl.DType.INT64);
        var pv = values (p);
        assert (pv.length == 10);
        var seen = new bool[10];
        foreach (var v in pv) {
            assert (v >= 0 && v < 10 && v == Math.floor (v) && !seen[(int) v]);
            seen[(int) v] = true;
        }
        g.manual_seed (7);
        var p1 = values (Dl.randperm (10, Dl.DType.INT64, null, g));
        g.manual_seed (7);
        assert_values (Dl.randperm (10, Dl.DType.INT64, null, g), p1);

        assert_dl_error (() => { Dl.linspace (0, 1, -1, Dl.DType.FLOAT32, null); }, Dl.Error.ARGUMENT, "linspace steps < 0");
        assert_dl_error (() => { Dl.randperm (-1, Dl.DType.INT64, null, g); }, Dl.Error.ARGUMENT, "randperm n < 0");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_linalg () {
    try {
        var a = from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 }, Dl.DType.FLOAT64);
        var b = from_array ({ 1, 0, 0, 1, 1, 1 }, { 3, 2 }, Dl.DType.FLOAT64);
        assert_values (a.mm (b), { 4, 5, 10, 11 });
        /* a batch of two 2x2 products */
        var p = from_array ({ 1, 2, 3, 4, 1, 0, 0, 2 }, { 2, 2, 2 }, Dl.DType.FLOAT64);
        var q = from_array ({ 5, 6, 7, 8, 1, 1, 1, 1 }, { 2, 2, 2 }, Dl.DType.FLOAT64);
        var pq = p.bmm (q);
        assert_shape (pq, { 2, 2, 2 });
        assert_values (pq, { 19, 22, 43, 50, 1, 1, 2, 2 });
        var u = from_array ({ 1, 2, 3 }, { 3 }, Dl.DType.FLOAT64);
        var v = from_array ({ 4, 5, 6 }, { 3 }, Dl.DType.FLOAT64);
        assert (u.dot (v).item () == 32);
        var o = from_array ({ 1, 2 }, { 2 }, Dl.DType.FLOAT64).outer (u);
        assert_shape (o, { 2, 3 });
        assert_values (o, { 1, 2, 3, 2, 4, 6 });
        assert_values (Dl.einsum ("ij,jk->ik", { a, b }), { 4, 5, 10, 11 });
        assert_values (Dl.einsum ("ij->ji", { a }), { 1, 4, 2, 5, 3, 6 });
        assert (Dl.einsum ("i,i->", { u, v }).item () == 32);
        var sq = Dl.arange (1, 10, 1, Dl.DType.FLOAT64, null).view ({ 3, 3 });
        assert (Dl.einsum ("ii", { sq }).item () == 15);
        assert_values (Dl.einsum ("bij,bjk->bik", { p, q }), { 19, 22, 43, 50, 1, 1, 2, 2 });
        var short_v = from_array ({ 1, 2 }, { 2 }, Dl.DType.FLOAT64);
        assert_dl_error (() => { u.dot (short_v); }, Dl.Error.SHAPE, "dot size mismatch");
        assert_dl_error (() => { a.mm (a); }, Dl.Error.SHAPE, "mm shape mismatch");
        assert_dl_error (() => { Dl.einsum ("ij,jk->ik", { a }); }, Dl.Error.ARGUMENT, "einsum operand count");
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_pytorch_reader () {
    try {
        /* tests/data/pytorch-*.pt, written by tests/data/make-pytorch-fixtures.py */
        var state = Dl.pytorch_load_state_dict (
            File.new_for_path (Test.build_filename (Test.FileType.DIST, "data", "pytorch-linear.pt")), null);
        var io = Dl.pytorch_load_state_dict (
            File.new_for_path (Test.build_filename (Test.FileType.DIST, "data", "pytorch-linear-io.pt")), null);
        assert (string.joinv (",", state.get_names ()) == "weight,bias");
        var lin = new Dl.Linear (4, 3, true);
        string[] missing, unexpected;
        lin.load_state_dict (state, true, out missing, out unexpected);
        var y = lin.forward (io.lookup ("input"));
        var want = values (io.lookup ("output"));
        var got = values (y);
        assert (got.length == want.length);
        for (int i = 0; i < got.length; i++)
            assert (Math.fabs (got[i] - want[i]) <= 1e-5 * (1 + Math.fabs (want[i])));

        var mixed = Dl.pytorch_load_state_dict (
            File.new_for_path (Test.build_filename (Test.FileType.DIST, "data", "pytorch-mixed.pt")), null);
        assert_values (mixed.lookup ("model.f32_slice"), { 3, 4, 5, 6, 7, 8 });
        assert (mixed.lookup ("model.i64").dtype == Dl.DType.INT64);
        assert_values (mixed.lookup ("state.0.step"), { 12 });
        /* the same checkpoint in PyTorch's legacy (pre-1.6, non-zip) format */
        var legacy = Dl.pytorch_load_state_dict (
            File.new_for_path (Test.build_filename (Test.FileType.DIST, "data", "pytorch-legacy-mixed.pt")), null);
        assert_values (legacy.lookup ("model.f32_slice"), { 3, 4, 5, 6, 7, 8 });
        assert_values (legacy.lookup ("state.0.step"), { 12 });
        assert_dl_error (() => { Dl.pytorch_load_state_dict_bytes (new Bytes ({ 1, 2, 3 })); },
                         Dl.Error.FORMAT, "not a zip archive");
    } catch (Error e) {
        error ("%s", e.message);
    }
}

void test_safetensors () {
    try {
        var dir = DirUtils.make_tmp ("dl-vala-XXXXXX");
        var file = File.new_for_path (Path.build_filename (dir, "model.safetensors"));
        var a = new Dl.Linear (4, 3, true);
        var b = new Dl.Linear (4, 3, true);
        a.save_state (file, null);
        b.load_state (file, true, null);
        assert_values (b.get_parameter ("weight"), values (a.get_parameter ("weight")));
        assert_values (b.get_parameter ("bias"), values (a.get_parameter ("bias")));

        /* a dict with metadata: a strided bfloat16 view and a 0-d int64 */
        var dict = new Dl.TensorDict ();
        dict.insert ("x", from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 }, Dl.DType.BFLOAT16).transpose (0, 1));
        dict.insert ("n", from_array ({ 7 }, {}, Dl.DType.INT64));
        dict.set_metadata ("epoch", "3");
        Dl.safetensors_save (dict, file, null);
        var back = Dl.safetensors_load (file, null);
        assert (string.joinv (",", back.get_names ()) == "n,x");
        assert (back.lookup ("x").dtype == Dl.DType.BFLOAT16);
        assert_values (back.lookup ("x"), { 1, 4, 2, 5, 3, 6 });
        assert_values (back.lookup ("n"), { 7 });
        assert (back.get_metadata ("epoch") == "3");

        /* state dicts: names in order, non-strict keys, errors */
        var state = a.state_dict ();
        assert (string.joinv (",", state.get_names ()) == "weight,bias");
        string[] missing, unexpected;
        new Dl.Linear (4, 3, false).load_state_dict (state, false, out missing, out unexpected);
        assert (missing.length == 0 && unexpected.length == 1 && unexpected[0] == "bias");
        assert_dl_error (() => { new Dl.Linear (5, 3, true).load_state (file, true, null); },
                         Dl.Error.ARGUMENT, "load_state into a mismatched module");
        assert_dl_error (() => { Dl.safetensors_load_bytes (new Bytes ({ 1, 2, 3 })); },
                         Dl.Error.FORMAT, "a truncated file");

        /* an optimizer's state through a file: the resumed run is the
         * uninterrupted one */
        var p = leaf_with_grad ();
        var q = leaf_with_grad ();
        var ps = new GenericArray<Dl.Tensor> ();
        ps.add (p);
        var qs = new GenericArray<Dl.Tensor> ();
        qs.add (q);
        var straight = new Dl.Sgd (ps, 0.1, 0.9, 0, 0, true);
        var first = new Dl.Sgd (qs, 0.1, 0.9, 0, 0, true);
        for (int i = 0; i < 3; i++)
            straight.step ();
        first.step ();
        first.save_state (file, null);
        var second = new Dl.Sgd (qs, 0.1, 0.9, 0, 0, true);
        second.load_state (file, null);
        assert (second.list_state (0)[0] == "momentum_buffer");
        second.step ();
        second.step ();
        assert_values (q, values (p));
        a.save_state (file, null);
        assert_dl_error (() => { second.load_state (file, null); }, Dl.Error.FORMAT,
                         "a module's state is no optimizer's");
        file.delete ();
        DirUtils.remove (dir);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

/* A data set written in Vala: compiled code, so DataLoader workers load
 * it on their threads. Sample i is ([i, i * i], i). */
class Squares : Dl.Dataset {
    public override int64 get_length () {
        return 25;
    }

    public override void load_item (int64 index, out GenericArray<Dl.Tensor> item) throws GLib.Error {
        item = new GenericArray<Dl.Tensor> ();
        item.add (from_array ({ index, index * index }, { 2 }, Dl.DType.FLOAT64));
        item.add (from_array ({ index }, {}, Dl.DType.INT64));
    }
}

void test_data () {
    try {
        var squares = new Squares ();
        assert (squares.is_thread_safe ());
        var gen = new Dl.Generator (null);
        gen.manual_seed (9);
        var loader = (Dl.DataLoader) Object.new (typeof (Dl.DataLoader), "dataset", squares,
                                                 "batch-size", (int64) 4, "shuffle", true,
                                                 "num-workers", 2u, "generator", gen);
        loader.init (null);
        assert (loader.get_length () == 7);
        var it = loader.iterate ();
        GenericArray<weak Dl.Tensor> batch;
        var seen = new bool[25];
        int n = 0;
        while (it.next (out batch)) {
            var x = values (batch[0]), y = values (batch[1]);
            for (int i = 0; i < y.length; i++) {
                assert (!seen[(int) y[i]]);
                seen[(int) y[i]] = true;
                assert (x[2 * i + 1] == y[i] * y[i]);
                n++;
            }
        }
        assert (n == 25);

        var ds = new Dl.TensorDataset ({ from_array ({ 1, 2, 3, 4 }, { 4 }), from_array ({ 0, 1, 0, 1 }, { 4 }, Dl.DType.INT64) });
        var parts = Dl.random_split (ds, { 0.5, 0.5 }, null);
        assert (parts.length == 2 && parts[0].get_length () == 2);
        var cat = new Dl.ConcatDataset ({ ds, parts[1] });
        assert (cat.get_length () == 6);
        assert_dl_error (() => { new Dl.DataLoader (ds, 0, false); }, Dl.Error.ARGUMENT, "batch size 0");
        assert_dl_error (() => { ds.get_item (4); }, Dl.Error.INDEX, "index 4");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* diagonal, diag, trace, bincount */
void test_diagonal () {
    try {
        var m = from_array ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 });
        assert_values (m.diagonal (-1, 0, 1), { 4 });
        assert_values (m.diag (1), { 2, 6 });
        assert (m.trace ().item () == 6);
        assert_values (from_array ({ 0, 3, 3 }, { 3 }, Dl.DType.INT64).bincount (null, 5),
                       { 1, 0, 0, 2, 0 });
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* kron, diff and unfold (libdl/ops/dl-ops-rearrange.c) */
void test_rearrange () {
    try {
        var a = from_array ({ 1, 2 }, { 2 });
        var b = from_array ({ 1, 10, 100 }, { 3 });
        assert_values (a.kron (b), { 1, 10, 100, 2, 20, 200 });
        var c = from_array ({ 1, 4, 9, 16 }, { 4 });
        assert_values (c.diff (1, -1, null, null), { 3, 5, 7 });
        assert_values (c.diff (2, 0, null, null), { 2, 2 });
        assert_values (c.unfold (0, 2, 2), { 1, 4, 9, 16 });
        try {
            c.unfold (0, 5, 1);
            assert_not_reached ();
        } catch (Dl.Error e) {
            assert (e is Dl.Error.SHAPE);
            assert ("unfold" in e.message);
        }
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

void test_attention () {
    try {
        // keys all zero: uniform weights over the keys each query may attend
        var q = from_array ({0.3, -1, 2, 0.5}, {1, 2, 2}, Dl.DType.FLOAT32);
        var k = Dl.zeros ({1, 3, 2}, Dl.DType.FLOAT32, null);
        var v = from_array ({1, 2, 3, 4, 5, 6}, {1, 3, 2}, Dl.DType.FLOAT32);
        v.set_requires_grad (true);
        var att = Dl.scaled_dot_product_attention (q, k, v, null, 0, true, 0, null);
        assert_values (att, {1, 2, 2, 3}, 1e-6);
        att.sum ().backward ();
        assert_values (v.get_grad (), {1.5, 1.5, 0.5, 0.5, 0, 0}, 1e-6);
        try {
            Dl.scaled_dot_product_attention (q, k, v, null, 2.0, false, 0, null);
            assert_not_reached ();
        } catch (Dl.Error e) {
            assert (e is Dl.Error.ARGUMENT);
            assert ("scaled_dot_product_attention" in e.message);
        }
    } catch (Error e) {
        error ("%s", e.message);
    }
}

void test_transformer () {
    try {
        var data = new double[24];
        for (int i = 0; i < 24; i++)
            data[i] = Math.sin (i);
        var x = from_array (data, {3, 2, 4}, Dl.DType.FLOAT32);
        x.set_requires_grad (true);
        var mha = new Dl.MultiheadAttention (4, 2, 0, true, false, false, 0, 0, false);
        Dl.Tensor? weights;
        var out_w = mha.attend (x, x, x, null, true, null, true, false, out weights);
        assert (weights != null);
        assert_values (weights.sum_dims ({2}, false), {1, 1, 1, 1, 1, 1}, 1e-6);
        var fused = mha.attend (x, x, x, null, false, null, true, false, null);
        var expected = new double[24];
        var bytes = out_w.to_dtype (Dl.DType.FLOAT64).contiguous ().to_bytes ();
        Memory.copy (expected, bytes.get_data (), 24 * sizeof (double));
        assert_values (fused, expected, 1e-5);
        out_w.sum ().backward ();
        assert (mha.get_parameter ("in_proj_weight").get_grad () != null);

        var layer = new Dl.TransformerEncoderLayer (4, 2, 8, 0, Dl.TransformerActivation.RELU,
                                                    1e-5, false, true);
        var y = layer.encode (x, Dl.Transformer.generate_square_subsequent_mask (3), null, false);
        y.sum ().backward ();
        assert (layer.get_module ("linear2").get_parameter ("weight").get_grad () != null);
        try {
            new Dl.MultiheadAttention (5, 2, 0, true, false, false, 0, 0, false);
            assert_not_reached ();
        } catch (Dl.Error e) {
            assert (e is Dl.Error.ARGUMENT);
            assert ("divisible" in e.message);
        }
    } catch (Error e) {
        error ("%s", e.message);
    }
}

/* Dl.Trainer: `yield trainer.train_async ()` in an async method on a main
 * loop, progress in a signal handler, then evaluate and predict */
async void train_with_trainer (Dl.Trainer trainer, Dl.DataLoader loader, Dl.Tensor x,
                               Dl.Module model) throws GLib.Error {
    var losses = new GenericArray<double?> ();
    var on_progress = trainer.progress.connect ((point) => {
        assert (trainer.running);
        assert (point.step == losses.length + 1);
        losses.add (point.loss);
    });
    double[] epoch_losses = {};
    var on_epoch = trainer.epoch_finished.connect ((epoch, mean_loss, accuracy) => {
        assert (epoch == epoch_losses.length);
        epoch_losses += mean_loss;
    });
    assert (yield trainer.train_async (null));
    assert (!trainer.running);
    assert (losses.length == 6 * 4 && trainer.history.get_n_items () == 24);
    Test.message ("epoch loss %.4f -> %.4f", epoch_losses[0], epoch_losses[5]);
    assert (epoch_losses[5] < 0.8 * epoch_losses[0]);

    double loss, accuracy;
    assert (yield trainer.evaluate_async (loader, null, out loss, out accuracy));
    assert (accuracy > 0.5 && accuracy <= 1 && loss.is_finite ());
    var output = yield trainer.predict_async (x, null);
    var was = Dl.set_grad_enabled (false);
    var want = model.forward (x);
    Dl.set_grad_enabled (was);
    assert (output.equal (want));

    /* a second run while one is under way */
    trainer.disconnect (on_progress);
    trainer.disconnect (on_epoch);
    var cancellable = new Cancellable ();
    trainer.epochs = 1000000;
    trainer.train_async.begin (cancellable, (obj, res) => {
        try {
            trainer.train_async.end (res);
            assert_not_reached ();
        } catch (GLib.Error e) {
            assert (e is IOError.CANCELLED);
        }
        train_with_trainer.callback ();
    });
    try {
        yield trainer.train_async (null);
        assert_not_reached ();
    } catch (GLib.Error e) {
        assert (e is IOError.PENDING);
    }
    cancellable.cancel ();
    yield;
}

void test_trainer () {
    try {
        Dl.manual_seed (6);
        var model = new Dl.Sequential ();
        model.append (new Dl.Linear (2, 16, true));
        model.append (new Dl.Relu (false));
        model.append (new Dl.Linear (16, 2, true));
        var params = new ListStore (typeof (Dl.Tensor));
        var parameters = model.parameters ();
        for (int i = 0; i < parameters.length; i++)
            params.append (parameters[i]);
        var sgd = (Dl.Sgd) Initable.new (typeof (Dl.Sgd), null, "params", params, "lr", 0.3,
                                         "momentum", 0.9);
        var x = Dl.rand ({ 64, 2 }).mul_scalar (2).sub_scalar (1);
        var xv = values (x);
        var labels = new double[64];
        for (int i = 0; i < 64; i++)
            labels[i] = xv[2 * i] > 0 ? 1 : 0;
        var loader = new Dl.DataLoader (new Dl.TensorDataset ({ x, from_array (labels, { 64 }, Dl.DType.INT64) }),
                                        16, false);
        var trainer = new Dl.Trainer (model, new Dl.CrossEntropyLoss (), sgd, loader);
        trainer.epochs = 6;
        var loop = new MainLoop ();
        GLib.Error? failure = null;
        train_with_trainer.begin (trainer, loader, x, model, (obj, res) => {
            try {
                train_with_trainer.end (res);
            } catch (GLib.Error e) {
                failure = e;
            }
            loop.quit ();
        });
        loop.run ();
        if (failure != null)
            error ("unexpected error: %s", failure.message);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);
    /* the default generator starts from a nondeterministic seed, as
     * PyTorch's: the tests draw from a fixed one */
    Dl.manual_seed (0);
    Test.add_func ("/vala/tensor/ops", test_tensor_ops);
    Test.add_func ("/vala/lapack", test_lapack);
    Test.add_func ("/vala/errors", test_errors);
    Test.add_func ("/vala/defaults", test_defaults);
    Test.add_func ("/vala/ops/math", test_math);
    Test.add_func ("/vala/ops/table", test_op_table);
    Test.add_func ("/vala/ops/unary-special", test_unary_special);
    Test.add_func ("/vala/ops/samplers", test_samplers);
    Test.add_func ("/vala/ops/reduce-scan", test_reduce_scan);
    Test.add_func ("/vala/ops/index-join", test_index_join);
    Test.add_func ("/vala/ops/creation-random", test_creation_random);
    Test.add_func ("/vala/ops/linalg", test_linalg);
    Test.add_func ("/vala/autograd/inplace-view", test_autograd_inplace_view);
    Test.add_func ("/vala/autograd/gradcheck", test_gradcheck);
    Test.add_func ("/vala/autograd/grad-hooks", test_autograd_grad_hooks);
    Test.add_func ("/vala/nn/conv", test_conv);
    Test.add_func ("/vala/nn/resample", test_resample);
    Test.add_func ("/vala/nn/new-layers", test_new_layers);
    Test.add_func ("/vala/module/subclass", test_module_subclass);
    Test.add_func ("/vala/module/forward-many", test_module_forward_many);
    Test.add_func ("/vala/linear/properties", test_linear_properties);
    Test.add_func ("/vala/bilinear", test_bilinear_layer);
    Test.add_func ("/vala/optim/sgd-properties", test_sgd_properties);
    Test.add_func ("/vala/optim/optimizers", test_optimizers);
    Test.add_func ("/vala/nn/activation-modules", test_activation_modules);
    Test.add_func ("/vala/nn/sequential", test_sequential);
    Test.add_func ("/vala/nn/loss-modules", test_loss_modules);
    Test.add_func ("/vala/nn/margin-losses", test_margin_losses);
    Test.add_func ("/vala/nn/module-toolkit", test_module_toolkit);
    Test.add_func ("/vala/nn/losses-init-clip", test_losses_init_clip);
    Test.add_func ("/vala/nn/sequential-training", test_sequential_training);
    Test.add_func ("/vala/training", test_training);
    Test.add_func ("/vala/trainer", test_trainer);
    Test.add_func ("/vala/safetensors", test_safetensors);
    Test.add_func ("/vala/data", test_data);
    Test.add_func ("/vala/diagonal", test_diagonal);
    Test.add_func ("/vala/rearrange", test_rearrange);
    Test.add_func ("/vala/function/gradients", test_function_gradients);
    Test.add_func ("/vala/function/double-backward", test_function_double_backward);
    Test.add_func ("/vala/function/errors", test_function_errors);
    Test.add_func ("/vala/norm", test_norm);
    Test.add_func ("/vala/attention", test_attention);
    Test.add_func ("/vala/nn/rnn", test_rnn);
    Test.add_func ("/vala/transformer", test_transformer);
    Test.add_func ("/vala/pytorch-reader", test_pytorch_reader);
    Test.add_func ("/vala/streams-and-memory", test_streams_and_memory);
    Test.add_func ("/vala/layer-dtype", test_layer_dtype);
    Test.add_func ("/vala/num-threads", test_num_threads);
    Test.add_func ("/vala/autocast", test_autocast);
    Test.add_func ("/vala/parametrization", test_parametrization);
    return Test.run ();
}

// test-tidy.js: Dl.tidy(fn), a scope that releases the tensors library
// calls made while fn ran, but those fn returns, those given to Dl.keep()
// and leaves that require grad (bindings/gjs/overrides/Dl.js).
//
// Run: GJS_PATH=bindings/gjs GI_TYPELIB_PATH=build/introspection \
//      LD_LIBRARY_PATH=build/libdl gjs -m tests/javascript/test-tidy.js
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Gio from 'gi://Gio';
import Dl from 'gi://Dl?version=1.0';
import {test, run, assert, assertArrayEqual, assertDlError} from './harness.js';

const cpu = Dl.Device.get('cpu');

// Using a released tensor is the "tensor was released" error.
function assertReleased(t, what) {
    assert(t.is_released(), `${what} is released`);
    const e = assertDlError(() => t.add(1), Dl.Error.ARGUMENT, what);
    assert(e.message.includes('tensor was released'), `${what}: message ${e.message}`);
}

test('the result survives, the intermediates are released', () => {
    let a, b;
    const y = Dl.tidy(() => {
        a = Dl.ones([2, 3]);
        b = a.mul(2);
        return b.add(1).relu();
    });
    assert(!y.is_released(), 'the result lives');
    assertArrayEqual(y.toArray(), [3, 3, 3, 3, 3, 3], 'its values');
    assertReleased(a, 'a creation inside');
    assertReleased(b, 'an op result inside');
});

test('tensors in a returned array or object survive', () => {
    let dropped;
    const {pair, nested} = Dl.tidy(() => {
        dropped = Dl.zeros([4]);
        const x = Dl.ones([2]);
        return {pair: [x, x.neg()], nested: {deep: [[x.mul(3)]]}};
    });
    assertArrayEqual(pair[0].toArray(), [1, 1], 'pair[0]');
    assertArrayEqual(pair[1].toArray(), [-1, -1], 'pair[1]');
    assertArrayEqual(nested.deep[0][0].toArray(), [3, 3], 'nested');
    assertReleased(dropped, 'the tensor not returned');
});

test('a tensor kept in an outer variable is released, Dl.keep exempts one', () => {
    let outer, keptOne;
    Dl.tidy(() => {
        outer = Dl.ones([3]).mul(5);
        keptOne = Dl.keep(Dl.ones([3]).mul(7));
    });
    assertReleased(outer, 'assigned to an outer variable');
    assertArrayEqual(keptOne.toArray(), [7, 7, 7], 'kept');
});

test('tensors made before the scope and handed back by an op are not released', () => {
    const before = Dl.ones([2, 2]);
    const same = Dl.tidy(() => {
        before.contiguous(); // returns its own input: not the scope's
        before.to_dtype(Dl.DType.FLOAT32);
        before.add(1);
        return null;
    });
    assert(same === null, 'fn returned null');
    assertArrayEqual(before.toArray(), [1, 1, 1, 1], 'the outer tensor lives');
});

test('nested scopes: the inner result passes to the outer scope', () => {
    let inner, innerTmp, outerTmp;
    const result = Dl.tidy(() => {
        outerTmp = Dl.ones([2]);
        inner = Dl.tidy(() => {
            innerTmp = Dl.ones([2]).mul(3);
            return innerTmp.add(1);
        });
        assertReleased(innerTmp, 'the inner intermediate, at the inner end');
        assert(!inner.is_released(), 'the inner result, inside the outer scope');
        return inner.mul(2);
    });
    assertArrayEqual(result.toArray(), [8, 8], 'the outer result');
    assertReleased(inner, 'the inner result, not returned by the outer scope');
    assertReleased(outerTmp, 'the outer intermediate');

    const passed = Dl.tidy(() => Dl.tidy(() => Dl.ones([1]).mul(9)));
    assertArrayEqual(passed.toArray(), [9], 'a result returned through both');
});

test('an exception releases the scope and goes on', () => {
    let made;
    let caught = null;
    try {
        Dl.tidy(() => {
            made = Dl.ones([5]).mul(2);
            throw new Error('boom');
        });
    } catch (e) {
        caught = e;
    }
    assert(caught !== null && caught.message === 'boom', 'the exception reaches the caller');
    assertReleased(made, 'the tensor made before the throw');

    // a library error inside: the GLib.Error goes on, the scope is closed
    let before;
    assertDlError(() => Dl.tidy(() => {
        before = Dl.ones([2, 3]);
        return before.matmul(Dl.ones([2, 3]));
    }), Dl.Error.SHAPE, 'matmul of mismatched shapes');
    assertReleased(before, 'the tensor made before the library error');
    const after = Dl.ones([1]);
    assertArrayEqual(after.add(1).toArray(), [2], 'outside any scope, nothing is tracked');
});

test('Dl.tidy and Dl.keep check their arguments', () => {
    let threw = false;
    try {
        Dl.tidy(42);
    } catch (e) {
        threw = e instanceof TypeError;
    }
    assert(threw, 'Dl.tidy(42) is a TypeError');
    threw = false;
    try {
        Dl.keep({});
    } catch (e) {
        threw = e instanceof TypeError;
    }
    assert(threw, 'Dl.keep({}) is a TypeError');
});

// A released tensor keeps only its storage's header (about 100 bytes)
// until the collector takes its wrapper; what it held goes at once.
test('a training step inside tidy keeps the parameters and bounded memory', () => {
    const fc = new Dl.Linear({in_features: 64, out_features: 64});
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, fc.parameters());
    const opt = new Dl.Sgd({params, lr: 0.01, momentum: 0.9});
    const x = Dl.randn([16, 64]);
    const y = Dl.randn([16, 64]);
    const weight = fc.get_parameter('weight');
    const start = weight.toArray();
    const step = () => {
        opt.zero_grad();
        const loss = Dl.mse_loss(fc.forward(x), y, Dl.Reduction.MEAN);
        loss.backward();
        opt.step();
        return loss.item();
    };
    // bytes allocated per step over n steps, the collector kept out
    const growth = (n, fn) => {
        const saved = [Dl.memory.minBytes, Dl.memory.watchRss];
        Dl.memory.minBytes = Infinity;
        Dl.memory.watchRss = false;
        try {
            const base = cpu.get_memory_allocated();
            for (let i = 0; i < n; i++)
                fn();
            return (cpu.get_memory_allocated() - base) / n;
        } finally {
            [Dl.memory.minBytes, Dl.memory.watchRss] = saved;
        }
    };
    const first = Dl.tidy(step);
    let last = first;
    const plain = growth(100, step);
    const tidied = growth(300, () => {
        last = Dl.tidy(step);
    });
    print(`# bytes allocated per step: ${plain} without tidy, ${tidied} with`);
    assert(plain >= 16 * 64 * 4, 'without tidy a step leaves its activations to the collector');
    assert(tidied <= 1024, `with tidy a step leaves ${tidied} bytes`);
    assert(last < first, `the loss fell: ${first} -> ${last}`);
    for (const p of fc.parameters())
        assert(!p.is_released() && p.get_grad() !== null && !p.get_grad().is_released(),
            'the parameters and their gradients live');
    assert(!weight.toArray().every((v, k) => v === start[k]), 'the weight was trained');
    assertArrayEqual(fc.forward(x).shape, [16, 64], 'the layer still runs');
});

test('parameters and leaves that require grad made inside survive, as variables do', () => {
    const w = Dl.tidy(() => {
        const v = Dl.randn([3]);
        v.set_requires_grad(true);
        v.mul(2);
        return null;
    });
    assert(w === null, 'nothing returned');
    const made = [];
    Dl.tidy(() => {
        const v = Dl.zeros([2]);
        v.set_requires_grad(true);
        made.push(v, v.mul(2));
    });
    assert(!made[0].is_released(), 'the leaf that requires grad lives');
    assertReleased(made[1], 'its product');

    const frozen = Dl.tidy(() => {
        made.length = 0;
        made.push(Dl.parameter_new(Dl.ones([2]), false));
        return null;
    });
    assert(frozen === null && !made[0].is_released(), 'a parameter that requires no grad lives');
});

run();

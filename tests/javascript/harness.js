// harness.js: a minimal TAP harness for the ES-module GJS tests.
//
//   import {test, run, assert} from './harness.js';
//   test('name', () => { assert(1 + 1 === 2, 'sum'); });
//   run();   // prints TAP, exits non-zero if any test failed
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import Dl from 'gi://Dl?version=1.0';
import System from 'system';

const tests = [];

export function test(name, fn) {
    tests.push([name, fn]);
}

export function assert(cond, what) {
    if (!cond)
        throw new Error(`assertion failed: ${what}`);
}

export function assertArrayEqual(got, expected, what) {
    const a = Array.from(got, Number);
    assert(a.length === expected.length && a.every((v, i) => v === expected[i]),
        `${what}: got [${a}], expected [${expected}]`);
}

// Expects fn to throw a GLib.Error of Dl.Error `code`; returns it.
export function assertDlError(fn, code, what) {
    try {
        fn();
    } catch (e) {
        assert(e instanceof GLib.Error, `${what}: threw ${e}, not a GLib.Error`);
        assert(e.matches(Dl.Error, code),
            `${what}: error ${e.domain}:${e.code} (${e.message}), expected code ${code}`);
        return e;
    }
    throw new Error(`${what}: no error thrown`);
}

export function run() {
    let failed = 0;
    print(`1..${tests.length}`);
    tests.forEach(([name, fn], i) => {
        try {
            // the default generator starts from a nondeterministic seed, as
            // PyTorch's: each test starts from its own fixed one
            Dl.manual_seed(i + 1);
            fn();
            print(`ok ${i + 1} - ${name}`);
        } catch (e) {
            failed++;
            print(`not ok ${i + 1} - ${name}`);
            for (const line of `${e}\n${e.stack || ''}`.split('\n'))
                print(`# ${line}`);
        }
        System.gc(); // one test's tensors do not weigh on the next
    });
    System.exit(failed > 0 ? 1 : 0);
}

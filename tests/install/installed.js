// installed.js: a small GJS program run against an installed libdl
// (GI_TYPELIB_PATH and LD_LIBRARY_PATH point into the install, and
// XDG_DATA_DIRS to its data dir, where GJS finds the companion module
// gjs-1.0/overrides/Dl.js): a tensor op, a Linear layer, an SGD step.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.Dl = '1.0';
const {Dl, Gio} = imports.gi;
const System = imports.system;

const x = Dl.ones([3, 4], Dl.DType.FLOAT32, null).add_scalar(1);
const fc = new Dl.Linear({in_features: 4, out_features: 2});
const params = new Gio.ListStore({item_type: Dl.Tensor});
params.splice(0, 0, fc.parameters());
const sgd = new Dl.Sgd({params, lr: 0.1});
fc.init(null);
sgd.init(null);
const loss = fc.forward(x).sum();
if (typeof Dl.tensor !== 'function') {
    printerr('GJS: the companion module (gjs-1.0/overrides/Dl.js) was not loaded');
    System.exit(1);
}
loss.backward(); // the companion module's defaults
sgd.step();
const after = fc.forward(x).sum().item();
print(`GJS: loss ${loss.item()} -> ${after}`);
System.exit(after < loss.item() ? 0 : 1);

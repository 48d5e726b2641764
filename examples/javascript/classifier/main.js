// main.js: the entry point of the garment classifier (gjs -m main.js).
//
// From a build tree:
//   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
//   GJS_PATH=bindings/gjs gjs -m examples/javascript/classifier/main.js
// Installed: dl-classifier, or the desktop file org.libdl.Classifier.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import System from 'system';

import {ClassifierApplication} from './app.js';

const app = new ClassifierApplication();
const status = app.run([System.programInvocationName, ...ARGV]);
System.exit(status);

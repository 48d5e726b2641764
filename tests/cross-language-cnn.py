#!/usr/bin/python3
# cross-language-cnn.py: the main job's CNN trained from C, GJS and Vala
# (examples/c/cnn.c, javascript/cnn.js, vala/cnn.vala), each saving a
# checkpoint that the Python example (examples/python/fashion_mnist.py
# --evaluate) loads: its test accuracy must be the one the example printed,
# and the three languages, seeded alike, must train to the same numbers.
#
#   cross-language-cnn.py C_EXAMPLE [--gjs GJS] [--vala VALA_EXAMPLE]
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EPOCHS, TRAIN, TEST = '1', '1500', '500'


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit('%s failed (%d):\n%s%s' % (' '.join(cmd), out.returncode, out.stdout,
                                            out.stderr))
    return out.stdout


def number(pattern, text):
    m = re.search(pattern, text)
    if not m:
        sys.exit('no match for %r in:\n%s' % (pattern, text))
    return m.group(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('c_example')
    p.add_argument('--gjs')
    p.add_argument('--vala')
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = {'c': [args.c_example, '--epochs', EPOCHS, '--train-limit', TRAIN,
                      '--test-limit', TEST, '--min-accuracy', '0', '--checkpoint']}
        if args.gjs:
            runs['gjs'] = [args.gjs, os.path.join(ROOT, 'examples', 'javascript', 'cnn.js'),
                           EPOCHS, TRAIN, TEST]
        if args.vala:
            runs['vala'] = [args.vala, EPOCHS, TRAIN, TEST]
        results = {}
        for lang, cmd in runs.items():
            path = os.path.join(tmp, 'cnn-%s.safetensors' % lang)
            out = run(cmd + [path])
            accuracy = number(r'final test accuracy: ([0-9.]+)', out)
            loss = number(r'loss ([0-9.]+)', out)
            evaluated = run([sys.executable,
                             os.path.join(ROOT, 'examples', 'python', 'fashion_mnist.py'),
                             '--evaluate', '--checkpoint', path, '--test-limit', TEST,
                             '--workers', '0'])
            py_accuracy = number(r'test accuracy: ([0-9.]+)', evaluated)
            print('%-5s loss %s, accuracy %s; Python evaluates its checkpoint: %s'
                  % (lang, loss, accuracy, py_accuracy))
            if py_accuracy != accuracy:
                sys.exit('%s: Python evaluates %s, the example printed %s'
                         % (lang, py_accuracy, accuracy))
            results[lang] = (loss, accuracy)
        if len(set(results.values())) != 1:
            sys.exit('the languages trained to different numbers: %s' % results)


if __name__ == '__main__':
    main()

# test_main_job.py: the README's main job (examples/python/fashion_mnist.py)
# trains, saves a checkpoint and a plot, resumes, and evaluates, on a small
# subset of Fashion-MNIST.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import pytest

import torch

from conftest import Dl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, 'examples', 'python', 'fashion_mnist.py')
pytestmark = [
    pytest.mark.skipif(Dl is torch, reason="runs libdl's example"),
    pytest.mark.skipif(not os.path.isdir('/usr/share/datasets/fashion-mnist'),
                       reason='dataset-fashion-mnist is not installed'),
]


def run(*args):
    out = subprocess.run([sys.executable, EXAMPLE, '--train-limit', '640', '--test-limit', '200',
                          '--batch-size', '64', *args], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_train_resume_evaluate(tmp_path):
    ckpt, plot = str(tmp_path / 'run.safetensors'), str(tmp_path / 'run.png')
    first = run('--epochs', '1', '--checkpoint', ckpt, '--plot', plot)
    assert 'epoch 1/1:' in first and 'checkpoint: ' + ckpt in first
    with open(plot, 'rb') as f:
        assert f.read(8) == b'\x89PNG\r\n\x1a\n'
    state = Dl.load(ckpt)
    assert state['epoch'] == 1 and len(state['history']) == 1
    assert 'conv1.weight' in state['model'] and 'state' in state['optimizer']

    resumed = run('--epochs', '2', '--resume', '--checkpoint', ckpt, '--plot', plot)
    assert 'loaded %s (after epoch 1)' % ckpt in resumed
    assert 'epoch 2/2:' in resumed and 'epoch 1/2' not in resumed
    assert Dl.load(ckpt)['epoch'] == 2

    evaluated = run('--evaluate', '--checkpoint', ckpt)
    accuracy = float(evaluated.split('test accuracy: ')[1].split()[0])
    assert 0.5 < accuracy <= 1.0
    assert 'confusion matrix' in evaluated and 'Ankle boot' in evaluated
    assert 'usage' in subprocess.run([sys.executable, EXAMPLE, '--help'], capture_output=True,
                                     text=True).stdout

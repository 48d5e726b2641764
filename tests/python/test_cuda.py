# test_cuda.py: torch.cuda and the 'cuda' device through the typelib. On a
# machine without a GPU (CI's) is_available() is False, device_count() 0,
# and what needs a CUDA device is a RuntimeError naming why: the module
# was not built or not found, or it found no driver or no device.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
import os
import re
import subprocess
import sys

import pytest

from conftest import Dl

# what the error says after "'cuda' is not available: " in each case
NO_GPU = re.compile(r"'cuda(:\d+)?' is not available: (no CUDA driver|no CUDA device|"
                    r"the CUDA backend module libdl-cuda-1\.0\.so was not built)")
MISSING = re.compile(r"'cuda' is not available: the CUDA backend module libdl-cuda-1\.0\.so "
                     r"was not (found \(looked in .*DL_BACKEND_PATH\)|built)")

needs_no_gpu = pytest.mark.skipif(Dl.cuda.device_count() > 0, reason='a GPU is available')
needs_gpu = pytest.mark.skipif(Dl.cuda.device_count() == 0, reason='no GPU is available')


@needs_no_gpu
def test_no_gpu_is_available():
    assert Dl.cuda.is_available() is False
    assert Dl.cuda.device_count() == 0
    assert Dl.cuda_is_available() is False and Dl.cuda_device_count() == 0


@needs_no_gpu
@pytest.mark.parametrize('make', [
    lambda: Dl.zeros(2, device='cuda'),
    lambda: Dl.zeros(2).to('cuda'),
    lambda: Dl.zeros(2).to('cuda:0'),
    lambda: Dl.zeros(2).cuda(),
    lambda: Dl.zeros(2).cuda(0),
], ids=['zeros', 'to', 'to-index', 'cuda', 'cuda-index'])
def test_cuda_tensors_refused_with_the_reason(make):
    with pytest.raises(RuntimeError, match=NO_GPU):
        make()


MISSING_SCRIPT = '''
import re, sys
from gi.repository import Dl
assert Dl.cuda.is_available() is False and Dl.cuda.device_count() == 0
try:
    Dl.zeros(2).cuda()
except RuntimeError as e:
    print(e)
    sys.exit(0)
sys.exit('no error')
'''


def test_module_missing(tmp_path):
    # DL_BACKEND_PATH, where libdl looks for its backend modules, names an
    # empty folder: the module is looked for once per process, so in a child
    env = dict(os.environ, DL_BACKEND_PATH=str(tmp_path))
    out = subprocess.run([sys.executable, '-c', MISSING_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert MISSING.search(out.stdout), out.stdout
    assert str(tmp_path) in out.stdout or 'was not built' in out.stdout


@needs_gpu
def test_round_trip_through_the_gpu():
    a = Dl.tensor([[1.5, -2.0, 3.25], [0.0, 7.0, -0.5]])
    b = a.cuda()
    assert b.is_cuda
    assert b.cpu().tolist() == a.tolist()


# The same seed gives the same numbers on the GPU as on the CPU (both draw
# from dl-philox.h): bit for bit where the numbers come from integer
# arithmetic and exactly rounded operations; normal's Box-Muller goes
# through log, sin and cos, which CUDA's device library rounds differently
# in the last place of a double
@needs_gpu
@pytest.mark.parametrize('n', [1, 7, 1000, 70001])
def test_random_numbers_as_on_the_cpu(n):
    def draws(dev):
        g = Dl.Generator(device=dev).manual_seed(2026 + n)
        return {
            'rand32': Dl.rand(n, generator=g, device=dev),
            'rand64': Dl.rand(n, dtype=Dl.float64, generator=g, device=dev),
            'rand16': Dl.rand(n, dtype=Dl.float16, generator=g, device=dev),
            'randbf16': Dl.rand(n, dtype=Dl.bfloat16, generator=g, device=dev),
            'uniform': Dl.empty(n, device=dev).uniform_(-3, 5, generator=g),
            'bernoulli': Dl.empty(n, device=dev).bernoulli_(0.3, generator=g),
            'randperm': Dl.randperm(n, generator=g, device=dev),
            'multinomial': Dl.multinomial(Dl.rand(5, 40, dtype=Dl.float64, generator=g, device=dev),
                                          min(n, 40), generator=g),
            'multinomial-repl': Dl.multinomial(Dl.rand(5, 40, generator=g, device=dev), n % 50 + 1,
                                               True, generator=g),
            'randn32': Dl.randn(n, generator=g, device=dev),
            'randn64': Dl.randn(n, dtype=Dl.float64, generator=g, device=dev),
        }

    cpu, gpu = draws('cpu'), draws('cuda')
    for name in cpu:
        assert gpu[name].is_cuda, name
        a, b = cpu[name], gpu[name].cpu()
        assert a.dtype == b.dtype and a.shape == b.shape, name
        if name.startswith('randn'):
            tol = 1e-12 if a.dtype == Dl.float64 else 1e-6
            assert Dl.allclose(a, b, rtol=tol, atol=tol), name
        else:
            assert Dl.equal(a, b), name


# conv2d (cuDNN), max pooling and the norms (the module's kernels) on the
# GPU against the CPU, forward and backward
@needs_gpu
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('op', ['conv2d', 'max_pool2d', 'batch_norm', 'batch_norm_eval',
                                'group_norm', 'layer_norm'])
def test_cnn_ops_as_on_the_cpu(op, dtype):
    import numpy as np
    F = Dl.nn.functional
    dt = getattr(Dl, dtype)
    rng = np.random.default_rng(15)
    x_np = rng.standard_normal((3, 4, 9, 8))
    w_np = rng.standard_normal((5, 4, 3, 2))
    p_np = rng.standard_normal(4) + 1

    def run(dev):
        x = Dl.tensor(x_np, dtype=dt, device=dev, requires_grad=True)
        w = Dl.tensor(w_np, dtype=dt, device=dev, requires_grad=True)
        p = Dl.tensor(p_np, dtype=dt, device=dev, requires_grad=True)
        b = Dl.tensor(p_np[::-1].copy(), dtype=dt, device=dev, requires_grad=True)
        if op == 'conv2d':
            y = F.conv2d(x, w, b[:4].repeat(2)[:5], stride=(2, 1), padding=1, dilation=(1, 2))
        elif op == 'max_pool2d':
            y = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)
        elif op == 'batch_norm':
            y = F.batch_norm(x, None, None, p, b, True)
        elif op == 'batch_norm_eval':
            y = F.batch_norm(x, p.detach().abs(), p.detach().abs() + 0.5, p, b, False)
        elif op == 'group_norm':
            y = F.group_norm(x, 2, p, b)
        else:
            y = F.layer_norm(x, (9, 8))
        (y * y).sum().backward()
        grads = [t.grad for t in (x, w, p, b) if t.grad is not None]
        return [y] + grads

    tol = 1e-4 if dtype == 'float32' else 1e-10
    for a, g in zip(run('cpu'), run('cuda')):
        assert g.is_cuda
        np.testing.assert_allclose(g.detach().cpu().numpy(), a.detach().numpy(), rtol=tol,
                                   atol=tol)

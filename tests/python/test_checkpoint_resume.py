# test_checkpoint_resume.py: a training script's checkpoint code, unchanged
# from PyTorch: model, optimizer and scheduler state through torch.save /
# torch.load, resumed bit for bit, and the same numbers as PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same


SCHEDULERS = {
    'step': lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, 2, 0.5),
    # its state dict holds a method (anneal_func), as torch's does
    'one_cycle': lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(
        opt, 0.05, total_steps=6, anneal_strategy='linear'),
}


def run(lib, tmp_path, steps, resume_at=None, scheduler='step'):
    def make():
        net = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
        for p in net.parameters():
            with lib.no_grad():
                p.copy_(lib.from_numpy(np.linspace(-0.5, 0.5, p.numel(), dtype=np.float32)
                                       .reshape(tuple(p.shape))))
        opt = lib.optim.Adam(net.parameters(), lr=0.01, weight_decay=0.01)
        return net, opt, SCHEDULERS[scheduler](lib, opt)

    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((16, 4), dtype=np.float32))
    y = lib.from_numpy(rng.integers(0, 3, 16))
    net, opt, sched = make()
    for i in range(steps):
        if i == resume_at:
            path = os.path.join(tmp_path, 'checkpoint-%s.pt' % lib.__name__)
            lib.save({'model': net.state_dict(), 'opt': opt.state_dict(),
                      'sched': sched.state_dict(), 'step': i}, path)
            net, opt, sched = make()
            ck = lib.load(path)
            net.load_state_dict(ck['model'])
            opt.load_state_dict(ck['opt'])
            sched.load_state_dict(ck['sched'])
            assert ck['step'] == i
        opt.zero_grad()
        lib.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
        sched.step()
    return [p.detach() for p in net.parameters()], sched.get_last_lr()


@pytest.mark.parametrize('scheduler', sorted(SCHEDULERS))
def test_resume_is_exact_and_matches_torch(tmp_path, scheduler):
    straight, lr = run(Dl, tmp_path, 6, scheduler=scheduler)
    resumed, lr2 = run(Dl, tmp_path, 6, resume_at=3, scheduler=scheduler)
    assert lr == lr2
    for a, b in zip(straight, resumed):
        assert bool((a == b).all())
    ref, tlr = run(torch, tmp_path, 6, resume_at=3, scheduler=scheduler)
    assert lr == pytest.approx(tlr, rel=1e-12)
    for a, t in zip(resumed, ref):
        assert_same(a, t, rtol=1e-5, atol=1e-6)

# test_as_torch.py: `python3 -m dl.as_torch SCRIPT` runs a PyTorch script
# unchanged with `torch` bound to dl; the same script under PyTorch gives
# the same numbers.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import SELF_CHECK

# an ordinary PyTorch script: submodule imports in their usual forms, a
# generator passed where a list is expected, a model, an optimizer, a
# DataLoader, a checkpoint round trip
SCRIPT = textwrap.dedent('''
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim
    from torch.utils.data import DataLoader, TensorDataset

    # values from formulas (dl's random streams are not PyTorch's)
    x = torch.linspace(-2, 2, 320, dtype=torch.double).mul(7).sin().view(64, 5)
    y = (x.sum(1, keepdim=True) > 0).double()
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.arange(p.numel(), dtype=torch.double).mul(i + 1).cos().view_as(p) / 2)
    opt = optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)
    loader = DataLoader(TensorDataset(x, y), batch_size=16)
    for epoch in range(2):
        for xb, yb in loader:
            def closure():
                opt.zero_grad()
                loss = F.binary_cross_entropy_with_logits(model(xb), yb)
                loss.backward()
                return loss
            loss = opt.step(closure)
            print('%.12f' % loss.item())
    torch.save(model.state_dict(), sys.argv[1])
    state = torch.load(sys.argv[1])
    print(sorted(state), isinstance(model, torch.nn.Module))
''')


def run(args, cwd):
    """`python3 ARGS` in @cwd, with this process's search paths made
    absolute (they may be relative to the source root)."""
    env = dict(os.environ)
    for var in ('PYTHONPATH', 'GI_TYPELIB_PATH', 'LD_LIBRARY_PATH'):
        if env.get(var):
            env[var] = os.pathsep.join(os.path.abspath(p) for p in env[var].split(os.pathsep) if p)
    return subprocess.run([sys.executable] + args, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.skipif(SELF_CHECK, reason='runs the dl package')
def test_script_runs_unchanged_with_torchs_numbers(tmp_path):
    script = tmp_path / 'train.py'
    script.write_text(SCRIPT)
    dl_run = run(['-m', 'dl.as_torch', str(script), str(tmp_path / 'dl.pt')], tmp_path)
    assert dl_run.returncode == 0, dl_run.stderr
    torch_run = run([str(script), str(tmp_path / 'torch.pt')], tmp_path)
    assert torch_run.returncode == 0, torch_run.stderr
    got, want = dl_run.stdout.splitlines(), torch_run.stdout.splitlines()
    assert len(got) == len(want) == 9
    assert got[-1] == want[-1]
    for g, w in zip(got[:-1], want[:-1]):
        assert abs(float(g) - float(w)) <= 1e-9 * max(1.0, abs(float(w))), (got, want)


@pytest.mark.skipif(SELF_CHECK, reason='runs the dl package')
def test_module_mode_and_missing_modules(tmp_path):
    (tmp_path / 'pkg').mkdir()
    (tmp_path / 'pkg' / '__init__.py').write_text('')
    (tmp_path / 'pkg' / 'job.py').write_text(textwrap.dedent('''
        import sys
        import dl
        import torch
        import torch.nn.functional as F
        from torch.utils import data
        assert torch is dl and F is dl.nn.functional and data is dl.utils.data
        assert torch.nn.Linear is dl.nn.Linear
        print(sys.argv[1:], __name__)
        import torch.not_a_module
    '''))
    r = run(['-m', 'dl.as_torch', '-m', 'pkg.job', 'a', 'b'], tmp_path)
    assert "['a', 'b'] __main__" in r.stdout
    assert r.returncode != 0
    assert "No module named 'torch.not_a_module'" in r.stderr
    r = run(['-m', 'dl.as_torch'], tmp_path)
    assert r.returncode == 2 and 'python3 -m dl.as_torch SCRIPT' in r.stdout
    r = run(['-m', 'dl.as_torch', '-m'], tmp_path)
    assert r.returncode == 2 and '-m needs a module name' in r.stderr


@pytest.mark.skipif(SELF_CHECK, reason='runs the dl package')
def test_install_in_process():
    import dl
    from dl import as_torch

    saved = {n: m for n, m in sys.modules.items() if n == 'torch' or n.startswith('torch.')}
    try:
        as_torch.install()
        import torch as t
        import torch.optim.lr_scheduler as s
        assert t is dl and s is dl.optim.lr_scheduler
        as_torch.install()  # idempotent
        as_torch.uninstall()
        assert 'torch' not in sys.modules
    finally:
        as_torch.uninstall()
        sys.modules.update(saved)
    import torch as real
    assert real is not dl and real.__name__ == 'torch'

# dl.random (torch.random): the default generator's seed and state, and
# fork_rng, which restores the CPU's (and the given CUDA devices') random
# state when its block ends.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import contextlib
import warnings

from . import _creation
from ._creation import get_rng_state, initial_seed, set_rng_state
from ._lib import Dl

__all__ = ['set_rng_state', 'get_rng_state', 'manual_seed', 'seed', 'initial_seed', 'fork_rng']


def manual_seed(seed):
    """torch.random.manual_seed(seed): seeds the default CPU generator and
    every CUDA device's; the CPU's generator."""
    from . import cuda
    seed = int(seed)
    cuda.manual_seed_all(seed)
    return _creation.manual_seed(seed)


def seed():
    """torch.random.seed(): seeds the default generators from a
    non-deterministic source; the seed."""
    from . import cuda
    s = _creation.seed()
    cuda.manual_seed_all(s)
    return s


def _cuda_generator(index):
    return Dl.Device.get('cuda:%d' % index).get_default_generator()


_fork_rng_warned_already = []


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller='fork_rng', _devices_kw='devices'):
    """torch.random.fork_rng(devices=None, enabled=True): on leaving the
    block, the CPU generator's state (and that of the CUDA devices given,
    all of them by default) is what it was on entering."""
    from . import cuda
    if not enabled:
        yield
        return
    if devices is None:
        count = cuda.device_count()
        if count > 1 and not _fork_rng_warned_already:
            warnings.warn(
                'CUDA reports that you have %d available devices, and you have used %s without '
                'explicitly specifying which devices are being used. For safety, we initialize '
                '*every* CUDA device by default, which can be quite slow if you have a lot of '
                'GPUs.  If you know that you are only making use of a few CUDA devices, set the '
                "environment variable CUDA_VISIBLE_DEVICES or the '%s' keyword argument of %s "
                'with the set of devices you are actually using.  For example, if you are using '
                'CPU only, set CUDA_VISIBLE_DEVICES= or devices=[]; if you are using GPU 0 only, '
                "set CUDA_VISIBLE_DEVICES=0 or devices=[0].  To initialize all devices and "
                "suppress this warning, set the '%s' keyword argument to "
                '`range(torch.cuda.device_count())`.' % (count, _caller, _devices_kw, _caller,
                                                         _devices_kw))
            _fork_rng_warned_already.append(True)
        devices = list(range(count))
    else:
        devices = list(devices)
    cpu_state = get_rng_state()
    gpu_states = [_cuda_generator(d).get_state() for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, gpu_states):
            _cuda_generator(d).set_state(state)

# dl.cuda.amp (torch.cuda.amp): autocast("cuda") under its older name,
# custom_fwd and custom_bwd for autograd Functions, and GradScaler.
#
# GradScaler does what torch 1.13's does. Without a CUDA device (libdl
# without its CUDA backend module, a driver or a GPU) an enabled scaler
# warns and disables itself, as torch's does, and then scale() returns its
# input, step() calls optimizer.step(), unscale_() and update() do
# nothing, get_scale() is 1.0 and state_dict() is empty. With libdl's CUDA
# device it scales: unscale_ multiplies each gradient by 1/scale and
# records whether any is inf or NaN (in which case step() skips the
# optimizer), update() backs the scale off after such a step and grows it
# after growth_interval clean ones. That path needs a GPU and is not run
# by the test suite on machines without one.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import collections.abc
import enum
import functools
import warnings

import numpy as _np

from .. import amp as _amp
from .._dtype import float16, float32, float64, int32
from .._lib import _is_tensor

__all__ = ['autocast', 'custom_fwd', 'custom_bwd', 'GradScaler']


class autocast(_amp.autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=torch.float16,
    cache_enabled=True): torch.autocast('cuda', ...)."""

    def __init__(self, enabled=True, dtype=float16, cache_enabled=True):
        super().__init__('cuda', enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def _cast(value, dtype):
    if _is_tensor(value):
        if value.is_floating_point() and value.is_cuda and value.dtype is not float64:
            return value.to(dtype)
        return value
    if isinstance(value, (str, bytes, _np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, dtype): _cast(v, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        items = map(lambda v: _cast(v, dtype), value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def custom_fwd(fwd=None, *, cast_inputs=None):
    """torch.cuda.amp.custom_fwd: for the forward of an autograd Function;
    with cast_inputs, runs it with autocast off on its floating CUDA
    inputs cast to that dtype when called inside an autocast region."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _amp.is_autocast_enabled()
            return fwd(*args, **kwargs)
        in_autocast = _amp.is_autocast_enabled()
        args[0]._fwd_used_autocast = False
        if not in_autocast:
            return fwd(*args, **kwargs)
        with autocast(enabled=False):
            return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd):
    """torch.cuda.amp.custom_bwd: runs the backward of an autograd
    Function with the autocast state its forward ran with."""
    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(args[0]._fwd_used_autocast):
            return bwd(*args, **kwargs)
    return decorate_bwd


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {'stage': OptState.READY, 'found_inf_per_device': {}}


class GradScaler:
    """torch.cuda.amp.GradScaler(init_scale=2.**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True): scales the
    loss so that float16 gradients do not underflow, unscales the
    gradients before the optimizer steps, skips steps whose gradients have
    infs or NaNs and adapts the scale."""

    def __init__(self, init_scale=2. ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        if enabled and not _amp._cuda_available():
            warnings.warn('torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  '
                          'Disabling.')
            self._enabled = False
        else:
            self._enabled = enabled
        if self._enabled:
            assert growth_factor > 1.0, 'The growth factor must be > 1.0.'
            assert backoff_factor < 1.0, 'The backoff factor must be < 1.0.'
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = collections.defaultdict(_fresh_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ('This may indicate your script did not use scaler.scale(loss or outputs) earlier '
               'in the iteration.')
        assert self._scale is not None, \
            'Attempted {} but _scale is None.  '.format(funcname) + fix
        assert self._growth_tracker is not None, \
            'Attempted {} but _growth_tracker is None.  '.format(funcname) + fix
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        from .._creation import full
        assert self._growth_tracker is None, '_growth_tracker initialized before _scale'
        self._scale = full((1,), self._init_scale, dtype=float32, device=dev)
        self._growth_tracker = full((1,), self._init_growth_tracker, dtype=int32, device=dev)

    def scale(self, outputs):
        """The outputs (a tensor or nested lists and tuples of them) times
        the scale; unchanged when the scaler is disabled."""
        if not self._enabled:
            return outputs

        def apply(val):
            if _is_tensor(val):
                assert val.is_cuda
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, collections.abc.Iterable):
                items = map(apply, val)
                return type(val)(items) if isinstance(val, (list, tuple)) else items
            raise ValueError('outputs must be a Tensor or an iterable of Tensors')
        return apply(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, allow_fp16):
        """Multiplies the gradients by @inv_scale; {device: found_inf}, a
        1-element float32 tensor that is 1 where some gradient is not
        finite."""
        from .._creation import full
        from ..autograd import no_grad
        found = {}
        with no_grad():
            for group in optimizer.param_groups:
                for param in group['params']:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype is float16:
                        raise ValueError('Attempting to unscale FP16 gradients.')
                    dev = grad.device
                    if dev not in found:
                        found[dev] = full((1,), 0.0, dtype=float32, device=dev)
                    grad.mul_(inv_scale.to(device=dev))
                    if not bool(grad.isfinite().all()):
                        found[dev].fill_(1.0)
        return found

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale, once per step."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker('unscale_')
        state = self._per_optimizer_states[id(optimizer)]
        if state['stage'] is OptState.UNSCALED:
            raise RuntimeError('unscale_() has already been called on this optimizer since the '
                               'last update().')
        if state['stage'] is OptState.STEPPED:
            raise RuntimeError('unscale_() is being called after step().')
        inv_scale = self._scale.double().reciprocal().float()
        state['found_inf_per_device'] = self._unscale_grads_(optimizer, inv_scale, False)
        state['stage'] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless unscale_ did) and runs optimizer.step() unless
        a gradient is inf or NaN; its result, or None when skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if 'closure' in kwargs:
            raise RuntimeError('Closure use is not currently supported if GradScaler is '
                               'enabled.')
        self._check_scale_growth_tracker('step')
        state = self._per_optimizer_states[id(optimizer)]
        if state['stage'] is OptState.STEPPED:
            raise RuntimeError('step() has already been called since the last update().')
        if state['stage'] is OptState.READY:
            self.unscale_(optimizer)
        assert len(state['found_inf_per_device']) > 0, \
            'No inf checks were recorded for this optimizer.'
        retval = None
        if not sum(v.item() for v in state['found_inf_per_device'].values()):
            retval = optimizer.step(*args, **kwargs)
        state['stage'] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """The scale for the next iteration: @new_scale if given, else
        backed off after a skipped step, grown after growth_interval clean
        ones."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker('update')
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ('new_scale should be a float or a 1-element torch.cuda.FloatTensor with '
                          'requires_grad=False.')
                assert _is_tensor(new_scale) and new_scale.is_cuda and \
                    new_scale.dtype is float32, reason
                assert new_scale.numel() == 1, reason
                assert new_scale.requires_grad is False, reason
                scale.copy_(new_scale)
        else:
            found = [f for s in self._per_optimizer_states.values()
                     for f in s['found_inf_per_device'].values()]
            assert len(found) > 0, 'No inf checks were recorded prior to update.'
            if sum(f.item() for f in found):
                scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            else:
                grown = int(tracker.item()) + 1
                if grown == self._growth_interval:
                    scale.mul_(self._growth_factor)
                    grown = 0
                tracker.fill_(grown)
        self._per_optimizer_states = collections.defaultdict(_fresh_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a float, 1.0 when disabled."""
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return (self._init_growth_tracker if self._growth_tracker is None
                    else int(self._growth_tracker.item()))
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and
        _growth_tracker; empty when disabled."""
        if not self._enabled:
            return {}
        return {'scale': self.get_scale(), 'growth_factor': self._growth_factor,
                'backoff_factor': self._backoff_factor,
                'growth_interval': self._growth_interval,
                '_growth_tracker': self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError('The source state dict is empty, possibly because it was saved '
                               'from a disabled instance of GradScaler.')
        self._init_scale = state_dict['scale']
        if self._scale is not None:
            self._scale.fill_(state_dict['scale'])
        self._growth_factor = state_dict['growth_factor']
        self._backoff_factor = state_dict['backoff_factor']
        self._growth_interval = state_dict['growth_interval']
        self._init_growth_tracker = state_dict['_growth_tracker']
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict['_growth_tracker'])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            assert len(self._per_optimizer_states) == 0, \
                ('A GradScaler instance may only be pickled at the beginning of an iteration, '
                 'or at the end after scaler.update().')
            state['_init_scale'] = self.get_scale()
            state['_init_growth_tracker'] = self._get_growth_tracker()
            state['_scale'] = None
            state['_growth_tracker'] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

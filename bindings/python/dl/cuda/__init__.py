# dl.cuda (torch.cuda): devices, streams, events and memory statistics.
#
# is_available and device_count ask libdl, which loads its CUDA backend
# module on first use (no module, driver or device: False and 0).
#
# With a CUDA device, the classes and functions wrap libdl's: Stream and
# Event are Dl.Stream and Dl.Event, the calling thread's current stream
# is libdl's (Dl.Stream.get_current), and ops are queued on it; reading
# values (item, tolist, numpy, printing, .cpu()) waits for it.
#
# Without one, every call does what PyTorch's CPU-only build does (checked
# against python3-torch in tests/python/test_cuda.py): the memory figures
# are 0 and memory_stats() an empty dict, empty_cache() does nothing,
# Stream() and Event() raise TypeError, reset_peak_memory_stats() and
# set_device(n >= 0) AttributeError, and what needs the CUDA runtime
# (synchronize, current_stream, current_device, ...) AssertionError. The
# messages say why libdl has no CUDA device.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import threading

from gi.repository import GLib

from .._creation import _SEED_MASK
from .._dtype import device as _device_cls
from .._lib import Dl

__all__ = ['is_available', 'is_initialized', 'device_count', 'manual_seed', 'manual_seed_all',
           'empty_cache', 'synchronize', 'current_device', 'set_device', 'get_device_name',
           'get_device_properties', 'get_device_capability', 'is_bf16_supported',
           'Stream', 'Event', 'current_stream', 'default_stream', 'set_stream', 'stream',
           'StreamContext', 'memory_allocated', 'max_memory_allocated', 'memory_reserved',
           'max_memory_reserved', 'reset_peak_memory_stats', 'memory_stats']


def is_available():
    """torch.cuda.is_available(): whether libdl's CUDA backend module loads
    and finds a driver and a device (Dl.cuda_is_available)."""
    return Dl.cuda_is_available()


def is_initialized():
    """torch.cuda.is_initialized(): whether a CUDA device is in use."""
    return is_available()


def device_count():
    """torch.cuda.device_count(): the CUDA devices libdl can use, 0 without
    its CUDA backend module, a driver or a device (Dl.cuda_device_count)."""
    return Dl.cuda_device_count()


def manual_seed(seed):
    """torch.cuda.manual_seed(seed): seeds the current GPU's default
    generator; with no GPU, as in PyTorch without one, there is none and
    nothing happens."""
    seed = int(seed) & _SEED_MASK
    if is_available():
        Dl.Device.get('cuda:%d' % current_device()).get_default_generator().manual_seed(seed)


def manual_seed_all(seed):
    """torch.cuda.manual_seed_all(seed): seeds every GPU's default
    generator; with no GPU, as in PyTorch without one, nothing happens."""
    seed = int(seed) & _SEED_MASK
    for i in range(device_count()):
        Dl.Device.get('cuda:%d' % i).get_default_generator().manual_seed(seed)


def _why():
    """Why libdl has no CUDA device: the error of opening 'cuda'."""
    try:
        Dl.Device.get('cuda')
    except GLib.Error as e:
        return e.message
    return 'no CUDA device'


def _no_cuda(name, exc=AssertionError):
    # PyTorch built without CUDA raises AssertionError for what needs a GPU
    # (TypeError for Stream and Event, AttributeError for some calls)
    raise exc('torch.cuda.%s: libdl has no CUDA device (%s)' % (name, _why()))


# the calling thread's current CUDA device (torch.cuda.set_device)
_local = threading.local()


def _index(device, name, optional=True):
    """The index of a CUDA device given as None (the current device), an
    int, 'cuda:N' or a dl.device."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        index = device
    else:
        d = _device_cls(device)
        if d.type != 'cuda':
            raise ValueError('torch.cuda.%s: expected a cuda device, but got: %s' % (name, d))
        index = current_device() if d.index is None else d.index
    if not 0 <= index < device_count():
        raise RuntimeError('torch.cuda.%s: invalid device ordinal %d: there %s %d CUDA '
                           'device%s' % (name, index, 'is' if device_count() == 1 else 'are',
                                         device_count(), '' if device_count() == 1 else 's'))
    return index


def _dl_device(device, name):
    return Dl.Device.get('cuda:%d' % _index(device, name))


def current_device():
    """torch.cuda.current_device(): the index of the calling thread's
    current CUDA device (0 until set_device)."""
    if not is_available():
        _no_cuda('current_device')
    return getattr(_local, 'device', 0)


def set_device(device):
    """torch.cuda.set_device(): makes @device the calling thread's current
    CUDA device. A negative index does nothing, as in PyTorch."""
    if isinstance(device, int) and device < 0:
        return
    if not is_available():
        _no_cuda('set_device', AttributeError)
    _local.device = _index(device, 'set_device')


def get_device_name(device=None):
    """torch.cuda.get_device_name(): the product name of a CUDA device
    ("NVIDIA H200"; Dl.Device.get_product_name)."""
    if not is_available():
        _no_cuda('get_device_name')
    return _dl_device(device, 'get_device_name').get_product_name()


class _CudaDeviceProperties:
    """What torch.cuda.get_device_properties() gives: name, major, minor,
    total_memory (bytes) and multi_processor_count, from the Dl.Device."""

    def __init__(self, dev):
        self.name = dev.get_product_name()
        cap = dev.get_capability()
        self.major, self.minor = cap.major, cap.minor
        self.total_memory = dev.get_total_memory()
        self.multi_processor_count = dev.get_multi_processor_count()

    def __repr__(self):
        return ("_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, "
                "multi_processor_count=%d)" % (self.name, self.major, self.minor,
                                               self.total_memory // (1024 * 1024),
                                               self.multi_processor_count))


def get_device_properties(device=None):
    """torch.cuda.get_device_properties(): a CUDA device's name, compute
    capability, memory and multiprocessors."""
    if not is_available():
        _no_cuda('get_device_properties')
    return _CudaDeviceProperties(_dl_device(device, 'get_device_properties'))


def get_device_capability(device=None):
    """torch.cuda.get_device_capability(): a CUDA device's compute
    capability as (major, minor)."""
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported():
    """torch.cuda.is_bf16_supported(): whether the current CUDA device
    computes in bfloat16, as torch 1.13 answers it: compute capability 8.0
    (Ampere) or later. Without a CUDA device, AssertionError, as in
    PyTorch's CPU-only build (check torch.cuda.is_available() first)."""
    if not is_available():
        _no_cuda('is_bf16_supported')
    return get_device_properties(current_device()).major >= 8


def synchronize(device=None):
    """torch.cuda.synchronize(): waits for all the work queued on a CUDA
    device, on every stream (Dl.Device.synchronize)."""
    if not is_available():
        _no_cuda('synchronize')
    _dl_device(device, 'synchronize').synchronize()


# ---- streams and events ---------------------------------------------------

class Stream:
    """torch.cuda.Stream(device=None, priority=0): a queue of work on a
    CUDA device (Dl.Stream). Lower priorities run first (-1 high, 0 the
    default)."""

    def __new__(cls, device=None, priority=0, _stream=None):
        if _stream is None and not is_available():
            _no_cuda('Stream', TypeError)
        self = super().__new__(cls)
        self._stream = _stream or Dl.Stream.new(_dl_device(device, 'Stream'), int(priority))
        return self

    def __init__(self, device=None, priority=0, _stream=None):
        pass

    @property
    def device(self):
        return _device_cls(self._stream.get_device().get_name())

    @property
    def priority(self):
        return self._stream.get_priority()

    @property
    def cuda_stream(self):
        """The cudaStream_t as an integer (0 for the default stream)."""
        return self._stream.get_native_handle()

    def query(self):
        return self._stream.query()

    def synchronize(self):
        self._stream.synchronize()

    def wait_event(self, event):
        self._stream.wait_event(event._event)

    def wait_stream(self, stream):
        self._stream.wait_stream(stream._stream)

    def record_event(self, event=None):
        if event is None:
            event = Event()
        self._stream.record_event(event._event)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device, self.cuda_stream) == (
            other.device, other.cuda_stream)

    def __hash__(self):
        return hash((self.device, self.cuda_stream))

    def __repr__(self):
        return '<torch.cuda.Stream device=%s cuda_stream=%#x>' % (self.device, self.cuda_stream)


class Event:
    """torch.cuda.Event(enable_timing=False, blocking=False,
    interprocess=False): a marker in a stream's queue (Dl.Event)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if not is_available():
            _no_cuda('Event', TypeError)
        if interprocess:
            raise NotImplementedError('torch.cuda.Event: interprocess events are not supported')
        self._event = Dl.Event.new(bool(enable_timing), bool(blocking))

    def record(self, stream=None):
        self._event.record((stream or current_stream())._stream)

    def wait(self, stream=None):
        self._event.wait((stream or current_stream())._stream)

    def query(self):
        return self._event.query()

    def synchronize(self):
        self._event.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds between this event and @end_event."""
        return self._event.elapsed_time(end_event._event)

    def __repr__(self):
        d = self._event.get_device()
        return '<torch.cuda.Event %s>' % (d.get_name() if d else 'uninitialized')


def current_stream(device=None):
    """torch.cuda.current_stream(): the calling thread's current stream of
    a CUDA device, on which its ops are queued."""
    if not is_available():
        _no_cuda('current_stream')
    return Stream(_stream=Dl.Stream.get_current(_dl_device(device, 'current_stream')))


def default_stream(device=None):
    """torch.cuda.default_stream(): a CUDA device's default stream."""
    if not is_available():
        _no_cuda('default_stream')
    return Stream(_stream=Dl.Stream.get_default(_dl_device(device, 'default_stream')))


def set_stream(stream):
    """torch.cuda.set_stream(): makes @stream the calling thread's current
    stream of its device. None does nothing."""
    if stream is not None:
        stream._stream.set_current()


class StreamContext:
    """torch.cuda.StreamContext: makes a stream current in a with-block and
    brings the stream that was current back after it. None does nothing,
    as in PyTorch (also without a GPU)."""

    def __init__(self, stream):
        self.stream = stream
        self._prev = None

    def __enter__(self):
        if self.stream is not None:
            self._prev = Dl.Stream.get_current(self.stream._stream.get_device())
            self.stream._stream.set_current()
        return self.stream

    def __exit__(self, *exc):
        if self._prev is not None:
            self._prev.set_current()
            self._prev = None


def stream(stream):
    """torch.cuda.stream(s): `with torch.cuda.stream(s):` queues the ops of
    the block on @s."""
    return StreamContext(stream)


# ---- memory statistics ----------------------------------------------------

def _stats(device, name):
    """The Dl.MemoryStats of a CUDA device; None without a GPU (PyTorch's
    figures are then all 0, its memory_stats() empty)."""
    if not is_available():
        return None
    return _dl_device(device, name).get_memory_stats()


def memory_stats(device=None):
    """torch.cuda.memory_stats(): the caching allocator's figures under
    PyTorch's keys: bytes allocated and reserved with their peaks, live
    allocations, segments, and the free pieces of split segments
    (inactive_split: fragmentation)."""
    s = _stats(device, 'memory_stats')
    if s is None:
        return collections.OrderedDict()
    return collections.OrderedDict(sorted({
        'allocated_bytes.all.current': s.allocated_bytes,
        'allocated_bytes.all.peak': s.max_allocated_bytes,
        'reserved_bytes.all.current': s.reserved_bytes,
        'reserved_bytes.all.peak': s.max_reserved_bytes,
        'allocation.all.current': s.n_allocations,
        'segment.all.current': s.n_segments,
        'inactive_split.all.current': s.n_inactive_split,
        'inactive_split_bytes.all.current': s.inactive_split_bytes,
        'num_alloc_retries': s.n_alloc_retries,
    }.items()))


def _figure(name, field, doc):
    """torch.cuda.<name>(device=None): one figure of Dl.MemoryStats, 0
    without a GPU."""
    def figure(device=None):
        s = _stats(device, name)
        return 0 if s is None else getattr(s, field)
    figure.__name__ = figure.__qualname__ = name
    figure.__doc__ = 'torch.cuda.%s(): %s' % (name, doc)
    return figure


memory_allocated = _figure('memory_allocated', 'allocated_bytes',
                           'bytes of tensors on the device.')
max_memory_allocated = _figure('max_memory_allocated', 'max_allocated_bytes',
                               'the peak of memory_allocated().')
memory_reserved = _figure('memory_reserved', 'reserved_bytes',
                          'bytes the caching allocator holds.')
max_memory_reserved = _figure('max_memory_reserved', 'max_reserved_bytes',
                              'the peak of memory_reserved().')


def reset_peak_memory_stats(device=None):
    """torch.cuda.reset_peak_memory_stats(): the peaks start again from the
    figures now."""
    if not is_available():
        _no_cuda('reset_peak_memory_stats', AttributeError)
    _dl_device(device, 'reset_peak_memory_stats').reset_peak_memory_stats()


def empty_cache():
    """torch.cuda.empty_cache(): gives the cached blocks of the current
    device back to the driver; with no GPU, as in PyTorch without one,
    nothing happens."""
    if is_available():
        _dl_device(None, 'empty_cache').empty_cache()




# torch.cuda.amp: autocast for CUDA tensors and GradScaler (cuda/amp.py)
from . import amp  # noqa: E402
__all__ += ['amp']

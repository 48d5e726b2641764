# dl.nn.modules (torch.nn.modules): Module, Linear, and the layers,
# activations, containers and losses written in Python; the rest of the
# layers are defined in dl/nn/conv.py, normalization.py, resample.py, rnn.py
# and transformer.py. The package's submodules have the names of
# torch.nn.modules' (linear, activation, container, conv, loss, ...) and hold
# the classes torch keeps there, whose __module__ they set to their own name
# (_home below), so that a class's path is torch's with dl for torch and
# pickle finds it there. dl/nn/__init__.py imports them once every layer is
# defined.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import functools
import inspect
import operator
import sys
import threading
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Iterable, Mapping
from itertools import chain, islice

from gi.repository import GLib

from ..._dtype import _dl_device, _dt, device
from ... import _callbacks
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled as _grad_enabled
from ..._lib import (OVERRIDE_MODULE, Dl, _is_tensor, _translate, check_property_ranges,
                     typelib_override)
from .. import functional as F

__all__ = ['Module', 'Linear', 'ReLU', 'LeakyReLU', 'Sigmoid', 'Tanh', 'GELU', 'SiLU', 'Identity',
           'Flatten', 'Unflatten', 'LogSoftmax', 'Softmax', 'Sequential', 'ModuleList',
           'ModuleDict', 'CrossEntropyLoss', 'NLLLoss',
           'MSELoss', 'L1Loss', 'SmoothL1Loss', 'HuberLoss', 'BCELoss', 'BCEWithLogitsLoss',
           'KLDivLoss']


def _forward_vfunc(self, input):
    """Module.forward called from C (dl_module_forward): the Python forward."""
    return self.forward(input)


def _forward_many_vfunc(self, inputs):
    """Module.forward_many called from C (a container or a loss handing a
    Python module several inputs): the Python forward, its outputs as a
    list."""
    out = self.forward(*inputs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _construct(obj, typelib_class, dtype=None, device=None, **properties):
    """Makes the GObject of @obj (of its own GType, so a Python subclass's)
    from construct properties, then runs GInitable's check, which turns a
    bad value into the error PyTorch raises. @dtype and @device (a layer's
    dtype= and device=, or those its wrapped __init__ was given) are the
    layer's DlModule:dtype and DlModule:device: where and in which dtype it
    makes its parameters and buffers."""
    check_property_ranges(typelib_class, properties, type(obj).__name__)
    properties.update(_factory_properties(obj, dtype, device))
    typelib_class.__init__(obj, **properties)
    try:
        obj.init(None)
    except GLib.Error as e:
        raise _translate_construct(e) from None


def _translate_construct(e):
    if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.NOT_SUPPORTED):
        return NotImplementedError(e.message)
    if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.ARGUMENT):
        return ValueError(e.message)
    if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.DTYPE):
        return RuntimeError(e.message)  # torch's for a parameter of an integer dtype
    return _translate(e)


class _IncompatibleKeys(namedtuple('IncompatibleKeys', ['missing_keys', 'unexpected_keys'])):
    """What load_state_dict returns, as PyTorch's."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return '<All keys matched successfully>'
        return super().__repr__()

    __str__ = __repr__


_TENSOR_TYPENAMES = {'float32': 'FloatTensor', 'float64': 'DoubleTensor', 'float16': 'HalfTensor',
                     'bfloat16': 'BFloat16Tensor', 'int32': 'IntTensor', 'int64': 'LongTensor',
                     'uint8': 'ByteTensor', 'bool': 'BoolTensor'}


def _typename(o):
    """torch.typename: 'torch.FloatTensor' for a tensor, the qualified
    class name of anything else."""
    if _is_tensor(o):
        return 'torch.' + _TENSOR_TYPENAMES[Dl.dtype_get_name(o.get_dtype())]
    module = ''
    if getattr(o, '__module__', None) not in (None, 'builtins', '__builtin__'):
        module = o.__module__ + '.'
    if hasattr(o, '__qualname__'):
        class_name = o.__qualname__
    elif hasattr(o, '__name__'):
        class_name = o.__name__
    else:
        class_name = o.__class__.__name__
    return module + class_name


def _addindent(s_, num_spaces):
    s = s_.split('\n')
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * ' ') + line for line in s]
    return first + '\n' + '\n'.join(s)


def _is_parameter(value):
    return _is_tensor(value) and Dl.Tensor.is_parameter(value)


class _LayerTensor(property):
    """A libdl layer's tensor attribute (weight, bias) as torch's: its
    parameter, or, when weight_norm or spectral_norm replaced the
    parameter, the tensor their hook computed last (a plain attribute, as
    in torch). Not an attribute that keeps a parameter of that name from
    being registered (after del layer.weight)."""

    def __init__(self, name):
        def get(module):
            p = Dl.Module.get_parameter(module, name)
            return module.__dict__.get(name) if p is None else p
        super().__init__(get)


class RemovableHandle:
    """What register_forward_hook and register_forward_pre_hook return, as
    torch.utils.hooks.RemovableHandle: remove() unregisters the hook (again
    does nothing); a context manager that removes it on exit."""
    next_id = 0

    def __init__(self, module, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.module_ref = weakref.ref(module)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        module = self.module_ref()
        if module is not None:
            module._update_hooked()

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


def _as_tensor_list(value, what):
    """A hook's replacement, run from C (a container's forward), as the
    tensors C takes."""
    if value is None:
        return None
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    for v in items:
        if v is not None and not _is_tensor(v):
            raise TypeError('%s returned a %s where libdl\'s forward takes tensors'
                            % (what, type(v).__name__))
    return items


def _c_hooks(module):
    """The forward pre-hook and hook through which libdl runs the Python
    hooks of @module when the module runs from C (a container's forward,
    or another language): each runs the hooks of the module's dicts in
    order, as torch's _call_impl, and hands back what replaces the inputs
    or outputs. Returns their ids."""
    def pre(m, inputs):
        d = m.__dict__
        input = tuple(inputs)
        changed = False
        for hook in tuple(d.get('_forward_pre_hooks', {}).values()):
            result = hook(m, input)
            if result is not None:
                input = result if isinstance(result, tuple) else (result,)
                changed = True
        if d.get('_backward_hooks'):
            bw = _BackwardHook(m, list(d['_backward_hooks'].values()))
            d['_dl_bw_running'] = bw
            input = bw.setup_input_hook(input)
            changed = True
        return _as_tensor_list(input, 'a forward pre-hook') if changed else None

    def post(m, inputs, outputs):
        d = m.__dict__
        input = tuple(inputs)
        result = outputs[0] if len(outputs) == 1 else tuple(outputs)
        changed = False
        for hook in tuple(d.get('_forward_hooks', {}).values()):
            hook_result = hook(m, input, result)
            if hook_result is not None:
                result = hook_result
                changed = True
        bw = d.pop('_dl_bw_running', None)
        if bw is not None:
            result = bw.setup_output_hook(result)
            changed = True
        return _as_tensor_list(result, 'a forward hook') if changed else None

    return (Dl.Module.register_forward_pre_hook(module, _callbacks.from_c(pre)),
            Dl.Module.register_forward_hook(module, _callbacks.from_c(post)))


def _factory_kwargs(init):
    """Wraps a layer's __init__(..., device=None, dtype=None): as torch's
    factory_kwargs, its parameters and buffers are made on that device (on
    the meta device: without memory) and, when floating, in that dtype.
    They go to the C layer's construct properties DlModule:device and
    DlModule:dtype when _construct makes the layer (this object only, not
    the layers its __init__ may build besides)."""
    params = inspect.signature(init).parameters

    def slot(name):
        # where a positional argument sits in args (after self), if it can
        if name in params and params[name].kind == inspect.Parameter.POSITIONAL_OR_KEYWORD:
            return list(params).index(name) - 1
        return sys.maxsize

    at = {name: slot(name) for name in ('device', 'dtype')}

    def given(name, args, kwargs):
        value = kwargs.get(name)
        if value is None and len(args) > at[name]:
            value = args[at[name]]
        return value

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        outer = getattr(_building, 'layer', None)
        given_now = {name: given(name, args, kwargs) for name in ('dtype', 'device')}
        if outer is not None and outer[0] is self:
            # a subclass's wrapped __init__ calling its base's
            given_now = {k: v if v is not None else outer[1][k] for k, v in given_now.items()}
        _building.layer = (self, given_now)
        try:
            return init(self, *args, **kwargs)
        finally:
            _building.layer = outer
    wrapper._dl_factory_kwargs = True
    return wrapper


# the layer whose __init__ runs on this thread and the factory arguments
# (dtype=, device=) it was given
_building = threading.local()


def _factory_properties(obj, dtype, dev):
    """The construct properties DlModule:dtype (an int) and DlModule:device
    for a layer's dtype= and device=, or for @obj's when the wrapped
    __init__ building it was given them; those not given are left out
    (the default dtype, the thread's default device)."""
    layer = getattr(_building, 'layer', None)
    if layer is not None and layer[0] is obj:
        dtype = layer[1]['dtype'] if dtype is None else dtype
        dev = layer[1]['device'] if dev is None else dev
    props = {}
    if dtype is not None:
        props['dtype'] = int(_dt(dtype))
    if dev is not None:
        props['device'] = _dl_device(dev)
        if props['device'] is None:
            del props['device']
    return props


@typelib_override(__name__)
class Module(Dl.Module):
    """torch.nn.Module: subclass it, assign layers and Parameters as
    attributes in __init__, define forward, call the module.

    The parameters, buffers and children live in libdl (DlModule), so C,
    GJS and Vala see the same module tree; the Python object caches
    parameters and children in its __dict__ for fast attribute access."""
    __module__ = OVERRIDE_MODULE

    dump_patches = False
    _version = 1

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # PyGObject hooks vfuncs from each class's own namespace, so every
        # Python subclass gets the bridge from C's forward to its forward.
        # (Not for the classes that override a typelib class, whose C
        # forward stays theirs: their Python forward adds checks only.)
        if ('forward' in cls.__dict__ and 'do_forward' not in cls.__dict__
                and cls.__dict__.get('__module__') != OVERRIDE_MODULE):
            cls.do_forward = _forward_vfunc
            if 'do_forward_many' not in cls.__dict__:
                cls.do_forward_many = _forward_many_vfunc
        # libdl's own layers: the __init__ they have, their own or a
        # mixin's (the norm layers' _BatchNorm is not a Module), wrapped
        # once. A user's subclass takes device= and dtype= as torch's do:
        # what it does with them is its own.
        init = cls.__init__
        ours = cls.__module__ == OVERRIDE_MODULE or cls.__module__.split('.')[0] == __name__.split('.')[0]
        if (ours and not getattr(init, '_dl_factory_kwargs', False)
                and init is not Module.__dict__.get('__init__')
                and {'device', 'dtype'} & set(inspect.signature(init).parameters)):
            cls.__init__ = _factory_kwargs(init)

    def __init__(self):
        Dl.Module.__init__(self)

    # ---- attributes ---------------------------------------------------

    def _gobject_ready(self, what):
        try:
            Dl.Module.get_training(self)
        except (RuntimeError, TypeError):
            raise AttributeError('cannot assign %s before Module.__init__() call' % what) from None

    def __setattr__(self, name, value):
        d = self.__dict__
        if _is_parameter(value):
            self._gobject_ready('parameters')
            self._remove_member(name, keep='p')
            self.register_parameter(name, value)
            return
        kind = _member_kind(self, name)
        if kind == 'p':
            if value is not None:
                raise TypeError("cannot assign '%s' as parameter '%s' (torch.nn.Parameter or "
                                "None expected)" % (_typename(value), name))
            self.register_parameter(name, None)
        elif isinstance(value, Module):
            self._gobject_ready('module')
            self._remove_member(name, keep='m')
            _check(Dl.Module.add_module, self, name, value)
            d.pop('_dl_native', None)
            d[name] = value
        elif kind == 'm' or (name in d and d[name] is None and name in d.get('_none_modules', ())):
            if value is not None:
                raise TypeError("cannot assign '%s' as child module '%s' (torch.nn.Module or "
                                "None expected)" % (_typename(value), name))
            Dl.Module.remove(self, name)
            d.pop('_dl_native', None)
            d.setdefault('_none_modules', set()).add(name)
            d[name] = None
        elif kind == 'b':
            if value is not None and not _is_tensor(value):
                raise TypeError("cannot assign '%s' as buffer '%s' (torch.Tensor or None "
                                "expected)" % (_typename(value), name))
            Dl.Module.register_buffer(self, name, value,
                                      Dl.Module.get_buffer_persistent(self, name))
        else:
            super().__setattr__(name, value)

    def _remove_member(self, name, keep):
        """Drops @name from the registries other than @keep's kind (as
        torch's remove_from), and from the plain attributes."""
        kind = _member_kind(self, name)
        if kind is not None and kind != keep:
            Dl.Module.remove(self, name)
            self.__dict__.pop('_dl_native', None)
        d = self.__dict__
        d.pop(name, None)
        d.get('_none_modules', set()).discard(name)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        if name in ('_forward_hooks', '_forward_pre_hooks', '_backward_hooks',
                    '_load_state_dict_post_hooks'):
            return self.__dict__.setdefault(name, OrderedDict())
        try:
            member, found = Dl.Module.lookup(self, name)
        except (RuntimeError, TypeError):  # the GObject does not exist yet
            found = False
        if found:
            return member
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __delattr__(self, name):
        d = self.__dict__
        if _member_kind(self, name) is not None:
            Dl.Module.remove(self, name)
            d.pop('_dl_native', None)
            d.pop(name, None)
        elif name in d.get('_none_modules', ()):
            d['_none_modules'].discard(name)
            del d[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        names = (list(Dl.Module.get_own_names(self)))
        keys = module_attrs + attrs + names
        keys = [key for key in keys if not key[0].isdigit()]
        return sorted(set(keys))

    @property
    def _parameters(self):
        return OrderedDict((n, Dl.Module.get_parameter(self, n))
                           for n in Dl.Module.get_own_names(self)
                           if Dl.Module.has_parameter(self, n))

    @property
    def _buffers(self):
        return OrderedDict((n, Dl.Module.get_buffer(self, n))
                           for n in Dl.Module.get_own_names(self)
                           if Dl.Module.has_buffer(self, n))

    @property
    def _modules(self):
        return OrderedDict(zip(Dl.Module.children_names(self), Dl.Module.children(self)))

    @property
    def _non_persistent_buffers_set(self):
        return {n for n in self._buffers if not Dl.Module.get_buffer_persistent(self, n)}

    # ---- registration ----------------------------------------------------

    def _check_name(self, what, name):
        # torch's checks of a new parameter's or buffer's name
        self._gobject_ready(what)
        if not isinstance(name, str):
            raise TypeError('%s name should be a string. Got %s' % (what, _typename(name)))
        if '.' in name:
            raise KeyError('%s name can\'t contain "."' % what)
        if name == '':
            raise KeyError('%s name can\'t be empty string ""' % what)
        if (hasattr(self, name) and _member_kind(self, name) != what[0]
                and not isinstance(getattr(type(self), name, None), _LayerTensor)):
            raise KeyError("attribute '%s' already exists" % name)

    def register_parameter(self, name, param):
        """torch.nn.Module.register_parameter: @param (a Parameter, or None)
        under @name, with torch's checks and errors."""
        self._check_name('parameter', name)
        if param is not None and not _is_parameter(param):
            raise TypeError("cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or "
                            "None required)" % (_typename(param), name))
        if param is not None and param.grad_fn is not None:
            raise ValueError("Cannot assign non-leaf Tensor to parameter '{0}'. Model parameters "
                             "must be created explicitly. To express '{0}' as a function of "
                             "another Tensor, compute the value in the forward() method."
                             .format(name))
        _check(Dl.Module.add_parameter, self, name, param)
        self.__dict__[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """torch.nn.Module.register_buffer: module state that is not a
        parameter (persistent buffers are in the state dict)."""
        self._check_name('buffer', name)
        if tensor is not None and not _is_tensor(tensor):
            raise TypeError("cannot assign '%s' object to buffer '%s' (torch Tensor or None "
                            "required)" % (_typename(tensor), name))
        _check(Dl.Module.add_buffer, self, name, tensor, bool(persistent))

    def add_module(self, name, module):
        """torch.nn.Module.add_module: @module (or None) as the child @name."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError('%s is not a Module subclass' % _typename(module))
        if not isinstance(name, str):
            raise TypeError('module name should be a string. Got %s' % _typename(name))
        if hasattr(self, name) and _member_kind(self, name) != 'm':
            raise KeyError("attribute '%s' already exists" % name)
        if '.' in name:
            raise KeyError('module name can\'t contain ".", got: %s' % name)
        if name == '':
            raise KeyError('module name can\'t be empty string ""')
        if module is None:
            Dl.Module.remove(self, name)
            self.__dict__.pop('_dl_native', None)
            self.__dict__.setdefault('_none_modules', set()).add(name)
            if name.isidentifier():
                self.__dict__[name] = None
            return
        _check(Dl.Module.add_module, self, name, module)
        self.__dict__.pop('_dl_native', None)
        if name.isidentifier():
            self.__dict__[name] = module

    def register_module(self, name, module):
        """Alias of add_module."""
        self.add_module(name, module)

    def get_submodule(self, target):
        if target == '':
            return self
        mod = self
        for item in target.split('.'):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + ' has no attribute `' + item + '`')
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError('`' + item + '` is not an nn.Module')
        return mod

    def _owner_of(self, target):
        module_path, _, name = target.rpartition('.')
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + ' has no attribute `' + name + '`')
        return mod, name

    def get_parameter(self, target):
        mod, name = self._owner_of(target)
        param = getattr(mod, name)
        if not _is_parameter(param):
            raise AttributeError('`' + name + '` is not an nn.Parameter')
        return param

    def get_buffer(self, target):
        mod, name = self._owner_of(target)
        if not Dl.Module.has_buffer(mod, name):
            raise AttributeError('`' + name + '` is not a buffer')
        return Dl.Module.get_buffer(mod, name)

    # ---- calling ---------------------------------------------------------

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if d.get('_dl_hooked'):
            if self._has_foreign_hooks(args, kwargs, len(d.get('_dl_c_hooks') or ())):
                return self._call_c_hooked(args)
            return self._call_with_hooks(args, kwargs)
        if type(self).forward is not Module.forward and self._has_foreign_hooks(args, kwargs, 0):
            return self._call_c_hooked(args)
        return self.forward(*args, **kwargs)

    def _has_foreign_hooks(self, args, kwargs, own):
        """Whether the module has hooks registered through the C API (from
        C, GJS or Vala) besides the @own ones that run its Python hooks,
        and the call can go through the C invoker, which runs them all
        (tensor arguments only). A C layer's forward reaches the invoker
        anyway."""
        return (not kwargs and args and Dl.Module.get_n_hooks(self) > own
                and all(_is_tensor(a) for a in args))

    def _call_c_hooked(self, args):
        try:
            if len(args) == 1:
                return _dl_forward(self, args[0])
            out = Dl.Module.forward_many(self, list(args))
        except GLib.Error as e:
            raise _translate(e) from None
        return out[0] if len(out) == 1 else tuple(out)

    def _call_with_hooks(self, input, kwargs):
        # torch's _call_impl: the pre-hooks, forward (bypassing the C hooks,
        # which are these hooks for calls from C), the hooks
        for hook in tuple(self._forward_pre_hooks.values()):
            result = hook(self, input)
            if result is not None:
                if not isinstance(result, tuple):
                    result = (result,)
                input = result
        bw_hook = None
        if self.__dict__.get('_backward_hooks'):
            bw_hook = _BackwardHook(self, list(self._backward_hooks.values()))
            input = bw_hook.setup_input_hook(input)
        result = self._forward_unhooked(*input, **kwargs)
        for hook in tuple(self._forward_hooks.values()):
            hook_result = hook(self, input, result)
            if hook_result is not None:
                result = hook_result
        if bw_hook:
            result = bw_hook.setup_output_hook(result)
        return result

    def _forward_unhooked(self, *args, **kwargs):
        if type(self).forward is not Module.forward:
            return self.forward(*args, **kwargs)
        return _run_c_forward(self, _typelib_class(type(self)), args, kwargs)

    def forward(self, *args, **kwargs):
        """The C forward of the module: of its class when libdl implements
        it (Linear, ReLU, ...), or of the libdl class a Python subclass
        derives from, for its super().forward(); one input goes to
        forward, several (a loss's) to forward_many."""
        if type(self).do_forward is not _forward_vfunc:
            # the invoker is the quickest, but it runs the C hooks, which
            # run the Python hooks: forward itself runs none, as torch's
            if len(args) == 1 and not kwargs and not self.__dict__.get('_dl_hooked'):
                try:
                    return _dl_forward(self, args[0])
                except GLib.Error as e:
                    raise _forward_error(self, e) from None
            return _run_c_forward(self, _typelib_class(type(self)), args, kwargs)
        # a Python subclass: chain up to the C class below it
        impl = _typelib_class(type(self))
        if impl is Dl.Module:
            raise NotImplementedError('Module [%s] is missing the required "forward" function'
                                      % type(self).__name__)
        return _run_c_forward(self, impl, args, kwargs)

    def _update_hooked(self):
        # whether __call__ runs hooks, and the C hooks that run them when
        # the module is called from C, there while the module has hooks
        d = self.__dict__
        hooked = bool(d.get('_forward_hooks') or d.get('_forward_pre_hooks')
                      or d.get('_backward_hooks'))
        d['_dl_hooked'] = hooked
        c_ids = d.get('_dl_c_hooks')
        if hooked and c_ids is None:
            d['_dl_c_hooks'] = _c_hooks(self)
        elif not hooked and c_ids is not None:
            for c_id in d.pop('_dl_c_hooks'):
                Dl.Module.remove_hook(self, c_id)

    def _add_hook(self, hooks, hook):
        handle = RemovableHandle(self, hooks)
        hooks[handle.id] = hook
        self._update_hooked()
        return handle

    def register_full_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) runs when the gradients
        with respect to the module's inputs are computed; grad_input and
        grad_output are tuples (None where an input or output is not a
        tensor or needs no gradient); a result that is not None replaces
        grad_input. Returns a RemovableHandle."""
        return self._add_hook(self._backward_hooks, hook)

    def register_backward_hook(self, hook):
        """The older form of register_full_backward_hook, which torch
        deprecates: here the same hook, called the same way."""
        return self.register_full_backward_hook(hook)

    def register_forward_pre_hook(self, hook):
        """hook(module, input) runs before forward; input is the tuple of
        positional arguments; a result that is not None replaces it (made
        a tuple if it is not one). Returns a RemovableHandle."""
        return self._add_hook(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """hook(module, input, output) runs after forward; a result that is
        not None replaces the output. Returns a RemovableHandle."""
        return self._add_hook(self._forward_hooks, hook)

    # ---- the tree --------------------------------------------------------

    def parameters(self, recurse=True):
        return iter(Dl.Module.named_parameters(self, bool(recurse))[0])

    def named_parameters(self, prefix='', recurse=True):
        params, names = Dl.Module.named_parameters(self, bool(recurse))
        if prefix:
            names = [prefix + '.' + n for n in names]
        return iter(list(zip(names, params)))

    def buffers(self, recurse=True):
        return iter(Dl.Module.named_buffers(self, bool(recurse))[0])

    def named_buffers(self, prefix='', recurse=True):
        bufs, names = Dl.Module.named_buffers(self, bool(recurse))
        if prefix:
            names = [prefix + '.' + n for n in names]
        return iter(list(zip(names, bufs)))

    def named_children(self):
        memo = set()
        for name, module in zip(Dl.Module.children_names(self), Dl.Module.children(self)):
            if module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo=None, prefix='', remove_duplicate=True):
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in zip(Dl.Module.children_names(self), Dl.Module.children(self)):
                submodule_prefix = prefix + ('.' if prefix else '') + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError('training mode is expected to be boolean')
        self.set_training(mode)
        return self

    def eval(self):
        return self.train(False)

    @property
    def training(self):
        return self.get_training()

    @training.setter
    def training(self, mode):
        self.set_property('training', bool(mode))  # this module only, as torch's

    def zero_grad(self, set_to_none=False):
        _check(Dl.Module.zero_grad_full, self, bool(set_to_none))

    def requires_grad_(self, requires_grad=True):
        _check(Dl.Module.requires_grad_, self, bool(requires_grad))
        return self

    # ---- conversion ------------------------------------------------------

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(tensor), to(device, dtype), with
        device=/dtype=/non_blocking= keywords: converts the parameters in
        place (they stay the same objects) and the buffers."""
        dev, dt = _parse_to(args, kwargs)
        if dt is not None and not dt.is_floating_point:
            raise TypeError('nn.Module.to only accepts floating point or complex dtypes, but got '
                            'desired dtype=%r' % (dt,))
        if dev is not None:
            try:
                target = _dl_device(dev)
            except GLib.Error as e:
                if device(dev).type == 'cuda':  # as torch built without CUDA
                    raise AssertionError('Torch not compiled with CUDA enabled') from None
                raise _translate(e) from None
            _check(Dl.Module.to_device, self, target)
        if dt is not None:
            _check(Dl.Module.to_dtype, self, dt._value)
        return self

    def _to_dtype(self, name):
        _check(Dl.Module.to_dtype, self, getattr(Dl.DType, name))
        return self

    def float(self):
        return self._to_dtype('FLOAT32')

    def double(self):
        return self._to_dtype('FLOAT64')

    def half(self):
        return self._to_dtype('FLOAT16')

    def bfloat16(self):
        return self._to_dtype('BFLOAT16')

    def share_memory(self):
        """Moves every parameter and buffer into shared memory
        (Tensor.share_memory_()), so that processes forked afterwards, or
        sent the module through dl.multiprocessing, train the same tensors
        (Hogwild)."""
        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
        return self

    def cpu(self):
        _check(Dl.Module.to_device, self, None)
        return self

    def to_empty(self, *, device):
        """Moves the parameters and buffers to @device without copying
        their values (uninitialised storage there, as torch's, e.g. after
        building the module on the meta device); they stay the same
        Parameter objects."""
        from ... import _creation
        from ...autograd.grad_mode import no_grad
        with no_grad():
            for t in list(self.parameters()) + list(self.buffers()):
                t.data = _creation.empty(list(t.shape), dtype=t.dtype, device=device)
        return self

    def cuda(self, device=None):
        return self.to('cuda' if device is None else
                       'cuda:%d' % device if isinstance(device, int) else device)

    def type(self, dst_type):
        from ..._dtype import _dt
        _check(Dl.Module.cast, self, _dt(dst_type))
        return self

    # ---- state -----------------------------------------------------------

    def get_extra_state(self):
        """The state a module adds to its state dict beyond its parameters
        and buffers (any picklable object), under the key '_extra_state',
        when its class overrides this method and set_extra_state."""
        raise RuntimeError(
            'Reached a code path in Module.get_extra_state() that should never be called. '
            'Please file an issue at https://github.com/pytorch/pytorch/issues/new?template='
            'bug-report.yml to report this bug.')

    def set_extra_state(self, state):
        """Restores what get_extra_state gave, from load_state_dict."""
        raise RuntimeError(
            'Reached a code path in Module.set_extra_state() that should never be called. '
            'Please file an issue at https://github.com/pytorch/pytorch/issues/new?template='
            'bug-report.yml to report this bug.')

    def _extra_state_modules(self):
        """(path, module) of the modules of the tree whose class overrides
        get_extra_state, in the state dict's order."""
        return [(path, m) for path, m in self.named_modules()
                if type(m).get_extra_state is not Module.get_extra_state]

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        """The parameters and persistent buffers by dotted name, detached
        unless keep_vars, in an OrderedDict, as PyTorch's."""
        if args:  # PyTorch's deprecated positional form
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        state = Dl.Module.state_dict(self)
        for name in state.get_names():
            if keep_vars:
                path, _, leaf = name.rpartition('.')
                mod = self.get_submodule(path)
                t = (Dl.Module.get_parameter(mod, leaf) if Dl.Module.has_parameter(mod, leaf)
                     else Dl.Module.get_buffer(mod, leaf))
            else:
                t = state.lookup(name)
            destination[prefix + name] = t
        extra = self._extra_state_modules()
        if extra:
            _insert_extra_state(destination, prefix, self, extra)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Copies @state_dict's tensors into the parameters and buffers
        (in place: they stay Parameters); with @strict the names must match.
        Returns (missing_keys, unexpected_keys)."""
        from ...serialization import _tensor_dict
        if not isinstance(state_dict, Mapping):
            raise TypeError('Expected state_dict to be dict-like, got %s.' % type(state_dict))
        for path, m in self.named_modules():
            if m.__dict__.get('_lazy'):  # a lazy module's sizes come from the checkpoint
                m._lazy_load(state_dict, path + '.' if path else '')
        extra_missing = []
        extra = self._extra_state_modules()
        if extra:
            state_dict = OrderedDict(state_dict)
            for path, m in extra:
                key = path + '.' + '_extra_state' if path else '_extra_state'
                if key in state_dict:
                    m.set_extra_state(state_dict.pop(key))
                elif strict:
                    extra_missing.append(key)
        # with post hooks, which may change the keys strict refuses, the
        # check comes after them, as torch's
        post = any(m.__dict__.get('_load_state_dict_post_hooks') for m in self.modules())
        try:
            _, missing, unexpected = Dl.Module.load_state_dict(self, _tensor_dict(state_dict),
                                                               bool(strict) and not post)
        except GLib.Error as e:
            message = e.message
            if message.startswith('Error(s) in loading state_dict for '):
                message = ('Error(s) in loading state_dict for %s:%s'
                           % (type(self).__name__, message.split(':', 1)[1]))
            raise RuntimeError(message) from None
        missing = list(missing) + extra_missing
        unexpected = list(unexpected)
        if post:
            _run_load_post_hooks(self, _IncompatibleKeys(missing, unexpected))
        if strict and (extra_missing or (post and (missing or unexpected))):
            messages = []
            if unexpected:
                messages.append('Unexpected key(s) in state_dict: %s. '
                                % ', '.join('"%s"' % k for k in unexpected))
            if missing:
                messages.insert(0, 'Missing key(s) in state_dict: %s. '
                                % ', '.join('"%s"' % k for k in missing))
            raise RuntimeError('Error(s) in loading state_dict for %s:\n\t%s'
                               % (type(self).__name__, '\n\t'.join(messages)))
        return _IncompatibleKeys(missing, unexpected)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs after load_state_dict has
        loaded this module (its children's hooks first): the missing_keys
        and unexpected_keys of incompatible_keys are the whole load's
        lists, which the hook may change in place (strict's check comes
        after the hooks); it must return None. Returns a RemovableHandle."""
        return self._add_hook(self._load_state_dict_post_hooks, hook)

    # ---- printing --------------------------------------------------------

    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        return ''

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split('\n')
        child_lines = []
        for key, module in zip(Dl.Module.children_names(self), Dl.Module.children(self)):
            mod_str = _addindent(repr(module), 2)
            child_lines.append('(' + key + '): ' + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + '('
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += '\n  ' + '\n  '.join(lines) + '\n'
        main_str += ')'
        return main_str

    def __deepcopy__(self, memo):
        # GObject refuses copy.deepcopy: copy what pickling saves
        return copy._reconstruct(self, memo, *self.__reduce_ex__(4))

    def __reduce_ex__(self, protocol):
        # A module pickles as its class (by reference), what libdl holds for
        # it and its Python attributes; unpickling makes the object without
        # calling __init__, as PyTorch's does.
        return (_rebuild_module, (type(self),) + _module_state(self) + (_plain_dict(self),))


def _run_load_post_hooks(module, incompatible_keys):
    """The load_state_dict post hooks of module's tree, each module's after
    its children's, as torch's load recursion calls them."""
    for child in Dl.Module.children(module):
        _run_load_post_hooks(child, incompatible_keys)
    for hook in tuple(module.__dict__.get('_load_state_dict_post_hooks', {}).values()):
        out = hook(module, incompatible_keys)
        assert out is None, (
            'Hooks registered with ``register_load_state_dict_post_hook`` are notexpected to '
            'return new values, if incompatible_keys need to be modified,it should be done '
            'inplace.')


def _insert_extra_state(destination, prefix, root, extra):
    """Puts each module's '_extra_state' where torch's state_dict has it:
    after that module's own parameters and buffers, before its children's
    entries (the keys of destination after @prefix are in the tree's
    order, each module's own entries first)."""
    own = {}
    for key in list(destination.keys()):
        if not key.startswith(prefix):
            continue
        path = key[len(prefix):].rpartition('.')[0]
        own.setdefault(path, []).append(key)
    items = [(k, v) for k, v in destination.items() if not k.startswith(prefix)]
    extra_of = dict(extra)
    for path, m in root.named_modules():
        for key in own.get(path, ()):
            items.append((key, destination[key]))
        if path in extra_of:
            items.append((prefix + (path + '.' if path else '') + '_extra_state',
                          extra_of[path].get_extra_state()))
        own.pop(path, None)
    for keys in own.values():  # entries of no module reached (none expected)
        items.extend((key, destination[key]) for key in keys)
    destination.clear()
    destination.update(items)


_dl_forward = Dl.Module.forward


def _forward_error(module, e):
    if (e.domain == 'dl-error-quark' and e.code == int(Dl.Error.NOT_SUPPORTED)
            and 'implements neither forward' in e.message):
        return NotImplementedError('Module [%s] is missing the required "forward" function'
                                   % type(module).__name__)
    return _translate(e)


def _run_c_forward(module, impl, args, kwargs):
    """@impl's C forward on @args (forward_many for several): the vfunc
    itself, without the module's hooks."""
    if kwargs:
        raise TypeError('%s.forward() takes no keyword arguments' % type(module).__name__)
    try:
        # the parametrized tensors the C forward reads (the invoker, which
        # this bypasses, computes them itself)
        Dl.Module.enter_parametrized(module)
        try:
            if len(args) == 1:
                return impl.do_forward(module, args[0])
            else:
                out = impl.do_forward_many(module, list(args))
        finally:
            Dl.Module.leave_parametrized(module)
    except GLib.Error as e:
        raise _forward_error(module, e) from None
    return out[0] if len(out) == 1 else tuple(out)


def _typelib_class(cls):
    return next((c for c in cls.__mro__ if c.__module__ == 'gi.repository.Dl'), Dl.Module)


def _member_kind(module, name):
    """'p', 'b' or 'm' for a parameter, buffer or child of @module named
    @name, None otherwise (also before the GObject exists)."""
    try:
        kind = Dl.Module.get_member_kind(module, name)
    except (RuntimeError, TypeError):
        return None
    return kind[0] if kind else None


def _check(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.ARGUMENT) and (
                'name' in e.message or 'already exists' in e.message):
            raise KeyError(e.message) from None
        if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.DTYPE):
            raise TypeError(e.message) from None
        raise _translate(e) from None


def _parse_to(args, kwargs):
    from ..._dtype import dtype as _dtype_cls
    dev = kwargs.pop('device', None)
    dt = kwargs.pop('dtype', None)
    kwargs.pop('non_blocking', None)
    kwargs.pop('memory_format', None)
    if kwargs:
        raise TypeError('to() received an invalid combination of arguments: %s'
                        % ', '.join(kwargs))
    for a in args:
        if isinstance(a, _dtype_cls):
            dt = a
        elif isinstance(a, (str, device)):
            dev = a
        elif _is_tensor(a):
            dt = a.dtype
            dev = a.device
        elif isinstance(a, bool):
            pass  # non_blocking
        else:
            raise TypeError('to() received an invalid combination of arguments - got (%s)'
                            % type(a).__name__)
    return dev, dt


# ---- full backward hooks -----------------------------------------------------
# As torch.utils.hooks.BackwardHook: the tensor inputs and the outputs of a
# call pass through identity Functions whose backward hands the gradients
# to the hooks: the outputs' (grad_output) come first and are kept, the
# inputs' (grad_input) then call each hook(module, grad_input, grad_output).

class _BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, callback, *args):
        ctx.callback = callback
        ctx.set_materialize_grads(False)  # an unused output's gradient is None
        # as PyTorch's engine, the hooks see zeros for the tensors that do
        # not require grad
        ctx.constants = {i: a for i, a in enumerate(args) if not a.requires_grad}
        ctx.mark_non_differentiable(*ctx.constants.values())
        return args

    @staticmethod
    def backward(ctx, *grads):
        grads = tuple(_zeros_like(ctx.constants[i]) if i in ctx.constants else g
                      for i, g in enumerate(grads))
        return (None,) + tuple(ctx.callback(grads))


def _zeros_like(t):
    from ..._creation import zeros_like
    return zeros_like(t)


class _BackwardHook:
    def __init__(self, module, user_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _apply_on_tensors(self, callback, args):
        tensors_idx = [i for i, a in enumerate(args) if _is_tensor(a)]
        tensors = [args[i] for i in tensors_idx]
        if not (any(t.requires_grad for t in tensors) and _grad_enabled()):
            return args, None
        new_tensors = _BackwardHookFunction.apply(callback, *tensors)
        if not isinstance(new_tensors, tuple):
            new_tensors = (new_tensors,)
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def _input_grads(self, grad_input):
        res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError('Backward hook returned an invalid number of grad_input, '
                                   'got {}, but expected {}'.format(len(out), len(res)))
            res = out
        self.grad_outputs = None
        return self._unpack_none(self.input_tensors_index, res)

    def _output_grads(self, grad_output):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        if self.input_tensors_index is None:
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(el is None for el in res)):
                    raise RuntimeError('Backward hook for Modules where no input requires '
                                       'gradient should always return None or None for all '
                                       'gradients.')
            self.grad_outputs = None
        return grad_output

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        res, self.input_tensors_index = self._apply_on_tensors(self._input_grads, args)
        return res

    def setup_output_hook(self, args):
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        self.n_outputs = len(args)
        res, self.output_tensors_index = self._apply_on_tensors(self._output_grads, args)
        return res if is_tuple else res[0]


def _plain_dict(m):
    """The Python attributes of @m, without what libdl holds (parameters and
    children are cached in __dict__) or the hooks."""
    names = set(Dl.Module.get_own_names(m))
    # the tensors weight_norm's and spectral_norm's hooks computed (not
    # leaves: the copy computes its own)
    names.update(h.name for h in m.__dict__.get('_forward_pre_hooks', {}).values()
                 if hasattr(h, '_dl_restore'))
    return {k: v for k, v in m.__dict__.items()
            if k not in names and k not in ('_dl_hooked', '_dl_c_hooks', '_dl_bw_running',
                                            '_dl_native')}


# Dl.Linear is the typelib's class, made before Module overrides DlModule,
# so its base is the typelib's Module: Module is named as a base here too,
# which puts the Python methods of Module after DlLinear's own, as they are
# for every class made after the override.
@typelib_override(__name__)
class Linear(Dl.Linear, Module):
    """torch.nn.Linear(in_features, out_features, bias=True)."""
    __module__ = OVERRIDE_MODULE

    _properties = ('in_features', 'out_features', 'bias')

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        _construct(self, Dl.Linear, in_features=int(in_features),
                   out_features=int(out_features), bias=bool(bias))

    weight = _LayerTensor('weight')

    bias = _LayerTensor('bias')

    @property
    def in_features(self):
        return self.get_in_features()

    @property
    def out_features(self):
        return self.get_out_features()



    def extra_repr(self):
        return 'in_features=%d, out_features=%d, bias=%s' % (
            self.get_in_features(), self.get_out_features(), self.bias is not None)

    def __reduce_ex__(self, protocol):
        return _reduce_layer(self)


# ---- pickling --------------------------------------------------------------

def _module_state(m):
    """What libdl holds for a module: its own parameters, buffers (with
    their persistence) and children, in the order they were registered, and
    its training flag."""
    own = Dl.Module.get_own_names(m)
    params = [(n, Dl.Module.get_parameter(m, n)) for n in own if Dl.Module.has_parameter(m, n)]
    buffers = [(n, Dl.Module.get_buffer(m, n), Dl.Module.get_buffer_persistent(m, n))
               for n in own if Dl.Module.has_buffer(m, n)]
    children = list(zip(Dl.Module.children_names(m), Dl.Module.children(m)))
    return params, buffers, children, Dl.Module.get_training(m)


def _restore(m, params, buffers, children, training, attributes):
    for name, p in params:
        Dl.Module.register_parameter(m, name, p)
        if name.isidentifier():
            m.__dict__[name] = p
    for name, b, persistent in buffers:
        Dl.Module.register_buffer(m, name, b, persistent)
    for name, child in children:
        Dl.Module.register_module(m, name, child)
        if name.isidentifier():
            m.__dict__[name] = child
    m.set_property('training', training)  # this module's only, as each child's
    m.__dict__.update(attributes)
    m._update_hooked()  # the hooks that came with the attributes
    for hook in tuple(m.__dict__.get('_forward_pre_hooks', {}).values()):
        if hasattr(hook, '_dl_restore'):  # weight_norm's, spectral_norm's
            hook._dl_restore(m)
    return m


def _rebuild_module(cls, params, buffers, children, training, attributes):
    """A module from what Module.__reduce_ex__ saved."""
    m = cls.__new__(cls)
    Dl.Module.__init__(m)  # the GObject (of cls's GType), without cls.__init__
    return _restore(m, params, buffers, children, training, attributes)


def _reduce_layer(m):
    """A module libdl implements pickles as its class, its construct
    properties (what libdl rebuilds it from), its parameters and children
    (the objects themselves, so that what else was pickled with them still
    shares them) and its Python attributes."""
    typelib_class = next(c for c in type(m).__mro__ if c.__module__ == 'gi.repository.Dl')
    properties = {name: m.get_property(name) for name in m._properties}
    return (_rebuild_layer, (type(m), typelib_class.__name__, properties) + _module_state(m)
            + (_plain_dict(m),))


def _rebuild_layer(cls, typelib_name, properties, params, buffers, children, training,
                   attributes):
    m = cls.__new__(cls)
    # constructing draws initial values, which _restore replaces: the
    # default generator is put back, as a deepcopy or an unpickling in
    # torch draws nothing
    gen = Dl.default_generator()
    state = Dl.Generator.get_state(gen)
    try:
        _construct(m, getattr(Dl, typelib_name), **properties)
    finally:
        Dl.Generator.set_state(gen, state)
    return _restore(m, params, buffers, children, training, attributes)


# ---- the layers libdl implements -------------------------------------------
# Each is the C class (usable from C, GJS and Vala alike) with PyTorch's
# constructor, attributes and printed form added; _properties names its
# construct properties, which its pickle keeps.

class _Layer:
    _properties = ()

    def __getattr__(self, name):
        # PyTorch's attribute for each construct property (m.inplace, m.dim)
        if name in type(self)._properties:
            return self.get_property(name)
        return super().__getattr__(name)

    def __reduce_ex__(self, protocol):
        return _reduce_layer(self)


@typelib_override(__name__)
class ReLU(_Layer, Dl.Relu, Module):
    """torch.nn.ReLU(inplace=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Relu, inplace=bool(inplace))


    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


@typelib_override(__name__)
class LeakyReLU(_Layer, Dl.LeakyRelu, Module):
    """torch.nn.LeakyReLU(negative_slope=0.01, inplace=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('negative_slope', 'inplace')

    def __init__(self, negative_slope=0.01, inplace=False):
        _construct(self, Dl.LeakyRelu, negative_slope=float(negative_slope),
                   inplace=bool(inplace))

    def extra_repr(self):
        return 'negative_slope={}{}'.format(self.negative_slope,
                                            ', inplace=True' if self.inplace else '')


@typelib_override(__name__)
class GELU(_Layer, Dl.Gelu, Module):
    """torch.nn.GELU(approximate='none')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('approximate',)

    def __init__(self, approximate='none'):
        if approximate not in ('none', 'tanh'):
            raise RuntimeError("approximate argument must be either none or tanh.")
        _construct(self, Dl.Gelu, approximate=approximate)


    def extra_repr(self):
        return 'approximate=%r' % self.approximate


@typelib_override(__name__)
class SiLU(_Layer, Dl.Silu, Module):
    """torch.nn.SiLU(inplace=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Silu, inplace=bool(inplace))


    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


@typelib_override(__name__)
class Sigmoid(_Layer, Dl.Sigmoid, Module):
    """torch.nn.Sigmoid()."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.Sigmoid)


@typelib_override(__name__)
class Tanh(_Layer, Dl.Tanh, Module):
    """torch.nn.Tanh()."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.Tanh)


@typelib_override(__name__)
class Identity(_Layer, Dl.Identity, Module):
    """torch.nn.Identity(*args, **kwargs): its arguments are ignored."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, *args, **kwargs):
        _construct(self, Dl.Identity)


@typelib_override(__name__)
class Flatten(_Layer, Dl.Flatten, Module):
    """torch.nn.Flatten(start_dim=1, end_dim=-1)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('start_dim', 'end_dim')

    def __init__(self, start_dim=1, end_dim=-1):
        _construct(self, Dl.Flatten, start_dim=int(start_dim), end_dim=int(end_dim))



    def extra_repr(self):
        return 'start_dim=%d, end_dim=%d' % (self.start_dim, self.end_dim)


def _softmax_dim(cls, dim):
    """The C layer's dim: @dim, or -1 standing for None, which the Python
    class keeps (torch's nn.Softmax() picks a dim at each call, with its
    deprecation warning; see _implicit_softmax)."""
    return -1 if dim is None else int(dim)


def _implicit_softmax(module, input, fn):
    """The forward of a softmax layer made without dim: torch's functional
    call with dim None (which picks the dim and warns), else the C layer's."""
    if module.__dict__.get('dim', 0) is None:
        from .. import functional as F
        return getattr(F, fn)(input, None, _stacklevel=6)  # the caller of the module
    return Module.forward(module, input)


@typelib_override(__name__)
class Softmax(_Layer, Dl.Softmax, Module):
    """torch.nn.Softmax(dim)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim',)

    def __init__(self, dim=None):
        _construct(self, Dl.Softmax, dim=_softmax_dim('Softmax', dim))
        if dim is None:
            self.__dict__['dim'] = None

    def forward(self, input):
        return _implicit_softmax(self, input, 'softmax')

    def extra_repr(self):
        return 'dim={dim}'.format(dim=self.dim)


@typelib_override(__name__)
class LogSoftmax(_Layer, Dl.LogSoftmax, Module):
    """torch.nn.LogSoftmax(dim)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim',)

    def __init__(self, dim=None):
        _construct(self, Dl.LogSoftmax, dim=_softmax_dim('LogSoftmax', dim))
        if dim is None:
            self.__dict__['dim'] = None

    def forward(self, input):
        return _implicit_softmax(self, input, 'log_softmax')

    def extra_repr(self):
        return 'dim={dim}'.format(dim=self.dim)


def _set_modules(m, modules):
    """Makes @modules (an OrderedDict) the children of @m, in its order (a
    container's renumbering, which torch does by replacing _modules)."""
    m.__dict__.pop('_dl_native', None)
    for name in Dl.Module.children_names(m):
        Dl.Module.remove(m, name)
    for name, module in modules.items():
        if module is not None:
            Dl.Module.register_module(m, name, module)


def _renumber(m):
    # what torch's containers do after a deletion
    modules = list(Dl.Module.children(m))
    _set_modules(m, OrderedDict((str(i), c) for i, c in enumerate(modules)))


def _index(idx):
    return operator.index(idx)


@typelib_override(__name__)
class Sequential(_Layer, Dl.Sequential, Module):
    """torch.nn.Sequential(*modules) or Sequential(OrderedDict): runs its
    children in order (in C: the chain is DlSequential's forward)."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, *args):
        _construct(self, Dl.Sequential)
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        size = len(self)
        idx = _index(idx)
        if not -size <= idx < size:
            raise IndexError('index {} is out of range'.format(idx))
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(iter(Dl.Module.children(self)), idx)

    def __setitem__(self, idx, module):
        key = self._get_item_by_idx(iter(Dl.Module.children_names(self)), idx)
        return setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(Dl.Module.children_names(self))[idx]:
                delattr(self, key)
        else:
            key = self._get_item_by_idx(iter(Dl.Module.children_names(self)), idx)
            delattr(self, key)
        _renumber(self)

    def __len__(self):
        return len(Dl.Module.children_names(self))

    def forward(self, input):
        # DlSequential's C chain when every child is a libdl layer (each
        # change of the children drops the cached answer); torch's loop,
        # which passes on whatever each child returns, otherwise
        native = self.__dict__.get('_dl_native')
        if native is None:
            native = self.__dict__['_dl_native'] = all(
                type(m).do_forward is not _forward_vfunc for m in Dl.Module.children(self))
        if native and _is_tensor(input):
            return Module.forward(self, input)
        for module in self:
            input = module(input)
        return input

    def __add__(self, other):
        if isinstance(other, Sequential):
            ret = Sequential()
            for layer in self:
                ret.append(layer)
            for layer in other:
                ret.append(layer)
            return ret
        raise ValueError('add operator supports only objects of Sequential class, but {} is '
                         'given.'.format(str(type(other))))

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def __iadd__(self, other):
        if isinstance(other, Sequential):
            offset = len(self)
            for i, module in enumerate(other):
                self.add_module(str(i + offset), module)
            return self
        raise ValueError('add operator supports only objects of Sequential class, but {} is '
                         'given.'.format(str(type(other))))

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError('unsupported operand type(s) for *: {} and {}'.format(type(self),
                                                                                 type(other)))
        if other <= 0:
            raise ValueError('Non-positive multiplication factor {} for {}'.format(other,
                                                                                  type(self)))

    def __mul__(self, other):
        self._check_factor(other)
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._check_factor(other)
        len_original = len(self)
        offset = len(self)
        for _ in range(other - 1):
            for i in range(len_original):
                self.add_module(str(i + offset), self._modules[str(i)])
            offset += len_original
        return self

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __iter__(self):
        return iter(Dl.Module.children(self))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError('module should be of type: {}'.format(Module))
        modules = self._modules
        n = len(modules)
        if not (-n <= index <= n):
            raise IndexError('Index out of range: {}'.format(index))
        if index < 0:
            index += n
        for i in range(n, index, -1):
            modules[str(i)] = modules[str(i - 1)]
        modules[str(index)] = module
        _set_modules(self, modules)
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self


@typelib_override(__name__)
class ModuleList(_Layer, Dl.ModuleList, Module):
    """torch.nn.ModuleList(modules=None): a list of modules (registered as
    children "0", "1", ...), with no forward."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, modules=None):
        _construct(self, Dl.ModuleList)
        if modules is not None:
            self += modules

    def _get_abs_string_index(self, idx):
        idx = _index(idx)
        if not (-len(self) <= idx < len(self)):
            raise IndexError('index {} is out of range'.format(idx))
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(Dl.Module.children(self))[idx])
        return Dl.Module.get_module(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx, module):
        idx = self._get_abs_string_index(idx)
        return setattr(self, str(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        _renumber(self)

    def __len__(self):
        return len(Dl.Module.children_names(self))

    def __iter__(self):
        return iter(Dl.Module.children(self))

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index, module):
        modules = self._modules
        for i in range(len(modules), index, -1):
            modules[str(i)] = modules[str(i - 1)]
        modules[str(index)] = module
        _set_modules(self, modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError('ModuleList.extend should be called with an iterable, but got '
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


@typelib_override(__name__)
class ModuleDict(_Layer, Dl.ModuleDict, Module):
    """torch.nn.ModuleDict(modules=None): modules by name, in insertion
    order, with no forward."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, modules=None):
        _construct(self, Dl.ModuleDict)
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        if not isinstance(key, str) or _member_kind(self, key) != 'm':
            raise KeyError(key)
        return Dl.Module.get_module(self, key)

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        if not isinstance(key, str) or _member_kind(self, key) != 'm':
            raise KeyError(key)
        Dl.Module.remove(self, key)
        self.__dict__.pop(key, None)

    def __len__(self):
        return len(Dl.Module.children_names(self))

    def __iter__(self):
        return iter(list(Dl.Module.children_names(self)))

    def __contains__(self, key):
        return isinstance(key, str) and _member_kind(self, key) == 'm'

    def clear(self):
        for key in list(self):
            del self[key]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError('ModuleDict.update should be called with an iterable of key/value '
                            'pairs, but got ' + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            _set_pairs(self, modules, 'ModuleDict')


def _set_pairs(target, pairs, what):
    """target[key] = value for each (key, value) of @pairs, with the
    errors torch's ModuleDict and ParameterDict raise (@what) for an
    element that is not a pair."""
    for j, p in enumerate(pairs):
        if not isinstance(p, Iterable):
            raise TypeError(what + ' update sequence element #' + str(j)
                            + ' should be Iterable; is' + type(p).__name__)
        if not len(p) == 2:
            raise ValueError(what + ' update sequence element #' + str(j)
                             + ' has length ' + str(len(p)) + '; 2 is required')
        target[p[0]] = p[1]


def _require_tuple_int(input):
    if isinstance(input, (tuple, list)):
        for idx, elem in enumerate(input):
            if not isinstance(elem, int):
                raise TypeError('unflattened_size must be tuple of ints, but found element of '
                                'type {} at pos {}'.format(type(elem).__name__, idx))
        return
    raise TypeError('unflattened_size must be a tuple of ints, but found type {}'
                    .format(type(input).__name__))


@typelib_override(__name__)
class Unflatten(_Layer, Dl.Unflatten, Module):
    """torch.nn.Unflatten(dim, unflattened_size)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim', 'unflattened_size')

    def __init__(self, dim, unflattened_size):
        if isinstance(dim, str):
            raise TypeError('Unflatten: named tensors (a str dim) are not supported by libdl')
        if not isinstance(dim, int):
            raise TypeError('invalid argument type for dim parameter')
        _require_tuple_int(unflattened_size)
        _construct(self, Dl.Unflatten, dim=dim,
                   unflattened_size=GLib.Variant('ax', [int(s) for s in unflattened_size]))
        self.__dict__['_unflattened_size'] = unflattened_size

    def __getattr__(self, name):
        if name == 'unflattened_size':
            return self.__dict__.get('_unflattened_size',
                                     tuple(self.get_property('unflattened-size')))
        return super().__getattr__(name)

    def extra_repr(self):
        return 'dim={}, unflattened_size={}'.format(self.dim, self.unflattened_size)


_REDUCTION_NAMES = {int(Dl.Reduction.NONE): 'none', int(Dl.Reduction.MEAN): 'mean',
                    int(Dl.Reduction.SUM): 'sum', int(Dl.Reduction.BATCHMEAN): 'batchmean'}


class _Loss(_Layer):
    """What the losses share: their reduction as PyTorch's string, their
    options as attributes, forward(input, target) through the C class's
    forward_many after the checks PyTorch makes in Python, and an empty
    extra_repr (PyTorch prints none)."""
    _check = None

    def __getattr__(self, name):
        if name == 'reduction':
            return _REDUCTION_NAMES[int(self.get_property('reduction'))]
        return super().__getattr__(name)

    def _build(self, typelib_class, size_average, reduce, reduction, batchmean=False,
               **options):
        r = F._reduction_enum(size_average, reduce, reduction, batchmean)
        _construct(self, typelib_class, reduction=r,
                   **{k: v for k, v in options.items() if v is not None})

    def forward(self, input, target):
        type(self)._check(input, target)
        return Module.forward(self, input, target)

    def extra_repr(self):
        return ''


@typelib_override(__name__)
class CrossEntropyLoss(_Loss, Dl.CrossEntropyLoss, Module):
    """torch.nn.CrossEntropyLoss(weight=None, size_average=None,
    ignore_index=-100, reduce=None, reduction='mean', label_smoothing=0.0)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight', 'ignore_index', 'label_smoothing')
    _check = staticmethod(F._check_batch)

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction='mean', label_smoothing=0.0):
        self._build(Dl.CrossEntropyLoss, size_average, reduce, reduction, weight=weight,
                    ignore_index=int(ignore_index), label_smoothing=float(label_smoothing))


@typelib_override(__name__)
class NLLLoss(_Loss, Dl.NllLoss, Module):
    """torch.nn.NLLLoss(weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight', 'ignore_index')
    _check = staticmethod(F._check_batch)

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction='mean'):
        self._build(Dl.NllLoss, size_average, reduce, reduction, weight=weight,
                    ignore_index=int(ignore_index))


@typelib_override(__name__)
class MSELoss(_Loss, Dl.MseLoss, Module):
    """torch.nn.MSELoss(size_average=None, reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction',)
    _check = staticmethod(F._warn_size)

    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        self._build(Dl.MseLoss, size_average, reduce, reduction)


@typelib_override(__name__)
class L1Loss(_Loss, Dl.L1Loss, Module):
    """torch.nn.L1Loss(size_average=None, reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction',)
    _check = staticmethod(F._warn_size)

    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        self._build(Dl.L1Loss, size_average, reduce, reduction)


@typelib_override(__name__)
class SmoothL1Loss(_Loss, Dl.SmoothL1Loss, Module):
    """torch.nn.SmoothL1Loss(size_average=None, reduce=None,
    reduction='mean', beta=1.0)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'beta')
    _check = staticmethod(F._warn_size)

    def __init__(self, size_average=None, reduce=None, reduction='mean', beta=1.0):
        self._build(Dl.SmoothL1Loss, size_average, reduce, reduction, beta=float(beta))


@typelib_override(__name__)
class HuberLoss(_Loss, Dl.HuberLoss, Module):
    """torch.nn.HuberLoss(reduction='mean', delta=1.0)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'delta')
    _check = staticmethod(F._warn_size)

    def __init__(self, reduction='mean', delta=1.0):
        self._build(Dl.HuberLoss, None, None, reduction, delta=float(delta))


@typelib_override(__name__)
class BCELoss(_Loss, Dl.BceLoss, Module):
    """torch.nn.BCELoss(weight=None, size_average=None, reduce=None,
    reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight')
    _check = staticmethod(F._bce_check)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean'):
        self._build(Dl.BceLoss, size_average, reduce, reduction, weight=weight)


@typelib_override(__name__)
class BCEWithLogitsLoss(_Loss, Dl.BceWithLogitsLoss, Module):
    """torch.nn.BCEWithLogitsLoss(weight=None, size_average=None,
    reduce=None, reduction='mean', pos_weight=None)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight', 'pos_weight')
    _check = staticmethod(F._bce_logits_check)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean',
                 pos_weight=None):
        self._build(Dl.BceWithLogitsLoss, size_average, reduce, reduction, weight=weight,
                    pos_weight=pos_weight)


@typelib_override(__name__)
class KLDivLoss(_Loss, Dl.KlDivLoss, Module):
    """torch.nn.KLDivLoss(size_average=None, reduce=None, reduction='mean',
    log_target=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'log_target')

    def __init__(self, size_average=None, reduce=None, reduction='mean', log_target=False):
        self._build(Dl.KlDivLoss, size_average, reduce, reduction, batchmean=True,
                    log_target=bool(log_target))

    def forward(self, input, target):
        if self.reduction == 'mean':
            F._kl_div_mean_warning()
        return Module.forward(self, input, target)


# the submodules, which dl/nn/__init__.py imports
_SUBMODULES = ['activation', 'batchnorm', 'container', 'conv', 'distance', 'dropout', 'flatten',
               'fold', 'linear', 'loss', 'module', 'normalization', 'pooling', 'rnn', 'sparse',
               'transformer', 'upsampling']
_SUBMODULES += ['padding', 'instancenorm']
_SUBMODULES += ['pixelshuffle', 'channelshuffle']


def _home(module_name):
    """Makes module_name, a submodule of this package that re-exports the
    classes torch keeps in its namesake (its __all__), their module: their
    __module__, which pickle and serialization follow, and their path in
    this package (torch.nn.modules has every layer at its top too)."""
    module = sys.modules[module_name]
    for name in module.__all__:
        cls = getattr(module, name)
        cls.__module__ = module_name
        globals()[name] = cls
        if name not in __all__:
            __all__.append(name)

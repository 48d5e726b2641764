# parametrize.py: dl.nn.utils.parametrize (torch.nn.utils.parametrize):
# a tensor of a module computed, at each use, by modules ("parametrizations")
# from the tensor it replaced ("original", or "original0".. when a
# right_inverse splits it), with PyTorch 1.13's names, checks and errors.
#
# The layout is torch's, so the state dict keys are too: the module gets
# a child ModuleDict "parametrizations" whose entry for "weight" is a
# ParametrizationList holding "original" and the parametrizations (its
# children "0", "1", ...). The module's class becomes a subclass named
# "Parametrized<Class>" with a property for the tensor (no GType of its
# own: the GObject stays of its class). The layers whose forward is libdl's
# read their tensors in C: dl_module_register_parametrization() tells the
# module that "weight" is the output of the ParametrizationList, which
# each forward computes first (DlModule's invoker, or _run_c_forward).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections.abc
import copy
import weakref
from contextlib import contextmanager

from gi.repository import GLib

from ... import _callbacks
from ..._lib import Dl, _is_tensor, _translate
from ...autograd.grad_mode import no_grad
from ..modules import Module, ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ['cached', 'ParametrizationList', 'register_parametrization', 'is_parametrized',
           'remove_parametrizations', 'type_before_parametrizations',
           'transfer_parametrizations_and_params']

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Within it, each parametrized tensor is computed once, at its first
    use, and the same tensor is given at every use after (in Python and
    in the C forwards); leaving the outermost block drops them."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _is_parameter(t):
    return _is_tensor(t) and Dl.Tensor.is_parameter(t)


def _register_parameter_or_buffer(module, name, t):
    if _is_parameter(t):
        module.register_parameter(name, t)
    else:
        module.register_buffer(name, t)


def _set_data(original, new):
    """original takes new's values (and shape), staying the same object,
    as torch's original.set_(new) under no_grad."""
    if new is not original:
        original.data = new


def _from_c(plist, inputs):
    # DlModule's forward computing the tensor for a C layer: the cached
    # value within cached(), as the property gives
    return [_evaluate(plist, plist.__dict__.get('_dl_cache_key'))]


class ParametrizationList(ModuleList):
    """torch.nn.utils.parametrize.ParametrizationList(modules, original,
    unsafe=False): the parametrizations of one tensor, in order, and the
    tensor they start from ("original", or "original0".. when the first
    one's right_inverse gives several); calling it computes the
    parametrized tensor."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError('ParametrizationList requires one or more modules.')
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, 'right_inverse'):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not _is_tensor(new) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             "(list, tuple...). Got {}".format(type(new).__name__))
        self.is_tensor = _is_tensor(new)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    'When `right_inverse` outputs one tensor, it may not change the dtype.\n'
                    'original.dtype: {}\nright_inverse(original).dtype: {}'
                    .format(original.dtype, new.dtype))
            with no_grad():
                _set_data(original, new)
            _register_parameter_or_buffer(self, 'original', original)
        else:
            for i, originali in enumerate(new):
                if not _is_tensor(originali):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element {} of the sequence "
                                     "with type {}.".format(i, type(originali).__name__))
                if _is_parameter(original):
                    originali = Parameter(originali)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, 'original{}'.format(i), originali)
        if not self.unsafe:
            Z = self()
            if not _is_tensor(Z):
                raise ValueError('A parametrization must return a tensor. Got {}.'
                                 .format(type(Z).__name__))
            if Z.dtype != original_dtype:
                raise ValueError(
                    'Registering a parametrization may not change the dtype of the tensor, '
                    'unless `unsafe` flag is enabled.\nunparametrized dtype: {}\n'
                    'parametrized dtype: {}'.format(original_dtype, Z.dtype))
            if Z.shape != original_shape:
                raise ValueError(
                    'Registering a parametrization may not change the shape of the tensor, '
                    'unless `unsafe` flag is enabled.\nunparametrized shape: {}\n'
                    'parametrized shape: {}'.format(original_shape, Z.shape))

    def right_inverse(self, value):
        """Sets the originals so that the parametrized tensor is value
        (through each parametrization's right_inverse, last first)."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, 'right_inverse'):
                    raise RuntimeError('parametrization {} does not implement right_inverse.'
                                       .format(type(module).__name__))
                value = module.right_inverse(value)
            if self.is_tensor:
                if not _is_tensor(value):
                    raise ValueError('`right_inverse` should return a tensor. Got {}'
                                     .format(type(value).__name__))
                if value.dtype != self.original.dtype:
                    raise ValueError('The tensor returned by `right_inverse` has dtype {} while '
                                     '`original` has dtype {}'.format(value.dtype,
                                                                      self.original.dtype))
                _set_data(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got {}."
                                 .format(type(value).__name__))
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 '{}. Got a sequence of lenght {}.'.format(self.ntensors,
                                                                           len(value)))
            for i, tensor in enumerate(value):
                original_i = getattr(self, 'original{}'.format(i))
                if not _is_tensor(tensor):
                    raise ValueError('`right_inverse` must return a sequence of tensors. Got '
                                     'element {} of type {}'.format(i, type(tensor).__name__))
                if original_i.dtype != tensor.dtype:
                    raise ValueError('Tensor {} returned by `right_inverse` has dtype {} while '
                                     '`original{}` has dtype {}'.format(i, tensor.dtype, i,
                                                                       original_i.dtype))
                _set_data(original_i, tensor)

    def forward(self):
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, 'original{}'.format(i))
                             for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x

    do_forward_many = _callbacks.from_c(_from_c)


def _evaluate(parametrization, key):
    """The parametrized tensor: computed now, or within cached() the one
    computed at its first use there."""
    if not _cache_enabled or key is None:
        return parametrization()
    tensor = _cache.get(key)
    if tensor is None:
        tensor = _cache[key] = parametrization()
    return tensor


def _parametrized_reduce(self, protocol):
    raise RuntimeError(
        'Serialization of parametrized modules is only supported through state_dict(). See:\n'
        'https://pytorch.org/tutorials/beginner/saving_loading_models.html'
        '#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training')


def _parametrized_deepcopy(self, memo):
    # what the class before the parametrizations copies (the tree, with
    # the ParametrizationLists), then the computed tensors in C again
    replica = copy._reconstruct(self, memo, *type_before_parametrizations(self).__reduce_ex__(
        self, 4))
    for name in replica.parametrizations:
        _drop_fresh(replica, name)
        _attach(replica, name)
    return replica


def _drop_fresh(module, name):
    """A libdl layer rebuilt from its construct properties (a copy) made
    its tensor name anew: a parametrization computes it instead."""
    if Dl.Module.get_member_kind(module, name) is not None:
        Dl.Module.remove(module, name)
        module.__dict__.pop(name, None)


def _attach(module, name):
    """Tells libdl that the tensor name of module is computed by its
    ParametrizationList (what the C forwards read)."""
    plist = module.parametrizations[name]
    plist.__dict__['_dl_cache_key'] = (id(module), name)
    _register_c(module, name, plist)


def _swap_class(module, prefix, namespace):
    """Makes module's class a new subclass of it, prefix + its name, with
    namespace. The GObject stays of its type: the subclass has no GType of
    its own (none for each module, and a final class allows none)."""
    cls = module.__class__
    namespace = dict(namespace, __gtype__=cls.__gtype__)
    module.__class__ = type(prefix + cls.__name__, (cls,), namespace)


def _inject_new_class(module):
    _swap_class(module, 'Parametrized', {'__reduce_ex__': _parametrized_reduce,
                                         '__deepcopy__': _parametrized_deepcopy,
                                         '__getstate__': _parametrized_reduce})


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        return _evaluate(self.parametrizations[tensor_name], (id(self), tensor_name))

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_same(what, name, Y, X, unsafe_text):
    for attr in ('dtype', 'shape'):
        if getattr(X, attr) != getattr(Y, attr):
            raise ValueError('{0} {1} of the tensor, unless the `unsafe` flag is enabled.\n'
                             'module.{2}.{1}: {3}\n{4}.{1}: {5}'.format(
                                 what, attr, name, getattr(Y, attr), unsafe_text,
                                 getattr(X, attr)))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes module.tensor_name parametrization(original): the original
    tensor moves to module.parametrizations[tensor_name].original; a second
    parametrization of the same tensor is applied after the first.
    parametrization.right_inverse, when it has one, sets the original from
    a value (at registration and on assignment to module.tensor_name).
    Returns module."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not _is_tensor(X):
                raise ValueError('A parametrization must return a tensor. Got {}.'
                                 .format(type(X).__name__))
            _check_same('Registering a parametrization may not change the', tensor_name, Y, X,
                        'parametrization(module.{})'.format(tensor_name))
            if hasattr(parametrization, 'right_inverse'):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not _is_tensor(Z):
                        raise ValueError('parametrization.right_inverse must return a tensor. '
                                         'Got: {}'.format(type(Z).__name__))
                    for what in ('dtype', 'shape'):
                        if getattr(Z, what) != getattr(Y, what):
                            raise ValueError(
                                'The tensor returned by parametrization.right_inverse must have '
                                'the same {0} as module.{1}, unless the `unsafe` flag is '
                                'enabled.\nmodule.{1}.{0}: {2}\nreturned {0}: {3}'.format(
                                    what, tensor_name, getattr(Y, what), getattr(Z, what)))
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
        _attach(module, tensor_name)
    else:
        raise ValueError("Module '{}' does not have a parameter, a buffer, or a parametrized "
                         "element with name '{}'".format(module, tensor_name))
    return module


def is_parametrized(module, tensor_name=None):
    """Whether module has a parametrization (on tensor_name, when given)."""
    parametrizations = getattr(module, 'parametrizations', None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Removes the parametrizations of module.tensor_name: it becomes a
    plain parameter (or buffer) again, holding the parametrized value
    (leave_parametrized) or the original. Returns module."""
    if not is_parametrized(module, tensor_name):
        raise ValueError('Module {} does not have a parametrization on {}'
                         .format(module, tensor_name))
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _set_data(original, t)
    else:
        if not leave_parametrized:
            raise ValueError('Cannot leave unparametrized (`leave_parametrized=False`) a tensor '
                             'that is parametrized in terms of a sequence of tensors.')
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    Dl.Module.remove_parametrization(module, tensor_name)
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, 'parametrizations')
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The class of module before register_parametrization changed it."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers the parametrizations of from_module (of tensor_name, or
    all) on to_module, which then shares from_module's originals; a
    tensor to_module lacks is made a Parameter of from_module's value
    first. Returns to_module."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name) or getattr(to_module, name) is None:
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for param_func in source:
            register_parametrization(to_module, name, param_func)
        target = to_module.parametrizations[name]
        if hasattr(source, 'original'):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, 'original{}'.format(i)):
                setattr(target, 'original{}'.format(i), getattr(source, 'original{}'.format(i)))
                i += 1
    return to_module




# ---- tensors given by Python code -------------------------------------------
# weight_norm's and spectral_norm's forward pre-hooks leave the tensor in a
# plain attribute of the module, which a Python forward reads; stateless's
# functional_call swaps tensors in for one call. A libdl layer's C forward
# reads them through a parametrization of the layer that gives them.

class _Value(Module):
    """A parametrization whose forward gives what get() returns (without
    arguments)."""

    def __init__(self, get):
        super().__init__()
        self.__dict__['_get'] = get

    def forward(self):
        return self._get()

    do_forward_many = _callbacks.from_c(lambda self, inputs: [self.forward()])


def _register_c(module, name, parametrization):
    try:
        Dl.Module.register_parametrization(module, name, parametrization)
    except GLib.Error as e:
        raise _translate(e) from None


class _AttributeHook:
    """What weight_norm's and spectral_norm's hooks share: the module they
    keep the tensor name of in a plain attribute, copied (deepcopy,
    pickle) without that attribute or what C reads it through, gets both
    again (_dl_restore, which Module's _restore calls), from _value."""

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop('_dl_attribute', None)
        return state

    def _dl_restore(self, module):
        with no_grad():
            module.__dict__[self.name] = self._value(module)
        _attach_attribute(module, self.name, self)


def _attach_attribute(module, name, hook):
    """The C forward of module reads the plain attribute name (set by
    hook, a weight_norm or spectral_norm, which keeps the parametrization)."""
    owner = weakref.ref(module)
    if Dl.Module.get_member_kind(module, name) is not None:  # a copy's fresh one
        Dl.Module.remove(module, name)
    hook._dl_attribute = _Value(lambda: owner().__dict__[name])
    _register_c(module, name, hook._dl_attribute)


def _detach_attribute(module, name, hook):
    Dl.Module.remove_parametrization(module, name)
    module.__dict__.pop(name, None)
    hook.__dict__.pop('_dl_attribute', None)


def _remove_hook(module, cls, name, what):
    """Removes the forward pre-hook of class cls (WeightNorm, SpectralNorm)
    for name, as remove_weight_norm and remove_spectral_norm do."""
    hooks = module._forward_pre_hooks
    for k, hook in list(hooks.items()):
        if isinstance(hook, cls) and hook.name == name:
            hook.remove(module)
            del hooks[k]
            module._update_hooked()
            return module
    raise ValueError("{} of '{}' not found in {}".format(what, name, module))

# test_module_paths.py: the module paths that PyTorch scripts import
# (torch.nn.modules.*, torch.nn.parallel, torch.backends, torch.cuda,
# torch.onnx) exist in libdl with torch's dotted paths; the layers' classes
# live where torch keeps them, so pickles name torch's paths with dl for
# torch; DataParallel does what torch's does on a machine without a GPU;
# what libdl does not implement (DistributedDataParallel, ONNX export) is a
# clear error at the call.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import importlib
import os
import pickle
import subprocess
import sys
import types

import numpy as np
import pytest
import torch

from conftest import Dl, SELF_CHECK, assert_same, rand_np

libdl_only = pytest.mark.skipif(SELF_CHECK, reason="libdl's own messages and modules")

# torch.nn.modules.<submodule>.<class> for every layer class libdl has
LAYERS = {
    'module': ['Module'],
    'linear': ['Linear', 'Identity'],
    'activation': ['ReLU', 'LeakyReLU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Softmax',
                   'LogSoftmax', 'ELU', 'Hardtanh', 'Softplus', 'MultiheadAttention'],
    'container': ['Sequential', 'ModuleList', 'ModuleDict'],
    'flatten': ['Flatten', 'Unflatten'],
    'conv': ['Conv1d', 'Conv2d', 'ConvTranspose2d'],
    'fold': ['Fold', 'Unfold'],
    'pooling': ['MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d', 'AdaptiveMaxPool2d'],
    'batchnorm': ['BatchNorm1d', 'BatchNorm2d'],
    'normalization': ['LayerNorm', 'GroupNorm'],
    'dropout': ['Dropout', 'Dropout2d'],
    'sparse': ['Embedding'],
    'loss': ['L1Loss', 'MSELoss', 'SmoothL1Loss', 'HuberLoss', 'NLLLoss', 'CrossEntropyLoss',
             'BCELoss', 'BCEWithLogitsLoss', 'KLDivLoss'],
    'rnn': ['RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCell', 'LSTMCell', 'GRUCell'],
    'transformer': ['Transformer', 'TransformerEncoder', 'TransformerDecoder',
                    'TransformerEncoderLayer', 'TransformerDecoderLayer'],
    'upsampling': ['Upsample', 'UpsamplingNearest2d', 'UpsamplingBilinear2d'],
}
LAYER_PATHS = [(m, name) for m, names in LAYERS.items() for name in names]

# module paths below torch that scripts import
PATHS = ['nn.modules', 'nn.parallel', 'nn.parallel.data_parallel', 'nn.parallel.distributed',
         'backends', 'backends.cudnn', 'backends.cuda', 'backends.mps', 'backends.openmp',
         'backends.mkldnn', 'backends.mkl', 'cuda', 'onnx'] + ['nn.modules.' + m for m in LAYERS]

# dotted names below torch, with the callables and flags scripts use
NAMES = ['nn.DataParallel', 'nn.parallel.DataParallel', 'nn.parallel.DistributedDataParallel',
         'nn.parallel.distributed.DistributedDataParallel',
         'backends.cudnn.enabled', 'backends.cudnn.benchmark', 'backends.cudnn.deterministic',
         'backends.cudnn.allow_tf32', 'backends.cudnn.is_available', 'backends.cudnn.version',
         'backends.cuda.matmul.allow_tf32', 'backends.cuda.is_built', 'backends.mps.is_available',
         'backends.mps.is_built', 'backends.openmp.is_available', 'backends.mkldnn.is_available',
         'backends.mkldnn.enabled', 'backends.mkl.is_available', 'cuda.is_available',
         'cuda.device_count', 'cuda.manual_seed', 'cuda.manual_seed_all', 'cuda.is_initialized',
         'cuda.empty_cache', 'cuda.synchronize', 'cuda.current_device', 'cuda.get_device_name',
         'onnx.export',
         'onnx.is_in_onnx_export']


def resolve(root, path):
    obj = root
    for part in path.split('.'):
        obj = getattr(obj, part)
    return obj


def package_name(lib):
    return 'torch' if lib is torch else 'dl'


def to_numpy_params(module):
    return {k: v.detach().numpy() if hasattr(v, 'numpy') else np.array(v.tolist())
            for k, v in module.state_dict().items()}


def copy_params(dst, src_np, lib):
    dst.load_state_dict({k: lib.tensor(v) for k, v in src_np.items()})


# ---- paths ---------------------------------------------------------------------

@pytest.mark.parametrize('path', PATHS)
def test_module_path_exists_in_both(path):
    theirs = importlib.import_module('torch.' + path)
    ours = importlib.import_module(package_name(Dl) + '.' + path)
    assert isinstance(theirs, types.ModuleType) and isinstance(ours, types.ModuleType)
    # and is the attribute of that path (torch.nn.parallel.data_parallel is a
    # function of torch's, which fails without a GPU: libdl keeps the module)
    if resolve(torch, path) is theirs:
        assert resolve(Dl, path) is ours


@pytest.mark.parametrize('path', NAMES)
def test_name_exists_in_both(path):
    theirs = resolve(torch, path)
    ours = resolve(Dl, path)
    assert callable(ours) == callable(theirs)
    if not callable(theirs):
        assert type(ours) is type(theirs)


@pytest.mark.parametrize('module,name', LAYER_PATHS)
def test_layer_lives_where_torch_keeps_it(module, name):
    theirs = getattr(torch.nn, name)
    assert theirs.__module__ == 'torch.nn.modules.' + module
    ours = getattr(Dl.nn, name)
    # the class of Dl.nn.<name> is Dl.nn.modules.<module>.<name> and Dl.nn.modules.<name>,
    # and its __module__ is torch's with dl for torch, so pickle finds it there
    assert resolve(Dl, 'nn.modules.%s.%s' % (module, name)) is ours
    assert getattr(Dl.nn.modules, name) is ours
    assert ours.__module__ == package_name(Dl) + '.nn.modules.' + module
    assert ours.__qualname__ == theirs.__qualname__
    home = importlib.import_module(ours.__module__)
    assert getattr(home, ours.__qualname__) is ours
    assert pickle.loads(pickle.dumps(ours)) is ours


@libdl_only
def test_every_libdl_layer_is_where_torch_has_it():
    # walks libdl's nn classes, so that a layer added later gets its path too
    import dl
    walked = set()
    for name in dl.nn.__all__:
        cls = getattr(dl.nn, name)
        if not isinstance(cls, type) or not issubclass(cls, dl.nn.Module):
            continue
        walked.add(name)
        torch_module = getattr(torch.nn, name).__module__
        assert torch_module.startswith('torch.nn.'), (name, torch_module)
        assert cls.__module__ == torch_module.replace('torch.', 'dl.', 1), name
        assert getattr(importlib.import_module(cls.__module__), name) is cls
    assert walked >= {name for _, name in LAYER_PATHS} - {'RNNBase'}
    assert issubclass(dl.nn.LSTM, dl.nn.RNNBase)


@libdl_only
def test_override_reaches_the_same_modules():
    import dl
    assert Dl.nn.modules is dl.nn.modules
    assert Dl.nn.modules.linear is importlib.import_module('dl.nn.modules.linear')
    assert Dl.backends.cudnn is importlib.import_module('dl.backends.cudnn')
    assert Dl.nn.parallel is dl.nn.parallel and Dl.onnx is dl.onnx and Dl.cuda is dl.cuda
    # dl.nn.conv, rnn, normalization and transformer stay libdl's modules of functions
    assert dl.nn.conv is importlib.import_module('dl.nn.conv')
    assert dl.nn.rnn is importlib.import_module('dl.nn.rnn')
    assert dl.nn.modules.conv is not dl.nn.conv


# ---- pickling ------------------------------------------------------------------

def test_pickle_names_the_new_paths_and_round_trips():
    rng = np.random.default_rng(16)
    Dl.manual_seed(0)
    seq = Dl.nn.Sequential(Dl.nn.Linear(5, 4), Dl.nn.ReLU(), Dl.nn.Linear(4, 3))
    data = pickle.dumps(seq)
    prefix = package_name(Dl).encode()
    for path in (b'.nn.modules.linear', b'.nn.modules.activation', b'.nn.modules.container'):
        assert prefix + path in data
    back = pickle.loads(data)
    assert type(back) is Dl.nn.Sequential and type(back[0]) is Dl.nn.Linear
    assert type(back[1]) is Dl.nn.ReLU
    for batch in (1, 3):
        x = Dl.tensor(rand_np(rng, (batch, 5), 'float32'))
        assert_same(back(x), torch.tensor(np.asarray(seq(x).detach().numpy())))


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_lstm_pickle_round_trips(dtype):
    rng = np.random.default_rng(3)
    Dl.manual_seed(1)
    lstm = Dl.nn.LSTM(4, 6, num_layers=2, batch_first=True).to(getattr(Dl, dtype))
    data = pickle.dumps(lstm)
    assert package_name(Dl).encode() + b'.nn.modules.rnn' in data
    back = pickle.loads(data)
    assert type(back) is Dl.nn.LSTM and back.num_layers == 2 and back.batch_first
    x = Dl.tensor(rand_np(rng, (3, 5, 4), dtype))
    out, (h, c) = back(x)
    ref, (rh, rc) = lstm(x)
    assert_same(out, torch.tensor(np.asarray(ref.detach().numpy())))
    assert_same(h, torch.tensor(np.asarray(rh.detach().numpy())))
    assert_same(c, torch.tensor(np.asarray(rc.detach().numpy())))


@libdl_only
def test_pickles_of_the_old_paths_still_load():
    # before dl.nn.modules was a package, its classes were its attributes:
    # they still are, so those pickles load
    seq = Dl.nn.Sequential(Dl.nn.Linear(2, 3), Dl.nn.ReLU())
    data = pickle.dumps(seq, protocol=0)
    for name in (b'container\nSequential', b'linear\nLinear', b'activation\nReLU'):
        assert b'dl.nn.modules.' + name in data
        data = data.replace(b'dl.nn.modules.' + name, b'dl.nn.modules\n' + name.split(b'\n')[1])
    assert b'dl.nn.modules.' not in data
    back = pickle.loads(data)
    assert [type(m) for m in back.children()] == [Dl.nn.Linear, Dl.nn.ReLU]
    x = Dl.ones(1, 2)
    assert back(x).tolist() == seq(x).tolist()


def test_pickle_loads_in_a_fresh_interpreter():
    # the unpickler imports dl.nn.modules.linear (torch.nn.modules.linear) by itself
    seq = Dl.nn.Sequential(Dl.nn.Linear(2, 3), Dl.nn.Tanh())
    code = ('import pickle, sys\n'
            'm = pickle.load(sys.stdin.buffer)\n'
            'print(type(m[0]).__module__, type(m[1]).__module__, m[0].out_features)\n')
    out = subprocess.run([sys.executable, '-c', code], input=pickle.dumps(seq),
                         capture_output=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr.decode()
    name = package_name(Dl)
    assert out.stdout.decode().split() == [name + '.nn.modules.linear',
                                           name + '.nn.modules.activation', '3']


# ---- flags ---------------------------------------------------------------------

CUDNN_FLAGS = ['enabled', 'benchmark', 'deterministic', 'allow_tf32']


@pytest.mark.parametrize('flag', CUDNN_FLAGS)
def test_cudnn_flags_default_set_and_read(flag):
    ours = Dl.backends.cudnn
    assert getattr(ours, flag) == getattr(torch.backends.cudnn, flag)
    saved = getattr(ours, flag)
    try:
        setattr(ours, flag, not saved)
        assert getattr(ours, flag) is (not saved)
        setattr(ours, flag, saved)
        assert getattr(ours, flag) is saved
    finally:
        setattr(ours, flag, saved)


@pytest.mark.parametrize('flag', ['allow_tf32', 'allow_fp16_reduced_precision_reduction'])
def test_cuda_matmul_flags(flag):
    ours = Dl.backends.cuda.matmul
    assert getattr(ours, flag) == getattr(torch.backends.cuda.matmul, flag)
    saved = getattr(ours, flag)
    try:
        setattr(ours, flag, not saved)
        assert getattr(ours, flag) is (not saved)
    finally:
        setattr(ours, flag, saved)
    assert getattr(ours, flag) is saved


def test_cuda_matmul_refuses_unknown_flags():
    with pytest.raises(AssertionError, match='Unknown attribute'):
        Dl.backends.cuda.matmul.allow_everything = True


def test_mkldnn_flag_set_and_read():
    saved = Dl.backends.mkldnn.enabled
    assert saved == torch.backends.mkldnn.enabled
    try:
        Dl.backends.mkldnn.enabled = False
        assert Dl.backends.mkldnn.enabled is False
    finally:
        Dl.backends.mkldnn.enabled = saved


def test_availability_as_torch_on_a_cpu_machine():
    # Debian's python3-torch is a CPU build, as libdl is
    for path in ('backends.cudnn.is_available', 'backends.mps.is_available',
                 'backends.mps.is_built', 'backends.cuda.is_built', 'backends.openmp.is_available',
                 'cuda.is_available', 'cuda.device_count', 'backends.cudnn.version',
                 'onnx.is_in_onnx_export', 'cuda.is_initialized', 'cuda.empty_cache'):
        assert resolve(Dl, path)() == resolve(torch, path)(), path
    assert Dl.cuda.is_available() is False and Dl.cuda.device_count() == 0
    assert Dl.backends.cudnn.version() is None
    assert Dl.backends.openmp.is_available() is True
    # seeding the GPUs there are not leaves the CPU generator alone
    Dl.manual_seed(5)
    a = Dl.rand(3)
    Dl.manual_seed(5)
    Dl.cuda.manual_seed(7)
    Dl.cuda.manual_seed_all(8)
    assert Dl.rand(3).tolist() == a.tolist()


@pytest.mark.parametrize('name', ['synchronize', 'current_device', 'get_device_name'])
def test_cuda_calls_that_need_a_gpu_fail(name):
    with pytest.raises(AssertionError, match='CUDA'):
        getattr(Dl.cuda, name)()


@libdl_only
def test_libdl_has_neither_mkldnn_nor_mkl():
    assert Dl.backends.mkldnn.is_available() is False
    assert Dl.backends.mkl.is_available() is False


def test_cudnn_flags_change_no_result():
    rng = np.random.default_rng(7)
    x = Dl.tensor(rand_np(rng, (2, 3, 7, 7), 'float32'))
    Dl.manual_seed(2)
    conv = Dl.nn.Conv2d(3, 4, 3)
    ref = conv(x).detach().numpy()
    cudnn = Dl.backends.cudnn
    saved = (cudnn.benchmark, cudnn.deterministic, cudnn.enabled)
    try:
        cudnn.benchmark, cudnn.deterministic, cudnn.enabled = True, True, False
        assert_same(conv(x), torch.tensor(np.asarray(ref)))
    finally:
        cudnn.benchmark, cudnn.deterministic, cudnn.enabled = saved


# ---- DataParallel --------------------------------------------------------------

def make_mlp(lib, dtype, state=None):
    lib.manual_seed(4)
    m = lib.nn.Sequential(lib.nn.Linear(6, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2))
    m = m.to(getattr(lib, dtype))
    if state is not None:
        copy_params(m, state, lib)
    return m


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('batch', [1, 3])
@pytest.mark.parametrize('contiguous', [True, False])
def test_data_parallel_as_torch(dtype, batch, contiguous):
    rng = np.random.default_rng(batch)
    ref_module = make_mlp(torch, dtype)
    state = to_numpy_params(ref_module)
    module = make_mlp(Dl, dtype, state)
    ref = torch.nn.DataParallel(ref_module)
    ours = Dl.nn.DataParallel(module)
    assert Dl.nn.parallel.DataParallel is Dl.nn.DataParallel
    home = package_name(Dl) + '.nn.parallel.data_parallel'
    assert Dl.nn.DataParallel.__module__ == home
    assert importlib.import_module(home).DataParallel is Dl.nn.DataParallel
    assert ours.module is module and ours.device_ids == ref.device_ids == []
    assert repr(ours) == repr(ref)
    # state dict keys prefixed 'module.', as torch's
    assert list(ours.state_dict()) == list(ref.state_dict()) == [
        'module.0.weight', 'module.0.bias', 'module.2.weight', 'module.2.bias']
    # the parameters are the module's, shared, not copies
    ours_params = list(ours.parameters())
    assert len(ours_params) == 4
    assert all(p is q for p, q in zip(ours_params, module.parameters()))
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in ref.named_parameters()]
    data = rand_np(rng, (batch, 6 if contiguous else 12), dtype)
    x_ref = torch.tensor(data)
    x = Dl.tensor(data)
    if not contiguous:
        x_ref, x = x_ref[:, ::2], x[:, ::2]
        assert not x.is_contiguous()
    out_ref = ref(x_ref)
    out = ours(x)
    assert_same(out, out_ref)
    assert_same(out, torch.tensor(np.asarray(module(x).detach().numpy())))
    # gradients reach the module's parameters, as torch's
    (out * out).sum().backward()
    (out_ref * out_ref).sum().backward()
    for (name, p), (_, q) in zip(module.named_parameters(), ref_module.named_parameters()):
        assert_same(p.grad, q.grad)


def test_data_parallel_device_arguments_and_kwargs():
    class Scaled(Dl.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = Dl.nn.Linear(3, 2)

        def forward(self, x, scale=1.0):
            return self.fc(x) * scale

    Dl.manual_seed(3)
    inner = Scaled()
    dp = Dl.nn.DataParallel(inner, device_ids=[0], output_device=0, dim=0)
    assert dp.device_ids == []
    x = Dl.ones(2, 3)
    assert dp(x, scale=2.0).tolist() == (inner(x) * 2.0).tolist()
    assert dp(x, 3.0).tolist() == (inner(x) * 3.0).tolist()


def test_data_parallel_state_dict_loads_both_ways():
    ref = torch.nn.DataParallel(make_mlp(torch, 'float32'))
    state = to_numpy_params(ref)
    ours = Dl.nn.DataParallel(make_mlp(Dl, 'float32'))
    ours.load_state_dict({k: Dl.tensor(v) for k, v in state.items()})
    for k, v in ours.module.state_dict().items():
        assert_same(v, torch.tensor(np.asarray(state['module.' + k])))
    # the inner module's dict without the prefix is not the wrapper's
    with pytest.raises(RuntimeError, match='Missing key'):
        ours.load_state_dict({k[len('module.'):]: Dl.tensor(v) for k, v in state.items()})


def test_data_parallel_pickles_and_copies():
    Dl.manual_seed(6)
    dp = Dl.nn.DataParallel(Dl.nn.Sequential(Dl.nn.Linear(3, 4), Dl.nn.GELU()))
    data = pickle.dumps(dp)
    assert package_name(Dl).encode() + b'.nn.parallel.data_parallel' in data
    x = Dl.ones(2, 3)
    for other in (pickle.loads(data), copy.deepcopy(dp)):
        assert type(other) is Dl.nn.DataParallel and other.device_ids == []
        assert list(other.state_dict()) == list(dp.state_dict())
        assert other.module[0].weight is not dp.module[0].weight
        assert other(x).tolist() == dp(x).tolist()


# ---- what libdl does not implement ---------------------------------------------

def test_distributed_data_parallel_needs_a_process_group():
    # as torch's: without init_process_group there is no default group
    with pytest.raises(RuntimeError, match='init_process_group'):
        Dl.nn.parallel.DistributedDataParallel(Dl.nn.Linear(2, 2))


@libdl_only
def test_onnx_export_is_not_supported(tmp_path):
    model = Dl.nn.Linear(2, 2)
    with pytest.raises(NotImplementedError, match='ONNX export is not supported by libdl'):
        Dl.onnx.export(model, (Dl.ones(1, 2),), str(tmp_path / 'model.onnx'))
    assert not (tmp_path / 'model.onnx').exists()

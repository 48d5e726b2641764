# test_pytorch_reader.py: Dl.pytorch_load_state_dict (the C reader of
# torch.save archives, through the typelib) on state dicts that torch
# saves here: every dtype, views sharing storage, non-contiguous strides,
# an LSTM's and a CNN's state dicts, checkpoints nesting them, the torch 2
# layout (byteorder record), unaligned storages; hostile and mutated files
# are each a GLib.Error. With DL_TEST_SELF_CHECK=1 the same tests run on
# torch.load (weights_only=True) and the same flattening.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import io
import os
import pickle
import random
import zipfile

import pytest
import torch

from conftest import DTYPES, NONCONTIG, SELF_CHECK, Dl, assert_same, rand_np, th_from_np

from gi.repository import Gio, GLib  # noqa: E402

ERRORS = ((RuntimeError, pickle.UnpicklingError, ValueError, EOFError, KeyError)
          if SELF_CHECK else (GLib.Error,))


def flatten(obj, prefix=""):
    """The names and tensors dl_pytorch_load_state_dict gives for a dict
    that torch saved: dicts inside flattened to dotted names, int keys in
    decimal, other values skipped."""
    out = collections.OrderedDict()
    for k, v in obj.items():
        if isinstance(k, bool) or not isinstance(k, (str, int)):
            continue
        name = prefix + str(k)
        if isinstance(v, torch.Tensor):
            out[name] = v
        elif isinstance(v, dict):
            out.update(flatten(v, name + "."))
    return out


def load(path, trusted=False):
    """The tensors of the archive at @path. In self-check mode, torch.load
    with weights_only unless @trusted (torch 1.13's restricted unpickler
    has no BINFLOAT, which a checkpoint holding a float needs)."""
    if SELF_CHECK:
        obj = torch.load(path, weights_only=not trusted)
        if not isinstance(obj, dict):
            raise RuntimeError("not a state dict")
        return flatten(obj)
    d = Dl.pytorch_load_state_dict(Gio.File.new_for_path(str(path)), None)
    return collections.OrderedDict((n, d.lookup(n)) for n in d.get_names())


def load_bytes(data):
    if SELF_CHECK:
        obj = torch.load(io.BytesIO(data), weights_only=True)
        if not isinstance(obj, dict):
            raise RuntimeError("not a state dict")
        return flatten(obj)
    d = Dl.pytorch_load_state_dict_bytes(GLib.Bytes.new(data))
    return collections.OrderedDict((n, d.lookup(n)) for n in d.get_names())


def check_equal(got, want):
    assert list(got) == list(want)
    for n, t in want.items():
        assert_same(got[n], t, rtol=0, atol=0, msg=n + ": ")
        assert tuple(got[n].stride()) == tuple(t.stride()), n
        assert got[n].storage_offset() == t.storage_offset(), n


def save_load(obj, tmp_path, name="sd.pt", trusted=False, zipfmt=True):
    """@obj saved by torch (in its legacy, pre-1.6 format unless @zipfmt)
    and loaded."""
    path = tmp_path / name
    torch.save(obj, path, _use_new_zipfile_serialization=zipfmt)
    return load(path, trusted)


# the zip format, and the legacy one (torch.save's _use_new_zipfile_serialization)
FORMATS = pytest.mark.parametrize("zipfmt", [pytest.param(True, id="zip"),
                                             pytest.param(False, id="legacy")])


def elsize(t):
    return torch.empty((), dtype=t.dtype).element_size()


@FORMATS
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_shapes_and_views(rng, tmp_path, dtype, zipfmt):
    sd = collections.OrderedDict()
    for i, shape in enumerate([(), (0,), (1,), (3,), (2, 3), (1, 5, 3), (3, 0, 2)]):
        sd["t%d" % i] = th_from_np(rand_np(rng, shape, dtype), dtype)
    for label, shape, fn in NONCONTIG:
        sd["base_" + label] = th_from_np(rand_np(rng, shape, dtype), dtype)
        sd["view_" + label] = fn(sd["base_" + label])
    big = th_from_np(rand_np(rng, (5, 7), dtype), dtype)
    sd["slice"] = big[1:4, 2::2]             # offset 9, strides (7, 2)
    sd["row"] = big[3]                       # offset 21
    sd["big"] = big
    got = save_load(sd, tmp_path, zipfmt=zipfmt)
    check_equal(got, sd)
    # views of one storage share it as they do in torch
    base = got["big"].data_ptr()
    for n in ("slice", "row"):
        assert got[n].data_ptr() - base == sd[n].storage_offset() * elsize(sd[n])


@FORMATS
def test_lstm_and_cnn_state_dicts(tmp_path, zipfmt):
    torch.manual_seed(1)
    lstm = torch.nn.LSTM(5, 7, num_layers=2, bidirectional=True, batch_first=True)
    cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4),
                              torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 3))
    cnn(torch.randn(2, 3, 6, 6))            # running stats and num_batches_tracked move
    for name, model in (("lstm", lstm), ("cnn", cnn)):
        sd = model.state_dict()
        got = save_load(sd, tmp_path, name + ".pt", zipfmt=zipfmt)
        check_equal(got, sd)
    assert got["1.num_batches_tracked"].dtype == Dl.int64


def test_double_model_runs_on_loaded_weights(rng, tmp_path):
    """A float64 Linear's weights, loaded here, give torch's outputs for
    batch sizes 1 and 5."""
    torch.manual_seed(2)
    lin = torch.nn.Linear(6, 4).double()
    got = save_load(lin.state_dict(), tmp_path)
    for batch in (1, 5):
        x = rand_np(rng, (batch, 6), "float64")
        tx = torch.from_numpy(x)
        want = lin(tx).detach()
        if SELF_CHECK:
            y = torch.nn.functional.linear(tx, got["weight"], got["bias"])
        else:
            y = Dl.nn.functional.linear(Dl.tensor(x), got["weight"], got["bias"])
        assert_same(y, want)


def test_checkpoint_nesting(tmp_path):
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3,
            "note": "text", "losses": [1.0, 0.5], "flag": True, "lr": 1e-3,
            "shared": {"a": model[0].weight.detach(), "b": model[0].weight.detach()[1:]}}
    got = save_load(ckpt, tmp_path, trusted=True)
    want = flatten(ckpt)
    assert "model.0.weight" in want and "optimizer.state.0.exp_avg" in want
    check_equal(got, want)
    assert got["shared.b"].data_ptr() - got["shared.a"].data_ptr() == 3 * 4


def test_parameters_saved_directly(tmp_path):
    torch.manual_seed(4)
    w = torch.nn.Parameter(torch.randn(3, 2))
    got = save_load({"w": w, "frozen": torch.nn.Parameter(torch.randn(2), requires_grad=False)},
                    tmp_path)
    assert_same(got["w"], w.detach())
    assert got["w"].requires_grad
    assert not got["frozen"].requires_grad


def rewrite(path, out, drop=(), add=(), compression=zipfile.ZIP_STORED):
    """Copies the archive @path to @out with Python's zipfile (which does
    not align the records), leaving out @drop and adding @add."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", compression) as dst:
        for info in src.infolist():
            if info.filename not in drop:
                dst.writestr(info.filename, src.read(info.filename))
        for name, data in add:
            dst.writestr(name, data)


def test_torch2_layout_and_unaligned_records(rng, tmp_path):
    sd = {"a": th_from_np(rand_np(rng, (3, 5), "float64"), "float64"),
          "b": th_from_np(rand_np(rng, (7,), "int32"), "int32")}
    torch.save(sd, tmp_path / "sd.pt")
    prefix = zipfile.ZipFile(tmp_path / "sd.pt").namelist()[0].split("/")[0]
    rewrite(tmp_path / "sd.pt", tmp_path / "t2.pt",
            add=[(prefix + "/byteorder", "little"), (prefix + "/.data/serialization_id", "1234")])
    check_equal(load(tmp_path / "t2.pt"), sd)
    if not SELF_CHECK:      # torch 1.13 ignores byteorder
        rewrite(tmp_path / "sd.pt", tmp_path / "big.pt", add=[(prefix + "/byteorder", "big")])
        with pytest.raises(GLib.Error, match="only little-endian"):
            load(tmp_path / "big.pt")


def test_file_and_bytes_agree(rng, tmp_path):
    sd = {"x": th_from_np(rand_np(rng, (4, 3), "float32"), "float32")}
    sd["xt"] = sd["x"].t()
    torch.save(sd, tmp_path / "sd.pt")
    check_equal(load_bytes((tmp_path / "sd.pt").read_bytes()), sd)


class System:
    """Pickles as os.system("true"): a file that runs code when unpickled
    by plain pickle."""
    def __reduce__(self):
        return (os.system, ("true",))


def test_hostile_files(tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "ok.pt")
    good = (tmp_path / "ok.pt").read_bytes()
    # a pickle that calls os.system
    torch.save({"w": torch.ones(2), "evil": System()}, tmp_path / "evil.pt")
    with pytest.raises(ERRORS) as e:
        load(tmp_path / "evil.pt")
    if not SELF_CHECK:
        assert "global posix.system" in str(e.value) or "global os.system" in str(e.value)
    # not a state dict
    torch.save([torch.ones(2)], tmp_path / "list.pt")
    with pytest.raises(ERRORS):
        load(tmp_path / "list.pt")
    # truncated archives
    for n in (0, 10, len(good) // 2, len(good) - 1):
        with pytest.raises(ERRORS):
            load_bytes(good[:n])
    # a missing storage record
    prefix = zipfile.ZipFile(tmp_path / "ok.pt").namelist()[0].split("/")[0]
    rewrite(tmp_path / "ok.pt", tmp_path / "nodata.pt", drop=(prefix + "/data/0",))
    with pytest.raises(ERRORS):
        load(tmp_path / "nodata.pt")
    if not SELF_CHECK:      # torch reads deflated records; this reader refuses them
        rewrite(tmp_path / "ok.pt", tmp_path / "deflated.pt", compression=zipfile.ZIP_DEFLATED)
        with pytest.raises(GLib.Error, match="compressed"):
            load(tmp_path / "deflated.pt")
        with pytest.raises(GLib.Error, match="pytorch: .*: not a zip archive"):
            load_bytes(b"\x80\x02}q\x00.")


@pytest.mark.skipif(SELF_CHECK, reason="torch's reader is not hardened against corrupt zips")
def test_mutations_fail_cleanly(rng, tmp_path):
    sd = {"w": torch.arange(12.0).view(3, 4), "v": torch.arange(4, dtype=torch.int64)}
    sd["wt"] = sd["w"].t()
    torch.save({"model": sd, "epoch": 1}, tmp_path / "m.pt")
    good = (tmp_path / "m.pt").read_bytes()
    r = random.Random(16)
    loaded = failed = 0
    for _ in range(2000):
        data = bytearray(good)
        for _ in range(r.randint(1, 4)):
            pos = r.randrange(len(data))
            if r.random() < 0.5:
                pos = r.randrange(64, 64 + 400)      # the pickle of the first record
            data[pos] = r.randrange(256)
        try:
            got = load_bytes(bytes(data))
        except GLib.Error as e:
            assert e.message.startswith("pytorch: ")
            failed += 1
            continue
        loaded += 1
        for t in got.values():
            t.sum() if t.dtype != Dl.bool else t.any()
    assert loaded > 0 and failed > 0

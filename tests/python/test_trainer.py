# test_trainer.py: Dl.Trainer, training on a worker thread with progress on
# the GLib main loop, against the same training loop written in Python.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import threading

import numpy as np
import pytest

import torch

from conftest import Dl

pytestmark = pytest.mark.skipif(Dl is torch, reason='libdl only: Dl.Trainer has no torch twin')

from gi.repository import Gio, GLib  # noqa: E402

N, FEATURES, CLASSES, BATCH = 80, 5, 3, 16


def data(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, FEATURES)).astype(np.float32)
    y = x[:, :CLASSES].argmax(1)
    return x, y


def make_model(seed):
    Dl.manual_seed(seed)
    return Dl.nn.Sequential(Dl.nn.Linear(FEATURES, 12), Dl.nn.Tanh(), Dl.nn.Dropout(0.2),
                            Dl.nn.Linear(12, CLASSES))


def make_loader(x, y, seed):
    # the C loader (a GObject), shuffled by its own generator: the trainer
    # and the Python loop see the same order from the same seed
    dataset = Dl.TensorDataset.new([Dl.tensor(x), Dl.tensor(y)])
    generator = Dl.Generator()
    generator.manual_seed(seed)
    return Dl.DataLoader(dataset=dataset, batch_size=BATCH, shuffle=True, generator=generator)


def batches(loader):
    it = loader.iterate()
    while True:
        ok, batch = it.next()
        if not ok:
            return
        yield batch


def run(trainer, start, finish):
    """Starts an async call with start(callback) on a main loop, returns
    finish(result) (or raises its error) and the thread of the callback."""
    loop = GLib.MainLoop()
    out = {}

    def done(obj, result):
        out['thread'] = threading.get_ident()
        try:
            out['value'] = finish(result)
        except GLib.Error as e:
            out['error'] = e
        loop.quit()

    start(done)
    loop.run()
    assert out['thread'] == threading.get_ident()
    if 'error' in out:
        raise out['error']
    return out['value']


def params(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_train_async_equals_python_loop():
    x, y = data(0)
    model, ref = make_model(3), make_model(3)
    crit = Dl.nn.CrossEntropyLoss()
    opt = Dl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = Dl.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    trainer = Dl.Trainer.new(model, crit, opt, make_loader(x, y, 11))
    trainer.props.epochs = 3
    points, epochs = [], []
    main = threading.get_ident()

    def on_progress(t, point):
        assert threading.get_ident() == main
        assert t.props.running
        points.append((point.props.epoch, point.props.step, point.props.loss, point.props.accuracy))

    trainer.connect('progress', on_progress)
    trainer.connect('epoch-finished', lambda t, e, loss, acc: epochs.append((e, loss, acc)))
    Dl.manual_seed(5)
    assert run(trainer, lambda cb: trainer.train_async(None, cb), trainer.train_finish)
    assert not trainer.props.running
    assert len(points) == 3 * N // BATCH
    assert [p.props.step for p in trainer.props.history] == list(range(1, len(points) + 1))

    # the same loop, synchronously, in Python, over a loader shuffled from
    # the same seed
    Dl.manual_seed(5)
    ref.train()
    ref_loader = make_loader(x, y, 11)
    want_points, want_epochs = [], []
    for epoch in range(3):
        total, correct, count = 0.0, 0, 0
        for xb, yb in batches(ref_loader):
            ref_opt.zero_grad()
            out = ref(xb)
            loss = crit(out, yb)
            loss.backward()
            ref_opt.step()
            hits = int((out.argmax(1) == yb).sum().item())
            want_points.append((epoch, len(want_points) + 1, loss.item(), hits / len(yb)))
            total += loss.item() * len(yb)
            correct += hits
            count += len(yb)
        want_epochs.append((epoch, total / count, correct / count))
    for got, want in zip(params(model), params(ref)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert [p[:2] for p in points] == [p[:2] for p in want_points]
    np.testing.assert_allclose([p[2:] for p in points], [p[2:] for p in want_points], rtol=1e-5)
    np.testing.assert_allclose(epochs, want_epochs, rtol=1e-5)
    assert epochs[-1][1] < epochs[0][1]


def test_evaluate_and_predict_equal_eval_mode():
    x, y = data(1)
    model = make_model(4)
    crit = Dl.nn.CrossEntropyLoss()
    opt = Dl.optim.Adam(model.parameters(), lr=0.01)
    loader = Dl.DataLoader.new(Dl.TensorDataset.new([Dl.tensor(x), Dl.tensor(y)]), BATCH, False)
    trainer = Dl.Trainer(model=model, loss=crit, optimizer=opt, train_loader=loader, max_steps=3)
    run(trainer, lambda cb: trainer.train_async(None, cb), trainer.train_finish)
    assert model.training

    model.eval()
    with Dl.no_grad():
        out = model(Dl.tensor(x))
        want_loss = crit(out, Dl.tensor(y)).item()
        want_acc = float((out.argmax(1) == Dl.tensor(y)).float().mean().item())
        want = model(Dl.tensor(x[:4])).numpy()
    model.train()
    ok, loss, acc = run(trainer, lambda cb: trainer.evaluate_async(loader, None, cb),
                        trainer.evaluate_finish)
    assert ok
    assert loss == pytest.approx(want_loss, rel=1e-5)
    assert acc == pytest.approx(want_acc)
    got = run(trainer, lambda cb: trainer.predict_async(Dl.tensor(x[:4]), None, cb),
              trainer.predict_finish)
    np.testing.assert_array_equal(got.numpy(), want)
    assert not got.requires_grad
    assert model.training


def test_cancel_keeps_the_parameters_of_the_reported_steps():
    x, y = data(2)
    model, ref = make_model(6), make_model(6)
    crit = Dl.nn.CrossEntropyLoss()
    opt = Dl.optim.SGD(model.parameters(), lr=0.05)
    ref_opt = Dl.optim.SGD(ref.parameters(), lr=0.05)
    loader = Dl.DataLoader.new(Dl.TensorDataset.new([Dl.tensor(x), Dl.tensor(y)]), BATCH, False)
    trainer = Dl.Trainer.new(model, crit, opt, loader)
    trainer.props.epochs = 10 ** 6
    cancellable = Gio.Cancellable()
    trainer.connect('progress', lambda t, p: p.props.step == 2 and cancellable.cancel())
    Dl.manual_seed(1)
    with pytest.raises(GLib.Error) as e:
        run(trainer, lambda cb: trainer.train_async(cancellable, cb), trainer.train_finish)
    assert e.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
    steps = trainer.props.history.get_n_items()
    assert 2 <= steps < 10 ** 6 * N // BATCH

    Dl.manual_seed(1)
    ref.train()
    done = 0
    while done < steps:
        for xb, yb in batches(loader):
            if done == steps:
                break
            ref_opt.zero_grad()
            crit(ref(xb), yb).backward()
            ref_opt.step()
            done += 1
    for got, want in zip(params(model), params(ref)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_second_train_is_pending():
    x, y = data(3)
    model = make_model(1)
    loader = Dl.DataLoader.new(Dl.TensorDataset.new([Dl.tensor(x), Dl.tensor(y)]), BATCH, False)
    trainer = Dl.Trainer.new(model, Dl.nn.CrossEntropyLoss(),
                             Dl.optim.SGD(model.parameters(), lr=0.1), loader)
    loop = GLib.MainLoop()
    errors = []

    def second(t, result):
        try:
            t.train_finish(result)
        except GLib.Error as e:
            errors.append(e)

    trainer.train_async(None, lambda t, r: (t.train_finish(r), loop.quit()))
    trainer.train_async(None, second)
    loop.run()
    assert len(errors) == 1 and errors[0].matches(Gio.io_error_quark(), Gio.IOErrorEnum.PENDING)


def test_python_code_is_refused():
    # a module or data set written in Python cannot run on the worker
    class Net(Dl.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = Dl.nn.Linear(FEATURES, CLASSES)

        def forward(self, x):
            return self.fc(x) * 2

    class Squares(Dl.Dataset):
        def do_get_length(self):
            return 4

        def do_load_item(self, index):
            return [Dl.zeros(FEATURES), Dl.tensor(index % CLASSES)]

    x, y = data(4)
    loader = Dl.DataLoader.new(Dl.TensorDataset.new([Dl.tensor(x), Dl.tensor(y)]), BATCH, False)
    net = Net()
    wrapped = Dl.nn.Sequential(Dl.nn.Linear(FEATURES, FEATURES), net)
    crit = Dl.nn.CrossEntropyLoss()
    for model, data_loader, needle in [
            (wrapped, loader, "'model.1' (")] + [
            (make_model(0), Dl.DataLoader.new(Squares(), 2, False), 'data set')]:
        trainer = Dl.Trainer.new(model, crit, Dl.optim.SGD(model.parameters(), lr=0.1),
                                 data_loader)
        with pytest.raises(GLib.Error) as e:
            run(trainer, lambda cb: trainer.train_async(None, cb), trainer.train_finish)
        assert 'language binding' in e.value.message and needle in e.value.message
    # a hook written in Python on a parameter would run in backward
    model = make_model(0)
    handle = model[3].bias.register_hook(lambda grad: grad * 2)
    trainer = Dl.Trainer.new(model, crit, Dl.optim.SGD(model.parameters(), lr=0.1), loader)
    with pytest.raises(GLib.Error) as e:
        run(trainer, lambda cb: trainer.train_async(None, cb), trainer.train_finish)
    assert "parameter '3.bias' has a hook" in e.value.message
    handle.remove()
    assert run(trainer, lambda cb: trainer.train_async(None, cb), trainer.train_finish)

    trainer = Dl.Trainer.new(wrapped, crit, Dl.optim.SGD(wrapped.parameters(), lr=0.1), loader)
    with pytest.raises(GLib.Error):
        run(trainer, lambda cb: trainer.predict_async(Dl.tensor(x), None, cb),
            trainer.predict_finish)
    assert math.isfinite(wrapped(Dl.tensor(x)).sum().item())

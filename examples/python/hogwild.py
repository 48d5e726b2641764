#!/usr/bin/python3
"""Hogwild: several processes train one model whose parameters live in
shared memory, each with its own optimizer and data, without locks, as
PyTorch's mnist_hogwild example does. `import torch` is replaced by
`from gi.repository import Dl as torch`.

  examples/python/hogwild.py [--processes N] [--steps N]

The task: a linear regression y = x @ w_true + b_true from noisy samples.
Each process counts its steps in a shared tensor, so the parent can check
that every process's updates landed in the one model.
"""
import argparse

import gi
gi.require_version('Dl', '1.0')
from gi.repository import Dl as torch  # noqa: E402

mp = torch.multiprocessing
nn = torch.nn

W_TRUE = [[2.0], [-3.0], [0.5], [1.0]]
B_TRUE = 0.25


def train(rank, model, steps, counts, lr):
    torch.manual_seed(1000 + rank)
    w_true, b_true = torch.tensor(W_TRUE), B_TRUE
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        x = torch.randn(32, 4)
        y = x @ w_true + b_true + 0.01 * torch.randn(32, 1)
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        counts[rank] += 1


def error(model):
    with torch.no_grad():
        return ((model.weight.t() - torch.tensor(W_TRUE)).abs().max().item(),
                abs(model.bias.item() - B_TRUE))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--processes', type=int, default=2)
    p.add_argument('--steps', type=int, default=300, help='steps per process')
    p.add_argument('--lr', type=float, default=0.05)
    args = p.parse_args()

    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    model.share_memory()
    counts = torch.zeros(args.processes, dtype=torch.int64).share_memory_()
    print('before: weight error %.3f, bias error %.3f' % error(model))

    workers = [mp.Process(target=train, args=(rank, model, args.steps, counts, args.lr))
               for rank in range(args.processes)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if any(w.exitcode != 0 for w in workers):
        raise SystemExit('a training process failed')

    weight_error, bias_error = error(model)
    print('steps per process: %s' % counts.tolist())
    print('after: weight error %.4f, bias error %.4f' % (weight_error, bias_error))
    if counts.tolist() != [args.steps] * args.processes or weight_error > 0.05 \
            or bias_error > 0.05:
        raise SystemExit('the shared model did not learn from every process')


if __name__ == '__main__':
    main()

# soak_mlp.py: the Python twin of soak-mlp.c, written as a PyTorch script:
# a 784-256-10 MLP trained on random batches through a DataLoader,
# printing "rss EPOCH KIB" after each epoch.
#
# Usage: soak_mlp.py EPOCHS STEPS_PER_EPOCH
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import sys

import dl as torch
from dl import nn
from dl.utils.data import DataLoader, TensorDataset


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGESIZE") // 1024


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    torch.manual_seed(14)
    data = TensorDataset(torch.randn(steps * 64, 784), torch.randint(0, 10, (steps * 64,)))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for x, y in loader:
            loss = loss_fn(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print("rss %d %d" % (epoch, rss_kib()), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# Trains a classifier on Fashion-MNIST with libdl's PyTorch-compatible
# Python layer: the code below is PyTorch code with `import torch` replaced.
#
#   examples/python/fashion_mnist.py [--model mlp|softmax] [--epochs N]
#
# The data comes from Debian's dataset-fashion-mnist package
# (/usr/share/datasets/fashion-mnist), read by libdl's C IDX reader.
import argparse
import time

import gi
gi.require_version('Dl', '1.0')
from gi.repository import Dl as torch  # noqa: E402
import numpy as np  # noqa: E402

nn = torch.nn
F = torch.nn.functional

CLASSES = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
           'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot')


class MLP(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class SoftmaxRegression(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(28 * 28, 10)

    def forward(self, x):
        return self.fc(x)


def load(train, limit, root):
    images, labels = torch.datasets.fashion_mnist(root, train=train)
    if limit:
        images, labels = images[:limit], labels[:limit]
    # uint8 [N, 28, 28] -> float [N, 784], normalised with the training
    # set's mean and standard deviation
    x = (images.reshape(images.shape[0], -1).float() / 255.0 - 0.2860) / 0.3530
    return x, labels


def evaluate(model, x, y, batch_size=1000):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, x.shape[0], batch_size):
            pred = model(x[i:i + batch_size]).argmax(dim=1)
            correct += (pred == y[i:i + batch_size]).sum().item()
    model.train()
    return correct / x.shape[0]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument('--model', choices=('mlp', 'softmax'), default='mlp')
    p.add_argument('--hidden', type=int, default=256)
    p.add_argument('--epochs', type=int, default=5)
    p.add_argument('--batch-size', type=int, default=64)
    p.add_argument('--lr', type=float, default=0.01)
    p.add_argument('--momentum', type=float, default=0.9)
    p.add_argument('--train-limit', type=int, default=0, help='use only the first N images')
    p.add_argument('--test-limit', type=int, default=0)
    p.add_argument('--root', default=None, help='folder of the IDX .gz files')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--min-accuracy', type=float, default=0.0,
                   help='exit with status 1 if the test accuracy ends below this')
    args = p.parse_args()

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    x_train, y_train = load(True, args.train_limit, args.root)
    x_test, y_test = load(False, args.test_limit, args.root)
    print('train %s, test %s' % (tuple(x_train.shape), tuple(x_test.shape)))

    model = MLP(args.hidden) if args.model == 'mlp' else SoftmaxRegression()
    print(model)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

    n = x_train.shape[0]
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        # a fresh shuffle each epoch; numpy only picks the order
        perm = rng.permutation(n)
        xs = torch.from_numpy(x_train.numpy()[perm])
        ys = torch.from_numpy(y_train.numpy()[perm])
        total, batches = 0.0, 0
        for i in range(0, n, args.batch_size):
            xb, yb = xs[i:i + args.batch_size], ys[i:i + args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
            batches += 1
        acc = evaluate(model, x_test, y_test)
        print('epoch %d  loss %.4f  test accuracy %.4f  (%.1f s)'
              % (epoch, total / batches, acc, time.perf_counter() - start))

    acc = evaluate(model, x_test, y_test)
    print('final test accuracy: %.4f' % acc)
    with torch.no_grad():
        guess = model(x_test[:5]).argmax(dim=1).tolist()
    print('first test images:', ', '.join('%s (%s)' % (CLASSES[g], CLASSES[t])
                                           for g, t in zip(guess, y_test[:5].tolist())))
    if acc < args.min_accuracy:
        raise SystemExit('accuracy %.4f is below the required %.4f' % (acc, args.min_accuracy))


if __name__ == '__main__':
    main()

#!/usr/bin/python3
"""Trains a CNN on Fashion-MNIST with libdl's PyTorch-compatible Python
layer. Below `import torch` is replaced by `from gi.repository import Dl as
torch`; the rest is PyTorch code: a Dataset, a DataLoader with workers, a
Module, Adam with a learning-rate schedule, a progress bar, a checkpoint and
a plot of the curves.

  examples/python/fashion_mnist.py [--epochs N] [--resume] [--evaluate] ...

The data comes from Debian's dataset-fashion-mnist package
(/usr/share/datasets/fashion-mnist), read by libdl's C IDX reader.
"""
import argparse
import os
import sys
import time

import gi
gi.require_version('Dl', '1.0')
from gi.repository import Dl as torch  # noqa: E402

nn = torch.nn
F = torch.nn.functional
DataLoader = torch.utils.data.DataLoader
Subset = torch.utils.data.Subset
FashionMNIST = torch.datasets.FashionMNIST

MEAN, STD = 0.2860, 0.3530  # of the training images


class CNN(nn.Module):
    """Two convolution blocks (conv, batch norm, ReLU, max-pool), dropout
    and two linear layers."""

    def __init__(self, channels=(32, 64), hidden=128, dropout=0.25):
        super().__init__()
        c1, c2 = channels
        self.conv1 = nn.Conv2d(1, c1, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c1)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c2)
        self.pool = nn.MaxPool2d(2)
        self.drop = nn.Dropout(dropout)
        self.fc1 = nn.Linear(c2 * 7 * 7, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = self.drop(torch.flatten(x, 1))
        x = self.drop(F.relu(self.fc1(x)))
        return self.fc2(x)


class MLP(nn.Module):
    def __init__(self, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


class Progress:
    """A progress bar per epoch: tqdm on a terminal, one line per epoch
    otherwise (a log, a CI run)."""

    def __init__(self, total, desc):
        self.total, self.desc, self.done, self.start = total, desc, 0, time.perf_counter()
        self.bar = None
        if sys.stdout.isatty():
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, desc=desc, unit='batch', leave=True)
            except ImportError:
                pass

    def update(self, samples, loss):
        self.done += 1
        if self.bar is not None:
            rate = samples / max(time.perf_counter() - self.start, 1e-9)
            self.bar.set_postfix(loss='%.4f' % loss, samples_per_s='%.0f' % rate)
            self.bar.update(1)

    def close(self, message):
        if self.bar is not None:
            self.bar.close()
        print('%s: %s' % (self.desc, message), flush=True)


def evaluate(model, loader):
    """(accuracy, confusion matrix [true][predicted]) on @loader."""
    model.eval()
    confusion = torch.zeros(10, 10, dtype=torch.int64)
    with torch.no_grad():
        for images, labels in loader:
            pred = model(images).argmax(dim=1)
            confusion += torch.bincount(labels * 10 + pred, minlength=100).reshape(10, 10)
    model.train()
    return confusion.trace().item() / max(confusion.sum().item(), 1), confusion


def save_plot(history, path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    epochs = [h['epoch'] for h in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, [h['loss'] for h in history], marker='o')
    left.set(xlabel='epoch', ylabel='training loss', title='Loss')
    right.plot(epochs, [h['accuracy'] for h in history], marker='o', color='tab:green')
    right.set(xlabel='epoch', ylabel='test accuracy', title='Accuracy')
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def print_confusion(confusion, classes):
    width = max(len(c) for c in classes)
    print('confusion matrix (rows: true class, columns: predicted)')
    print(' ' * (width + 1) + ' '.join('%5d' % i for i in range(10)))
    for i, row in enumerate(confusion.tolist()):
        print('%-*s ' % (width, classes[i]) + ' '.join('%5d' % v for v in row))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--model', choices=('cnn', 'mlp'), default='cnn')
    p.add_argument('--epochs', type=int, default=4)
    p.add_argument('--batch-size', type=int, default=128)
    p.add_argument('--lr', type=float, default=2e-3, help="Adam's initial learning rate")
    p.add_argument('--workers', type=int, default=2, help='DataLoader workers')
    p.add_argument('--train-limit', type=int, default=0, help='use only N training images')
    p.add_argument('--test-limit', type=int, default=0, help='use only N test images')
    p.add_argument('--root', default=None, help='folder of the IDX .gz files')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--checkpoint', default='fashion_mnist.safetensors',
                   help='where the checkpoint is saved after each epoch')
    p.add_argument('--plot', default='fashion_mnist.png', help='where the curves go (PNG)')
    p.add_argument('--resume', action='store_true', help='continue from --checkpoint')
    p.add_argument('--evaluate', action='store_true',
                   help='load --checkpoint, print test accuracy and the confusion matrix')
    p.add_argument('--min-accuracy', type=float, default=0.0,
                   help='exit with status 1 if the test accuracy ends below this')
    args = p.parse_args()

    torch.manual_seed(args.seed)
    train_set = FashionMNIST(args.root, train=True, mean=MEAN, std=STD)
    test_set = FashionMNIST(args.root, train=False, mean=MEAN, std=STD)
    if args.train_limit:
        train_set = Subset(train_set, range(args.train_limit))
    if args.test_limit:
        test_set = Subset(test_set, range(args.test_limit))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              num_workers=args.workers, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=1000, num_workers=args.workers)

    model = CNN() if args.model == 'cnn' else MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.CrossEntropyLoss()
    history, first_epoch = [], 1

    if args.resume or args.evaluate:
        checkpoint = torch.load(args.checkpoint)
        if 'model' not in checkpoint:
            # a bare model state dict, as the C, GJS and Vala examples save
            if not args.evaluate:
                raise SystemExit('%s holds only a model: --evaluate it, or train anew'
                                 % args.checkpoint)
            checkpoint = {'model': checkpoint, 'epoch': 0}
        model.load_state_dict(checkpoint['model'])
        if 'optimizer' in checkpoint:
            optimizer.load_state_dict(checkpoint['optimizer'])
            scheduler.load_state_dict(checkpoint['scheduler'])
            history = checkpoint['history']
            first_epoch = checkpoint['epoch'] + 1
            print('loaded %s (after epoch %d)' % (args.checkpoint, checkpoint['epoch']))
        else:
            print('loaded the model of %s' % args.checkpoint)
    if args.evaluate:
        accuracy, confusion = evaluate(model, test_loader)
        print('test accuracy: %.4f' % accuracy)
        print_confusion(confusion, FashionMNIST.classes)
        return
    print('train %d images, test %d images, %d workers' % (len(train_set), len(test_set),
                                                          args.workers))
    print(model)

    accuracy = history[-1]['accuracy'] if history else 0.0
    for epoch in range(first_epoch, args.epochs + 1):
        progress = Progress(len(train_loader), 'epoch %d/%d' % (epoch, args.epochs))
        total, seen = 0.0, 0
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            total += loss.item() * labels.shape[0]
            seen += labels.shape[0]
            progress.update(seen, loss.item())
        scheduler.step()
        accuracy, _ = evaluate(model, test_loader)
        elapsed = time.perf_counter() - progress.start
        history.append({'epoch': epoch, 'loss': total / seen, 'accuracy': accuracy})
        progress.close('loss %.4f, test accuracy %.4f, %.1f s (%.0f samples/s)'
                       % (total / seen, accuracy, elapsed, seen / elapsed))
        torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                    'scheduler': scheduler.state_dict(), 'epoch': epoch, 'history': history},
                   args.checkpoint)

    if history:
        save_plot(history, args.plot)
        print('checkpoint: %s' % os.path.abspath(args.checkpoint))
        print('plot: %s' % os.path.abspath(args.plot))
    print('final test accuracy: %.4f' % accuracy)
    if accuracy < args.min_accuracy:
        raise SystemExit('accuracy %.4f is below the required %.4f'
                         % (accuracy, args.min_accuracy))


if __name__ == '__main__':
    main()

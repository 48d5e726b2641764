#!/usr/bin/python3
"""Trains the Fashion-MNIST CNN of fashion_mnist.py data-parallel: one
process per rank, each on its share of every epoch (DistributedSampler),
gradients averaged across the ranks during backward
(DistributedDataParallel). Below `import torch` is replaced by
`from gi.repository import Dl as torch`; the rest is PyTorch code.

Launch it with Open MPI or with the launcher (torchrun's flags):

    mpirun -np 2 python3 ddp_fashion_mnist.py --backend mpi
    python3 -m dl.distributed.run --nproc-per-node 2 ddp_fashion_mnist.py --backend gloo

Rank 0 evaluates on the test images after each epoch and saves the model.
"""
import argparse
import os
import sys
import time

import gi
gi.require_version('Dl', '1.0')
from gi.repository import Dl as torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist import CNN, MEAN, MLP, STD, evaluate  # noqa: E402

nn = torch.nn
dist = torch.distributed
DataLoader = torch.utils.data.DataLoader
DistributedSampler = torch.utils.data.distributed.DistributedSampler
DDP = torch.nn.parallel.DistributedDataParallel
Subset = torch.utils.data.Subset
FashionMNIST = torch.datasets.FashionMNIST


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--backend', choices=('mpi', 'gloo'),
                   default='mpi' if 'OMPI_COMM_WORLD_SIZE' in os.environ else 'gloo')
    p.add_argument('--model', choices=('cnn', 'mlp'), default='cnn')
    p.add_argument('--epochs', type=int, default=2)
    p.add_argument('--batch-size', type=int, default=64, help='per rank')
    p.add_argument('--lr', type=float, default=2e-3, help="Adam's learning rate")
    p.add_argument('--train-limit', type=int, default=0, help='use only N training images')
    p.add_argument('--test-limit', type=int, default=0, help='use only N test images')
    p.add_argument('--root', default=None, help='folder of the IDX .gz files')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--checkpoint', default='ddp_fashion_mnist.safetensors',
                   help='where rank 0 saves the model')
    p.add_argument('--min-accuracy', type=float, default=0.0,
                   help='exit with status 1 if the test accuracy ends below this')
    args = p.parse_args()

    # MPI finds the ranks itself; the launcher sets RANK, WORLD_SIZE,
    # MASTER_ADDR and MASTER_PORT for Gloo's env:// rendezvous
    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(args.seed)
    train_set = FashionMNIST(args.root, train=True, mean=MEAN, std=STD)
    if args.train_limit:
        train_set = Subset(train_set, range(args.train_limit))
    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True,
                                 seed=args.seed, drop_last=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler,
                              drop_last=True)

    # every rank builds the model; DDP copies rank 0's weights to the others
    model = DDP(CNN() if args.model == 'cnn' else MLP())
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()

    test_loader = None
    if rank == 0:
        test_set = FashionMNIST(args.root, train=False, mean=MEAN, std=STD)
        if args.test_limit:
            test_set = Subset(test_set, range(args.test_limit))
        test_loader = DataLoader(test_set, batch_size=1000)
        print('%s, %d ranks, %d training images (%d per rank and epoch)'
              % (args.backend, world, len(train_set), len(sampler)))

    accuracy = 0.0
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        start, total, seen = time.perf_counter(), 0.0, 0
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            total += loss.item() * labels.shape[0]
            seen += labels.shape[0]
        # every rank's mean loss, averaged across the ranks
        mean_loss = torch.tensor([total / max(seen, 1)])
        dist.all_reduce(mean_loss, op=dist.ReduceOp.AVG)
        elapsed = time.perf_counter() - start
        if rank == 0:
            accuracy, _ = evaluate(model.module, test_loader)
            print('epoch %d: loss %.4f, test accuracy %.4f, %.1f s (%.0f samples/s over %d ranks)'
                  % (epoch, mean_loss.item(), accuracy, elapsed, seen * world / elapsed, world))
            torch.save(model.module.state_dict(), args.checkpoint)

    # the replicas stayed identical: every rank holds rank 0's weights
    for name, param in model.module.named_parameters():
        gathered = [torch.empty_like(param) for _ in range(world)]
        dist.all_gather(gathered, param.detach().contiguous())
        if any(not torch.equal(gathered[0], g) for g in gathered[1:]):
            raise SystemExit('rank %d: the replicas of %s differ' % (rank, name))
    dist.destroy_process_group()
    if rank == 0:
        print('final test accuracy: %.4f (model in %s)' % (accuracy, args.checkpoint))
        if accuracy < args.min_accuracy:
            raise SystemExit('accuracy %.4f is below the required %.4f'
                             % (accuracy, args.min_accuracy))


if __name__ == '__main__':
    main()

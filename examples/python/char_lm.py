#!/usr/bin/python3
"""Trains a character-level language model with libdl's PyTorch-compatible
Python layer, then samples text from it. Below `import torch` is replaced by
`from gi.repository import Dl as torch`; the rest is PyTorch code: a Dataset
of text windows, a DataLoader, an LSTM or a Transformer encoder with a causal
mask, AdamW with gradient clipping and a learning-rate schedule, a progress
bar, a checkpoint and sampling with a temperature.

  examples/python/char_lm.py [--model lstm|transformer] [--epochs N] ...
  examples/python/char_lm.py --generate 400 --temperature 0.8 [--prompt TEXT]

By default the text is every fortune cookie of Debian's fortunes package
(/usr/share/games/fortunes); --text FILE trains on another file.
"""
import argparse
import glob
import math
import os
import sys
import time

import gi
gi.require_version('Dl', '1.0')
from gi.repository import Dl as torch  # noqa: E402

nn = torch.nn
F = torch.nn.functional
Dataset = torch.utils.data.Dataset
DataLoader = torch.utils.data.DataLoader

FORTUNES = '/usr/share/games/fortunes'


def read_text(path):
    """The training text: @path, or the fortunes (each cookie ends with a
    line holding '%'), kept to printable ASCII, tabs and newlines."""
    if path:
        files = [path]
    else:
        # the cookie files are those that strfile indexed (NAME.dat)
        files = sorted(f[:-4] for f in glob.glob(os.path.join(FORTUNES, '*.dat')))
        if not files:
            raise SystemExit('no fortunes in %s: apt-get install fortunes, or pass --text FILE'
                             % FORTUNES)
    parts = []
    for f in files:
        with open(f, encoding='latin-1') as fh:
            parts.append(fh.read())
    text = '\n'.join(parts)
    return ''.join(c for c in text if c == '\n' or c == '\t' or ' ' <= c <= '~')


class Windows(Dataset):
    """Every @length-character window of @ids that starts at a multiple of
    @stride, as (input, target): target is the input shifted by one."""

    def __init__(self, ids, length, stride):
        self.ids, self.length, self.stride = ids, length, stride

    def __len__(self):
        return (self.ids.shape[0] - self.length - 1) // self.stride

    def __getitem__(self, i):
        start = i * self.stride
        chunk = self.ids[start:start + self.length + 1]
        return chunk[:-1], chunk[1:]


class LSTMModel(nn.Module):
    """Embedding, a stacked LSTM, dropout and a linear read-out."""

    def __init__(self, vocab, embed=64, hidden=256, layers=2, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        # dropout between stacked layers (torch warns when there is one layer)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True,
                            dropout=dropout if layers > 1 else 0.0)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        y, state = self.lstm(self.embed(x), state)
        return self.head(self.drop(y)), state


class TransformerModel(nn.Module):
    """Token and position embeddings, a pre-norm Transformer encoder under a
    causal mask (each position sees itself and the past) and a read-out."""

    def __init__(self, vocab, d_model=128, heads=4, layers=3, context=128, dropout=0.1):
        super().__init__()
        self.context = context
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout,
                                           activation='gelu', batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model))
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x, state=None):
        length = x.shape[1]
        positions = torch.arange(length).unsqueeze(0)
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        h = self.encoder(self.embed(x) + self.pos(positions), mask=mask)
        return self.head(h), None


def make_model(kind, vocab, args):
    if kind == 'lstm':
        return LSTMModel(vocab, hidden=args.hidden, layers=args.layers)
    return TransformerModel(vocab, d_model=args.hidden // 2, layers=args.layers + 1,
                            context=args.seq_len)


class Progress:
    """A progress bar per epoch: tqdm on a terminal, one line per epoch
    otherwise (a log, a CI run)."""

    def __init__(self, total, desc):
        self.total, self.desc, self.start = total, desc, time.perf_counter()
        self.bar = None
        if sys.stdout.isatty():
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, desc=desc, unit='batch', leave=True)
            except ImportError:
                pass

    def update(self, loss, chars):
        if self.bar is not None:
            rate = chars / max(time.perf_counter() - self.start, 1e-9)
            self.bar.set_postfix(loss='%.3f' % loss, chars_per_s='%.0f' % rate)
            self.bar.update(1)

    def close(self, message):
        if self.bar is not None:
            self.bar.close()
        print('%s: %s' % (self.desc, message), flush=True)


def perplexity(model, loader, batches):
    """exp(mean cross-entropy per character) over the first @batches
    batches of @loader."""
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for i, (x, y) in enumerate(loader):
            if i == batches:
                break
            logits, _ = model(x)
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                     reduction='sum').item()
            count += y.numel()
    model.train()
    return math.exp(total / max(count, 1))


def generate(model, kind, vocab, prompt, n, temperature, context):
    """@n characters sampled after @prompt, one at a time, from the model's
    distribution sharpened (temperature < 1) or flattened (> 1)."""
    index = {c: i for i, c in enumerate(vocab)}
    ids = [index[c] for c in prompt if c in index] or [index['\n']]
    out = []
    model.eval()
    with torch.no_grad():
        state = None
        x = torch.tensor([ids])
        for _ in range(n):
            if kind == 'lstm':
                logits, state = model(x, state)  # the state carries the past
            else:
                logits, _ = model(torch.tensor([ids[-context:]]))
            probs = F.softmax(logits[0, -1] / max(temperature, 1e-6), dim=-1)
            nxt = torch.multinomial(probs, 1).item()
            ids.append(nxt)
            out.append(vocab[nxt])
            x = torch.tensor([[nxt]])
    return prompt + ''.join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--model', choices=('lstm', 'transformer'), default='lstm')
    p.add_argument('--text', default=None, help='train on this file instead of the fortunes')
    p.add_argument('--epochs', type=int, default=5)
    p.add_argument('--steps', type=int, default=300, help='training batches per epoch')
    p.add_argument('--batch-size', type=int, default=32)
    p.add_argument('--seq-len', type=int, default=128)
    p.add_argument('--hidden', type=int, default=256)
    p.add_argument('--layers', type=int, default=1)
    p.add_argument('--lr', type=float, default=3e-3, help="AdamW's initial learning rate")
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--checkpoint', default=None,
                   help='saved after each epoch (default: char_lm-MODEL.pt)')
    p.add_argument('--resume', action='store_true', help='continue from --checkpoint')
    p.add_argument('--stop-after', type=int, default=0, metavar='EPOCH',
                   help='stop after this epoch (then go on later with --resume)')
    p.add_argument('--generate', type=int, default=0, metavar='N',
                   help='load --checkpoint and print N sampled characters')
    p.add_argument('--temperature', type=float, default=0.8)
    p.add_argument('--prompt', default='\n')
    p.add_argument('--max-perplexity', type=float, default=0.0,
                   help='exit with status 1 if the validation perplexity ends above this')
    args = p.parse_args()
    checkpoint_path = args.checkpoint or 'char_lm-%s.pt' % args.model
    torch.manual_seed(args.seed)

    if args.generate:
        checkpoint = torch.load(checkpoint_path)
        saved = argparse.Namespace(**checkpoint['args'])
        vocab = checkpoint['vocab']
        model = make_model(saved.model, len(vocab), saved)
        model.load_state_dict(checkpoint['model'])
        print(generate(model, saved.model, vocab, args.prompt, args.generate,
                       args.temperature, saved.seq_len))
        return

    text = read_text(args.text)
    vocab = ''.join(sorted(set(text)))
    index = {c: i for i, c in enumerate(vocab)}
    ids = torch.tensor([index[c] for c in text], dtype=torch.int64)
    split = int(0.95 * len(ids))
    train_set = Windows(ids[:split], args.seq_len, args.seq_len // 2 + 1)
    valid_set = Windows(ids[split:], args.seq_len, args.seq_len)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              drop_last=True)
    valid_loader = DataLoader(valid_set, batch_size=64)
    valid_batches = 20

    model = make_model(args.model, len(vocab), args)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    total_steps = args.epochs * args.steps
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr,
                                                    total_steps=total_steps, pct_start=0.1)
    first_epoch, history = 1, []
    if args.resume:
        checkpoint = torch.load(checkpoint_path)
        model.load_state_dict(checkpoint['model'])
        optimizer.load_state_dict(checkpoint['optimizer'])
        scheduler.load_state_dict(checkpoint['scheduler'])
        first_epoch, history = checkpoint['epoch'] + 1, checkpoint['history']
        print('loaded %s (after epoch %d)' % (checkpoint_path, checkpoint['epoch']))
    n_params = sum(p.numel() for p in model.parameters())
    print('%d characters, vocabulary %d, %s with %d parameters'
          % (len(text), len(vocab), args.model, n_params))

    ppl = history[-1]['perplexity'] if history else float('inf')
    last_epoch = min(args.stop_after or args.epochs, args.epochs)
    for epoch in range(first_epoch, last_epoch + 1):
        progress = Progress(args.steps, 'epoch %d/%d' % (epoch, args.epochs))
        total, step = 0.0, 0
        while step < args.steps:
            for x, y in train_loader:
                logits, _ = model(x)
                loss = F.cross_entropy(logits.reshape(-1, len(vocab)), y.reshape(-1))
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                total += loss.item()
                step += 1
                progress.update(loss.item(), step * x.numel())
                if step == args.steps:
                    break
        ppl = perplexity(model, valid_loader, valid_batches)
        elapsed = time.perf_counter() - progress.start
        history.append({'epoch': epoch, 'loss': total / step, 'perplexity': ppl})
        progress.close('loss %.3f, validation perplexity %.2f, %.1f s (%.0f chars/s)'
                       % (total / step, ppl, elapsed,
                          step * args.batch_size * args.seq_len / elapsed))
        torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                    'scheduler': scheduler.state_dict(), 'epoch': epoch, 'history': history,
                    'vocab': vocab, 'args': vars(args)}, checkpoint_path)

    print('checkpoint: %s' % os.path.abspath(checkpoint_path))
    print('sample:')
    print(generate(model, args.model, vocab, '\n', 200, args.temperature, args.seq_len))
    print('final validation perplexity: %.2f' % ppl)
    if args.max_perplexity and ppl > args.max_perplexity:
        raise SystemExit('perplexity %.2f is above the required %.2f'
                         % (ppl, args.max_perplexity))


if __name__ == '__main__':
    main()

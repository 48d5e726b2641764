#!/usr/bin/python3
"""Runs examples/python/char_lm.py as a user would, briefly: each model
trains for a few dozen steps on the fortunes and saves a checkpoint, the
validation perplexity must have fallen well below the vocabulary size (what
a model that learnt nothing scores), --resume continues from the
checkpoint, and --generate samples text from it.

  char-lm-example.py EXAMPLE BUILD_DIR
"""
import os
import re
import subprocess
import sys


def run(args):
    out = subprocess.run([sys.executable] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    print(out.stdout, end='')
    if out.returncode != 0:
        raise SystemExit('%s failed with status %d' % (' '.join(args), out.returncode))
    return out.stdout


def main():
    example, build = sys.argv[1], sys.argv[2]
    for model in ('lstm', 'transformer'):
        checkpoint = os.path.join(build, 'example-char-lm-%s.pt' % model)
        common = [example, '--model', model, '--checkpoint', checkpoint, '--seq-len', '64',
                  '--hidden', '128', '--steps', '40', '--batch-size', '16', '--epochs', '3']
        out = run(common + ['--stop-after', '2'])
        vocab = int(re.search(r'vocabulary (\d+)', out).group(1))
        first = float(re.search(r'final validation perplexity: ([0-9.]+)', out).group(1))
        if not first < vocab / 3:
            raise SystemExit('%s: perplexity %.2f after training, vocabulary %d'
                             % (model, first, vocab))
        out = run(common + ['--resume'])
        if 'after epoch 2' not in out or 'epoch 3/3' not in out:
            raise SystemExit('%s: --resume did not continue from epoch 2' % model)
        text = run([example, '--checkpoint', checkpoint, '--generate', '120', '--prompt', 'The'])
        if not text.startswith('The') or len(text.rstrip('\n')) < 100:
            raise SystemExit('%s: --generate printed %r' % (model, text))
    print('char_lm: both models trained, resumed and sampled')


if __name__ == '__main__':
    main()

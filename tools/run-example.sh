#!/bin/sh
# Installs what is missing, builds libdl, and trains the main example: a
# CNN on Fashion-MNIST through the PyTorch-compatible Python layer, with a
# DataLoader, Adam, a progress bar, a checkpoint and a plot. Extra
# arguments go to the example (e.g. --epochs 2, --resume, --evaluate,
# --help).
set -e
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
GI_TYPELIB_PATH="$PWD/build/introspection" \
LD_LIBRARY_PATH="$PWD/build/libdl" \
PYTHONPATH="$PWD/bindings/python:$PWD/build/bindings/python" \
  exec /usr/bin/python3 examples/python/fashion_mnist.py "$@"

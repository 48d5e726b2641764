#!/bin/sh
# Installs what is missing, builds libdl, and trains the main example: an
# MLP on Fashion-MNIST through the PyTorch-compatible Python layer. Extra
# arguments go to the example (e.g. --model softmax --epochs 3).
set -e
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
GI_TYPELIB_PATH="$PWD/build/introspection" \
LD_LIBRARY_PATH="$PWD/build/libdl" \
PYTHONPATH="$PWD/bindings/python:$PWD/build/bindings/python" \
  exec /usr/bin/python3 examples/python/fashion_mnist.py "$@"

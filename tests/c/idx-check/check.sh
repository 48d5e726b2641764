#!/bin/sh
# Builds idx-check, makes reference data and bad inputs with Python, runs it.
set -e
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -Wextra -I"$here/../../../libdl/data" -o "$tmp/idx-check" \
  "$here/idx-check.c" "$here/../../../libdl/data/dl-idx.c" \
  $(pkg-config --cflags --libs gio-2.0)
/usr/bin/python3 "$here/make-cases.py" "$tmp" > "$tmp/spec"
G_DEBUG=fatal-criticals,fatal-warnings ${RUNNER:-} "$tmp/idx-check" "$tmp/spec"

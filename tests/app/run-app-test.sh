#!/bin/sh
# run-app-test.sh: the garment classifier's test (suite "app"): trains the
# Python example briefly for a checkpoint, then runs tests/app/test-app.js
# under Xvfb, which drives the app and saves app-*.png into BUILD_DIR.
# Exits 77 (skipped) without GTK 4 / libadwaita typelibs, Xvfb or the data.
#
#   run-app-test.sh GJS PYTHON SOURCE_ROOT BUILD_DIR
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

gjs=$1 python=$2 src=$3 out=$4
skip() {
  echo "SKIP: $*"
  exit 77
}

command -v xvfb-run > /dev/null || skip "xvfb-run is not installed (Debian: xvfb, xauth)"
"$gjs" -c "imports.gi.versions.Gtk = '4.0'; imports.gi.versions.Adw = '1'; imports.gi.Gtk; imports.gi.Adw;" \
  2> /dev/null || skip "the GTK 4 or libadwaita typelib is missing (Debian: gir1.2-gtk-4.0, gir1.2-adw-1)"
data=${DL_FASHION_MNIST_ROOT:-/usr/share/datasets/fashion-mnist}
[ -f "$data/t10k-images-idx3-ubyte.gz" ] || skip "Fashion-MNIST is not in $data (Debian: dataset-fashion-mnist)"

# the gallery shows the first 500 test images; the Python example's
# accuracy on the same 500 images must be the app's with its checkpoint
export DL_CLASSIFIER_GALLERY_SIZE=500
checkpoint="$out/app-python.safetensors"
log="$out/app-python.log"
"$python" "$src/examples/python/fashion_mnist.py" --epochs 1 --train-limit 512 \
  --test-limit "$DL_CLASSIFIER_GALLERY_SIZE" --workers 0 --checkpoint "$checkpoint" \
  --plot "$out/app-python-curves.png" > "$log" 2>&1 || { cat "$log"; exit 1; }
accuracy=$(sed -n 's/^final test accuracy: //p' "$log")
echo "# the Python example's checkpoint: test accuracy $accuracy"

# no GL under Xvfb: GTK's cairo renderer; no accessibility bus, settings in
# memory
export GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory
exec xvfb-run -a -s "-screen 0 1280x1024x24" "$gjs" -m "$src/tests/app/test-app.js" \
  "$out" "$checkpoint" "$accuracy"

#!/bin/sh
# Installs every Debian package libdl needs to build, test, run its examples
# and benchmark. The README's quick start and .ci/run both call this script,
# so the list lives in exactly one place. Idempotent: quick when all is there.
set -e
PKGS="meson ninja-build pkg-config gcc libglib2.0-dev gobject-introspection \
libgirepository1.0-dev libjson-glib-dev libopenblas-dev libopenblas-openmp-dev valac gjs python3 python3-gi \
python3-dev python-gi-dev python3-numpy python3-pytest python3-torch python3-mpmath python3-tqdm python3-matplotlib dataset-fashion-mnist fortunes \
gi-docgen g++ libtorch-dev \
libopenmpi-dev openmpi-bin libgloo-dev libgtk-4-dev gir1.2-gtk-4.0 gir1.2-adw-1 xvfb xauth desktop-file-utils"
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "install-deps: installing$missing"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

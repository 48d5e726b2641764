#!/bin/sh
# check-installed.sh: installs the build into a temporary DESTDIR and
# builds and runs a small program against that tree the way a user would:
# C with pkg-config, Vala with valac --pkg dl-1.0, GJS through the
# installed typelib. Fails if any step fails.
#
# Usage: check-installed.sh BUILD_ROOT PREFIX LIBDIR DATADIR CC PKG_CONFIG VALAC GJS
#   (LIBDIR and DATADIR relative to PREFIX or absolute; VALAC or GJS may be
#   empty to skip that language)
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu

build_root=$1 prefix=$2 libdir=$3 datadir=$4 cc=$5 pkg_config=$6 valac=$7 gjs=$8
here=$(cd "$(dirname "$0")" && pwd)
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
case $datadir in /*) ;; *) datadir=$prefix/$datadir ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

echo "# meson install --destdir $dest"
meson install -C "$build_root" --destdir "$dest" --no-rebuild --quiet >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; exit 1; }

# pkg-config reads the tree's dl-1.0.pc, its prefix moved into the tree
# (PKG_CONFIG_SYSROOT_DIR would move GLib's directories too)
mkdir "$tmp/pkgconfig"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$dest$libdir/pkgconfig/dl-1.0.pc" >"$tmp/pkgconfig/dl-1.0.pc"
grep -q '^libdir=\${prefix}' "$tmp/pkgconfig/dl-1.0.pc"
export PKG_CONFIG_PATH="$tmp/pkgconfig"
export LD_LIBRARY_PATH="$dest$libdir"
export GI_TYPELIB_PATH="$dest$libdir/girepository-1.0"
flags=$("$pkg_config" --cflags --libs dl-1.0)

echo "# C: cc installed.c \$(pkg-config --cflags --libs dl-1.0)"
# shellcheck disable=SC2086 # the flags are words
$cc -o "$tmp/installed-c" "$here/installed.c" $flags
# the library comes from the tree, not from the build directory
ldd "$tmp/installed-c" | grep -q "libdl-1.0.so.0 => $dest$libdir/"
"$tmp/installed-c"

if [ -n "$valac" ]; then
  echo "# Vala: valac --pkg dl-1.0 --vapidir $dest$datadir/vala/vapi"
  "$valac" --vapidir "$dest$datadir/vala/vapi" --pkg dl-1.0 --target-glib=2.74 \
    -C -d "$tmp" "$here/installed.vala"
  # the vapi's dl-1.0.deps names gio-2.0, which the C compiler needs too
  # shellcheck disable=SC2086
  $cc -w -o "$tmp/installed-vala" "$tmp/installed.c" $flags $("$pkg_config" --cflags --libs gio-2.0)
  "$tmp/installed-vala"
fi

if [ -n "$gjs" ]; then
  # GJS finds the companion module in <data dir>/gjs-1.0/overrides of
  # every XDG data dir, as it does under /usr and /usr/local
  echo "# GJS: GI_TYPELIB_PATH=$GI_TYPELIB_PATH XDG_DATA_DIRS=$dest$datadir:... gjs installed.js"
  test -f "$dest$datadir/gjs-1.0/overrides/Dl.js"
  XDG_DATA_DIRS="$dest$datadir:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}" "$gjs" "$here/installed.js"
fi

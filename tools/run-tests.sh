#!/bin/sh
# Installs what is missing, configures and builds libdl, and runs the whole
# test suite (C, Python, GJS, Vala, the GIR check and the examples).
# Idempotent: on a machine where all is in place it only rebuilds and tests.
# Extra arguments go to `meson test` (e.g. a test name, or
# --wrap='valgrind --leak-check=full').
set -e
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
status=0
meson test -C build --print-errorlogs "$@" || status=$?
/usr/bin/python3 tools/summarize-tests.py build/meson-logs/testlog.json
exit $status

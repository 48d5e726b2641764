#!/bin/sh
# Builds libdl under a sanitizer in its own build directory and runs the C
# tests there (README.md, "Tests, leaks, benchmarks"):
#   tools/run-sanitized-tests.sh [address|python|thread] [arguments]
# address (the default): AddressSanitizer with UndefinedBehaviorSanitizer
#   in build-asan; any report fails the test.
# python: the pytest suite on build-asan's library (arguments go to pytest).
# thread: ThreadSanitizer in build-tsan, test-threads (eight threads
#   training at once) and the other threaded C tests, with one OpenMP
#   thread (libgomp is not instrumented; see below and tests/tsan.supp).
# Sanitized builds compile the kernels without target_clones (their ifunc
# resolvers would run before the sanitizer's runtime).
set -e
cd "$(dirname "$0")/.."
kind=${1:-address}
[ $# -gt 0 ] && shift
pytest=0
case "$kind" in
  address|python)
    [ "$kind" = python ] && pytest=1
    dir=build-asan
    sanitize=address,undefined
    export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:abort_on_error=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    ;;
  thread)
    dir=build-tsan
    sanitize=thread
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$(pwd)/tests/tsan.supp"
    # libgomp is not instrumented: TSan cannot see its barriers order the
    # work of a parallel region, and would report every region. One OpenMP
    # thread runs each region on its caller, so every access libdl makes
    # is on a thread TSan follows.
    export OMP_NUM_THREADS=1
    ;;
  *)
    echo "usage: $0 [address|python|thread] [arguments]" >&2
    exit 2
    ;;
esac
[ -f $dir/build.ninja ] || meson setup $dir -Db_sanitize=$sanitize -Db_lundef=false -Dvapi=false
ninja -C $dir
if [ "$pytest" = 1 ]; then
  # python3 is not built with the sanitizer: preload its runtime (and
  # libstdc++, so that it finds the C++ runtime torch throws through);
  # python's own allocations are not leak-checked. The DataLoader-worker and
  # multiprocessing tests (fork with threads) deadlock in ASan's allocator
  # and are left out.
  export GI_TYPELIB_PATH=$dir/introspection LD_LIBRARY_PATH=$dir/libdl
  export PYTHONPATH=bindings/python:$dir/bindings/python G_DEBUG=fatal-criticals
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so.6)"
  export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:abort_on_error=1"
  exec /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python \
    --ignore=tests/python/test_data.py --ignore=tests/python/test_multiprocessing.py "$@"
fi
if [ $# -eq 0 ]; then
  if [ "$kind" = thread ]; then
    set -- test-threads test-autograd-api test-allocator test-backend test-trainer
  else
    set -- --suite c
  fi
fi
exec meson test -C $dir --print-errorlogs --timeout-multiplier 4 "$@"

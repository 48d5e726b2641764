#!/usr/bin/python3
"""Prints 'N passed, N failed, N skipped' over one or more meson test logs,
counting the cases inside each suite: pytest's own counts, TAP's ok/not ok
lines, and one case for any other test."""
import json
import re
import sys


def count(entry):
    out = entry.get('stdout') or ''
    result = entry['result']
    last = out.strip().splitlines()[-1] if out.strip() else ''
    m = re.findall(r'(\d+) (passed|failed|error|errors|skipped)', last)
    if m and re.search(r' in [\d.]+s', last):  # pytest's closing line
        c = {'passed': 0, 'failed': 0, 'skipped': 0}
        for n, what in m:
            c['failed' if what.startswith('error') else what] += int(n)
        if result not in ('OK', 'EXPECTEDFAIL', 'SKIP') and c['failed'] == 0:
            c['failed'] = 1
        return c['passed'], c['failed'], c['skipped']
    oks = len(re.findall(r'^ok \d+', out, re.M))
    skips = len(re.findall(r'^ok \d+.*# SKIP', out, re.M | re.I))
    fails = len(re.findall(r'^not ok \d+', out, re.M))
    if oks or fails:
        if result not in ('OK', 'EXPECTEDFAIL', 'SKIP') and fails == 0:
            fails = 1
        return oks - skips, fails, skips
    if result == 'SKIP':
        return 0, 0, 1
    return (1, 0, 0) if result in ('OK', 'EXPECTEDFAIL') else (0, 1, 0)


def main(paths):
    passed = failed = skipped = 0
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                p, fl, s = count(json.loads(line))
                passed += p
                failed += fl
                skipped += s
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))


if __name__ == '__main__':
    main(sys.argv[1:] or ['build/meson-logs/testlog.json'])

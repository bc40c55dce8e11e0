#!/usr/bin/env python3
"""Prints what a `bazel test` run skipped, and why (tools/test.sh calls it after each stage).

  tools/test_skips.py STAGE_LOG TESTLOGS_DIR

Reads the test labels that STAGE_LOG (Bazel's output) reports as run, then each test's results in
TESTLOGS_DIR (bazel-testlogs of that configuration): GoogleTest cases skipped with GTEST_SKIP
(test.xml) and shell tests that printed "SKIPPED: reason" (test.log). Prints one summary line,
then the reasons, each with how many cases it skipped and where; nothing else.
"""
import collections
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

LABEL = re.compile(r'^//([^ :]*):(\S+)\s+(?:\(cached\) )?(PASSED|FAILED|FLAKY|TIMEOUT)')


def reason_of(text):
    # GTEST_SKIP messages start with "file:line" and the message on the next line.
    lines = [l.strip() for l in (text or '').splitlines() if l.strip()]
    lines = [l for l in lines if not re.match(r'^\S+:\d+$', l) and l != 'Skipped']
    return lines[0] if lines else '(no reason given)'


def main():
    log, testlogs = sys.argv[1], sys.argv[2]
    labels = []
    with open(log, errors='replace') as f:
        for line in f:
            m = LABEL.match(line)
            if m:
                labels.append((m.group(1), m.group(2)))
    reasons = collections.OrderedDict()
    total = 0
    for pkg, name in labels:
        base = os.path.join(testlogs, pkg, name)
        dirs = sorted(glob.glob(os.path.join(base, 'shard_*'))) or [base]
        for d in dirs:
            found = False
            xml_path = os.path.join(d, 'test.xml')
            if os.path.exists(xml_path):
                try:
                    root = ET.parse(xml_path).getroot()
                except ET.ParseError:
                    root = None
                for case in (root.iter('testcase') if root is not None else []):
                    skipped = case.find('skipped')
                    if skipped is None:
                        continue
                    found = True
                    total += 1
                    why = reason_of(skipped.get('message') or skipped.text)
                    # Parameterized cases: "<param> is a GEMV kernel" groups every kernel.
                    param = (case.get('name') or '').rsplit('/', 1)
                    if len(param) == 2 and param[1] and param[1] in why:
                        why = why.replace(param[1], '<param>')
                    reasons.setdefault(why, []).append('//%s:%s %s.%s' % (
                        pkg, name, case.get('classname'), case.get('name')))
            log_path = os.path.join(d, 'test.log')
            if not found and os.path.exists(log_path):
                with open(log_path, errors='replace') as f:
                    for line in f:
                        if line.startswith('SKIPPED: '):
                            total += 1
                            reasons.setdefault(line[9:].strip(), []).append('//%s:%s' % (pkg, name))
    print('skipped: %d test case%s' % (total, '' if total == 1 else 's'))
    for why, where in reasons.items():
        shown = ', '.join(where[:3]) + (' and %d more' % (len(where) - 3) if len(where) > 3 else '')
        print('  %d x %s  [%s]' % (len(where), why, shown))


if __name__ == '__main__':
    main()

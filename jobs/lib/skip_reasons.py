#!/usr/bin/python3
"""Prints why ctest skipped what it skipped, from ctest's JUnit file.

ctest shows no output for a skipped test, only "(Skipped)". GoogleTest writes
the reason on the line after "...: Skipped"; this groups the skipped tests by
that reason:  "# skipped 3 test(s): needs one visible GPU per rank: a, b, c".
Usage: skip_reasons.py CTEST_JUNIT.xml
"""
import collections
import re
import sys
import xml.etree.ElementTree as ElementTree

SHOWN_NAMES = 4  # names listed per reason before "and N more"


def skip_reason(output):
    lines = (output or "").splitlines()
    for line, following in zip(lines, lines[1:]):
        if re.search(r":\d+: Skipped$", line) and following.strip():
            return following.strip()
    return "no reason given"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: skip_reasons.py CTEST_JUNIT.xml")
    by_reason = collections.defaultdict(list)
    for case in ElementTree.parse(sys.argv[1]).getroot().iter("testcase"):
        if case.find("skipped") is not None:
            by_reason[skip_reason(case.findtext("system-out"))].append(case.get("name"))
    for reason, names in sorted(by_reason.items()):
        listed = ", ".join(names[:SHOWN_NAMES])
        more = f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
        print(f"# skipped {len(names)} test(s): {reason}: {listed}{more}")


if __name__ == "__main__":
    main()

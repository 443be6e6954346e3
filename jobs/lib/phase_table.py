#!/usr/bin/python3
"""Prints where a jobs/test.sh run spent its time: one row per phase, then the
slowest tests, then why ctest skipped what it skipped.

Usage: phase_table.py PHASE_LOG [CTEST_JUNIT.xml]
PHASE_LOG holds "name<TAB>milliseconds<TAB>outcome" lines (jobs/lib/phases.sh);
rows of one name add up (the sanitizer build is a configure and a build).
Phases that did not run (a failure before them, or switched off) say so. The
bundle's bare-root test runs inside ctest, alongside the other tests, so its
row is that test's own time, part of the ctest row.

ctest shows no output for a skipped test, only "(Skipped)". GoogleTest writes
the reason on the line after "...: Skipped"; the skipped tests are grouped by
that reason:  "# skipped 3 test(s): needs one visible GPU per rank: a, b, c".
"""
import collections
import re
import sys
import xml.etree.ElementTree as ElementTree

PHASES = ["setup", "configure", "build", "ctest", "bundle", "sanitizer build", "sanitizer tests", "fuzz"]
BUNDLE_TEST = "bundle_in_bare_root"
SLOWEST = 10
SHOWN_NAMES = 4  # names listed per skip reason before "and N more"


def read_phases(path):
    seconds = collections.defaultdict(float)
    outcome = {}
    try:
        with open(path, encoding="utf-8") as log:
            for line in log:
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 3:
                    continue
                name, ms, result = fields
                seconds[name] += int(ms) / 1000
                if outcome.get(name, "ok") == "ok":
                    outcome[name] = result
    except FileNotFoundError:
        pass
    return seconds, outcome


def skip_reason(output):
    lines = (output or "").splitlines()
    for line, following in zip(lines, lines[1:]):
        if re.search(r":\d+: Skipped$", line) and following.strip():
            return following.strip()
    return "no reason given"


def read_tests(path):
    """(seconds, name, result, skip reason or None) for each test of ctest's JUnit file."""
    if not path:
        return []
    try:
        root = ElementTree.parse(path).getroot()
    except (FileNotFoundError, ElementTree.ParseError):
        return []
    tests = []
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.get("status") == "fail":
            result = "failed"
        elif case.find("skipped") is not None:
            result = "skipped"
        else:
            result = "passed"
        reason = skip_reason(case.findtext("system-out")) if result == "skipped" else None
        tests.append((float(case.get("time") or 0), case.get("name"), result, reason))
    return tests


def clock(seconds):
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: phase_table.py PHASE_LOG [CTEST_JUNIT.xml]")
    seconds, outcome = read_phases(sys.argv[1])
    tests = read_tests(sys.argv[2] if len(sys.argv) == 3 else None)
    bundle = [t for t in tests if t[1] == BUNDLE_TEST]
    if bundle:
        seconds["bundle"] = bundle[0][0]
        outcome["bundle"] = f"{bundle[0][2]} (inside ctest)"

    print("# phase             m:ss     outcome")
    total = 0.0
    for name in PHASES:
        if name in outcome:
            if name != "bundle":
                total += seconds[name]
            print(f"# {name:<16} {clock(seconds[name]):>7}   {outcome[name]}")
        elif name == "setup":
            print(f"# {name:<16} {'-':>7}   not measured (.ci/run measures it)")
        else:
            print(f"# {name:<16} {'-':>7}   not run")
    print(f"# {'total':<16} {clock(total):>7}")
    if tests:
        print(f"# slowest tests of {len(tests)} (s):")
        for time, name, result, _ in sorted(tests, reverse=True)[:SLOWEST]:
            print(f"#   {time:7.1f}  {name} ({result})")
    by_reason = collections.defaultdict(list)
    for _, name, _, reason in tests:
        if reason is not None:
            by_reason[reason].append(name)
    for reason, names in sorted(by_reason.items()):
        listed = ", ".join(names[:SHOWN_NAMES])
        more = f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
        print(f"# skipped {len(names)} test(s): {reason}: {listed}{more}")


if __name__ == "__main__":
    main()

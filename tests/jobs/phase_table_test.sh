#!/usr/bin/env bash
# jobs/test.sh's phase table: phases recorded by tpb_phase (a failing one
# included) and a ctest JUnit file give one row per phase, the phases that did
# not run named as such, the bundle test's row, the slowest tests first, and
# the skipped tests grouped by GoogleTest's reason.
# Usage: phase_table_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
root=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
. "$root/jobs/lib/phases.sh"
export TPB_PHASE_LOG="$work/phases.tsv"
tpb_phase configure true
tpb_phase build true
tpb_phase "sanitizer build" true
tpb_phase "sanitizer build" true
status=0
tpb_phase ctest sh -c 'exit 8' || status=$?
[ "$status" -eq 8 ] || { echo "tpb_phase returned $status, not the command's 8"; exit 1; }
cat >"$work/junit.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="t" tests="5">
  <testcase name="quick" classname="quick" time="0.5" status="run"/>
  <testcase name="slow" classname="slow" time="42.25" status="fail"><failure message="Failed"/></testcase>
  <testcase name="bundle_in_bare_root" classname="bundle_in_bare_root" time="75" status="notrun"><skipped message="Skipped"/></testcase>
  <testcase name="gpu_a" classname="gpu_a" time="0.1" status="notrun"><skipped message="Skipped"/><system-out>[ RUN      ] Gpu.A
gpu_test.cpp:12: Skipped
needs one visible GPU per rank
</system-out></testcase>
  <testcase name="gpu_b" classname="gpu_b" time="0.1" status="notrun"><skipped message="Skipped"/><system-out>gpu_test.cpp:30: Skipped
needs one visible GPU per rank
</system-out></testcase>
</testsuite>
XML
table=$(/usr/bin/python3 "$root/jobs/lib/phase_table.py" "$TPB_PHASE_LOG" "$work/junit.xml")
echo "$table"
expect() {
  grep -Eq "$1" <<<"$table" || { echo "phase table lacks a line matching: $1"; exit 1; }
}
expect '^# setup +- +not measured'
expect '^# configure +0:0[0-9]\.[0-9] +ok$'
expect '^# ctest +0:0[0-9]\.[0-9] +FAILED \(exit 8\)$'
expect '^# bundle +1:15\.0 +skipped \(inside ctest\)$'
expect '^# sanitizer build +0:0[0-9]\.[0-9] +ok$'
expect '^# sanitizer tests +- +not run$'
expect '^# fuzz +- +not run$'
expect '^# skipped 2 test\(s\): needs one visible GPU per rank: gpu_a, gpu_b$'
expect '^# skipped 1 test\(s\): no reason given: bundle_in_bare_root$'
[ "$(grep -c '^# sanitizer build' <<<"$table")" -eq 1 ] || { echo "two rows of one phase were not added up"; exit 1; }
slowest=$(grep -A3 '^# slowest tests' <<<"$table" | tail -n 3 | awk '{print $3}' | paste -sd' ')
[ "$slowest" = "bundle_in_bare_root slow quick" ] || { echo "slowest tests in the wrong order: $slowest"; exit 1; }
echo "phase table test passed"

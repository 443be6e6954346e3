#!/usr/bin/env bash
# device_check.sh --dry-run: every step listed with its budget, in the order the
# check promises (the timings first, then the tests, the sanitizer last),
# budgets summing to at most 480 s, and nothing run or written.
# Usage: device_check_dry_run.sh SOURCE_DIR WORK_DIR
set -euo pipefail
out=$2/dry_run_out
rm -rf "$out"
listing=$("$1/jobs/device_check.sh" --dry-run "$out")
echo "$listing"
[ ! -e "$out" ] || { echo "FAIL: --dry-run wrote $out" >&2; exit 1; }
order=("tpbench-run true" "mpi_bench info --gpu" "step .*llama-3.1-8b.* --tp 1 .* --check" "step .*llama-3.1-8b.* --tp 1 .* --graph"
  "replay .*llama-3.1-70b.* --tp 2,4,8 .*-n 10 -o" "replay .*llama-3.1-70b.* --tp 2,4,8 .* --graph" "mpi_bench d2d"
  "timing tables" test_tp_decoder_cuda_gpu "mpirun -np 1 .*test_collectives_gpu"
  "compute-sanitizer --tool memcheck --report-api-errors no .* replay .* --tp 1 ")
previous=0
for pattern in "${order[@]}"; do
  line=$(echo "$listing" | grep -n -E -- "$pattern" | head -n 1 | cut -d: -f1)
  [ -n "$line" ] || { echo "FAIL: no step matches '$pattern'" >&2; exit 1; }
  [ "$line" -gt "$previous" ] || { echo "FAIL: '$pattern' is out of order" >&2; exit 1; }
  previous=$line
done
sum=$(echo "$listing" | awk '$1 ~ /^[0-9]+s$/ { s += substr($1, 1, length($1) - 1) } END { print s }')
total=$(echo "$listing" | sed -n 's/^# total of the budgets: \([0-9]*\) s$/\1/p')
[ "$sum" = "$total" ] || { echo "FAIL: the budgets sum to $sum s, the script says $total s" >&2; exit 1; }
[ "$sum" -le 480 ] || { echo "FAIL: budgets sum to $sum s, over 8 minutes" >&2; exit 1; }
grep -q "steps' timeouts sum to $sum s" "$1/jobs/device_check.sh" ||
  { echo "FAIL: the script's header does not give the total, $sum s" >&2; exit 1; }
echo "device_check.sh --dry-run: ${#order[@]} steps in order, budgets sum to $sum s"

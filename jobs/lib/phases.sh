# Sourced by jobs/*.sh. tpb_phase NAME CMD...: runs CMD and, when
# TPB_PHASE_LOG names a file, appends "NAME<TAB>seconds<TAB>ok|FAILED (exit N)"
# to it, for the phase table jobs/test.sh prints (jobs/lib/phase_table.py).
# Returns CMD's exit status.
tpb_phase() {
  local name=$1 start status=0
  shift
  start=$(date +%s%N)
  "$@" || status=$?
  if [ -n "${TPB_PHASE_LOG:-}" ]; then
    local outcome=ok
    [ "$status" -eq 0 ] || outcome="FAILED (exit $status)"
    printf '%s\t%s\t%s\n' "$name" "$(( ($(date +%s%N) - start) / 1000000 ))" "$outcome" >>"$TPB_PHASE_LOG"
  fi
  return "$status"
}

#!/usr/bin/env bash
# Issue 46 acceptance: the quick start's study, staged, with three outside forms.
set -euo pipefail
cd /work/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
B=$PWD/build-sim/mpi_bench/mpi_bench
O=/tmp/acc46b
root=$PWD
source jobs/lib/quickstart-flags.sh
echo "== commit $(git rev-parse --short HEAD)  $(date -u +%FT%TZ)"
/usr/bin/time -f "calibrate %e s" mpirun --oversubscribe -np 2 $B calibrate "${tpb_quickstart_flags[@]}" -o $O/study.h5 --overwrite
$B calibration $O/study.h5 -o $O/calibration.json
/usr/bin/python3 jobs/examples/predict_from_calibration.py $O/calibration.json -o $O/example.csv
/usr/bin/python3 /tmp/outside_predictor/amdahl.py $O/calibration.json $O/amdahl.json
/usr/bin/python3 - <<'PY'
import json
d=json.load(open('/tmp/acc46b/calibration.json'))
rows=["k,batch,context,t_step_us"]
for c in d['cells']:
    if not c['in_grid']: continue
    a=c['anchors']; t=c['collective_terms']; n=c['ledger']['collectives']
    coll=n['n_ar']*t['t_ar_sweep_us']+n['n_ag']*t['t_ag_sweep_us']
    rows.append(f"{c['k']},{c['batch']},{c['context']},{3*(a['t_replay_us']+coll):.3f}")
open('/tmp/acc46b/three_times.csv','w').write("\n".join(rows)+"\n")
PY
$B register $O/study.h5 --form example=$O/example.csv --form amdahl=$O/amdahl.json --form three_times=$O/three_times.csv
sha_before=$(sha256sum $O/predictions.json | cut -c1-64)
echo "9,9,9,1" >> $O/example.csv   # an edit to FILE after registration
/usr/bin/time -f "measure %e s" mpirun --oversubscribe -np 2 $B measure $O/study.h5
$B verdict $O/study.h5
$B report $O/study.h5 -o $O/report
$B verify $O/study.h5
sha_after=$(sha256sum $O/predictions.json | cut -c1-64)
echo "predictions.json before/after the FILE edit: $sha_before $sha_after"
echo "== done $(date -u +%FT%TZ)"

#!/usr/bin/python3
"""Checks what `run --ablate-collective oneshot` leaves in its directory.

Usage: check_study_ablation.py DIR
The study's own sweeps and steps stay under /sweep* and /step (collective mpi);
the ablation's sweeps (k = 2 only: no collective runs at k = 1), registration
and TP-2 steps are under /ablation/oneshot; its registration is sealed in
predictions_oneshot.json, registered before its steps began, and predicts
from its own sweeps; report.md has the ablation section with a row per k and
a row per form with both implementations' single-pass MAPE and no verdict
(the study decides only over rounds).
"""
import hashlib
import json
import os
import sys

import h5py

out = sys.argv[1]
with h5py.File(os.path.join(out, "study.h5"), "r") as f:
    for root in ("/sweep", "/sweep_allgather"):
        assert f[f"{root}/k2"].attrs["collective"] == "mpi", root
        assert f[f"{root}/k2"].attrs["collective_memory"] == "host", root
        assert "k1" not in f[root], root  # a group of one rank issues no collective: never swept
    # A step point names its group's collective and where its data lived; a
    # point where no collective ran (TP-1, a replay, --no-comm) names none.
    for point in ("k2/b1_c16", "k2/b2_c16"):
        g = f[f"/step/{point}"]
        assert (g.attrs["collective"], g.attrs["collective_memory"]) == ("mpi", "host"), point
    for point in ("/step/k1/b1_c16", "/replay/k2/b1_c16", "/step_nocomm/k2/b1_c16"):
        assert "collective" not in f[point].attrs and "collective_memory" not in f[point].attrs, point
    abl = f["/ablation/oneshot"]
    assert abl.attrs["collective"] == "oneshot"
    for root in ("sweep", "sweep_allgather"):
        assert sorted(abl[root].keys()) == ["k2"], (root, list(abl[root].keys()))
        g = abl[f"{root}/k2"]
        assert g.attrs["collective"] == "oneshot", (root, g.attrs["collective"])
        assert g.attrs["collective_memory"] == "host", (root, g.attrs["collective_memory"])
        assert (g["wrong"][...] == 0).all() and (g["wrong_inplace"][...] == 0).all(), root
    assert sorted(abl["step"].keys()) == ["k2"], list(abl["step"].keys())
    assert sorted(abl["step/k2"].keys()) == ["b1_c16", "b2_c16"], list(abl["step/k2"].keys())
    for point in ("b1_c16", "b2_c16"):
        # 4 iterations; one TP-2 group, whose slowest rank is t_step_us, of 2 ranks (t_rank_us).
        t = abl[f"step/k2/{point}/t_step_us"][...]
        ranks = abl[f"step/k2/{point}/t_rank_us"][...]
        assert t.shape == (4, 1) and (t > 0).all(), (point, t.shape)
        assert ranks.shape == (4, 2) and (t[:, 0] == ranks.max(axis=1)).all(), (point, ranks.shape)
        step = abl[f"step/k2/{point}"]
        assert (step.attrs["collective"], step.attrs["collective_memory"]) == ("oneshot", "host"), point
        assert f"/step/k2/{point}/t_step_us" in f, point  # the study's own step is still there
    text = abl["prereg/predictions_json"][0]
    text = text.decode() if isinstance(text, bytes) else text
    sha = abl["prereg"].attrs["sha256"]
    assert hashlib.sha256(text.encode()).hexdigest() == sha
    assert abl["prereg"].attrs["registered_at"] < abl["step"].attrs["measure_started_at"]
    assert abl["step"].attrs["prereg_sha256"] == sha
    own = json.loads(f["/prereg/predictions_json"][0])
with open(os.path.join(out, "predictions_oneshot.json"), encoding="utf-8") as j:
    assert j.read() == text
with open(os.path.join(out, "predictions_oneshot.json.sha256"), encoding="utf-8") as j:
    assert j.read().split()[0] == sha
reg = json.loads(text)
assert reg["grid"]["tp"] == [2], reg["grid"]["tp"]
# Same compute inputs as the study's registration, the collective inputs from the one-shot sweeps.
def cells(r):
    return {(c["batch"], c["context"], c["k"]): c for c in r["calibration_inputs"]}
mine, theirs = cells(reg), cells(own)
assert set(mine) == {(1, 16, 2), (2, 16, 2)}, set(mine)
for key, inputs in mine.items():
    assert inputs["t_compute1_us"] == theirs[key]["t_compute1_us"], key
    assert inputs["t_ar_sweep_us"] != theirs[key]["t_ar_sweep_us"], key
with open(os.path.join(out, "report.md"), encoding="utf-8") as r:
    report = r.read()
section = report.split("## Collective ablation: oneshot in place of mpi", 1)
assert len(section) == 2, "report.md has no ablation section"
section[1] = section[1].split("\n## ", 1)[0]  # up to the next section (the Decision)
rows = [line for line in section[1].splitlines() if line.startswith("| 2 |")]
assert len(rows) == 1, rows
forms = [line for line in section[1].splitlines() if line.startswith("| ideal | 2 |")]
assert len(forms) == 1, forms
# Both MAPEs and their difference, in points.
mape_own, mape_other, change = (float(cell) for cell in forms[0].strip("|").split("|")[2:5])
assert abs(mape_other - mape_own - change) < 0.011, forms[0]
# One pass is described, never judged: no verdict word anywhere in the section.
for word in ("HOLDS", "FALSIFIED", "INCONCLUSIVE", "verdict changes"):
    assert word not in section[1], (word, section[1])
# A form whose host term the cpu backend cannot measure is not judged here either.
host_forms = [line for line in section[1].splitlines() if line.startswith("| host_floor | 2 |")]
assert len(host_forms) == 1 and host_forms[0].count("NOT_APPLICABLE") == 2, host_forms
print("ablation OK")

#!/usr/bin/python3
"""An Amdahl-style TP model written from tpbench's docs/CALIBRATION.md and the
--form JSON format only: t(k) = t_compute1 * (s + (1 - s)/k) + collectives."""
import json, sys
SERIAL = 0.05
doc = json.load(open(sys.argv[1]))
rows = []
for c in doc["cells"]:
    if not c["in_grid"]:
        continue
    k = c["k"]
    coll = c["ledger"]["collectives"]
    terms = c["collective_terms"]
    collective = coll["n_ar"] * terms["t_ar_sweep_us"] + coll["n_ag"] * terms["t_ag_sweep_us"]
    compute = c["anchors"]["t_compute1_us"] * (SERIAL + (1 - SERIAL) / k)
    rows.append({"k": k, "batch": c["batch"], "context": c["context"], "t_step_us": compute + collective,
                 "compute_us": compute, "collective_us": collective, "host_us": 0.0})
json.dump({"predictions": rows}, open(sys.argv[2], "w"), indent=1)

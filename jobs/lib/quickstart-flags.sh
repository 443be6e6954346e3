# shellcheck shell=bash
# The quick start's study flags, in one place (sourced; needs $root, the
# checkout): jobs/lib/quickstart-study.sh runs them once, jobs/campaign.sh as
# a campaign's sealed design. Why these values: jobs/lib/quickstart-study.sh.
tpb_quickstart_flags=(
  --model "$root/tp_decoder/configs/llama-3.2-1b.json" --layers 2
  --tp 1,2 --batch 1,4 --context 256 -w 0 -n 1 --sweep-iters 20 --calibration-rounds 10
  --rounds 80 --time-budget 150
)

#!/bin/sh
# Imports DeepSeek's published H800 profiler trace (github.com/deepseek-ai/
# profile-data train.json; kept in the workspace's shared/data/traces, not
# in the repository: it has no licence of its own) and checks that the
# calibration it gives loads (`roofplan check`) and that the expected step
# of DeepSeek-V3's published plan with it is within 20% of the measured
# 19.926 s (ISCA'25 Table 4). Skips, saying so, where the trace is absent.
#   scripts/check-deepseek-trace.sh [TRACE]   (default ../shared/...)
set -eu
cd "$(dirname "$0")/.."
trace=${1:-../shared/data/traces/deepseek-v3-train-h800.json}
bin=${ROOFPLAN:-build/roofplan}
if [ ! -f "$trace" ]; then
    echo "SKIP: $trace absent: the DeepSeek trace import is not checked"
    exit 0
fi
plan="gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 recompute=selective mbs=1 gbs=15360"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" -q import trace --plan "$plan" "$trace" >"$tmp/h800.ini" 2>"$tmp/table"
"$bin" check "$tmp/h800.ini"
# shellcheck disable=SC2086
"$bin" eval $plan --calibration "$tmp/h800.ini" >"$tmp/eval"
step=$(sed -n 's/^  expected step  *\([0-9.]*\)$/\1/p' "$tmp/eval")
awk -v s="$step" 'BEGIN {
    e = (s - 19.926) / 19.926
    printf "DeepSeek trace: expected step %.3f s with its calibration, %+.1f%% off the measured 19.926 s\n", s, 100 * e
    exit (s > 0 && e <= 0.2 && e >= -0.2) ? 0 : 1 }'

# A first pipeline stage of the embedding alone (issue 34 item 2): eval,
# a sweep and --calibrate give finite times (they printed -nan and inf,
# and --calibrate fitted compute_overhead = 2 on the NaN), and the split
# Megatron-LM refuses (pp=2 with every layer on the last stage) is
# refused. Megatron-LM allows the layout ("Empty stages are allowed",
# docs/user-guide/features/pipeline_parallel_layout.md) and makes such a
# stage with --account-for-embedding-in-pipeline-split where every chunk
# holds one layer. Sourced by tests/run_integration.sh.
ES=$TMP/empty-stage
mkdir -p "$ES"
CHECK="$PY tests/xlsx_check.py"
export SOURCE_DATE_EPOCH=1735689600
EMPTY="gpus=2048 tp=1 pp=2 ep=64 zero=1 precision=fp8 recompute=selective mbs=1 gbs=15360 pp_layout=E|t*61mL"

no_nan() { # FILE...: no NaN or infinity written
    ! grep -qiwE 'nan|-nan|inf|-inf' "$@"
}

for s in 1f1b zb; do
    expect 0 "slowest at the expected rates: pipeline rank 1" -- \
        $ROOFPLAN eval $EMPTY schedule=$s
    cp "$TMP/out" "$ES/eval-$s.txt"
    check "eval, $s, embedding-only first stage: no nan or inf" no_nan "$ES/eval-$s.txt"
    expect 0 "" -- $ROOFPLAN eval --json $EMPTY schedule=$s
    check "eval --json, $s: finite step and expected step, rank 1 the slowest" \
        $PY -c "
import json, sys
j = json.load(open(sys.argv[1]))
t = j['time_s']
assert t['step'] > 0 and t['expected'] > t['step'], t
" "$TMP/out"
done
# The stage holding every layer waits for no other stage's ramp: 1F1B
# and ZB1P differ only in the bubble, so their steps are the same.
check "1f1b and zb give the same step with an empty first stage" \
    bash -c "[ \"\$(grep '^  step, overlapped' '$ES/eval-1f1b.txt')\" = \"\$(grep '^  step, overlapped' '$ES/eval-zb.txt')\" ]"

# A sweep: the tiny MoE model with 7 layers on pp=8, the embedding
# counted as a layer (Megatron's split): the first stage holds none.
expect 0 "" -- $ROOFPLAN report -q --no-charts --all-plans \
    -m tests/data/tiny-moe.ini --set model.layers=7 --set space.pp=8 \
    --set space.pp_split=embedding --set "space.schedule=1f1b zb" \
    --set space.tp=1 --set "space.ep=1 16" --set space.zero=1 \
    --set space.mbs=1 --set space.precision=bf16 --set space.recompute=none \
    -o "$ES/sweep"
check "sweep, embedding-only first stage: stdout has no nan or inf" no_nan "$TMP/out"
check "sweep: plans.csv lists the four plans" \
    test "$(tail -n +2 "$ES/sweep/plans.csv" | wc -l)" -eq 4
check "sweep: plans.csv has no nan or inf" no_nan "$ES/sweep/plans.csv"
check "sweep: no cell of the workbook is NaN or infinite (Summary, Families, ...)" \
    $CHECK finite "$ES/sweep/report.xlsx"
$ROOFPLAN eval -m tests/data/tiny-moe.ini --set model.layers=7 gpus=2048 \
    tp=1 pp=8 ep=1 zero=1 schedule=1f1b precision=bf16 recompute=none mbs=1 \
    gbs=15360 pp_split=embedding >"$ES/tiny.txt" 2>&1
check "the sweep's split puts the embedding alone first" \
    grep -q "layers per pipeline chunk: E+0 1 1 1 1 1 1 1+H" "$ES/tiny.txt"

# pp=2 with every layer last: Megatron-LM refuses ("Mismatch: 0 middle
# layers remaining but 1 middle PP stages available"); so does a sweep.
expect 2 "PLAN: pp_first=0 pp_last=61: with pp=2 and vpp=1 the other 0 layers must split equally" -- \
    $ROOFPLAN eval gpus=2048 tp=1 pp=2 ep=64 zero=1 schedule=1f1b \
    precision=fp8 recompute=selective mbs=1 gbs=15360 pp_last=61
expect 0 "4 plans enumerated, 2 valid" -- $ROOFPLAN report --no-charts \
    --all-plans --set space.pp=2 --set "space.pp_last=0 61" --set space.tp=1 \
    --set space.ep=64 --set space.zero=1 --set "space.schedule=1f1b zb" \
    --set space.recompute=selective --set space.mbs=1 \
    --set space.precision=fp8 --set space.pp_split=balanced -o "$ES/last"
check "sweep with pp_last = every layer: plans.csv has no nan or inf" \
    no_nan "$ES/last/plans.csv"

# --calibrate on a run of that plan: a fit inside the bounds that
# reproduces the measured step (it was 2, the bound, on a NaN).
printf '[run]\nname = embedding alone first\nmodel = models/deepseek-v3.ini\nhardware = hardware/h800.ini\nplan = %s schedule=1f1b\nstep_s = 46\nstack = stacks/deepseek-hai.ini\n' \
    "$EMPTY" >"$ES/run.ini"
expect 0 "(bounds 1..2, inside)" -- \
    $ROOFPLAN eval --calibrate "$ES/run.ini" $EMPTY schedule=1f1b
check "--calibrate on an embedding-only first stage: no nan or inf" no_nan "$TMP/out" "$TMP/err"
check "--calibrate on an embedding-only first stage reproduces the measured 46 s" \
    grep -qE "measured 46.000 s/step; expected [0-9.]+ s .*, 46.000 s fitted \(residual [-+]0.00%\)" \
    "$TMP/err" "$TMP/out"
unset SOURCE_DATE_EPOCH

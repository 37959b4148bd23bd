# scripts/measure-gpu without a GPU: its INI writer renders the H200
# measurements (shared/facts/h200-measured.md, as tests/data/calibration/
# h200-measured.json) into the file test_calibration.c loads, and it reads
# a model's GEMM shapes as the measurements were taken.

check "measure-gpu renders the H200 measurements as tests/golden/calibration-h200.ini" \
    sh -c "$PY -B scripts/measure-gpu --render tests/data/calibration/h200-measured.json \
        --hardware-gpu 'NVIDIA H200 SXM 141GB' -o '$TMP/h200.ini' && diff -u tests/golden/calibration-h200.ini '$TMP/h200.ini'"

# DeepSeek-V3's GEMM shapes from data/models/deepseek-v3.ini are those the
# H200 facts name (MLA q down 7168->1536, ...); the class rate of several
# GEMMs is total FLOPs over total time: for the five MLA projections at
# 4096 tokens, 187105280 N K over 247894.9 (N K / TFLOP/s) = 754.78 TFLOP/s.
check "measure-gpu reads DeepSeek-V3's shapes and weighs a class by FLOPs" \
    $PY -B - <<'PYEOF'
import importlib.machinery, importlib.util, json
loader = importlib.machinery.SourceFileLoader("measure_gpu", "scripts/measure-gpu")
spec = importlib.util.spec_from_loader("measure_gpu", loader)
mg = importlib.util.module_from_spec(spec)
loader.exec_module(mg)
shapes = mg.model_shapes("data/models/deepseek-v3.ini")
facts = json.load(open("tests/data/calibration/h200-measured.json"))
for cls, entry in facts["gemm"].items():
    want = [(s["n"], s["k"]) for s in entry["shapes"]]
    got = [(n, k) for _, n, k in shapes["classes"][cls]]
    assert got == want, (cls, got, want)
assert shapes["head_dims"] == [128, 192], shapes["head_dims"]
mla = facts["gemm"]["attn_proj"]["shapes"]
rate = mg.class_rate([(s["n"], s["k"]) for s in mla], [s["bf16"][0] for s in mla])
assert abs(rate - 754.78) < 0.01, rate
# A list longer than a data-file line is refused, not cut.
facts["gemm"]["expert_up"]["m_tokens"] = list(range(1, 60))
for s in facts["gemm"]["expert_up"]["shapes"]:
    s["bf16"] = [100.5] * 59
    s["fp8"] = None
try:
    mg.render_ini(facts)
except ValueError as e:
    assert "m_tokens" in str(e) or "bf16_tflops" in str(e), e
else:
    raise AssertionError("a 59-value list was rendered")
PYEOF

# Every shipped cluster has a calibration that `check` accepts, so every
# cluster gets an expected step: `compare` never sets a speed of light
# beside a forecast (its "expect s" column shows "-" for a cluster
# without one).
check "every data/hardware file has a data/calibration file that check accepts" \
    sh -c 'for h in data/hardware/*.ini; do
        c=data/calibration/$(basename "$h")
        [ -f "$c" ] || { echo "$h: no $c"; exit 1; }
        $ROOFPLAN check "$c" || exit 1
    done'
# (compare prints a model's heading, then its clusters: a rank without
# "SOL" is a pair with an expected step)
check "compare gives B200 and H800 an expected step" \
    sh -c "$ROOFPLAN compare -q -m data/models/deepseek-v3.ini \
        -g data/hardware/b200.ini -g data/hardware/h800.ini -o '$TMP/cmp' \
        >'$TMP/cmp.txt' && awk '/^DeepSeek-V3 / { m++ }
        \$1 ~ /^[0-9]+\$/ && /NVIDIA/ { n++ } \$1 == \"SOL\" { bad++ }
        END { exit !(m == 1 && n == 2 && !bad) }' '$TMP/cmp.txt'"
# Every calibration value has bounds (issue 20, defect 2): a GEMM rate of
# 1e-300 TFLOP/s made a 300-digit step, "inf days, $infM" and inf in
# plans.csv with exit 0; it is refused with its key and range.
CAL_PLAN="gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 recompute=selective mbs=1 gbs=15360"
expect 2 "h800.ini: --set gemm_attn_proj.bf16_tflops=1e-300: expected values in [0.1, 1e+06], got 1e-300" -- \
    $ROOFPLAN eval --set gemm_attn_proj.bf16_tflops=1e-300 $CAL_PLAN
expect 2 "h800.ini: --set elementwise.norm_tbps=1e-300: expected 0 (not measured) or at least 0.01, got 1e-300" -- \
    $ROOFPLAN eval --set elementwise.norm_tbps=1e-300 $CAL_PLAN

# A calibration is for one GPU, with no rate above its peaks (issue 20,
# defect 3): the H800 file with A100 hardware was taken silently, and
# rates above peak put the expected step below the speed of light. The
# messages name the file's own line of each key.
HWGPU_LINE=$(grep -n '^hardware_gpu =' data/calibration/h800.ini | cut -d: -f1)
EXPUP_LINE=$(awk '/^\[gemm_expert_up\]/ { s = 1 } s && /^bf16_tflops =/ { print NR; exit }' data/calibration/h800.ini)
expect 2 "data/calibration/h800.ini:$HWGPU_LINE"': calibration.hardware_gpu: "NVIDIA H800 SXM5 80GB" is not the GPU of the hardware it is used with (data/hardware/a100.ini:5: gpu.name = "NVIDIA A100 SXM4 80GB")' -- \
    $ROOFPLAN eval -g data/hardware/a100.ini --calibration data/calibration/h800.ini gpus=64 tp=8 pp=8
expect 2 'calibration.hardware_gpu: "NVIDIA H800 SXM5 80GB" is not the GPU' -- \
    $ROOFPLAN check data/calibration/h800.ini data/hardware/a100.ini
# every shipped calibration is for a shipped hardware file, under its peaks
expect 0 "" -- $ROOFPLAN check data/calibration/*.ini data/hardware/*.ini
# the H800 file's expert_up BF16 rate (783) above a lowered peak
expect 2 "h800.ini:$EXPUP_LINE: gemm_expert_up.bf16_tflops: 783 is above the GPU's peak (data/hardware/h800.ini: --set gpu.bf16_peak_tflops = 760)" -- \
    $ROOFPLAN eval --set gpu.bf16_peak_tflops=760 $CAL_PLAN
# compare: --calibration times the clusters whose GPU it names, the others
# keep their own (it applied the H800 file to the A100 cluster too); a
# file for none of them is refused
cal_compare_own() {
    $ROOFPLAN compare -q -m data/models/llama-3.1-70b.ini -g data/hardware/h800.ini \
        -g data/hardware/a100.ini --calibration data/calibration/h800.ini \
        -o "$TMP/cal-cmp" >"$TMP/cal-cmp.txt" || return 1
    $ROOFPLAN compare -q -m data/models/llama-3.1-70b.ini -g data/hardware/a100.ini \
        -o "$TMP/cal-cmp1" >"$TMP/cal-cmp1.txt" || return 1
    # the same row but for its rank (column 1) among the clusters compared
    test "$(grep A100 "$TMP/cal-cmp.txt" | cut -c7-)" = "$(grep A100 "$TMP/cal-cmp1.txt" | cut -c7-)" &&
        grep H800 "$TMP/cal-cmp.txt" | grep -qv ' - '
}
check "compare --calibration: the A100 cluster keeps its own calibration" cal_compare_own
expect 2 "data/calibration/h800.ini:$HWGPU_LINE"': calibration.hardware_gpu: "NVIDIA H800 SXM5 80GB" is the GPU of none of the 2 clusters compared (-g)' -- \
    $ROOFPLAN compare -q -m data/models/llama-3.1-70b.ini -g data/hardware/h200.ini \
        -g data/hardware/a100.ini --calibration data/calibration/h800.ini -o "$TMP/cal-cmp2"

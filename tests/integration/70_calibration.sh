# scripts/measure-gpu without a GPU: its INI writer renders the H200
# measurements (shared/facts/h200-measured.md, as tests/data/calibration/
# h200-measured.json) into the file test_calibration.c loads, and it reads
# a model's GEMM shapes as the measurements were taken.

check "measure-gpu renders the H200 measurements as tests/golden/calibration-h200.ini" \
    sh -c "$PY -B scripts/measure-gpu --render tests/data/calibration/h200-measured.json \
        -o '$TMP/h200.ini' && diff -u tests/golden/calibration-h200.ini '$TMP/h200.ini'"

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
check "compare gives B200 and H800 an expected step" \
    sh -c "$ROOFPLAN compare -q -m data/models/deepseek-v3.ini \
        -g data/hardware/b200.ini -g data/hardware/h800.ini -o '$TMP/cmp' \
        >'$TMP/cmp.txt' && awk '/^DeepSeek-V3/ { n++; if (\$(NF-4) == \"-\") bad++ }
        END { exit !(n == 2 && !bad) }' '$TMP/cmp.txt'"

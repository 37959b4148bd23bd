# Hugging Face config.json models (issue 13): the config as published and
# our INI file give the same plan; check accepts config.json and training
# recipes; the Assumptions sheet names the file each value came from.
HFDS="gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 recompute=selective mbs=1 gbs=15360"

# eval --json ARGS...: a python expression over `j` must hold.
hf_json() {
    local expr=$1
    shift
    $ROOFPLAN eval --json "$@" >"$TMP/hf-j.json" 2>"$TMP/hf-j.err" &&
        $PY -c 'import json, sys; j = json.load(open(sys.argv[1])); assert eval(sys.argv[2]), sys.argv[2]' \
            "$TMP/hf-j.json" "$expr"
}

# eval --json of two model files, equal but for the model's name.
hf_same_eval() { # A B PLAN...
    local a=$1 b=$2
    shift 2
    $ROOFPLAN eval --json -m "$a" "$@" >"$TMP/hf-a.json" &&
        $ROOFPLAN eval --json -m "$b" "$@" >"$TMP/hf-b.json" &&
        $PY - "$TMP/hf-a.json" "$TMP/hf-b.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a.pop("model"); b.pop("model")
assert a == b, [k for k in a if a[k] != b.get(k)]
PYEOF
}
# tests/data/hf/deepseek-v3.config.json is a byte-for-byte copy of the
# project's reference file (tests/data/hf/README.md), so no test reads the
# workspace outside the repository.
check "eval: DeepSeek-V3's config.json = data/models/deepseek-v3.ini" \
    hf_same_eval tests/data/hf/deepseek-v3.config.json data/models/deepseek-v3.ini $HFDS
check "eval --json: Kimi K2's config.json, 1026.4B total" \
    hf_json 'j["model"]=="kimi-k2-instruct" and j["params"]["total"]==1026408209408' \
    -m tests/data/hf/kimi-k2-instruct.config.json gpus=2048 pp=16 ep=64 zero=1 gbs=16384

# check: silent on config.json files and training recipes
expect 0 "" -- $ROOFPLAN check tests/data/hf/*.json tests/data/hf/synthetic/*.json data/training/*.ini data/models/*.ini
check "check prints nothing on config.json files" test ! -s "$TMP/out" -a ! -s "$TMP/err"
expect 2 "unknown section in a training recipe file (accepted: [model] [mtp] [training] [fp8])" -- \
    $ROOFPLAN eval -m tests/data/hf/qwen3-8b.config.json -t data/models/deepseek-v3.ini $HFDS

# -t: the recipe where the config.json is silent; --set reaches it
sed 's/^seq_len = 4096/seq_len = 8192/' data/training/default.ini >"$TMP/recipe8k.ini"
check "eval -t: an 8K recipe doubles the attention context" \
    hf_json 'j["plan"]["gbs"]==2048 and j["flops_per_token"] > 6 * 8.19e9 * 1.05' \
    -m tests/data/hf/qwen3-8b.config.json -t "$TMP/recipe8k.ini" gpus=2048 gbs=2048
check "eval --set training.seq_len on a config.json" \
    hf_json 'j["flops_per_token"] > 6 * 8.19e9 * 1.05' \
    -m tests/data/hf/qwen3-8b.config.json --set training.seq_len=8192 gpus=2048 gbs=2048
expect 2 "--set model.layers=4: the architecture comes from tests/data/hf/qwen3-8b.config.json" -- \
    $ROOFPLAN eval -m tests/data/hf/qwen3-8b.config.json --set model.layers=4 gpus=2048 gbs=2048
expect 2 "no-such-recipe.ini: cannot open: No such file or directory" -- \
    $ROOFPLAN eval -m tests/data/hf/qwen3-8b.config.json -t no-such-recipe.ini gpus=2048 gbs=2048
# -t is not read for an INI model
expect 0 "verdict" -- $ROOFPLAN eval -t no-such-recipe.ini $HFDS

# The workbook's Assumptions sheet: the file each value came from
hf_assumptions() {
    $ROOFPLAN report --no-charts -q -o "$TMP/hf-report" \
        -m tests/data/hf/qwen3-8b.config.json \
        --set space.gpus=64 --set space.tp=1,2 --set space.pp=1 --set space.ep=1 \
        --set space.cp=1 --set space.zero=1 --set space.mbs=1 >/dev/null 2>&1 || return 1
    $PY - "$TMP/hf-report/report.xlsx" <<'PYEOF'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["Assumptions"]
# "File: section.key" is "model: training.seq_len"; Source beside it
src = {tuple(r[4].split(": ", 1)[1].split(".", 1)): r[5]
       for r in ws.iter_rows(values_only=True)
       if isinstance(r[4], str) and ": " in r[4]}
assert src[("model", "layers")] == "tests/data/hf/qwen3-8b.config.json: num_hidden_layers", src[("model", "layers")]
assert src[("training", "seq_len")].startswith("data/training/default.ini:14:"), src[("training", "seq_len")]
assert src[("attention", "qk_norm")].startswith("tests/data/hf/qwen3-8b.config.json: Qwen3"), src[("attention", "qk_norm")]
PYEOF
}
if $PY -c 'import openpyxl' 2>/dev/null; then
    check "report: Assumptions name the config.json key and the recipe line" hf_assumptions
else
    echo "SKIP: Assumptions sources: /usr/bin/python3 has no openpyxl"
fi

# A config.json in a folder with a long non-ASCII name (issue 20, defect 1):
# the model is named by its folder, cut to the name's 127 bytes at a
# character boundary ("модель" is 12 bytes: 10 of them and "мод", 126
# bytes; half of the next "е" is not kept), so eval --json stays UTF-8 and
# every file of the report text, its workbook and SVGs well-formed XML.
HF_LONG="$TMP/$($PY -c 'print("модель" * 15)')"
mkdir -p "$HF_LONG" && cp tests/data/hf/qwen3-8b.config.json "$HF_LONG/config.json"
hf_long_eval() {
    $ROOFPLAN eval --json -m "$HF_LONG/config.json" gpus=8 tp=1 pp=1 \
        >"$TMP/hf-long.json" || return 1
    $PY - "$TMP/hf-long.json" <<'PYEOF'
import json, sys
j = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert j["model"] == "модель" * 10 + "мод", j["model"]
PYEOF
}
check "eval --json: a long non-ASCII folder name is cut at a character" hf_long_eval
hf_long_report() {
    $ROOFPLAN report -q -m "$HF_LONG/config.json" -o "$TMP/hf-long" --top 5 \
        --set cluster.gpus=64 >/dev/null 2>&1 || return 1
    $PY - "$TMP/hf-long" <<'PYEOF'
import os, sys, zipfile
import xml.dom.minidom as md
d = sys.argv[1]
names = sorted(os.listdir(d))
assert "report.xlsx" in names, names
for f in names:
    p = os.path.join(d, f)
    if f.endswith(".xlsx"):
        z = zipfile.ZipFile(p)
        for n in z.namelist():
            if n.endswith((".xml", ".rels")):
                md.parseString(z.read(n))
    elif f.endswith(".svg"):
        md.parse(p)
    elif f.endswith((".csv", ".gp", ".dat")):
        open(p, "rb").read().decode("utf-8")
PYEOF
}
check "report: a long non-ASCII model name leaves UTF-8 text and XML" hf_long_report
# issue 18, item 6: a config.json model says which training recipe it ran
# with (on stderr, and on About; on stdout too since issue 37,
# 27_recipe.sh), warning when it is the default, DeepSeek-V3's, as the
# recipe file names itself; About lists every input file with its SHA-256
# (as sha256sum prints it): model, training, hardware, calibration, stack,
# sweep.
expect 0 "training recipe" -- $ROOFPLAN report -q --no-charts --no-csv -o "$TMP/hfrep" \
    -m tests/data/hf/deepseek-v3.config.json --set space.tp=1 --set space.pp=16 \
    --set space.ep=64 --set space.zero=1 --set space.mbs=1 --set space.recompute=selective
check "the default recipe is named and warned about on stderr" \
    grep -q "training recipe BORROWED, not this model's own: the default recipe, data/training/default.ini (DeepSeek-V3's published pre-training recipe, arXiv 2412.19437 §4.2), .*Sequence 4,096 tokens; global batch 15,360 sequences, 62.9M tokens per step; token budget 14.8T tokens." "$TMP/err"
check "About: the recipe, its warning and every input file with its SHA-256" $PY - "$TMP/hfrep/report.xlsx" <<'PYEOF'
import hashlib, os, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1], read_only=True)["About"]
rows = [r for r in ws.iter_rows(values_only=True)]
facts = {r[0]: r[1] for r in rows if r[0]}
assert "the default recipe, data/training/default.ini (DeepSeek-V3's published" in facts["Training recipe"], facts["Training recipe"]
assert "Sequence 4,096 tokens" in facts["Training recipe"], facts["Training recipe"]
assert any(r[1] and str(r[1]).startswith("Warning: this config.json model runs with the default") for r in rows)
files = {r[0]: (r[1], r[2]) for r in rows if r[0] in ("model", "training", "hardware", "calibration", "stack", "sweep")}
assert sorted(files) == sorted(["model", "training", "hardware", "calibration", "stack", "sweep"]), sorted(files)
for role, (path, sha) in files.items():
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == sha, (role, path)
assert files["model"][0].endswith("deepseek-v3.config.json")
assert os.path.basename(files["calibration"][0]) == "h800.ini"
PYEOF

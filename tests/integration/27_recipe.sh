# The model's own recipe (issue 37, item 1): a model that states its
# sequence length, global batch and token budget plans at them; the
# sweep's gbs overrides only where it names a number (the shipped default
# sweep says `model`); every report says on stdout's first lines which
# recipe it planned at, and a config.json without -t says plainly that
# it borrows the default recipe. Sourced by tests/run_integration.sh.
RP=${ROOFPLAN_RELEASE:-$ROOFPLAN} # the release build: whole default sweeps
R="$TMP/recipe"
mkdir -p "$R"

# plans_at CSV GBS TOKENS SEQ: every plan of plans.csv runs GBS sequences
# of SEQ tokens (GBS "model-or-unit": the recommended plan's is checked by
# the caller) and its days are the budget's steps, TOKENS / (its batch x
# SEQ), times its step: for the speed of light and the expected step.
plans_at() {
    $PY - "$@" <<'PYEOF'
import csv, sys
path, gbs, tokens, seq = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
rows = list(csv.DictReader(open(path)))
assert rows, path
for r in rows:
    b = int(r["Global batch (seq)"])
    if gbs != "any":
        assert b == int(gbs), (r["Plan (roofplan eval syntax)"], b, gbs)
    assert int(r["Tokens per step"]) == b * seq, (r["Tokens per step"], b, seq)
    steps = tokens / (b * seq)
    for step, days in (("Step, speed of light (s)", "Days for token budget, speed of light"),
                       ("Expected step (s)", "Expected days for token budget")):
        want = steps * float(r[step]) / 86400
        assert abs(float(r[days]) - want) <= 1e-9 * want, (r[days], want)
PYEOF
}

# Llama 3 405B on its 16,384 H100s (the done-when of issue 37): 2,048 x
# 8,192 tokens (16,777,216 = 16.8M per step, Table 4 of arXiv 2407.21783)
# and its file's 15.6T tokens, not DeepSeek-V3's 15,360 x 4,096 and
# 14.8T; every plan that can run 2,048 sequences runs exactly that (dp x
# mbs x the schedule's unit divides it), the others the nearest multiple.
expect 0 "" -- $RP report -q --no-charts -m data/models/llama-3-405b.ini \
    -g data/hardware/h100.ini -o "$R/llama"
cp "$TMP/out" "$R/llama.out"
check "Llama 3 405B: stdout's first line names the model file's own recipe" \
    grep -q "^Recipe: the model file's own, data/models/llama-3-405b.ini \[training\] (arXiv 2407.21783" "$R/llama.out"
check "Llama 3 405B: the recipe's batch and budget on the first lines" \
    bash -c "head -4 '$R/llama.out' | tr '\n' ' ' | sed 's/  */ /g' |
        grep -q 'Sequence 8,192 tokens; global batch 2,048 sequences, 16.8M tokens per step (Table 4: 16M tokens per batch at 8K sequence length); token budget 15.6T tokens.'"
check "Llama 3 405B: the recommended plan runs 2,048 sequences" \
    grep -q "^  eval: gpus=16384 .* gbs=2048$" "$R/llama.out"
check "Llama 3 405B: no plan at DeepSeek-V3's 15,360 or its budget" \
    bash -c "! grep -q 'gbs=15360\|14.8T' '$R/llama.out'"
check "Llama 3 405B: each plan's days are 15.6T tokens over its batch x 8,192" \
    plans_at "$R/llama/plans.csv" any 15.6e12 8192
check "Llama 3 405B: the plans that can run 2,048 sequences run 2,048" $PY - "$R/llama/plans.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    dp, mbs, pp = int(r["DP"]), int(r["Micro-batch (seq)"]), int(r["PP"])
    unit = dp * mbs * {"dualpipe": 2, "interleaved": pp}.get(r["Schedule"], 1)
    b = int(r["Global batch (seq)"])
    if 2048 % unit == 0:
        assert b == 2048, (r["Plan (roofplan eval syntax)"], unit)
    else:  # the nearest multiple of the unit, at least one
        assert b % unit == 0 and abs(b - 2048) <= unit / 2 or b == unit, (b, unit)
assert sum(int(r["Global batch (seq)"]) == 2048 for r in rows) > len(rows) / 2
PYEOF

# The sweep's batch wins where it names one: --set space.gbs=15360, or a
# sweep file of one's own; `model` in a list keeps the recipe's beside it.
expect 0 "" -- $RP report -q --no-charts --no-csv -m data/models/llama-3-405b.ini \
    -g data/hardware/h100.ini -o "$R/llama-set" --set space.gbs=15360
check "--set space.gbs=15360: said on stdout, with where" \
    bash -c "head -6 '$TMP/out' | tr '\n' ' ' | sed 's/  */ /g' |
        grep -q 'Global batch from the sweep, not the recipe: 15,360 sequences, 126M tokens per step (data/sweeps/default.ini: --set space.gbs=15360).'"
check "--set space.gbs=15360: the recommended plan runs it" \
    grep -q "^  eval: .* gbs=15360$" "$TMP/out"
sed 's/^gbs = model .*/gbs = 4096/' data/sweeps/default.ini >"$R/sweep-4096.ini"
expect 0 "" -- $RP report -q --no-charts -m data/models/llama-3-405b.ini \
    -g data/hardware/h100.ini -s "$R/sweep-4096.ini" -o "$R/llama-4096"
check "a sweep naming 4,096: said on stdout with its file and line" \
    bash -c "head -6 '$TMP/out' | tr '\n' ' ' | sed 's/  */ /g' |
        grep -q 'Global batch from the sweep, not the recipe: 4,096 sequences, 33.6M tokens per step ($R/sweep-4096.ini:19: space.gbs).'"
check "a sweep naming 4,096: its plans' days are 15.6T over their batch x 8,192" \
    plans_at "$R/llama-4096/plans.csv" any 15.6e12 8192
check "a sweep naming 4,096: the recommended plan runs it" \
    grep -q "^  eval: .* gbs=4096$" "$TMP/out"

# By hand, on a small case: tests/data/tiny-dense.ini states 1,024-token
# sequences, 64 per batch and 1e9 tokens; on 8 H100s at tp = pp = 1,
# mbs 1, dp = 8 and the unit is 8: the plan runs the model's 64 (8 per
# rank), 65,536 tokens per step, 1e9 / 65,536 = 15,258.79 steps; days =
# steps x step / 86,400. --set space.gbs=128: 7,629.39 steps. The
# recipe's 4 (--set training.global_batch=4) is half a unit: the plan
# runs 8, 1e9 / 8,192 = 122,070.3 steps, and stdout says why.
TINY="-m tests/data/tiny-dense.ini -g data/hardware/h100.ini --set cluster.gpus=8
    --set space.gpus=0 --set space.tp=1 --set space.pp=1 --set space.ep=1
    --set space.cp=1 --set space.zero=1 --set space.schedule=1f1b
    --set space.precision=bf16 --set space.recompute=none --set space.mbs=1"
expect 0 "" -- $ROOFPLAN report -q --no-charts $TINY -o "$R/tiny"
check "tiny: 64 x 1,024 tokens on stdout" \
    grep -q "^  batch 64 sequences, 65.5K tokens per step; token budget 1B tokens.$" "$TMP/out"
check "tiny: the plan runs 64; 15,258.79 steps" \
    plans_at "$R/tiny/plans.csv" 64 1e9 1024
check "tiny: 15,258.79 steps by hand" $PY -c "
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
assert abs(float(r['Days for token budget, speed of light']) * 86400 / float(r['Step, speed of light (s)']) - 15258.7890625) < 1e-6
" "$R/tiny/plans.csv"
expect 0 "" -- $ROOFPLAN report -q --no-charts $TINY -o "$R/tiny128" --set space.gbs=128
check "tiny, --set space.gbs=128: the plan runs 128; 7,629.39 steps" \
    plans_at "$R/tiny128/plans.csv" 128 1e9 1024
expect 0 "" -- $ROOFPLAN report -q --no-charts $TINY -o "$R/tiny4" --set training.global_batch=4
check "tiny, a batch of 4 on 8 ranks: the plan runs 8; 122,070.3 steps" \
    plans_at "$R/tiny4/plans.csv" 8 1e9 1024
check "tiny, a batch of 4 on 8 ranks: stdout says the plan's batch is not the recipe's" \
    grep -q "^  global batch 8 sequences, not the recipe's 4: the nearest multiple of this plan's DP x micro-batch" "$TMP/out"

# Qwen3 from its config.json (done-when): without -t it borrows the
# default recipe, and says so on stdout's first line, by the name the
# recipe file gives itself; with -t it plans at the file given.
Q="-g data/hardware/h100.ini --set space.gpus=256 --set space.tp=2 --set space.pp=8
    --set space.ep=8 --set space.zero=1 --set space.schedule=1f1b
    --set space.precision=bf16 --set space.recompute=selective --set space.mbs=1"
expect 0 "" -- $ROOFPLAN report -q --no-charts \
    -m tests/data/hf/qwen3-235b-a22b-instruct-2507.config.json $Q -o "$R/qwen-json"
cp "$TMP/out" "$R/qwen-json.out"
check "Qwen3 config.json: stdout's first line says the recipe is borrowed, and whose" \
    grep -q "^Recipe: BORROWED, not this model's own: the default recipe, data/training/default.ini (DeepSeek-V3's" "$R/qwen-json.out"
check "Qwen3 config.json: the borrowed batch and budget on the first lines" \
    bash -c "head -5 '$R/qwen-json.out' | tr '\n' ' ' | sed 's/  */ /g' |
        grep -q 'Sequence 4,096 tokens; global batch 15,360 sequences, 62.9M tokens per step; token budget 14.8T tokens.'"
# The workbook says it too (issue 37 leftovers): the Summary's "Training
# recipe" row, and the key figures' note names the default recipe's budget,
# not the model's.
if $PY -c 'import openpyxl' 2>/dev/null; then
    check "Qwen3 config.json: the Summary's Training recipe row and the days' note say the recipe is borrowed" \
        $PY - "$R/qwen-json/report.xlsx" <<'PYEOF'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["Summary"]
cells = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
i = cells.index("Training recipe")
assert cells[i + 1].startswith("BORROWED, not this model's own"), cells[i + 1]
assert any(c.startswith("the default recipe's budget of 14.8T tokens (TRAINING_TOKENS; borrowed, not the model's own)") for c in cells), "no borrowed-budget note"
assert not any(c.startswith("the model's budget of") for c in cells)
PYEOF
fi
cat >"$R/qwen3.ini" <<'EOF'
[training]
source = Qwen3 pre-training (arXiv 2505.09388 §3), its batch assumed
seq_len = 4096
tokens = 36e12
global_batch = 2048
EOF
expect 0 "" -- $ROOFPLAN report -q --no-charts \
    -m tests/data/hf/qwen3-235b-a22b-instruct-2507.config.json -t "$R/qwen3.ini" $Q -o "$R/qwen-t"
check "Qwen3 config.json -t: stdout's first line names the training file given" \
    grep -q "^Recipe: the training file given with -t, $R/qwen3.ini (Qwen3 pre-training" "$TMP/out"
check "Qwen3 config.json -t: 2,048 x 4,096 tokens and 36T on the first lines" \
    bash -c "head -5 '$TMP/out' | tr '\n' ' ' | sed 's/  */ /g' |
        grep -q 'global batch 2,048 sequences, 8.39M tokens per step; token budget 36T tokens.'"
check "Qwen3 config.json -t: its plans run 2,048 sequences over 36T tokens" \
    plans_at "$R/qwen-t/plans.csv" 2048 36e12 4096
check "Qwen3 config.json -t: nothing said of a borrowed recipe" \
    bash -c "! grep -q 'BORROWED' '$TMP/out' '$TMP/err'"
# The INI's batch is DeepSeek-V3's, assumed: its own source says so.
expect 0 "" -- $ROOFPLAN report -q --no-charts -m data/models/qwen3-235b-a22b.ini $Q -o "$R/qwen-ini"
check "Qwen3 INI: the batch's source, an assumption, on the first lines" \
    bash -c "head -5 '$TMP/out' | tr '\n' ' ' | sed 's/  */ /g' |
        grep -q 'global batch 15,360 sequences, 62.9M tokens per step (assumption: not published'"
# eval's and compare's text open with the recipe as report's does (the
# same words, cli_print_recipe): tiny-dense's own [training] section,
# seq_len 1024, global_batch 64 (65,536 tokens a step), tokens 1e9.
expect 0 "" -- $ROOFPLAN eval -m tests/data/tiny-dense.ini -g data/hardware/h100.ini gpus=8 tp=1 pp=1
check "eval: stdout's first lines are the recipe, as report prints it" \
    bash -c "head -1 '$TMP/out' | grep -q \"^Recipe: the model file's own, tests/data/tiny-dense.ini \[training\]\" &&
        head -2 '$TMP/out' | tr '\n' ' ' | sed 's/  */ /g' |
        grep -q 'Sequence 1,024 tokens; global batch 64 sequences, 65.5K tokens per step; token budget 1B tokens.'"
expect 0 "" -- $ROOFPLAN eval --json -m tests/data/tiny-dense.ini -g data/hardware/h100.ini gpus=8 tp=1 pp=1
check "eval --json: no recipe line before the JSON" bash -c "head -c1 '$TMP/out' | grep -q '{'"
expect 0 "" -- $ROOFPLAN compare -q -m tests/data/tiny-dense.ini -g data/hardware/h100.ini -o "$R/cmp"
check "compare: under the model's line, its recipe as report prints it, then the table" \
    bash -c "sed -n 1p '$TMP/out' | grep -qx 'tiny dense (tests/data/tiny-dense.ini)' &&
        sed -n 2p '$TMP/out' | grep -q \"^Recipe: the model file's own, tests/data/tiny-dense.ini \[training\]\" &&
        sed -n 4p '$TMP/out' | grep -q '^rank  *GPU'"

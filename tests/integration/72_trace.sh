# roofplan import trace: a synthetic profiler trace (scripts/synth-trace.py,
# written here) to a calibration `check` accepts, the same from gzip, the
# table on stderr, and bad input refused with exit 2 and nothing on stdout.

TRACE_PLAN="gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 recompute=selective mbs=1 gbs=15360"
"$PY" -B scripts/synth-trace.py --layers 2 "$TMP/t.json" 2>/dev/null
gzip -c "$TMP/t.json" >"$TMP/t.json.gz"

check "import trace writes a calibration that check accepts" \
    sh -c "$ROOFPLAN import trace --plan '$TRACE_PLAN' '$TMP/t.json' \
        >'$TMP/t.ini' 2>'$TMP/t.err' && $ROOFPLAN check '$TMP/t.ini'"
check "import trace prints the per-class table on stderr" \
    sh -c "grep -qF '| class | kernels | measured ms | speed-of-light ms | efficiency |' '$TMP/t.err' &&
        grep -qF '| FP8 grouped GEMM | 8 |' '$TMP/t.err' &&
        grep -qF 'compute stream 7 busy' '$TMP/t.err'"
check "import trace reads gzip as plain JSON" \
    sh -c "$ROOFPLAN import trace --plan '$TRACE_PLAN' '$TMP/t.json.gz' \
        2>/dev/null | sed 's/t[.]json[.]gz/t.json/' | diff '$TMP/t.ini' -"
# 2 layers forward and backward, grouped GEMMs of 1433 µs, two per pass
# (synth-trace.py): 8 kernels, 11.464 ms; the source names them
check "the measured values name the trace and the kernel count" \
    grep -qF 'fp8_tflops.source = trace t.json: ' "$TMP/t.ini"

head -c 1000 "$TMP/t.json" >"$TMP/cut.json"
expect 2 "cut.json: event " -- $ROOFPLAN import trace "$TMP/cut.json"
expect 2 "truncated JSON" -- $ROOFPLAN import trace "$TMP/cut.json"
mkfifo "$TMP/fifo.json"
expect 2 "fifo.json: not a regular file" -- $ROOFPLAN import trace "$TMP/fifo.json"
expect 2 "nothing.json: cannot open: No such file or directory" -- \
    $ROOFPLAN import trace "$TMP/nothing.json"
printf '{"traceEvents": [{"cat": "kernel", "name": "k", "ts": 1, "dur": -3}]}' >"$TMP/neg.json"
expect 2 "neg.json: event 0: dur: negative duration" -- $ROOFPLAN import trace "$TMP/neg.json"
expect 2 "import trace: missing FILE" -- $ROOFPLAN import trace
expect 2 "--plan: ep=7 does not divide the 256 routed experts of DeepSeek-V3" -- \
    $ROOFPLAN import trace --plan "ep=7" "$TMP/t.json"
expect 2 "tp=x" -- $ROOFPLAN import trace --plan "tp=x" "$TMP/t.json"
check "a refused trace leaves stdout empty" \
    sh -c "! $ROOFPLAN import trace '$TMP/t.json' '$TMP/neg.json' >'$TMP/half.ini' 2>/dev/null && [ ! -s '$TMP/half.ini' ]"
# stdout that cannot be written is a runtime failure (1), as `import nccl`
# and `eval` say, not bad input (2)
if [ -w /dev/full ]; then
    expect 1 "stdout: cannot write: No space left on device" -- \
        bash -c "$ROOFPLAN import trace --plan '$TRACE_PLAN' '$TMP/t.json' >/dev/full"
fi
# 257 files are refused before any is read: the first, a bad trace, is
# not what the message names
many=("$TMP/neg.json")
for _ in $(seq 256); do many+=("$TMP/t.json"); done
expect 2 "import trace: 257 trace files, at most 256 in one import" -- \
    $ROOFPLAN import trace "${many[@]}"

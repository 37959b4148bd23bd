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

# Every calibration import trace writes is one `check` accepts, or none is
# written: a refusal names the key and says why (issue 34, 3 and 7).
# A dense model's trace on a base measured at two head widths (the H100's:
# 128 and 192, v 128 and 192): one width, with its own v width (Llama 3
# 8B: 128 and 128), not the base's two v widths beside one head width.
# Its attention: 549.8 GFLOP forward per layer at 8192 tokens (32 heads,
# (128 + 128) x 4096 keys x 2), in 1.5 ms forward and 4.5 ms backward.
printf '{"traceEvents": [{"cat": "kernel", "name": "flash_fwd_kernel", "ts": 1740461679471000, "dur": 1500, "args": {"stream": 7}}, {"cat": "kernel", "name": "flash_bwd_kernel", "ts": 1740461679472600, "dur": 4500, "args": {"stream": 7}}]}' >"$TMP/dense.json"
check "a dense model's calibration on the H100's base: one head width, its v width" \
    sh -c "$ROOFPLAN import trace -m data/models/llama-3-8b.ini -g data/hardware/h100.ini '$TMP/dense.json' \
        >'$TMP/dense.ini' 2>/dev/null && $ROOFPLAN check '$TMP/dense.ini' data/hardware/h100.ini &&
        grep -qx 'head_dims = 128' '$TMP/dense.ini' && grep -qx 'v_head_dims = 128' '$TMP/dense.ini' &&
        grep -qx 'seq_len = 8192' '$TMP/dense.ini'"
# Kimi K2 at ep=8: an expert's rows, 4096 tokens x 8 GPUs x top 8 / 384
# experts = 682.67, written whole (683) where the loader wants whole M
check "Kimi K2 at ep=8: the experts' M written whole, 683" \
    sh -c "$ROOFPLAN import trace -m data/models/kimi-k2.ini --plan 'precision=fp8 ep=8' '$TMP/t.json' \
        >'$TMP/kimi.ini' 2>/dev/null && $ROOFPLAN check '$TMP/kimi.ini' &&
        [ \"\$(grep -cx 'm_tokens = 683' '$TMP/kimi.ini')\" = 2 ]"
# A GEMM class the trace measures in BF16 only (Mixtral 8x22B in BF16 at
# ep=8: an expert's rows 4096 x 8 x 2 / 8 = 8192): its FP8 rate is the
# base's at that M, one value (data/calibration/h100.ini's expert_up FP8
# at M 8192: 1300), not the base's list of six beside one M
printf '{"traceEvents": [{"cat": "kernel", "name": "flash_fwd_kernel", "ts": 1740461679471000, "dur": 2000, "args": {"stream": 7}}, {"cat": "kernel", "name": "flash_bwd_kernel", "ts": 1740461679473000, "dur": 5000, "args": {"stream": 7}}, {"cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64", "ts": 1740461679478000, "dur": 30000, "args": {"stream": 7}}]}' >"$TMP/bf16.json"
check "a class measured in BF16 only: the base's FP8 rate at its M" \
    sh -c "$ROOFPLAN import trace -m data/models/mixtral-8x22b.ini -g data/hardware/h100.ini \
        --plan 'precision=bf16 ep=8' '$TMP/bf16.json' >'$TMP/bf16.ini' 2>/dev/null &&
        $ROOFPLAN check '$TMP/bf16.ini' &&
        sed -n '/^\[gemm_expert_up\]/,/^\[gemm_expert_down/p' '$TMP/bf16.ini' >'$TMP/up' &&
        grep -qx 'm_tokens = 8192' '$TMP/up' && grep -qx 'fp8_tflops = 1300' '$TMP/up'"
# DeepSeek's trace without --plan: the plan's precision (bf16) puts every
# GEMM's FLOPs on the 12 BF16 router kernels, 123400 TFLOP/s
expect 2 "gemm_attn_proj.bf16_tflops: 123400 is above the GPU's peak (data/hardware/h800.ini:7: gpu.bf16_peak_tflops = 989)" -- \
    $ROOFPLAN import trace "$TMP/t.json"
expect 2 "import trace: nothing written: the calibration from trace t.json (model DeepSeek-V3, plan " -- \
    $ROOFPLAN import trace "$TMP/t.json"
check "a refused calibration leaves stdout empty" \
    sh -c "! $ROOFPLAN import trace '$TMP/t.json' >'$TMP/none.ini' 2>/dev/null && [ ! -s '$TMP/none.ini' ]"
# rates the hardware cannot reach: the grouped GEMMs at 100 us and the
# weight gradients at 20 us (of 1433 and 546) give the experts 7420
# TFLOP/s; norms of 1e-3 us (the least the profiler measures) 70460
# TB/s, beyond the schema's 1000; an attention kernel of 1e-300 us (it
# gave an infinite rate) is refused as read
sed 's/"dur": 1433,/"dur": 100,/; s/"dur": 546,/"dur": 20,/' "$TMP/t.json" >"$TMP/fast.json"
expect 2 "gemm_expert_up.fp8_tflops: 7420 is above the GPU's peak (data/hardware/h800.ini:11: gpu.fp8_peak_tflops = 1979)" -- \
    $ROOFPLAN import trace --plan "$TRACE_PLAN" "$TMP/fast.json"
sed 's/"dur": 1237,/"dur": 1e-300,/' "$TMP/t.json" >"$TMP/inf.json"
expect 2 "dur: shorter than a nanosecond (the profiler's clock counts nanoseconds)" -- \
    $ROOFPLAN import trace --plan "$TRACE_PLAN" "$TMP/inf.json"
sed 's/"dur": 115,/"dur": 0.001,/; s/"dur": 147,/"dur": 0.001,/' "$TMP/t.json" >"$TMP/norm.json"
expect 2 "elementwise.norm_tbps: expected a number in 0..1000, got 7.046e+04" -- \
    $ROOFPLAN import trace --plan "$TRACE_PLAN" "$TMP/norm.json"
# check alone refuses what eval refuses: a rate above the peak of the
# shipped hardware file of its GPU (hardware_gpu), found by that name
sed '/^\[gemm_expert_up\]/,/^\[/s/^fp8_tflops = .*/fp8_tflops = 7420/' "$TMP/t.ini" >"$TMP/peak.ini"
expect 2 "peak.ini:43: gemm_expert_up.fp8_tflops: 7420 is above the GPU's peak (data/hardware/h800.ini:11: gpu.fp8_peak_tflops = 1979)" -- \
    $ROOFPLAN check "$TMP/peak.ini"
expect 2 "gemm_expert_up.fp8_tflops: 7420 is above the GPU's peak" -- \
    $ROOFPLAN eval --calibration "$TMP/peak.ini" $TRACE_PLAN

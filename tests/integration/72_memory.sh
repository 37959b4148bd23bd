# Memory as the plan runs it (issue 17 item 9). ZeRO-2 keeps unsharded
# gradients and reduces them once per step only when the plan still fits
# with the sweep's headroom (10% by default): Llama 3 405B long context
# (data/validation/llama3-405b-h100-16k-cp16.ini, here with vpp 7) needs 79.1 of 79.2 GiB on
# pipeline rank 0 with them whole, more than the 71.3 a plan may use, so it
# runs with the shards, reduce-scattered every micro-batch.
expect 0 "gradients (reduced per micro-batch)" -- $ROOFPLAN eval \
    -m data/models/llama-3-405b.ini -g data/hardware/h100.ini \
    --set training.seq_len=131072 gpus=16384 tp=8 pp=16 cp=16 zero=2 \
    schedule=interleaved vpp=7 precision=bf16 recompute=none mbs=1 gbs=128

# import nccl (issue 20): its options in every position, a FIFO refused
# without waiting, and its output always a calibration file `check` takes.
N=tests/data/nccl
mkdir -p "$TMP/imp"
# Output without a device list (lines 5-13: "# Using devices" and the rank
# lines) needs --intra or --inter; without "# Collective test starting"
# (line 2) and a file name that says it, --collective.
sed '5,13d' $N/h100-1node-all_reduce.txt >"$TMP/imp/nodev-all_reduce.txt"
sed '2d' $N/h100-1node-all_reduce.txt >"$TMP/imp/run.txt"
NODEV="$TMP/imp/nodev-all_reduce.txt"
PLAIN="$TMP/imp/run.txt"
expect 2 "give the link (--intra or --inter)" -- $ROOFPLAN import nccl "$NODEV"
expect 2 "give it (--collective NAME)" -- $ROOFPLAN import nccl "$PLAIN"
# --intra before the command, after it, before nccl, after the files
expect 0 "" -- $ROOFPLAN --intra import nccl "$NODEV"
check "--intra before the command gives the intra-node curve" grep -q '^\[network_intra_all_reduce\]' "$TMP/out"
expect 0 "" -- $ROOFPLAN import --intra nccl "$NODEV"
expect 0 "" -- $ROOFPLAN import nccl --intra "$NODEV"
check "--intra after 'import nccl' gives the intra-node curve" grep -q '^\[network_intra_all_reduce\]' "$TMP/out"
expect 0 "" -- $ROOFPLAN import nccl "$NODEV" --intra
expect 0 "" -- $ROOFPLAN import nccl $N/h100-1node-all_gather.txt --intra "$NODEV"
check "--intra between the files" grep -q '^\[network_intra_all_gather\]' "$TMP/out"
expect 0 "" -- $ROOFPLAN import nccl "$NODEV" --inter
check "--inter after the file gives the inter-node curve" grep -q '^\[network_inter_all_reduce\]' "$TMP/out"
expect 2 "--inter: give --intra or --inter, not both" -- $ROOFPLAN import nccl --intra "$NODEV" --inter
# --collective NAME and --collective=NAME, before and after the file
expect 0 "" -- $ROOFPLAN --collective all_reduce import nccl "$PLAIN"
check "--collective before the command names the collective" grep -q '^\[network_intra_all_reduce\]' "$TMP/out"
expect 0 "" -- $ROOFPLAN import nccl --collective all_reduce "$PLAIN"
expect 0 "" -- $ROOFPLAN import nccl "$PLAIN" --collective=all_reduce
check "--collective=NAME after the file names the collective" grep -q '^\[network_intra_all_reduce\]' "$TMP/out"
expect 2 "collective 'sendrecv': expected all_reduce" -- $ROOFPLAN import nccl "$PLAIN" --collective sendrecv
expect 2 "--collective all_gather: given twice" -- $ROOFPLAN import nccl --collective all_reduce "$PLAIN" --collective all_gather
expect 2 "unknown option or missing argument: '--collective'" -- $ROOFPLAN import nccl "$PLAIN" --collective
expect 2 "eval: --intra, --inter and --collective are options of 'import nccl'" -- $ROOFPLAN eval --intra tp=1

# a FIFO is refused at once, not waited on for a writer
mkfifo "$TMP/imp/fifo-all_reduce.txt"
expect 2 "fifo-all_reduce.txt: not a regular file" -- timeout 20 $ROOFPLAN import nccl "$TMP/imp/fifo-all_reduce.txt"
rm -f "$TMP/imp/fifo-all_reduce.txt"

# A tiny time would give an infinite busbw: refused with its line (before:
# "busbw_gbps = ... inf" on stdout and exit 0, and `check` refused it).
# 32768 B in 1e-307 us: 3.3e311 B/us, beyond a double (printed busbw 1.62)
sed 's/^\( *32768  *8192  *float  *sum  *-1 \) *35.41 /\1 1e-307 /' $N/h100-1node-all_reduce.txt >"$TMP/imp/tiny-all_reduce.txt"
expect 2 "tiny-all_reduce.txt:30: busbw inf GB/s" -- $ROOFPLAN import nccl "$TMP/imp/tiny-all_reduce.txt"
check "a refused import writes nothing on stdout" test ! -s "$TMP/out"

# What import writes, under a calibration file's other sections, checks.
printf '[calibration]\nsource = test\ngpu = NVIDIA H100 80GB HBM3\nhardware_gpu = NVIDIA H100 SXM5 80GB\ndate = 2026-12-01\n[attention_kernel]\nsource = test\nhead_dims = 128\nfwd_tflops = 591\nfwd_bwd_tflops = 485\n[elementwise]\nsource = test\ncopy_tbps = 3\n[clock]\nsource = test\nburst_tflops = 776\nsustained_tflops = 659\nrun_s = 20\n' >"$TMP/imp/head.ini"
for f in $N/h100-1node-all_reduce.txt $N/h100-1node-all_gather.txt $N/h100-1node-reduce_scatter.txt $N/h100-2node-alltoall-sendrecv.txt "$NODEV --inter" "$PLAIN --collective all_reduce" "$N/gh200-2node-all_reduce-indented.txt"; do
    # shellcheck disable=SC2086
    expect 0 "" -- $ROOFPLAN import nccl $f
    cat "$TMP/imp/head.ini" "$TMP/out" >"$TMP/imp/cal.ini"
    check "import nccl $f: the output checks as a calibration file" $ROOFPLAN check "$TMP/imp/cal.ini"
done

# The bad-input table (tests/badinput/cases.txt): every class of bad file,
# number, override and PLAN token gets exit status 2 and a message naming
# file:line: key: problem (or the token). Sourced by run_integration.sh,
# which provides expect, $ROOFPLAN and $TMP.
BAD="$TMP/bad"
mkdir -p "$BAD"
bad_cases=0
bad_skipped=0
bad_noread=" "

# @NAME stands for the path of file NAME made by the table.
bad_subst() {
    printf '%s' "${1//@/$BAD/}"
}

bad_trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

bad_case() { # STATUS FRAGMENT ARGS (ARGS raw, @ not yet replaced)
    local want=$1 frag=$2 raw=$3 name
    local -a args
    for name in $bad_noread; do
        if [[ $raw == *"@$name"* ]]; then
            bad_skipped=$((bad_skipped + 1))
            return
        fi
    done
    bad_cases=$((bad_cases + 1))
    read -ra args <<<"$(eval "printf '%s ' $(bad_subst "$raw")")"
    # a hang (a FIFO read) fails the case instead of stalling the suite
    expect "$want" "$(bad_subst "$frag")" -- \
        timeout -k 5 60 "$ROOFPLAN" "${args[@]}"
    if [ "$want" -eq 2 ] && [ -s "$TMP/out" ]; then
        echo "FAIL: $raw -> wrote to stdout on bad input"
        pass=$((pass - 1))
        fail=$((fail + 1))
    fi
    if [ "$want" -eq 0 ] && grep -qiwE 'nan|inf|-nan|-inf' "$TMP/out"; then
        echo "FAIL: $raw -> nan or inf in the output"
        pass=$((pass - 1))
        fail=$((fail + 1))
    fi
}

bad_file=""
while IFS= read -r line || [ -n "$line" ]; do
    if [ -n "$bad_file" ]; then # inside a `file NAME` block
        if [ "$line" = "end" ]; then
            bad_file=""
        else
            printf '%s\n' "$line" >>"$BAD/$bad_file"
        fi
        continue
    fi
    case $line in
    '' | '#'*) ;;
    'file '*)
        bad_file=${line#file }
        : >"$BAD/$bad_file"
        ;;
    'dir '*)
        mkdir -p "$BAD/${line#dir }"
        ;;
    'fifo '*)
        rm -f "$BAD/${line#fifo }"
        mkfifo "$BAD/${line#fifo }"
        ;;
    'sh '* | 'noread '*)
        spec=${line#* }
        name=${spec%%:*}
        bash -c "$(bad_subst "${spec#*: }")" >"$BAD/$name"
        if [ "${line%% *}" = noread ]; then
            chmod 000 "$BAD/$name"
            if [ -r "$BAD/$name" ]; then # root reads it anyway
                bad_noread="$bad_noread$name "
            fi
        fi
        ;;
    'expect '*)
        rest=${line#expect }
        want=$(bad_trim "${rest%%|*}")
        rest=${rest#*|}
        frag=$(bad_trim "${rest%|*}")
        bad_case "$want" "$frag" "$(bad_trim "${rest##*|}")"
        ;;
    *)
        echo "FAIL: tests/badinput/cases.txt: cannot read: $line"
        fail=$((fail + 1))
        ;;
    esac
done <tests/badinput/cases.txt
if [ "$bad_skipped" -gt 0 ]; then
    echo "bad input: skipped $bad_skipped case(s) on unreadable files:" \
        "chmod 000 does not stop this user (root?) from reading"
fi
echo "bad input: $bad_cases cases run"

# 1 MiB of "a=1" lines cost 160 MB (three 200-byte arrays per key): the
# release build lists the problems within 64 MiB of address space.
if [ -n "${ROOFPLAN_RELEASE:-}" ]; then
    { echo '[gpu]'; yes a=1 | head -c 1048000; } >"$BAD/manykeys.ini"
    expect 2 "more problems" -- bash -c 'ulimit -v 65536; exec "$0" check "$1"' \
        "$ROOFPLAN_RELEASE" "$BAD/manykeys.ini"
fi

# At the rates' lower bounds every value of plans.csv is finite (a clock
# derate of 3e-308 wrote inf and -nan there).
expect 0 "" -- "$ROOFPLAN" report -q --no-charts --csv -o "$BAD/minrates" \
    -m "$BAD/model.ini" -g "$BAD/hw.ini" -s "$BAD/sweep.ini" \
    --set gpu.clock_derate=0.1 --set gpu.comm_sms=131 \
    --set gpu.bf16_achievable_tflops=1 --set gpu.hbm_achievable_tbps=0.1 \
    --set cluster.ib_gbps=0.1 --set cluster.nvlink_gbps=1 \
    --set training.tokens=1e18 --set cluster.gpu_hour_usd=1000000
check "plans.csv at the rates' lower bounds holds no nan or inf" \
    bash -c '[ -s "$1" ] && ! grep -qiwE "nan|inf" "$1"' _ \
    "$BAD/minrates/plans.csv"
chmod -R u+rwx "$BAD" 2>/dev/null

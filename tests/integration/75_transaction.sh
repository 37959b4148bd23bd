# A report is committed all at once or not at all (issue 9, part 2): every
# output write (from then on: a full disk), close or rename is made to fail in turn (an
# LD_PRELOAD library, as SQLite tests its I/O errors); the run is stopped
# with SIGINT and SIGTERM at several points; two runs share a directory.
# After each, the directory holds the earlier report byte for byte (or
# the new one, complete) and nothing else. Also the report command's
# small contracts: bad SOURCE_DATE_EPOCH, -o "", over-long paths, a full
# stdout.
X="$TMP/tx"
mkdir -p "$X"
export SOURCE_DATE_EPOCH=1700000000
TINY=(--set space.tp=1 --set "space.pp=1 16" --set "space.ep=1 64"
    --set "space.zero=1 3" --set space.recompute=selective --set space.mbs=1
    --set space.schedule=1f1b --set space.precision=fp8)

# the directory holds exactly the saved copy $1 of a report (with its
# manifest), byte for byte
same_report() {
    local saved=$1 dir=$2
    [ "$(ls -A "$dir" | sort)" = "$(ls -A "$saved" | sort)" ] || return 1
    for f in "$saved"/* "$saved"/.roofplan-manifest; do
        [ -e "$f" ] || continue
        cmp -s "$f" "$dir/$(basename "$f")" || return 1
    done
}
# the directory holds the new report, complete: the files of $1 (an
# uninterrupted run of the same inputs), byte for byte but the workbook
# (its About sheet names the command line, output directory included)
# and the PDFs (their creation time)
new_report() {
    local ref=$1 dir=$2 f
    [ "$(ls -A "$dir" | sort)" = "$(ls -A "$ref" | sort)" ] || return 1
    for f in "$ref"/*; do
        case $f in
        *.xlsx | *.pdf) [ -s "$dir/$(basename "$f")" ] || return 1 ;;
        *) cmp -s "$f" "$dir/$(basename "$f")" || return 1 ;;
        esac
    done
}
# the hidden files in $1 but the report's manifest (temporary files,
# staging directories)
hidden() { ls -A "$1" | grep '^\.' | grep -vx '\.roofplan-manifest'; }

# --- faults, one operation at a time ---
FAULTLIB=${FAULTINJECT:-$PWD/build/faultinject.so}
REL=${ROOFPLAN_RELEASE:-$ROOFPLAN}
if [ -f "$FAULTLIB" ]; then
    expect 0 "" -- $REL report -q --csv --no-charts -o "$X/d" "${TINY[@]}" --set space.mbs=2
    rm -rf "$X/saved" && cp -r "$X/d" "$X/saved"
    for op in write close rename; do
        # how many operations of this kind a whole run makes
        FAULT_OP=$op FAULT_AT=0 FAULT_COUNT="$X/count" LD_PRELOAD=$FAULTLIB \
            $REL report -q --csv --no-charts -o "$X/d" "${TINY[@]}" >/dev/null 2>&1
        total=$(cat "$X/count")
        rm -rf "$X/d" && cp -r "$X/saved" "$X/d"
        n=1
        tried=0
        faults_ok=true
        while [ $n -le $total ]; do
            FAULT_OP=$op FAULT_AT=$n LD_PRELOAD=$FAULTLIB \
                $REL report -q --csv --no-charts -o "$X/d" "${TINY[@]}" >"$TMP/out" 2>"$TMP/err"
            rc=$?
            tried=$((tried + 1))
            if [ $rc -ne 1 ] || ! same_report "$X/saved" "$X/d"; then
                echo "FAIL: $op #$n of $total failed: exit $rc; the earlier report is not intact:"
                sed 's/^/    /' "$TMP/err" | head -5
                ls -A "$X/d" | sed 's/^/    /'
                faults_ok=false
                break
            fi
            # writes are many (one per cell): step through them sparsely
            if [ $op = write ] && [ $n -ge 24 ]; then n=$((n + n / 4)); else n=$((n + 1)); fi
        done
        check "each of $tried failing ${op}s (of $total) keeps the earlier report" $faults_ok
        rm -rf "$X/d" && cp -r "$X/saved" "$X/d"
    done
    expect 0 "" -- $REL report -q --csv --no-charts -o "$X/d" "${TINY[@]}"
    check "after the faults a clean run writes the new report" \
        bash -c "test -s '$X/d/report.xlsx' && ! cmp -s '$X/d/plans.csv' '$X/saved/plans.csv'"

    # A full disk, filled by the staging directory of a run that ended
    # (issue 34, item 10): the fault library keeps the disk full while
    # that directory's file is there. The next run removes it before it
    # makes its own, and writes its report; before, it failed making its
    # own staging directory first, and so did every later run.
    rm -rf "$X/full" && cp -r "$X/saved" "$X/full"
    sh -c 'exit 0' &
    dead=$!
    wait $dead
    since=$(date +%s)
    filler="$X/full/.roofplan-$dead-$since-FuLLdk"
    mkdir -m 700 "$filler" && mark_stage "$filler" "$dead" "$since" &&
        echo filler >"$filler/report.xlsx"
    expect 0 "removed 1 staging directory of runs that ended" -- \
        env FAULT_FULL_WHILE="$filler/report.xlsx" LD_PRELOAD="$FAULTLIB" \
        $REL report --csv --no-charts -o "$X/full" "${TINY[@]}"
    check "a full disk: the stale staging directory that fills it goes first" \
        test ! -e "$filler"
    check "a full disk: then the run writes its report" \
        bash -c "test -s '$X/full/report.xlsx' && ! cmp -s '$X/full/plans.csv' '$X/saved/plans.csv'"
else
    echo "SKIP: fault injection: $FAULTLIB not built"
fi

# --- signals: the earlier report or the new one, never a mix ---
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "" -- $ROOFPLAN report -q -o "$X/s" "${TINY[@]}" --set space.mbs=2
    rm -rf "$X/ssaved" && cp -r "$X/s" "$X/ssaved"
    # the new report as an uninterrupted run writes it: a signal that
    # lands after the commit, while the run exits, leaves this one
    expect 0 "" -- $ROOFPLAN report -q -o "$X/snew" "${TINY[@]}"
    sig_ok=true
    for sig in INT TERM; do
        for delay in 0.05 0.3 1 2; do
            $ROOFPLAN report -q -o "$X/s" "${TINY[@]}" >/dev/null 2>"$TMP/err" &
            pid=$!
            sleep $delay
            kill -$sig $pid 2>/dev/null
            wait $pid
            rc=$?
            want=$((128 + $(kill -l $sig)))
            if [ $rc -eq 0 ]; then
                # finished before the signal: the new report, whole
                [ -s "$X/s/report.xlsx" ] && [ -s "$X/s/roofline-ib.png" ] &&
                    [ -z "$(hidden "$X/s")" ] || sig_ok=false
                rm -rf "$X/s" && cp -r "$X/ssaved" "$X/s"
            elif [ $rc -eq $want ] && same_report "$X/ssaved" "$X/s"; then
                : # stopped before the commit: the earlier report
            elif [ $rc -eq $want ] && new_report "$X/snew" "$X/s"; then
                rm -rf "$X/s" && cp -r "$X/ssaved" "$X/s" # after it: the new
            else
                echo "FAIL: SIG$sig after $delay s: exit $rc (want $want), report:"
                ls -A "$X/s" | sed 's/^/    /'
                sig_ok=false
            fi
        done
    done
    check "SIGINT/SIGTERM leave the earlier report and no temporary file" $sig_ok

    # a hanging gnuplot is stopped with the run
    mkdir -p "$X/hang"
    printf '#!/bin/sh\nsleep 211\n' >"$X/hang/gnuplot"
    chmod +x "$X/hang/gnuplot"
    env PATH="$X/hang:$PATH" $ROOFPLAN report -q -o "$X/s" "${TINY[@]}" >/dev/null 2>&1 &
    pid=$!
    sleep 1.5
    kill -TERM $pid
    wait $pid
    rc=$?
    check "SIGTERM while gnuplot hangs: exit 143" test $rc -eq 143
    sleep 0.2
    check "SIGTERM while gnuplot hangs: gnuplot is stopped too" bash -c "! pgrep -f '^(/bin/sh .*/hang/gnuplot|sleep 211)' >/dev/null"
    check "SIGTERM while gnuplot hangs: earlier report intact" same_report "$X/ssaved" "$X/s"

    # two runs into one directory: the second waits; one whole report
    $ROOFPLAN report -o "$X/two" "${TINY[@]}" >/dev/null 2>"$TMP/err1" &
    p1=$!
    $ROOFPLAN report -o "$X/two" "${TINY[@]}" --set space.mbs=2 >/dev/null 2>"$TMP/err2" &
    p2=$!
    wait $p1
    r1=$?
    wait $p2
    r2=$?
    check "two runs into one directory both succeed" test $r1 -eq 0 -a $r2 -eq 0
    check "one of two runs into one directory waited for the other" \
        grep -qh "waited for another report to finish" "$TMP/err1" "$TMP/err2"
    check "two runs leave one whole report and nothing else" \
        test -s "$X/two/report.xlsx" -a -s "$X/two/memory.png" -a -z "$(hidden "$X/two")"
fi

# --- the report command's small contracts ---
expect 2 "SOURCE_DATE_EPOCH: expected whole seconds since 1970 in 0..253402300799" -- \
    env SOURCE_DATE_EPOCH=67768036191676800 $ROOFPLAN report -q --no-charts -o "$X/e" "${TINY[@]}"
expect 2 "SOURCE_DATE_EPOCH: expected whole seconds" -- \
    env SOURCE_DATE_EPOCH=yesterday $ROOFPLAN report -q --no-charts -o "$X/e" "${TINY[@]}"
check "a bad SOURCE_DATE_EPOCH writes nothing" test ! -e "$X/e"
expect 2 "--out \"\": expected a directory name" -- $ROOFPLAN report -q --no-charts -o "" "${TINY[@]}"
long="$X/$(printf 'd%.0s' $(seq 1 1000))"
expect 2 "the directory name has" -- $ROOFPLAN report -q --no-charts -o "$long" "${TINY[@]}"
check "an over-long output path writes nothing" test ! -e "$long"
if [ -w /dev/full ]; then
    expect 1 "stdout" -- bash -c "$ROOFPLAN report -q --no-charts -o '$X/full' ${TINY[*]@Q} >/dev/full"
    expect 1 "stdout" -- bash -c "$ROOFPLAN --help >/dev/full"
fi
expect 2 "missing PLAN" -- $ROOFPLAN eval ""
unset SOURCE_DATE_EPOCH

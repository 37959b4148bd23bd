# The output transaction where others share the folder (issue 20, defects
# 5, 6, 8 and 9): a commit that needs no hard link, a run killed at any
# point of its commit, a broken pipe, a kill -9 with gnuplot running, a
# lock held by another run, and the user's own files that merely have a
# report file's name.
Y="$TMP/shared"
mkdir -p "$Y"
export SOURCE_DATE_EPOCH=1700000000
TINY=(--set space.tp=1 --set "space.pp=1 16" --set "space.ep=1 64"
    --set "space.zero=1 3" --set space.recompute=selective --set space.mbs=1
    --set space.schedule=1f1b --set space.precision=fp8)
FAULTLIB=${FAULTINJECT:-$PWD/build/faultinject.so}
REL=${ROOFPLAN_RELEASE:-$ROOFPLAN}

# the directory holds exactly the saved copy $1 of a report, byte for byte
same_as() {
    local saved=$1 dir=$2
    [ "$(ls -A "$dir" | sort)" = "$(ls -A "$saved" | sort)" ] || return 1
    for f in "$saved"/* "$saved"/.roofplan-manifest; do
        [ -e "$f" ] || continue
        cmp -s "$f" "$dir/$(basename "$f")" || return 1
    done
}
# process $1 is running (not ended, nor a zombie left for init to reap)
running() {
    local s
    s=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s" ] && [ "${s#Z}" = "$s" ]
}
# the staging directories in $1 (not the manifest)
stages() { ls -A "$1" | grep '^\.roofplan-' | grep -vx '\.roofplan-manifest'; }

# --- 5. a commit with renames only ---
# Where link() is refused (fs.protected_hardlinks=1, Debian's default,
# refuses a hard link to another user's file one cannot write; a rename in
# a folder one may write is allowed), the report is still replaced. The
# fault library refuses every link() with EPERM, as the kernel does there.
if [ -f "$FAULTLIB" ]; then
    expect 0 "" -- $REL report -q --no-charts -o "$Y/nolink" "${TINY[@]}" --set space.mbs=2
    cp "$Y/nolink/plans.csv" "$Y/nolink.csv"
    expect 0 "" -- env FAULT_LINK=EPERM LD_PRELOAD="$FAULTLIB" \
        $REL report -q --no-charts -o "$Y/nolink" "${TINY[@]}"
    check "link() refused: the new report replaces the earlier one" \
        bash -c "test -s '$Y/nolink/report.xlsx' && ! cmp -s '$Y/nolink.csv' '$Y/nolink/plans.csv'"
    check "link() refused: no staging directory left" test -z "$(stages "$Y/nolink")"

    # Killed (SIGKILL) at each rename a run makes, or failing one rename
    # and killed at the next (inside its roll-back): the next run into
    # the directory (one that fails before it commits, so that only its
    # clean-up acts) leaves the earlier report or the killed run's new
    # one, whole, and no staging directory. Same working directory and
    # command line, so that the two reports compare byte for byte.
    RP=$(realpath "$REL")
    K="$Y/kill"
    mkdir -p "$K/run" "$K/new"
    (cd "$K/run" && $RP report -q --no-charts -o d "${TINY[@]}" --set space.mbs=2) >/dev/null 2>&1
    rm -rf "$K/old" && cp -r "$K/run/d" "$K/old"
    (cd "$K/new" && $RP report -q --no-charts -o d "${TINY[@]}") >/dev/null 2>&1
    (cd "$K/run" && FAULT_OP=rename FAULT_AT=0 FAULT_COUNT="$K/count" LD_PRELOAD="$FAULTLIB" \
        $RP report -q --no-charts -o d "${TINY[@]}") >/dev/null 2>&1
    total=$(cat "$K/count")
    rm -rf "$K/run/d" && cp -r "$K/old" "$K/run/d"
    kill_ok=true
    tried=0
    for n in $(seq 1 "$total"); do
        for how in kill fail-then-kill; do
            if [ $how = kill ]; then
                fault=(FAULT_KILL_AT=$n)
            else
                fault=(FAULT_AT=$n FAULT_KILL_AT=$((n + 1)))
            fi
            # (the outer subshell keeps bash's "Killed" off the log)
            { (cd "$K/run" && env FAULT_OP=rename "${fault[@]}" LD_PRELOAD="$FAULTLIB" \
                $RP report -q --no-charts -o d "${TINY[@]}") >/dev/null 2>&1; } 2>/dev/null
            (cd "$K/run" && FAULT_OP=write FAULT_AT=1 LD_PRELOAD="$FAULTLIB" \
                $RP report -q --no-charts -o d "${TINY[@]}") >/dev/null 2>"$TMP/err"
            rc=$?
            tried=$((tried + 1))
            if [ $rc -ne 1 ] || [ -n "$(stages "$K/run/d")" ] ||
                ! { same_as "$K/old" "$K/run/d" || same_as "$K/new/d" "$K/run/d"; }; then
                echo "FAIL: $how at rename #$n of $total: the next run (exit $rc) left:"
                ls -A "$K/run/d" | sed 's/^/    /'
                kill_ok=false
                break 2
            fi
            rm -rf "$K/run/d" && cp -r "$K/old" "$K/run/d"
        done
    done
    check "each of $tried runs killed in its commit: the next run leaves one whole report" $kill_ok
else
    echo "SKIP: fault injection: $FAULTLIB not built"
fi

# As another user, where this runs as root and the kernel protects hard
# links: a folder both may write (0777, not sticky), a report of root's
# in it (files 0644), then nobody's report replaces it.
if [ "$(id -u)" = 0 ] && [ "$(cat /proc/sys/fs/protected_hardlinks 2>/dev/null)" = 1 ] &&
    command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
    setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$ROOFPLAN"; then
    G=$(mktemp -d /tmp/roofplan-shared-XXXXXX)
    chmod 0777 "$G"
    expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$G" "${TINY[@]}" --set space.mbs=2
    cp "$G/plans.csv" "$Y/root.csv"
    expect 0 "" -- setpriv --reuid=nobody --regid=nogroup --clear-groups \
        $ROOFPLAN report -q --no-charts -o "$G" "${TINY[@]}"
    check "another user's report replaces root's in a shared folder" \
        bash -c "test \"\$(stat -c %U '$G/report.xlsx')\" = nobody && ! cmp -s '$Y/root.csv' '$G/plans.csv'"
    rm -rf "$G"
fi

# Another user's staging directory of an ended run (issue 34, item 1),
# where this runs as root: nobody leaves one in a folder both may write,
# its journal a FIFO. The run leaves it alone, says so, and does not wait
# on the FIFO (before, it waited for a writer as long as nobody liked,
# then followed whatever the directory had become).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    G=$(mktemp -d /tmp/roofplan-foreign-XXXXXX)
    chmod 0777 "$G"
    sh -c 'exit 0' &
    dead=$!
    wait $dead
    theirs="$G/.roofplan-$dead-$(date +%s)-NoBody"
    setpriv --reuid=nobody --regid=nogroup --clear-groups \
        sh -c "mkdir -m 700 '$theirs' && mkfifo '$theirs/.commit' && echo theirs >'$theirs/report.xlsx'"
    expect 0 "left 1 staging directory of another user's ended runs alone" -- \
        timeout 60 $ROOFPLAN report --no-charts -o "$G" "${TINY[@]}"
    check "another user's staging directory is left as it was" \
        bash -c "test -p '$theirs/.commit' && test \"\$(stat -c %U '$theirs')\" = nobody"
    check "... and the run's own report is written" test -s "$G/report.xlsx"
    rm -rf "$G"
else
    echo "SKIP: another user's staging directory: not root, or no setpriv or nobody"
fi

# The run's own staging directory swapped for a link while it writes
# (issue 34, item 1): in a folder another user may write (0777, not
# sticky), that user (nobody where this runs as root, else the same user)
# moves the staging directory aside and puts a link to a directory of the
# run's user in its place. The first gnuplot does it (a wrapper on PATH),
# and the fault library holds the run 300 ms after each fork, so the swap
# is done before the later gnuplots start and before plans.csv and the
# workbook are written. Every file still goes into the run's own
# directory and the report is committed whole; nothing is written into
# the linked directory. Before, the later gnuplots ran in the linked
# directory and plans.csv was written there.
if [ -f "$FAULTLIB" ] && command -v gnuplot >/dev/null 2>&1; then
    G=$(mktemp -d /tmp/roofplan-swap-XXXXXX)
    V=$(mktemp -d /tmp/roofplan-victim-XXXXXX)
    chmod 0777 "$G"
    echo mine >"$V/keep.txt"
    as=""
    if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
        as="setpriv --reuid=nobody --regid=nogroup --clear-groups"
    fi
    mkdir -p "$Y/swapgp"
    cat >"$Y/swapgp/gnuplot" <<EOF
#!/bin/sh
if mkdir "$Y/swapgp/swapped" 2>/dev/null; then
    s=\$(ls -A "$G" | grep '^\.roofplan-[0-9]' | head -n 1)
    $as mv "$G/\$s" "$G/aside" && $as ln -s "$V" "$G/\$s"
fi
exec $(command -v gnuplot) "\$@"
EOF
    chmod +x "$Y/swapgp/gnuplot"
    expect 0 "" -- env PATH="$Y/swapgp:$PATH" FAULT_FORK_DELAY_MS=300 LD_PRELOAD="$FAULTLIB" \
        $REL report -q -o "$G" "${TINY[@]}"
    check "staging directory swapped for a link: it was swapped" test -L "$(ls -d "$G"/.roofplan-[0-9]*)"
    check "... nothing is written into the linked directory" test "$(ls -A "$V")" = keep.txt
    check "... the report is committed whole" \
        bash -c "test -s '$G/report.xlsx' -a -s '$G/plans.csv' -a -s '$G/roofline-nvlink.png' -a -s '$G/summary.svg' && grep -qx summary.svg '$G/.roofplan-manifest'"
    rm -rf "$G" "$V"
else
    echo "SKIP: staging directory swapped while writing: no fault library or gnuplot"
fi

# --- 6. a broken pipe, a kill -9 ---
# A reader that stops reading (| head, | true) ends the summary on stdout
# quietly: the report is still written whole and the run exits 0.
$ROOFPLAN report -q --no-charts -o "$Y/pipe" "${TINY[@]}" 2>"$TMP/err" | true
rc=${PIPESTATUS[0]}
check "report | true: exit 0, not a SIGPIPE death (141)" test "$rc" -eq 0
check "report | true: the report is whole, nothing staged left" \
    bash -c "test -s '$Y/pipe/report.xlsx' -a -s '$Y/pipe/plans.csv' -a -z \"\$(ls -A '$Y/pipe' | grep '^\.roofplan-' | grep -vx '\.roofplan-manifest')\""
check "report | true: nothing on stderr" test ! -s "$TMP/err"
$ROOFPLAN --help | true
rc=${PIPESTATUS[0]}
check "--help | true: exit 0" test "$rc" -eq 0

# kill -9 while gnuplot draws: gnuplot dies with the run (it would go on
# writing into the staging directory), and the next run removes the
# staging directory the killed one left.
if command -v gnuplot >/dev/null 2>&1; then
    mkdir -p "$Y/hang9"
    printf '#!/bin/sh\necho $$ >>"%s/pids"\nexec sleep 213\n' "$Y/hang9" >"$Y/hang9/gnuplot"
    chmod +x "$Y/hang9/gnuplot"
    env PATH="$Y/hang9:$PATH" ROOFPLAN_GNUPLOT_TIMEOUT=60 \
        $ROOFPLAN report -q -o "$Y/k9" "${TINY[@]}" >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 300); do [ -s "$Y/hang9/pids" ] && break; sleep 0.1; done
    sleep 0.2
    kill -KILL $pid
    wait $pid 2>/dev/null
    sleep 0.5
    alive=""
    for p in $(cat "$Y/hang9/pids" 2>/dev/null); do running "$p" && alive="$alive $p"; done
    check "kill -9 while gnuplot runs: gnuplot dies with the run" test -z "$alive"
    for p in $alive; do kill -KILL "$p" 2>/dev/null; done
    check "kill -9 leaves a staging directory (the next run's to remove)" test -n "$(stages "$Y/k9")"
    expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$Y/k9" "${TINY[@]}"
    check "the next run removes the killed run's staging directory" test -z "$(stages "$Y/k9")"
fi

# SIGTERM while a gnuplot is being started (forked, not yet known to the
# run: the fault library holds the parent 1 s after each fork): that
# gnuplot and what it started are stopped with the run too.
if [ -f "$FAULTLIB" ]; then
    mkdir -p "$Y/hangt"
    # each gnuplot notes its process group (its pid) and starts a child
    printf '#!/bin/sh\necho $$ >>"%s/pids"\nsleep 215 &\nwait\n' "$Y/hangt" >"$Y/hangt/gnuplot"
    chmod +x "$Y/hangt/gnuplot"
    env PATH="$Y/hangt:$PATH" FAULT_FORK_DELAY_MS=1000 LD_PRELOAD="$FAULTLIB" \
        $REL report -q -o "$Y/t" "${TINY[@]}" >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 300); do [ -s "$Y/hangt/pids" ] && break; sleep 0.1; done
    kill -TERM $pid
    wait $pid
    rc=$?
    sleep 0.5
    alive=""
    for g in $(cat "$Y/hangt/pids" 2>/dev/null); do
        ps -eo pgid=,stat= | awk -v g="$g" '$1 == g && $2 !~ /^Z/' | grep -q . && alive="$alive $g"
    done
    check "SIGTERM while gnuplot starts: exit 143" test $rc -eq 143
    check "SIGTERM while gnuplot starts: nothing it started runs on" test -z "$alive"
    for g in $alive; do kill -KILL -- "-$g" 2>/dev/null; done
fi

# Only staging directories whose run has ended go, and only those their
# run marked (issue 34, item 1): one named for a live process stays; one
# for an ended process goes; one without its run's mark (an earlier
# roofplan's, no owner in its name, or a directory of the user's another
# user renamed so) stays, with its files, and the run says so.
mkdir -p "$Y/own"
sleep 60 &
live=$!
sh -c 'exit 0' &
dead=$!
wait $dead
now=$(date +%s)
mkdir "$Y/own/.roofplan-$live-$now-aaaaaa" "$Y/own/.roofplan-$dead-$now-bbbbbb" \
    "$Y/own/.roofplan-cccccc" "$Y/own/.roofplan-$dead-$now-dddddd"
mark_stage "$Y/own/.roofplan-$live-$now-aaaaaa" "$live" "$now"
mark_stage "$Y/own/.roofplan-$dead-$now-bbbbbb" "$dead" "$now"
echo half >"$Y/own/.roofplan-$dead-$now-bbbbbb/plans.csv"
echo mine >"$Y/own/.roofplan-$dead-$now-dddddd/notes.txt"
expect 0 "left 2 directories named like a staging directory alone: no run of roofplan marked them" -- \
    $ROOFPLAN report --no-charts -o "$Y/own" "${TINY[@]}"
check "a live run's staging directory stays" test -d "$Y/own/.roofplan-$live-$now-aaaaaa"
check "an ended run's marked staging directory goes" test ! -e "$Y/own/.roofplan-$dead-$now-bbbbbb"
check "directories without a run's mark stay, with their files" \
    bash -c "test -d '$Y/own/.roofplan-cccccc' && grep -qx mine '$Y/own/.roofplan-$dead-$now-dddddd/notes.txt'"
kill $live
wait $live 2>/dev/null

# --- 8. waiting for another run's lock ---
# A run holds the directory (its gnuplot hangs); a second one with
# --wait 1 says who holds it, gives up after a second and exits 1.
if command -v gnuplot >/dev/null 2>&1; then
    mkdir -p "$Y/hang8"
    printf '#!/bin/sh\necho $$ >>"%s/pids"\nexec sleep 214\n' "$Y/hang8" >"$Y/hang8/gnuplot"
    chmod +x "$Y/hang8/gnuplot"
    env PATH="$Y/hang8:$PATH" ROOFPLAN_GNUPLOT_TIMEOUT=60 \
        $ROOFPLAN report -q -o "$Y/busy" "${TINY[@]}" >/dev/null 2>&1 &
    p1=$!
    for i in $(seq 1 300); do [ -s "$Y/hang8/pids" ] && break; sleep 0.1; done
    expect 1 "gave up after 1 s" -- $ROOFPLAN report --no-charts --wait 1 -o "$Y/busy" "${TINY[@]}"
    check "--wait 1: the message names the run holding the lock" grep -q "another run (pid $p1, since " "$TMP/err"
    check "--wait 1: it says it waits, for whom, and how long" \
        grep -q "pid $p1.*waiting up to 1 s" "$TMP/err"
    kill -TERM $p1
    wait $p1 2>/dev/null
    for p in $(cat "$Y/hang8/pids" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    expect 0 "" -- $ROOFPLAN report -q --no-charts --wait 0 -o "$Y/busy" "${TINY[@]}"
fi
expect 2 "--wait -1: expected seconds in 0..86400" -- $ROOFPLAN report --wait -1 -o "$Y/w"
expect 2 "--wait soon: expected seconds in 0..86400" -- $ROOFPLAN compare --wait soon -o "$Y/w"
check "--help documents --wait" bash -c "$ROOFPLAN --help | grep -q -- '--wait SECONDS'"

# --- 9. only an earlier report's files are removed ---
# A folder that never held a report: the user's memory.png, waterfall.svg
# and plans.csv stay through a report without charts or CSV.
mkdir -p "$Y/mine"
for f in memory.png waterfall.svg plans.csv; do echo "mine: $f" >"$Y/mine/$f"; done
expect 0 "" -- $ROOFPLAN report -q --no-charts --no-csv -o "$Y/mine" "${TINY[@]}"
check "--no-charts --no-csv keeps the user's files named like report files" \
    bash -c "grep -q 'mine: memory.png' '$Y/mine/memory.png' && grep -q 'mine: waterfall.svg' '$Y/mine/waterfall.svg' && grep -q 'mine: plans.csv' '$Y/mine/plans.csv'"
check "the report has a manifest of its files" grep -qx "report.xlsx" "$Y/mine/.roofplan-manifest"
# After a report with plans.csv (and a compare into the same folder, whose
# manifest keeps the report's files), a report without it removes it,
# and nothing of the user's.
mkdir -p "$Y/m2"
echo "mine" >"$Y/m2/memory.png"
expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$Y/m2" "${TINY[@]}"
expect 0 "" -- $ROOFPLAN compare -q -m data/models/deepseek-v3.ini -g data/hardware/h800.ini -o "$Y/m2" "${TINY[@]}"
expect 0 "" -- $ROOFPLAN report -q --no-charts --no-csv -o "$Y/m2" "${TINY[@]}"
check "a later report removes the earlier one's plans.csv, keeps compare.xlsx and the user's file" \
    bash -c "test ! -e '$Y/m2/plans.csv' -a -s '$Y/m2/compare.xlsx' -a -s '$Y/m2/report.xlsx' && grep -qx mine '$Y/m2/memory.png'"
unset SOURCE_DATE_EPOCH

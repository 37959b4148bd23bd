#!/bin/sh
# CI check: every library the Makefile links, and every pkg-config module it
# reads, belongs to a Debian package that scripts/deps.sh installs. A fresh
# machine has only what deps.sh installs, so a library missing from that
# list breaks `make run` there (as -lz once did) while a developer's machine
# that happens to have it stays green. Needs dpkg; run from the root.
set -eu
cd "$(dirname "$0")/.."
named=$(sh scripts/deps.sh list)
modules="$(make -s print-pkgs) cmocka"
fail=0
owner() { # file -> owning package, without the :arch suffix
    dpkg -S "$1" 2>/dev/null | head -n 1 | cut -d: -f1
}
need() { # what, package
    if ! printf '%s\n' "$named" | grep -qx "$2"; then
        echo "check-deps: $1 comes from Debian package $2, which scripts/deps.sh does not install" >&2
        fail=1
    fi
}
for mod in $modules; do
    pc="$(pkg-config --variable=pcfiledir "$mod" 2>/dev/null)/$mod.pc"
    if [ ! -f "$pc" ]; then
        echo "check-deps: pkg-config module $mod is not installed" >&2
        fail=1
        continue
    fi
    pkg=$(owner "$(cd "$(dirname "$pc")" && pwd -P)/$mod.pc")
    if [ -z "$pkg" ]; then
        echo "check-deps: no Debian package owns $pc" >&2
        fail=1
    else
        need "$mod.pc" "$pkg"
    fi
    for flag in $(pkg-config --libs "$mod"); do
        case $flag in
        -l*) lib=${flag#-l} ;;
        *) continue ;;
        esac
        so=$(cc -print-file-name="lib$lib.so")
        # dpkg knows the development symlink by its canonical directory
        so="$(cd "$(dirname "$so")" 2>/dev/null && pwd -P)/$(basename "$so")"
        if [ ! -e "$so" ]; then
            echo "check-deps: $mod links -l$lib, but lib$lib.so is not installed" >&2
            fail=1
            continue
        fi
        pkg=$(owner "$so")
        case $pkg in
        libc6-dev | "") ;; # the C library comes with gcc
        *) need "-l$lib (module $mod)" "$pkg" ;;
        esac
    done
done
[ $fail -eq 0 ] && echo "check-deps: every linked library comes from a package deps.sh installs"
exit $fail

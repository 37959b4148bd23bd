#!/bin/sh
# Installs what roofplan needs from Debian when it is missing.
#   scripts/deps.sh build   compiler, pkg-config, the libraries the Makefile links
#                           (libxlsxwriter and the zlib and minizip it links, inih,
#                           libmd, cJSON, yajl, cmocka) and gnuplot
#   scripts/deps.sh test    the above, plus what the tests run: python3, the real
#                           spreadsheet and checking tools (gnumeric, LibreOffice,
#                           openpyxl, poppler, valgrind, clang for the fuzzers,
#                           cppcheck for make analyze)
#   scripts/deps.sh list    the Debian packages this script can install, one per
#                           line (for the CI check that every linked library is named)
# As root it runs apt-get; otherwise it prints the exact command to run.
set -eu
mode=${1:-build}
if [ "$mode" = list ]; then
    # every package name this script passes to need_pkg/need_cmd/missing
    sed -n 's/^ *need_\(pkg\|cmd\) [^ ]* \([^ ]*\)$/\2/p; s/.*missing="\$missing \([^"]*\)".*/\1/p' "$0" |
        grep -v '^\$' | sort -u
    exit 0
fi

missing=""
need_pkg() { # pkg-config module, Debian package
    if ! pkg-config --exists "$1" 2>/dev/null; then missing="$missing $2"; fi
}
need_cmd() { # command, Debian package
    if ! command -v "$1" >/dev/null 2>&1; then missing="$missing $2"; fi
}

need_cmd cc gcc
need_cmd make make
need_cmd pkg-config pkg-config
need_pkg xlsxwriter libxlsxwriter-dev
need_pkg zlib zlib1g-dev
need_pkg minizip libminizip-dev
need_pkg inih libinih-dev
need_pkg cmocka libcmocka-dev
need_pkg libmd libmd-dev
need_pkg libcjson libcjson-dev
need_pkg yajl libyajl-dev
need_cmd gnuplot gnuplot-nox
if [ "$mode" = test ]; then
    need_cmd /usr/bin/python3 python3
    need_cmd file file
    need_cmd pgrep procps
    need_cmd ssconvert gnumeric
    need_cmd soffice libreoffice-calc-nogui
    need_cmd pdftoppm poppler-utils
    need_cmd valgrind valgrind
    need_cmd clang clang
    need_cmd cppcheck cppcheck
    need_cmd sha256sum coreutils
    if ! /usr/bin/python3 -c 'import openpyxl' >/dev/null 2>&1; then
        missing="$missing python3-openpyxl"
    fi
    if [ ! -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] &&
        ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
        missing="$missing libclang-rt-dev"
    fi
fi

[ -z "$missing" ] && exit 0
cmd="apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
    echo "roofplan: missing Debian packages:$missing" >&2
    echo "roofplan: run as root:  apt-get update && $cmd" >&2
    exit 1
fi
echo "roofplan: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $cmd >/dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout=900 update >/dev/null
    $cmd >/dev/null
fi

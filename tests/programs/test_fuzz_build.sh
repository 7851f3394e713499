#!/bin/sh
# Every libFuzzer target builds (make fuzz-build): the fuzzers are linked
# against the fuzzer-instrumented static libraries, so a target that no
# longer links (a symbol moved to a file nobody listed) fails here, in make
# check, not only when someone runs `make fuzz`. Each built target then
# runs its checked-in corpus once (-runs=0) under its sanitizers.
# Skipped (exit 0, says so) without clang. Exit 0 = pass.
# Usage (from the top directory): sh tests/programs/test_fuzz_build.sh
set -u
MAKE=${MAKE:-make}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
if ! grep -q '^HAVE_CLANG_FUZZ = 1' config.mk 2>/dev/null; then
	echo "SKIP: no clang/libFuzzer in this configuration"
	exit 0
fi
fb=${FUZZ_BUILD:-build-fuzz}
mkdir -p "$fb"
$MAKE --no-print-directory -j2 fuzz-build FUZZ_BUILD="$fb" > "$fb/make.log" 2>&1 || {
	tail -20 "$fb/make.log"; fail "make fuzz-build"; }
n=0
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	case $t in fuzz_sctp*) grep -q '^HAVE_USRSCTP = 1' config.mk || continue ;; esac
	[ -x "$fb/fuzz/$t" ] || fail "$t was not built"
	"$fb/fuzz/$t" -runs=0 "tests/fuzz/corpus/$t" > "$fb/$t.runs0.log" 2>&1 || {
		tail -5 "$fb/$t.runs0.log"; fail "$t on its corpus"; }
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no fuzz target"
echo "$n fuzz targets built and replayed their corpora"

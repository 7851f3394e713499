#!/bin/sh
# `make fuzz` fails on a finding: its recipe runs on a planted target (built
# here, not one of tests/fuzz/) that aborts on one 16-octet input (found by
# its 64-bit FNV-1a hash, which 1 s of fuzzing does not guess); with that
# input in its corpus the recipe must exit non-zero and name the target, and
# with a harmless corpus it must exit 0 (the failure comes from the finding,
# not from the recipe). Each run is 1 s of fuzzing at most.
# Exit 0 = pass, 77 = skipped (no clang with libFuzzer).
# Usage (from the top directory): sh tests/programs/test_fuzz_fails.sh
set -u
MAKE=${MAKE:-make}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
clang=$(sed -n 's/^CLANG = //p' config.mk 2>/dev/null)
if ! grep -q '^HAVE_CLANG_FUZZ = 1' config.mk 2>/dev/null || [ -z "$clang" ]; then
	echo "SKIP: no clang/libFuzzer in this configuration"
	exit 77
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cat > "$t/planted.c" <<'SRC'
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 0x100000001b3ull;
	if (n == 16 && h == 0xf61d19b38246eb43ull) /* "planted-crash-01" */
		abort();
	return 0;
}
SRC
mkdir -p "$t/bin"
"$clang" -fsanitize=fuzzer -o "$t/bin/fuzz_planted" "$t/planted.c" > "$t/cc.log" 2>&1 || {
	cat "$t/cc.log"; echo "SKIP: clang cannot link a libFuzzer target"; exit 77; }

run_fuzz() { # corpus directory -> exit status of `make fuzz`, output in $t/make.log
	$MAKE --no-print-directory fuzz FUZZ_BUILT="$t/bin/fuzz_planted" FUZZ_CORPUS="$1" \
		FUZZ_SECONDS=1 > "$t/make.log" 2>&1
}

mkdir -p "$t/good/fuzz_planted"
printf 'hello' > "$t/good/fuzz_planted/seed"
run_fuzz "$t/good" || { cat "$t/make.log"; fail "make fuzz failed without a finding"; }

mkdir -p "$t/bad/fuzz_planted"
printf 'planted-crash-01' > "$t/bad/fuzz_planted/seed"
if run_fuzz "$t/bad"; then
	cat "$t/make.log"
	fail "make fuzz exited 0 although the target crashed"
fi
grep -q 'fuzz: fuzz_planted FAILED' "$t/make.log" || { cat "$t/make.log"; fail "no FAILED line"; }
ls "$t/bad/fuzz_planted"/crash-* > /dev/null 2>&1 || fail "no crash artifact"
echo "make fuzz: exit 0 on a clean run, non-zero on a planted crash"

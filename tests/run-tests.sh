#!/bin/sh
# Runs test binaries (cmocka) and fuzz-corpus replays, then prints one line
# "check: N passed, N failed" (N counts test cases and replayed corpora).
# Usage: run-tests.sh BUILD TEST... -- REPLAY...
# DDP_VALGRIND=1 runs everything under valgrind memcheck.
# DDP_TESTS=fast (make check) leaves out the tests named in tests/long.txt,
# DDP_TESTS=long (make check-long) runs only those, DDP_TESTS=all both.
# DDP_PROGRAMS=0 leaves out the program tests (tests/programs).
# Each PASS/FAIL line ends with the test's wall-clock seconds.
set -u
build=$1; shift
pass=0; fail=0; failed=""
log="$build/test-logs"; mkdir -p "$log"
vg=""
if [ "${DDP_VALGRIND:-0}" = 1 ]; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect"
fi
TMO=${DDP_TEST_TIMEOUT:-300}
sel=${DDP_TESTS:-all}
long=$(grep -v '^#' tests/long.txt 2>/dev/null)
# wanted NAME: 0 when NAME belongs to this run's selection
wanted() {
	case " $(echo $long) " in *" $1 "*) l=1 ;; *) l=0 ;; esac
	case $sel in fast) [ $l = 0 ] ;; long) [ $l = 1 ] ;; *) true ;; esac
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

if [ "$sel" != long ]; then
# layering rule is a test too
if sh scripts/check-layering.sh; then pass=$((pass+1)); echo "PASS layering"; else fail=$((fail+1)); failed="$failed layering"; fi
# comments say what and why now: no history or measurements in the library
if sh scripts/check-comments.sh > "$log/comments.log" 2>&1; then pass=$((pass+1)); echo "PASS comments"; else fail=$((fail+1)); failed="$failed comments"; echo "FAIL comments"; head -20 "$log/comments.log"; fi
# every public function carries the export mark; the version agrees
if sh scripts/check-api.sh > "$log/api.log" 2>&1; then pass=$((pass+1)); echo "PASS api"; else fail=$((fail+1)); failed="$failed api"; echo "FAIL api"; cat "$log/api.log"; fi
# the library's sources are what clang-format makes of them (.clang-format)
if sh scripts/check-format.sh > "$log/format.log" 2>&1; then pass=$((pass+1)); echo "PASS format"; else fail=$((fail+1)); failed="$failed format"; echo "FAIL format"; head -20 "$log/format.log"; fi
# no call cycle between two files of one folder (from the built objects)
if sh scripts/check-cycles.sh "$build" src adapters/common adapters/event adapters/mpa adapters/sctp rdmap > "$log/cycles.log" 2>&1; then pass=$((pass+1)); echo "PASS cycles"; else fail=$((fail+1)); failed="$failed cycles"; echo "FAIL cycles"; cat "$log/cycles.log"; fi
if sh scripts/coverage-table.sh > "$log/coverage.log" 2>&1; then pass=$((pass+1)); echo "PASS coverage ($(grep '^coverage: [0-9]' "$log/coverage.log"))"; else fail=$((fail+1)); failed="$failed coverage"; echo "FAIL coverage"; grep '^coverage:' "$log/coverage.log"; fi
fi

while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	t=$1; shift
	n=$(basename "$t")
	wanted "$n" || continue
	t0=$(now)
	CMOCKA_MESSAGE_OUTPUT=stdout timeout -k 5 "$TMO" $vg "$t" > "$log/$n.log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/$n.log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/$n.log" | tail -1)
	p=${p:-0}; f=${f:-0}
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass+p)); fail=$((fail+f))
	if [ $rc -eq 0 ] && [ "$f" = 0 ]; then echo "PASS $n ($p, $(secs $t0))"; else echo "FAIL $n (rc=$rc, $f failed, $(secs $t0); log: $log/$n.log)"; failed="$failed $n"; tail -30 "$log/$n.log"; fi
done
[ $# -gt 0 ] && shift
for r in "$@"; do
	n=$(basename "$r")
	[ "$sel" != long ] || continue
	dir=tests/fuzz/corpus/$n
	if [ ! -d "$dir" ] || [ -z "$(ls -A "$dir" 2>/dev/null)" ]; then
		echo "FAIL replay $n: empty corpus $dir"; fail=$((fail+1)); failed="$failed replay-$n"; continue
	fi
	if timeout -k 5 "$TMO" $vg "$r" "$dir" > "$log/replay-$n.log" 2>&1; then
		pass=$((pass+1)); echo "PASS replay $n ($(tail -1 "$log/replay-$n.log"))"
	else
		fail=$((fail+1)); failed="$failed replay-$n"; echo "FAIL replay $n"; tail -20 "$log/replay-$n.log"
	fi
done
# program tests: every tests/programs/test_*.sh, BUILD set, exit 0 = pass,
# 77 = skipped (what it needs is not there)
progs=1
if [ "${DDP_PROGRAMS:-1}" = 0 ]; then
	progs=0
elif [ ! -x "$build/bin/ddp-echo" ]; then
	progs=0
	echo "SKIP tests/programs: the programs are not built in this configuration (they need libevent and usrsctp)"
fi
for t in tests/programs/test_*.sh; do
	[ -f "$t" ] || continue
	[ $progs = 1 ] || continue
	n=$(basename "$t" .sh)
	if [ "${DDP_VALGRIND:-0}" = 1 ]; then continue; fi
	wanted "$n" || continue
	t0=$(now)
	BUILD="$build" timeout -k 5 "$TMO" sh "$t" > "$log/$n.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass+1)); echo "PASS $n ($(secs $t0))"
	elif [ $rc -eq 77 ]; then
		echo "SKIP $n: $(tail -1 "$log/$n.log")"
	else
		fail=$((fail+1)); failed="$failed $n"; echo "FAIL $n ($(secs $t0))"; grep '^FAIL' "$log/$n.log" | head -5; tail -20 "$log/$n.log"
	fi
done
[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed"
[ $fail -eq 0 ]

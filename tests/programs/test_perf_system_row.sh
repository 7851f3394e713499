#!/bin/sh
# ddp-perf's usrsctp-system row: the usrsctp row's measurement over the
# packaged libusrsctp, run by the ddp-perf built against it (make
# perf-system-usrsctp). Built: the row is there, measured (a rate above
# zero) and names the packaged library. Not built, or --system-usrsctp-perf
# naming a missing program: the row is there all the same, skipped with the
# make target that builds it. Short loopback runs; the speed is not checked.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
fail() { echo "test_perf_system_row: $*"; exit 1; }
[ -x "$perf" ] || fail "no $perf"
# the default program, as ddp-perf's usage names it
sys=$("$perf" --help 2>&1 | sed -n 's/.*libusrsctp that the usrsctp-system row runs; default \(.*\),$/\1/p')
[ -n "$sys" ] || fail "--help names no default --system-usrsctp-perf"
echo "system ddp-perf: $sys"
# one run, JSON
out=$(timeout 60 "$perf" --llp usrsctp-system --size 16384 --streams 2 --duration 0.3 --json) ||
	fail "one run: exit $?: $out"
echo "$out"
echo "$out" | grep -q '^{"llp":"usrsctp-system","mode":"untagged","size":16384,"streams":2,' ||
	fail "no usrsctp-system line: $out"
if [ -x "$sys" ]; then
	echo "$out" | grep -q '"ok":true' || fail "usrsctp-system failed: $out"
	echo "$out" | grep -q '"mbytes_per_s":0.00,' && fail "usrsctp-system moved nothing: $out"
	echo "$out" | grep -q '"usrsctp":"packaged libusrsctp [0-9]' ||
		fail "usrsctp-system does not name the packaged libusrsctp: $out"
else
	echo "$out" | grep -q "\"skipped\":true,\"error\":\"no $sys (make perf-system-usrsctp builds it)\"" ||
		fail "$sys not built, row not skipped with the make target: $out"
	echo "test_perf_system_row: $sys not built (make perf-system-usrsctp): only the skipped row is checked"
fi
# the round trip too
out=$(timeout 60 "$perf" --llp usrsctp-system --mode rtt --size 64 --duration 0.3 --json) ||
	fail "rtt: exit $?: $out"
if [ -x "$sys" ]; then
	echo "$out" | grep -q '"ok":true' || fail "usrsctp-system rtt failed: $out"
	echo "$out" | grep -q '"rtt_us":0.00,' && fail "usrsctp-system rtt without a round trip: $out"
fi
# a missing program: skipped with the reason, exit 0
out=$(timeout 30 "$perf" --llp usrsctp-system --duration 0.3 --json \
	--system-usrsctp-perf /nonexistent/ddp-perf) || fail "missing program: exit $?: $out"
echo "$out" | grep -q '"llp":"usrsctp-system",.*"ok":false,"skipped":true,"error":"no /nonexistent/ddp-perf (make perf-system-usrsctp builds it)"}' ||
	fail "missing program, row not skipped with the make target: $out"
# the comparison's table: the row beside usrsctp at each stream count and
# in the round trips, and which usrsctp each ran
tbl=$(timeout 120 "$perf" --sizes 16384 --llps usrsctp,usrsctp-system --duration 0.3) ||
	fail "comparison: exit $?: $tbl"
echo "$tbl"
for st in 1 16; do
	echo "$tbl" | grep -q "^usrsctp  *raw  *16384  *$st  *[0-9]" || fail "no usrsctp row x$st"
	line=$(echo "$tbl" | grep "^usrsctp-system  *raw  *16384  *$st ")
	[ -n "$line" ] || fail "no usrsctp-system row x$st"
	if [ -x "$sys" ]; then
		echo "$line" | awk '{ exit !($5 + 0 > 0) }' || fail "usrsctp-system x$st: no rate: $line"
	else
		echo "$line" | grep -q ' n/a: no .* (make perf-system-usrsctp builds it)$' ||
			fail "usrsctp-system x$st not skipped with the make target: $line"
	fi
done
echo "$tbl" | grep -q '^usrsctp-system  *rtt  *64  *1 ' || fail "no usrsctp-system round trip"
echo "$tbl" | grep -q '^usrsctp of usrsctp, usrsctp-stock and sctp: libusrsctp ' ||
	fail "the table does not say which usrsctp ddp-perf was built with"
if [ -x "$sys" ]; then
	echo "$tbl" | grep -q "^usrsctp of usrsctp-system: packaged libusrsctp [0-9].*, in $sys " ||
		fail "the table does not say which usrsctp usrsctp-system ran"
fi
tbl=$(timeout 60 "$perf" --sizes 16384 --llps usrsctp-system --duration 0.3 \
	--system-usrsctp-perf /nonexistent/ddp-perf) || fail "comparison, missing program: exit $?: $tbl"
echo "$tbl"
[ "$(echo "$tbl" | grep -c '^usrsctp-system  *raw  *16384  *[0-9]*  n/a: no /nonexistent/ddp-perf (make perf-system-usrsctp builds it)$')" = 2 ] ||
	fail "missing program: the rows are not there, skipped with the make target"
echo "$tbl" | grep -q '^usrsctp of usrsctp-system: not measured (no /nonexistent/ddp-perf' ||
	fail "missing program: the note does not say so"
echo "test_perf_system_row: ok"

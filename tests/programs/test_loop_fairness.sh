#!/bin/sh
# The event loop stays the application's: a DDP/MPA sender whose peer
# drains the socket on another CPU (ddp-perf's two processes) and whose
# ULP sends again from every completion must still let the loop run its
# timers. ddp-perf ends a run from a 100 ms timer: a run of 0.5 s has to
# end in about 0.5 s. Before the fix the write event re-activated itself
# within one pass of libevent's active queue and such a run took 2-12 s
# (tagged 1 KiB messages on 4 and 16 connections).
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
fail() { echo "test_loop_fairness: $*"; exit 1; }
[ -x "$perf" ] || fail "no $perf"
for st in 4 16; do
	for mode in tagged untagged; do
		res=$(timeout 30 "$perf" --llp mpa --mode "$mode" --size 1024 --streams "$st" \
			--duration 0.5 --json) || fail "mpa $mode x$st: ddp-perf failed or hung: $res"
		echo "$res"
		secs=$(echo "$res" | sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p')
		[ -n "$secs" ] || fail "mpa $mode x$st: no seconds in $res"
		awk -v s="$secs" 'BEGIN { exit !(s < 1.5) }' ||
			fail "mpa $mode x$st: a 0.5 s run took $secs s (timers starved)"
	done
done
echo "test_loop_fairness: ok"

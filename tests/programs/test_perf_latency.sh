#!/bin/sh
# ddp-perf --latency: a short message-latency run (2 streams, 1 s) between
# two network namespaces joined by linkem with a 5 ms one-way delay. Every
# row (DDP/SCTP, DDP/MPA over 2 connections and over one, raw TCP) must
# deliver every message it sent, with p50 <= p99 <= max and p50 at least
# the link's one-way delay (a stamp or clock mistake, or a row that
# measures nothing, fails it). The namespaces must be gone after.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
fail() { echo "test_perf_latency: $*"; exit 1; }
[ -x "$perf" ] || fail "no $perf"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1 || [ ! -c /dev/net/tun ] ||
	[ ! -x "$BUILD/bin/linkem" ]; then
	echo "test_perf_latency: needs root, iproute2, /dev/net/tun and linkem"
	exit 77
fi
out=$(mktemp)
timeout 120 "$perf" --latency --link delay=5ms --streams 2 --rate 4mbit --sizes 16384 \
	--duration 1 --rows sctp,mpa,mpa1,tcp --json >"$out" 2>"$out.err" &
pid=$!
wait $pid
rc=$?
cat "$out" "$out.err"
[ $rc = 77 ] && { rm -f "$out" "$out.err"; echo "test_perf_latency: skipped by ddp-perf"; exit 77; }
[ $rc = 0 ] || fail "exit status $rc: $(tail -n 3 "$out.err")"
# ddp-perf names its namespaces after its pid
ip netns list 2>/dev/null | grep -q "ddpperf[AB]$pid\b" && fail "namespaces left behind"
rows=0
for r in "DDP/SCTP 1 assoc" "DDP/MPA 2 conns" "DDP/MPA 1 conn" "TCP 1 conn"; do
	line=$(grep "\"latency\":\"$r\"" "$out")
	[ -n "$line" ] || fail "no row $r"
	echo "$line" | grep -q '"ok":true' || fail "row $r failed: $line"
	v() { echo "$line" | sed "s/.*\"$1\":\([0-9.]*\).*/\1/"; }
	awk -v s="$(v sent)" -v d="$(v delivered)" -v a="$(v p50_ms)" -v b="$(v p99_ms)" \
		-v m="$(v max_ms)" 'BEGIN {
			if (d <= 0) { print "nothing delivered"; exit 1 }
			if (d != s) { print "sent " s ", delivered " d; exit 1 }
			if (!(a <= b && b <= m)) { print "p50 " a " p99 " b " max " m " out of order"; exit 1 }
			if (a < 5) { print "p50 " a " ms below the 5 ms one-way delay"; exit 1 }
		}' || fail "row $r: $line"
	rows=$((rows + 1))
done
[ "$(wc -l <"$out")" = $rows ] || fail "$(wc -l <"$out") lines, expected $rows rows"
rm -f "$out" "$out.err"
echo "test_perf_latency: ok ($rows rows)"

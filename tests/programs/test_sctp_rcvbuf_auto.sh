#!/bin/sh
# DDP/SCTP's receive buffer is autotuned (sctp/sctp_rcvbuf.h): it starts at
# 1 MiB and grows with what arrives per round trip. Seen from the sender
# (ddp-perf's DDP_PERF_TRACE: DATA chunks unacknowledged, at most 1444
# octets each here): across two namespaces with no delay the round trip is
# under 1 ms and the window stays at 1 MiB, so no more than 1 MiB is ever in
# flight (the old fixed 8 MiB let about 4,000 chunks stand in the
# receiver's queue); across linkem with a 100 ms round trip the receiver's
# window grows past 1 MiB, so more than 1 MiB gets in flight. The
# namespaces must be gone after.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
fail() { echo "test_sctp_rcvbuf_auto: $*"; exit 1; }
[ -x "$perf" ] || fail "no $perf"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1 || [ ! -c /dev/net/tun ] ||
	[ ! -x "$BUILD/bin/linkem" ]; then
	echo "test_sctp_rcvbuf_auto: needs root, iproute2, /dev/net/tun and linkem"
	exit 77
fi
out=$(mktemp)
# most chunks in flight over a run: run NAME SECONDS ddp-perf-args...
peak() {
	name=$1
	secs=$2
	shift 2
	DDP_PERF_TRACE=100 timeout 120 "$perf" --netns --llp sctp --mode untagged --size 65536 \
		--duration "$secs" "$@" >"$out" 2>"$out.err" &
	pid=$!
	wait $pid
	rc=$?
	[ $rc = 77 ] && { rm -f "$out" "$out.err"; echo "test_sctp_rcvbuf_auto: skipped by ddp-perf"; exit 77; }
	[ $rc = 0 ] || fail "$name: exit status $rc: $(tail -n 3 "$out.err")"
	ip netns list 2>/dev/null | grep -q "ddpperf[AB]$pid\b" && fail "$name: namespaces left behind"
	grep -q '^sctp  *untagged' "$out" || fail "$name: no result row"
	sed -n 's/^trace sctp .* unacked=\([0-9]*\) .*/\1/p' "$out.err" | sort -n | tail -n 1
}
# 1 MiB of 1444-octet chunks is 726; 900 leaves room for usrsctp's
# accounting, and is far below what a larger window lets through
lan=$(peak lan 2)
[ -n "$lan" ] || fail "lan: no trace lines"
[ "$lan" -le 900 ] || fail "lan: $lan chunks in flight: the window grew past 1 MiB on a sub-ms path"
wan=$(peak wan 4 --link delay=50ms)
[ -n "$wan" ] || fail "wan: no trace lines"
[ "$wan" -gt 1100 ] || fail "wan: at most $wan chunks in flight at a 100 ms round trip: the window did not grow"
rm -f "$out" "$out.err"
echo "test_sctp_rcvbuf_auto: ok (in flight at most: lan $lan chunks, 100 ms $wan chunks)"

#!/bin/sh
# Correctness through an impaired path: both LLPs across the link emulator
# (tools/linkem) with 5 ms delay each way, 1 ms jitter that reorders,
# 2 % random loss, 1 % duplication, 80 Mbit/s with a 300-packet queue and
# a 3 s outage one second in, each direction.
#  - ddp-xfer (tagged RDMA-style writes of 256 KiB chunks plus untagged
#    control on 4 streams): the receiver's SHA-256 equals the file's, so
#    every octet arrived once, in its place; both ends exit 0.
#  - ddp-rping (RDMAP Send, RDMA Read and RDMA Write, verified with -V):
#    every iteration completes; both ends exit 0 (a Terminate or an abort
#    fails it).
# Each run starts its own link so the outage falls inside the transfer;
# linkem's counters show the impairments happened. Needs root (skips, 77).
set -u
BUILD=${BUILD:-build}
. "$(dirname "$0")/linkem_lib.sh"
linkem_need
XFER=$BUILD/bin/ddp-xfer
RPING=$BUILD/bin/ddp-rping
[ -x "$XFER" ] && [ -x "$RPING" ] || { echo "skip: ddp-xfer / ddp-rping not built"; exit 77; }
SPEC="delay=5ms,jitter=1ms,reorder=1,loss=2%,dup=1%,rate=80mbit,queue=300,outage=3s@1s"
W=$(mktemp -d "${TMPDIR:-/tmp}/ddp-impaired.XXXXXX") || exit 1
trap 'linkem_down; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM HUP
fail() {
	echo "FAIL test_impaired_path: $*"
	exit 1
}

head -c 12000000 /dev/urandom > "$W/file" || fail "no test file"
want=$(sha256sum "$W/file" | cut -d' ' -f1)

# impaired NAME: the counters of the link just used (both directions: a
# ping-pong may have nothing in flight one way while the link is down) say
# the path was bad
impaired() {
	linkem_stats
	lost=$(($(linkem_counter fwd lost) + $(linkem_counter rev lost)))
	dups=$(($(linkem_counter fwd dup) + $(linkem_counter rev dup)))
	out=$(($(linkem_counter fwd outage) + $(linkem_counter rev outage)))
	[ "$lost" -gt 0 ] && [ "$dups" -gt 0 ] && [ "$out" -gt 0 ] ||
		fail "$1: the link did not impair (lost $lost dup $dups outage $out)"
	echo "ok   $1: through $lost lost, $dups duplicated, $out dropped in the outage"
}

for llp in mpa sctp; do
	linkem_up "$SPEC" imp || fail "linkem did not come up"
	ip netns exec "$LK_NS_B" "$XFER" recv --llp $llp --listen "$LK_ADDR_B:39600" \
		--out "$W/out" --timeout 20 > "$W/recv.out" 2> "$W/recv.err" &
	rp=$!
	sleep 0.3
	if ! ip netns exec "$LK_NS_A" timeout 60 "$XFER" send --llp $llp \
		--connect "$LK_ADDR_B:39600" --streams 4 --chunk 262144 --timeout 20 \
		"$W/file" > "$W/send.out" 2> "$W/send.err"; then
		kill $rp 2>/dev/null
		fail "ddp-xfer $llp: sender failed: $(tail -n 2 "$W/send.err")"
	fi
	wait $rp || fail "ddp-xfer $llp: receiver failed: $(tail -n 2 "$W/recv.err")"
	got=$(sha256sum "$W/out" | cut -d' ' -f1)
	[ "$got" = "$want" ] || fail "ddp-xfer $llp: the file arrived changed"
	impaired "ddp-xfer $llp, 12 MB on 4 streams, SHA-256 equal"
	linkem_down

	linkem_up "$SPEC" imp || fail "linkem did not come up"
	ip netns exec "$LK_NS_B" timeout 60 "$RPING" -s -a "$LK_ADDR_B" -p 39601 -C 50 -S 16384 -V \
		--llp $llp --timeout 50 > "$W/rs.out" 2>&1 &
	rs=$!
	sleep 0.3
	if ! ip netns exec "$LK_NS_A" timeout 60 "$RPING" -c -a "$LK_ADDR_B" -p 39601 -C 50 -S 16384 \
		-V --llp $llp --timeout 50 > "$W/rc.out" 2>&1; then
		kill $rs 2>/dev/null
		fail "ddp-rping $llp: client failed: $(tail -n 3 "$W/rc.out")"
	fi
	wait $rs || fail "ddp-rping $llp: server failed: $(tail -n 3 "$W/rs.out")"
	impaired "ddp-rping $llp, 50 verified Send / Read / Write iterations of 16 KiB"
	linkem_down
done
echo "test_impaired_path: ok"

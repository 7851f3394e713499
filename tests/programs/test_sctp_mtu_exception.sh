#!/bin/sh
# A lowered route MTU toward the peer (what a forged ICMP "fragmentation
# needed" leaves in the kernel for ten minutes: a route MTU under the
# link's) does not lower a new association's path MTU: the UDP layer starts
# from the MTU of the interface the route goes out of, and only ICMP that
# quotes the association's own tags lowers it (docs/security.md, off-path
# rules). Two network namespaces made here joined by a 9000-MTU veth
# (link-local 169.254.213.0/24, removed on exit); in the client's, the route
# to the server gets "mtu lock 1280"; a new DDP/SCTP association must run
# at the link's MTU (usrsctp's path MTU in the client's trace over 8000
# octets, not ~1250) and move 64 KiB messages.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
PORT=29713
fail() { echo "test_sctp_mtu_exception: $*"; exit 1; }
. "$(dirname "$0")/wait_lib.sh"
. "$(dirname "$0")/netns_lib.sh"
cleanup() {
	[ -n "${sp:-}" ] && kill "$sp" 2>/dev/null
	netns_del
}
trap cleanup EXIT INT TERM
[ -x "$perf" ] || fail "no $perf"
[ "$(id -u)" = 0 ] || { echo "test_sctp_mtu_exception: needs root (network namespaces): skipped"; exit 77; }
netns_pair dx 169.254.213 9000
ip -n "$A" route add "$SRV/32" dev "$VA" mtu lock 1280 || fail "cannot add the lowered route"
ip -n "$A" route get "$SRV" | grep -q "mtu lock 1280" || fail "the route MTU did not drop: $(ip -n "$A" route get "$SRV")"
out=$(mktemp)
ip netns exec "$B" "$perf" --server --llp sctp --listen "$SRV:$PORT" >"$out.srv" 2>"$out.err" &
sp=$!
wait_line "$out.err" "^ddp-perf: .* server on" "$sp" "sctp server start"
res=$(DDP_PERF_TRACE=200 timeout 20 ip netns exec "$A" "$perf" --connect "$SRV:$PORT" --llp sctp \
	--mode untagged --size 65536 --duration 1 --json 2>"$out.cli") ||
	fail "client failed: $res; $(cat "$out.cli"); server: $(cat "$out.err")"
echo "$res"
echo "$res" | grep -q '"ok":true' || fail "run: $res"
mtu=$(sed -n 's/^trace sctp .* mtu=\([0-9]*\) .*/\1/p' "$out.cli" | tail -1)
[ -n "$mtu" ] || fail "no path trace from the client: $(cat "$out.cli")"
echo "route MTU 1280 (locked), link MTU 9000: the association's path MTU is $mtu"
[ "$mtu" -gt 8000 ] || fail "the new association took the lowered route MTU ($mtu)"
kill -INT "$sp"; wait "$sp" || fail "server exit status $?"
sp=
rm -f "$out" "$out.srv" "$out.err" "$out.cli"
echo "test_sctp_mtu_exception: ok"

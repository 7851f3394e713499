#!/bin/sh
# ddp-perf across two hosts: client and server in two network namespaces
# made here, joined by a veth pair at MTU 1500, with link-local addresses
# that exist only inside them (169.254.210.0/24). Both DDP LLPs untagged and
# tagged, the raw baselines (tcp, usrsctp, usrsctp-stock, udp) as well;
# every run must succeed on both ends. Namespaces are removed on exit.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
PORT=29710
fail() { echo "test_perf_twohost: $*"; exit 1; }
. "$(dirname "$0")/wait_lib.sh"
. "$(dirname "$0")/netns_lib.sh"
cleanup() {
	[ -n "${sp:-}" ] && kill "$sp" 2>/dev/null
	netns_del
}
trap cleanup EXIT INT TERM
[ -x "$perf" ] || fail "no $perf"
netns_pair dd 169.254.210 1500

out=$(mktemp)
for llp in mpa sctp tcp usrsctp usrsctp-stock udp; do
	modes=untagged dur=1
	case $llp in mpa|sctp) modes="untagged tagged" dur=2 ;; esac
	: >"$out.err" # not the previous server's line: the background shell may truncate it late
	ip netns exec "$B" "$perf" --server --llp "$llp" --listen "$SRV:$PORT" --mtu 1500 >"$out.srv" 2>"$out.err" &
	sp=$!
	wait_line "$out.err" "^ddp-perf: .* server on" "$sp" "$llp server start" # it listens
	runs=0
	for mode in $modes; do
		res=$(timeout 20 ip netns exec "$A" "$perf" --connect "$SRV:$PORT" --llp "$llp" --mode "$mode" \
			--size 16384 --streams 4 --duration $dur --mtu 1500 --json) || fail "$llp $mode client failed: $res; server: $(cat "$out.err")"
		echo "$res"
		echo "$res" | grep -q '"ok":true' || fail "$llp $mode: $res"
		echo "$res" | grep -q '"topology":"remote"' || fail "$llp $mode: topology not remote: $res"
		echo "$res" | grep -q '"mbytes_per_s":0.00,' && fail "$llp $mode: the server counted nothing: $res"
		runs=$((runs + 1))
	done
	kill -INT "$sp"; wait "$sp" || fail "$llp server exit status $?"
	sp=
	cat "$out.srv"
	[ "$(grep -c '"ok":true' "$out.srv")" = $runs ] || fail "$llp server runs: $(cat "$out.srv" "$out.err")"
	grep -q '"msgs":0,' "$out.srv" && fail "$llp server received nothing"
done
# udp across the veth: datagrams of the link MTU - 28
echo "$res" | grep -q '"udp_payload":1472' || fail "udp datagrams not 1472 octets: $res"
rm -f "$out" "$out.srv" "$out.err"
echo "test_perf_twohost: ok"

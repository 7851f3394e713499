#!/bin/sh
# RFC 8899 §4.3 path MTU probing through a black hole: two
# network namespaces made here joined by a 1500-MTU veth (link-local
# 169.254.214.0/24, removed on exit), where each side's ingress silently
# drops UDP datagrams with DF set that are longer than 1300 octets (an
# nftables rule: a router with a 1300-octet next hop whose ICMP
# "fragmentation needed" is filtered; datagrams without DF it would
# fragment, so they pass). Nothing tells the sender: only probes find it.
# A DDP/SCTP run of 16 KiB untagged messages must complete, and the
# client's usrsctp path MTU must have settled at 1300 or below (the
# association's trace line). Without probing every full-size packet is
# dropped and the run times out.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
PORT=29714
fail() { echo "test_sctp_black_hole: $*"; exit 1; }
. "$(dirname "$0")/wait_lib.sh"
. "$(dirname "$0")/netns_lib.sh"
cleanup() {
	[ -n "${sp:-}" ] && kill "$sp" 2>/dev/null
	netns_del
}
trap cleanup EXIT INT TERM
[ -x "$perf" ] || fail "no $perf"
[ "$(id -u)" = 0 ] || { echo "test_sctp_black_hole: needs root (network namespaces): skipped"; exit 77; }
command -v nft >/dev/null || { echo "test_sctp_black_hole: needs nft (nftables): skipped"; exit 77; }
netns_pair bh 169.254.214 1500
for ns in "$A" "$B"; do
	ip netns exec "$ns" nft -f - <<NFT || fail "cannot add the black hole rule"
table inet bh {
	chain in {
		type filter hook prerouting priority -300;
		meta l4proto udp ip length > 1300 ip frag-off & 0x4000 != 0 drop
	}
}
NFT
done
out=$(mktemp)
ip netns exec "$B" "$perf" --server --llp sctp --listen "$SRV:$PORT" >"$out.srv" 2>"$out.err" &
sp=$!
wait_line "$out.err" "^ddp-perf: .* server on" "$sp" "sctp server start"
res=$(DDP_PERF_TRACE=200 timeout 60 ip netns exec "$A" "$perf" --connect "$SRV:$PORT" --llp sctp \
	--mode untagged --size 16384 --duration 12 --json 2>"$out.cli") ||
	fail "client failed (the black hole was not found): $res; $(tail -5 "$out.cli"); server: $(tail -5 "$out.err")"
echo "$res"
echo "$res" | grep -q '"ok":true' || fail "run: $res"
echo "$res" | grep -q '"mbytes_per_s":0.00,' && fail "nothing moved: $res"
mtu=$(sed -n 's/^trace sctp .* mtu=\([0-9]*\) .*/\1/p' "$out.cli" | tail -1)
[ -n "$mtu" ] || fail "no path trace from the client: $(tail -5 "$out.cli")"
# usrsctp's path MTU is the IP MTU less 40 (IPv4, UDP and the 12 octets
# usrsctp counts for an AF_CONN peer: sctp_usrsctp_io.c)
mtu=$((mtu + 40))
echo "link MTU 1500, black hole above 1300: the association's path MTU is $mtu"
[ "$mtu" -le 1300 ] || fail "the path MTU stayed above the black hole ($mtu)"
kill -INT "$sp"; wait "$sp" || fail "server exit status $?"
sp=
rm -f "$out" "$out.srv" "$out.err" "$out.cli"
echo "test_sctp_black_hole: ok"

#!/bin/sh
# ddp-xfer --bench across two hosts: sender and receiver in two network
# namespaces made here, joined by a veth pair at MTU 1500, with link-local
# addresses that exist only inside them (169.254.211.0/24); both removed on
# exit. Needs root and iproute2. FILE must be visible in both (e.g. /dev/shm).
#
#   sh demos/ddp-xfer/bench_netns.sh [BUILD] [ddp-xfer --bench options] FILE
set -u
BUILD=build
case "${1:-}" in -* | "") ;; *) [ -d "$1/bin" ] && { BUILD=$1; shift; } ;; esac
xfer=$BUILD/bin/ddp-xfer
A=dxbA$$ B=dxbB$$ VA=dxa$$ VB=dxb$$
cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT INT TERM
[ -x "$xfer" ] || { echo "bench_netns: no $xfer" >&2; exit 1; }
ip netns add "$A" && ip netns add "$B" || { echo "bench_netns: cannot create namespaces" >&2; exit 1; }
ip link add "$VA" type veth peer name "$VB" && ip link set "$VA" netns "$A" &&
	ip link set "$VB" netns "$B" || { echo "bench_netns: cannot make the veth pair" >&2; exit 1; }
ip -n "$A" addr add 169.254.211.1/24 dev "$VA"
ip -n "$B" addr add 169.254.211.2/24 dev "$VB"
for n in "$A:$VA" "$B:$VB"; do
	ip -n "${n%%:*}" link set lo up
	ip -n "${n%%:*}" link set "${n#*:}" mtu 1500 up
done
ip netns exec "$A" ping -c 1 -W 2 169.254.211.2 >/dev/null 2>&1 || { echo "bench_netns: no connectivity" >&2; exit 1; }
# SCTP over UDP: path MTU = 1500 - 20 (IP) - 8 (UDP) - 12
"$xfer" --bench --addr 169.254.211.2 --send-ns "$A" --recv-ns "$B" --mtu 1460 "$@"

# Two test hosts for the program tests (sourced): network namespaces made
# here and joined by a veth pair, with link-local addresses that exist only
# inside them. The caller defines fail() and calls netns_del on exit.
#
#   netns_pair TAG NET MTU
#       namespaces A=${TAG}A$$ and B=${TAG}B$$, veth ends VA (in A, NET.1)
#       and VB (in B, NET.2) at MTU; SRV=NET.2. Fails (fail) unless A
#       reaches B.
#   netns_del   removes both namespaces (and with them the veth pair)

netns_pair() {
	A=${1}A$$ B=${1}B$$ VA=${1}a$$ VB=${1}b$$ SRV=$2.2
	ip netns add "$A" && ip netns add "$B" || fail "cannot create network namespaces (need root and iproute2)"
	ip link add "$VA" type veth peer name "$VB" || fail "cannot create a veth pair"
	ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" || fail "cannot move veth ends"
	ip -n "$A" addr add "$2.1/24" dev "$VA"
	ip -n "$B" addr add "$SRV/24" dev "$VB"
	for n in "$A:$VA" "$B:$VB"; do
		ns=${n%%:*} dev=${n#*:}
		ip -n "$ns" link set lo up
		ip -n "$ns" link set "$dev" mtu "$3" up || fail "link up"
	done
	ip netns exec "$A" ping -c 1 -W 2 "$SRV" >/dev/null 2>&1 || fail "no connectivity between the namespaces"
}

netns_del() {
	[ -n "${A:-}" ] && ip netns del "$A" 2>/dev/null
	[ -n "${B:-}" ] && ip netns del "$B" 2>/dev/null
	return 0
}

# Two test hosts joined by the link emulator (sourced; docs/linkem.md).
# linkem makes two network namespaces, one TUN device in each, and forwards
# between them through the model SPEC describes.
#
#   linkem_begin NAME   a test script's start: linkem_need, linkem_down on
#                    exit; fail MESSAGE then prints "NAME: MESSAGE", stops
#                    linkem and exits 1
#   linkem_need      exit 77 (skip) unless root, /dev/net/tun and the binary
#   linkem_up SPEC [TAG]
#       starts linkem; namespaces LK_NS_A=${TAG}A$$ and LK_NS_B=${TAG}B$$
#       (TAG defaults to lk), addresses LK_ADDR_A and LK_ADDR_B (defaults
#       169.254.77.1 and .2, or what the caller set), LK_PID; returns when the
#       link is up, 1 if it did not come up (the log is printed)
#   linkem_stats     SIGUSR1: LK_STATS gets the counters as they are now
#   linkem_down      stops linkem (it removes its namespaces and devices);
#                    LK_STATS holds the final counters; LK_LEFTOVER=1 if the
#                    namespaces were still there (then removed here)
#   linkem_done TEXT linkem_down, then TEXT and the final counters printed
#   linkem_counter DIR KEY   a counter of LK_STATS (DIR fwd = A->B, rev)
#
# LINKEM overrides the binary (default $BUILD/bin/linkem).

LINKEM=${LINKEM:-${BUILD:-build}/bin/linkem}
LINKEM_PROBE=${LINKEM_PROBE:-${BUILD:-build}/bin/linkem-probe}

linkem_begin() {
	LK_TEST=$1
	linkem_need
	trap linkem_down EXIT
}

fail() {
	echo "${LK_TEST:-linkem}: $*"
	linkem_down
	exit 1
}

linkem_need() {
	if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ]; then
		echo "skip: needs root and /dev/net/tun"
		exit 77
	fi
	command -v ip >/dev/null 2>&1 || { echo "skip: no iproute2"; exit 77; }
	[ -x "$LINKEM" ] || { echo "skip: no $LINKEM (make)"; exit 77; }
}

linkem_up() {
	LK_TAG=${2:-lk}
	LK_NS_A=${LK_TAG}A$$
	LK_NS_B=${LK_TAG}B$$
	LK_ADDR_A=${LK_ADDR_A:-169.254.77.1}
	LK_ADDR_B=${LK_ADDR_B:-169.254.77.2}
	LK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/linkem.XXXXXX") || return 1
	mkfifo "$LK_DIR/ready" || return 1
	"$LINKEM" --spec "$1" --ns-a "$LK_NS_A" --ns-b "$LK_NS_B" --addr-a "$LK_ADDR_A" \
		--addr-b "$LK_ADDR_B" --stats-file "$LK_DIR/stats" --ready-fd 3 \
		3>"$LK_DIR/ready" 2>"$LK_DIR/log" &
	LK_PID=$!
	lk_r=$(timeout 10 cat "$LK_DIR/ready")
	if [ "$lk_r" != ready ]; then
		echo "linkem did not come up:"
		cat "$LK_DIR/log"
		kill "$LK_PID" 2>/dev/null
		wait "$LK_PID" 2>/dev/null
		LK_PID=
		return 1
	fi
	export LK_NS_A LK_NS_B LK_ADDR_A LK_ADDR_B LK_PID
	LK_STATS=
	return 0
}

linkem_stats() {
	[ -n "${LK_PID:-}" ] || return 1
	rm -f "$LK_DIR/stats"
	kill -USR1 "$LK_PID"
	lk_i=0
	while [ ! -s "$LK_DIR/stats" ] && [ $lk_i -lt 100 ]; do
		sleep 0.02
		lk_i=$((lk_i + 1))
	done
	LK_STATS=$(cat "$LK_DIR/stats" 2>/dev/null)
}

linkem_down() {
	[ -n "${LK_PID:-}" ] || return 0
	kill -TERM "$LK_PID" 2>/dev/null
	wait "$LK_PID" 2>/dev/null
	LK_PID=
	LK_STATS=$(cat "$LK_DIR/stats" 2>/dev/null)
	rm -rf "$LK_DIR"
	# linkem removes them: LK_LEFTOVER=1 says it did not (then they go here)
	LK_LEFTOVER=0
	if ip netns list | grep -qE "^($LK_NS_A|$LK_NS_B)( |\$)"; then
		LK_LEFTOVER=1
		ip netns del "$LK_NS_A" 2>/dev/null
		ip netns del "$LK_NS_B" 2>/dev/null
	fi
	return 0
}

# linkem_done TEXT: linkem_down, then print TEXT (what the probe saw) and
# linkem's final counters
linkem_done() {
	linkem_down
	echo "$1"
	echo "$LK_STATS"
}

linkem_counter() {
	printf '%s\n' "$LK_STATS" | sed -n "s/^linkem $1:.* $2=\([0-9]*\).*/\1/p"
}

# linkem_udp COUNT PPS [SIZE] [rev]: COUNT numbered datagrams of SIZE octets
# (default 64) from A to B (B to A with rev) through the link, paced at PPS;
# LK_UDP = the receiver's line (see tools/linkem/probe.c), LK_UDP_SECS = how
# long the sender took. The receiver stops LK_UDP_IDLE ms (500) after the
# last datagram. Returns 1 if the probe failed.
linkem_udp() {
	lk_src=$LK_NS_A lk_dst=$LK_NS_B lk_to=$LK_ADDR_B
	if [ "${4:-}" = rev ]; then
		lk_src=$LK_NS_B lk_dst=$LK_NS_A lk_to=$LK_ADDR_A
	fi
	: >"$LK_DIR/udp"
	ip netns exec "$lk_dst" "$LINKEM_PROBE" udp-recv 9700 "$1" "${LK_UDP_IDLE:-500}" >"$LK_DIR/udp" &
	lk_rp=$!
	lk_listening "$LK_DIR/udp"
	lk_s=$(ip netns exec "$lk_src" "$LINKEM_PROBE" udp-send "$lk_to" 9700 "$1" "$2" "${3:-64}")
	wait "$lk_rp" || return 1
	LK_UDP=$(tail -n 1 "$LK_DIR/udp")
	LK_UDP_SECS=$(lk_field "$lk_s" seconds)
	case $LK_UDP in received=*) return 0 ;; esac
	return 1
}

# linkem_tcp PORT SKIP_MS SECONDS: one TCP flow from A to B through the
# link for SECONDS; LK_TCP = the receiver's line (goodput from SKIP_MS
# after its first octet, octets corrupt: see tools/linkem/probe.c).
# Returns 1 if the sender failed.
linkem_tcp() {
	: >"$LK_DIR/tcp"
	ip netns exec "$LK_NS_B" "$LINKEM_PROBE" tcp-recv "$1" "$2" >"$LK_DIR/tcp" &
	lk_rp=$!
	lk_listening "$LK_DIR/tcp"
	if ! ip netns exec "$LK_NS_A" "$LINKEM_PROBE" tcp-send "$LK_ADDR_B" "$1" "$3" >/dev/null; then
		kill "$lk_rp" 2>/dev/null
		wait "$lk_rp" 2>/dev/null
		return 1
	fi
	wait "$lk_rp"
	LK_TCP=$(tail -n 1 "$LK_DIR/tcp")
}

# lk_listening FILE: wait (up to 5 s) until a probe's receiver says in FILE
# that it is bound
lk_listening() {
	lk_i=0
	while ! grep -q listening "$1" && [ $lk_i -lt 250 ]; do
		sleep 0.02
		lk_i=$((lk_i + 1))
	done
}

# lk_field LINE KEY: the value of KEY=VALUE in LINE
lk_field() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# lk_within VALUE TARGET TOL: true if |VALUE - TARGET| <= TOL * TARGET
lk_within() {
	awk -v v="$1" -v t="$2" -v tol="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(v != "" && d <= tol * t) }'
}

# linkem_unread COUNT: how many of COUNT datagrams sent A to B never reached
# linkem (the kernel dropped them at a full device queue while linkem could
# not run: a host overload, not the link); fails the caller's check above 5 %.
linkem_unread() {
	echo $(($1 - $(linkem_counter fwd reads)))
}

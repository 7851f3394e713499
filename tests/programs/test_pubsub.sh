# examples/pubsub: the relay forwards every published message to every
# subscriber of its topic exactly once, in order per topic, byte-exact, over
# MPA and over SCTP, across worker threads; a subscriber that stops reading
# is dropped and costs the relay bounded memory.
#
# One relay, 3 workers, free ports (port 0, read from its log), a DDP send
# queue of 8 messages per stream so that subscribers' backlogs fill (the
# DDP_ERR_LIMIT / writable path is taken all the time). Per LLP:
#  - fan-out: publishers 0 (worker 0) and 1 (worker 1) each send 2,000
#    messages of 256 octets on each of topics 0-3; subscribers: A (0-3) and
#    B (0,1) on worker 2, C (2,3) on worker 1, each told to expect both
#    publishers; plus S (0-3, worker 2) that stops reading after 100. Every
#    subscriber checks sequence, length and every octet itself and exits
#    non-zero on a lost, duplicate, reordered or corrupt message; here each
#    must exit 0 with the exact count in its summary line; S must stall
#    without an error (its messages in flight find buffers).
#  - stall: one publisher sends 20,000 messages of 4 KiB (80 MB) on topic 0
#    to a reading subscriber and to one that stops after 100: the relay must
#    drop the staller (logged), the reader must still get all 20,000, and
#    the relay's VmRSS may grow by at most 40 MB over the run (it cannot
#    keep the staller's 80 MB).
set -u
BUILD=${BUILD:-build}
RELAY=$BUILD/bin/pubsub_relay
CLIENT=$BUILD/bin/pubsub_client
T=$(basename "$0" .sh)
W=$(mktemp -d "${TMPDIR:-/tmp}/$T.XXXXXX") || exit 1
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] && echo "kept $W" || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fail() {
	echo "FAIL $T: $*"
	[ -f "$W/relay.log" ] && tail -n 20 "$W/relay.log"
	exit 1
}
[ -x "$RELAY" ] && [ -x "$CLIENT" ] || fail "$RELAY or $CLIENT not built"
. "$(dirname "$0")/wait_lib.sh"

"$RELAY" --workers 3 --drop-after 1000 --queue 8 127.0.0.1 0 0 >"$W/relay.log" 2>&1 &
RP=$!
PIDS="$RP"
wait_line "$W/relay.log" "workers ready" "$RP" "relay start"
port() { # port LLP WORKER
	sed -n "s/^relay: worker $2: MPA on [^:]*:\([0-9]*\), SCTP on [^:]*:\([0-9]*\)$/\\$(
		[ "$1" = mpa ] && echo 1 || echo 2)/p" "$W/relay.log"
}
rss() { sed -n 's/^VmRSS:[^0-9]*\([0-9]*\) kB/\1/p' "/proc/$RP/status"; }
RSS0=$(rss)

# sub NAME LLP WORKER OPTIONS...: a subscriber in the background, waits
# until the relay has it (its ACK: "subscribed"); pid in $SUBPID.
sub() {
	sb_n=$1 sb_l=$2 sb_w=$3
	shift 3
	sb_x=""
	[ "$sb_l" = sctp ] && sb_x=--sctp
	"$CLIENT" --sub $sb_x --timeout 30 "$@" 127.0.0.1 "$(port "$sb_l" "$sb_w")" >"$W/$sb_n.log" 2>&1 &
	SUBPID=$!
	PIDS="$PIDS $SUBPID"
	wait_line "$W/$sb_n.log" "subscribed" "$SUBPID" "$sb_n"
}
pub() { # pub NAME LLP WORKER OPTIONS...: a publisher, pid in $PUBPID
	pb_n=$1 pb_l=$2 pb_w=$3
	shift 3
	pb_x=""
	[ "$pb_l" = sctp ] && pb_x=--sctp
	"$CLIENT" --pub $pb_x --timeout 30 "$@" 127.0.0.1 "$(port "$pb_l" "$pb_w")" >"$W/$pb_n.log" 2>&1 &
	PUBPID=$!
	PIDS="$PIDS $PUBPID"
}
# done_ok NAME PID COUNT: the client exited 0 after COUNT messages
done_ok() {
	wait "$2" || fail "$1 failed: $(tail -n 1 "$W/$1.log")"
	grep -q ": $3 messages" "$W/$1.log" || fail "$1: not $3 messages: $(tail -n 1 "$W/$1.log")"
}

# stalled_ok NAME: the subscriber stalled after 100 messages and said
# nothing else: a message it left without a buffer would have ended its
# session with a DDP error instead (and the relay would not drop it)
stalled_ok() {
	grep -q "stalled after 100 messages" "$W/$1.log" || fail "$1 did not stall: $(cat "$W/$1.log")"
	grep -v -e ": subscribed$" -e "stalled after 100 messages" "$W/$1.log" | grep -q . &&
		fail "$1: $(cat "$W/$1.log")"
	return 0
}

fanout() {
	l=$1
	sub "$l-A" "$l" 2 --topics 0,1,2,3 --pubs 2 --count 2000 --size 256
	A=$SUBPID
	sub "$l-B" "$l" 2 --topics 0,1 --pubs 2 --count 2000 --size 256
	B=$SUBPID
	sub "$l-C" "$l" 1 --topics 2,3 --pubs 2 --count 2000 --size 256
	C=$SUBPID
	sub "$l-S" "$l" 2 --topics 0,1,2,3 --pubs 2 --count 2000 --size 256 --stall-after 100
	S=$SUBPID
	pub "$l-P0" "$l" 0 --topics 0,1,2,3 --id 0 --count 2000 --size 256
	P0=$PUBPID
	pub "$l-P1" "$l" 1 --topics 0,1,2,3 --id 1 --count 2000 --size 256
	P1=$PUBPID
	done_ok "$l-P0" "$P0" 8000
	done_ok "$l-P1" "$P1" 8000
	done_ok "$l-A" "$A" 16000
	done_ok "$l-B" "$B" 8000
	done_ok "$l-C" "$C" 8000
	stalled_ok "$l-S"
	kill "$S"
	echo "ok fanout-$l: 2 publishers x 4 topics x 2000 to 3 subscribers on other workers:" \
		"$(sed -n 's/.*\(msg\/s\)/&/p' "$W/$l-A.log" | sed 's/.*; //') at subscriber A"
}

stall() {
	l=$1
	sub "$l-R" "$l" 1 --topics 0 --count 20000 --size 4096
	R=$SUBPID
	sub "$l-Z" "$l" 1 --topics 0 --count 20000 --size 4096 --stall-after 100
	Z=$SUBPID
	n0=$(grep -c "dropping subscriber" "$W/relay.log")
	pub "$l-Q" "$l" 0 --topics 0 --count 20000 --size 4096
	Q=$PUBPID
	done_ok "$l-Q" "$Q" 20000
	done_ok "$l-R" "$R" 20000
	stalled_ok "$l-Z"
	# the relay drops it once it has taken nothing for its stall time-out;
	# the others may finish first (a fast run), so wait for that, 10 s at most
	i=0
	while n1=$(grep -c "dropping subscriber" "$W/relay.log"); [ "$n1" -le "$n0" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$n1" -gt "$n0" ] || fail "$l: the stalled subscriber was not dropped"
	kill "$Z"
	echo "ok stall-$l: 20000 x 4 KiB delivered past a stalled subscriber, which was dropped;" \
		"$(grep "dropping subscriber" "$W/relay.log" | tail -n 1 | sed 's/.*: no/no/')"
}

fanout mpa
fanout sctp
stall mpa
stall sctp
RSS1=$(rss)
if nm "$RELAY" 2>/dev/null | grep -q '__asan_init'; then
	# AddressSanitizer keeps freed memory in quarantine (256 MB by
	# default): the bound says nothing there
	echo "ok rss: not bounded under ASan (relay VmRSS $RSS0 -> $RSS1 kB)"
else
	[ $((RSS1 - RSS0)) -lt 40960 ] || fail "relay VmRSS grew from $RSS0 kB to $RSS1 kB (bound: 40 MB)"
	echo "ok rss: relay VmRSS $RSS0 kB at start, $RSS1 kB after 80 MB per LLP past a stalled subscriber"
fi
kill "$RP"
wait "$RP" || fail "relay exited $? on SIGTERM"
PIDS=""
exit 0

# ddp-xfer failures: non-zero exit and exactly ONE "ddp-xfer: <reason>"
# line on stderr.
#  - the receiver is killed (kill -9) mid-transfer: the sender stops within
#    10 s (MPA: the kernel resets the TCP connections; SCTP: ICMP port
#    unreachable / the association's failure detection);
#  - nobody listens on the port (MPA: connection refused, SCTP: no answer);
#  - a second sender while a transfer runs: the receiver tells connections
#    of one transfer apart from strangers by the hello (transfer id) in the
#    MPA Request / SCTP Initiate private data and rejects the stranger,
#    whose sender fails with the receiver's reason, while the first
#    transfer goes on;
#  - the receiver stops answering (SIGSTOP): the sender gives up after its
#    --timeout of 1 s with a timeout reason (before SCTP's own failure
#    detection ends the association: 5 retransmission timeouts from RTO 100
#    ms, 2.5 s at the earliest), and the receiver, continued, fails too
#    because its sender is gone.
# The transferred file is a sparse 64 GiB file (no disk use), far more than
# can cross before the kill (0.5 s after the first progress line; ddp-xfer
# moves ~1 GiB/s on loopback).
. "$(dirname "$0")/xfer_lib.sh"
truncate -s 64G "$W/big" || fail "truncate failed"

killed() {
	llp=$1 port=$2
	start_recv "kill-$llp" "$llp" "$port"
	"$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 4 "$W/big" \
		>"$W/kill-$llp-s.out" 2>"$W/kill-$llp-s.err" &
	sp=$!
	PIDS="$PIDS $sp"
	wait_progress "kill-$llp" "$sp"
	sleep 0.5
	kill -0 "$sp" 2>/dev/null || fail "kill-$llp: sender ended before the kill: $(tail -n1 "$W/kill-$llp-s.err")"
	kill -9 "$RP"
	t0=$(now)
	if wait_pid "$sp" 10; then fail "kill-$llp: sender exited 0"; fi
	e=$(elapsed "$t0")
	lt "$e" 10 || fail "kill-$llp: sender needed $e s"
	echo "ok kill-$llp: sender stopped after $e s: $(one_reason "$W/kill-$llp-s.err")"
}

refused() {
	llp=$1 port=$2
	t0=$(now)
	"$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 2 "$W/big" \
		>"$W/ref-$llp.out" 2>"$W/ref-$llp.err" &
	sp=$!
	PIDS="$PIDS $sp"
	if wait_pid "$sp" 15; then fail "refused-$llp: sender exited 0"; fi
	[ -s "$W/ref-$llp.out" ] && fail "refused-$llp: printed a hash"
	echo "ok refused-$llp after $(elapsed "$t0") s: $(one_reason "$W/ref-$llp.err")"
}

stalled() {
	llp=$1 port=$2
	start_recv "stall-$llp" "$llp" "$port"
	"$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 2 --timeout 1 "$W/big" \
		>"$W/stall-$llp-s.out" 2>"$W/stall-$llp-s.err" &
	sp=$!
	PIDS="$PIDS $sp"
	wait_progress "stall-$llp" "$sp"
	kill -STOP "$RP"
	t0=$(now)
	if wait_pid "$sp" 10; then fail "stall-$llp: sender exited 0"; fi
	e=$(elapsed "$t0")
	lt "$e" 5 || fail "stall-$llp: the sender needed $e s to give up (--timeout 1)"
	r=$(one_reason "$W/stall-$llp-s.err")
	case "$r" in *timeout*) ;; *) fail "stall-$llp: not a timeout: $r" ;; esac
	kill -CONT "$RP"
	if wait_pid "$RP" 15; then fail "stall-$llp: receiver exited 0"; fi
	echo "ok stall-$llp: sender gave up after $e s: $r; receiver: $(one_reason "$W/stall-$llp.err")"
}

busy() {
	llp=$1 port=$2
	start_recv "busy-$llp" "$llp" "$port"
	"$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 2 "$W/big" \
		>"$W/busy-$llp-a.out" 2>"$W/busy-$llp-a.err" &
	sa=$!
	PIDS="$PIDS $sa"
	wait_progress "busy-$llp" "$sa"
	printf 'y' >"$W/one"
	if "$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 2 "$W/one" \
		>"$W/busy-$llp-b.out" 2>"$W/busy-$llp-b.err"; then
		fail "busy-$llp: second sender exited 0"
	fi
	r=$(one_reason "$W/busy-$llp-b.err")
	case "$r" in *busy*) ;; *) fail "busy-$llp: reason without 'busy': $r" ;; esac
	kill -0 "$sa" 2>/dev/null || fail "busy-$llp: first sender died: $(tail -n1 "$W/busy-$llp-a.err")"
	kill -0 "$RP" 2>/dev/null || fail "busy-$llp: receiver died: $(tail -n1 "$W/busy-$llp.err")"
	kill -9 "$sa" "$RP"
	echo "ok busy-$llp: $r"
}

killed mpa 29540
killed sctp 29541
refused mpa 29542
refused sctp 29543
busy mpa 29546
busy sctp 29547
stalled mpa 29544
stalled sctp 29545
"$XFER" send --llp tcp --connect 127.0.0.1:1 "$W/big" 2>"$W/usage.err" && fail "bad --llp accepted"
one_reason "$W/usage.err" >/dev/null
echo "ok usage error: $(cat "$W/usage.err")"
exit 0

# ddp-xfer: slow is not dead. --timeout is the one
# knob for "how long may the peer be silent": it maps onto SCTP's failure
# detection (net_sctp.c xf_sctp_liveness) and MPA's dead-peer timeout
# (net_mpa.c), so
#  - a sender stopped (SIGSTOP) for 5 s with --timeout 8 on both ends is
#    waited for: after SIGCONT the transfer completes and both ends print
#    the same hash (before failure detection rode out stalls, SCTP gave up after ~2.5 s of silence
#    with "lower layer protocol failure" on both ends);
#  - a sender stopped for 5 s with --timeout 2 is given up: the receiver
#    fails with "timeout: nothing heard from the sender for 2 s" within
#    ~2 s of the stop (the association still being up), the continued
#    sender fails too.
# Over MPA and SCTP; the file is a sparse 2 GiB file (far more than
# crosses in the second before the stop; ddp-xfer moves ~1 GiB/s on
# loopback). Ports 29593-29596.
. "$(dirname "$0")/xfer_lib.sh"
truncate -s 2G "$W/big" || fail "truncate failed"

survives() {
	llp=$1 port=$2
	start_recv "ok-$llp" "$llp" "$port" --timeout 8
	"$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 2 --timeout 8 "$W/big" \
		>"$W/ok-$llp-s.out" 2>"$W/ok-$llp-s.err" &
	sp=$!
	PIDS="$PIDS $sp"
	wait_progress "ok-$llp" "$sp"
	kill -STOP "$sp"
	sleep 5
	kill -0 "$RP" 2>/dev/null || fail "ok-$llp: the receiver gave up during a 5 s stall: $(tail -n1 "$W/ok-$llp.err")"
	kill -CONT "$sp"
	wait_pid "$sp" 40 || fail "ok-$llp: sender failed after the stall: $(tail -n1 "$W/ok-$llp-s.err")"
	wait_pid "$RP" 10 || fail "ok-$llp: receiver failed after the stall: $(tail -n1 "$W/ok-$llp.err")"
	hs=$(cat "$W/ok-$llp-s.out") hr=$(cat "$W/ok-$llp.out")
	case "$hs" in "sha256 "*" bytes 2147483648") ;; *) fail "ok-$llp: sender printed '$hs'" ;; esac
	[ "$hs" = "$hr" ] || fail "ok-$llp: receiver printed '$hr', sender '$hs'"
	echo "ok stall-survived-$llp: 5 s stall with --timeout 8, then $hs"
}

gives_up() {
	llp=$1 port=$2
	start_recv "late-$llp" "$llp" "$port" --timeout 2
	"$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 2 --timeout 2 "$W/big" \
		>"$W/late-$llp-s.out" 2>"$W/late-$llp-s.err" &
	sp=$!
	PIDS="$PIDS $sp"
	wait_progress "late-$llp" "$sp"
	kill -STOP "$sp"
	t0=$(now)
	if wait_pid "$RP" 10; then fail "late-$llp: receiver exited 0"; fi
	e=$(elapsed "$t0")
	lt "$e" 4.5 || fail "late-$llp: the receiver needed $e s to give up (--timeout 2)"
	r=$(one_reason "$W/late-$llp.err")
	case "$r" in *"timeout: nothing heard from the sender for 2 s"*) ;;
	*) fail "late-$llp: not the timeout: $r" ;; esac
	kill -CONT "$sp"
	if wait_pid "$sp" 15; then fail "late-$llp: sender exited 0"; fi
	echo "ok stall-too-long-$llp: receiver gave up after $e s: $r; sender: $(one_reason "$W/late-$llp-s.err")"
}

survives sctp 29593
survives mpa 29594
gives_up sctp 29595
gives_up mpa 29596
exit 0

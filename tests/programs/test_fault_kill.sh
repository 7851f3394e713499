# Peer process killed (kill -9) mid-transfer, both directions, for each LLP:
# the survivor must notice within 10 s, exit non-zero and
# print exactly one "ddp-xfer: <reason>" line. The detection time (from the
# kill to the survivor's exit) is measured and printed.
#  - receiver killed: MPA: the kernel resets the TCP connections of the dead
#    process; SCTP: ICMP port unreachable answers the sender's next datagram.
#  - sender killed: MPA: the kernel closes the dead sender's sockets (FIN or
#    RST), the receiver sees the connections end before the transfer did;
#    SCTP: the receiver's SACKs / heartbeats draw ICMP port unreachable.
#  - sender killed while still joining (MPA, right after its first TCP
#    connection is up): the receiver must not wait for the missing streams.
# The file is a sparse 64 GiB file (no disk use), far more than crosses in
# the second or two before the kill (ddp-xfer moves ~1 GiB/s on loopback). --timeout 30 on the survivor makes sure the
# failure seen is the detection of the dead peer, not ddp-xfer's idle timer.
. "$(dirname "$0")/xfer_lib.sh"
truncate -s 64G "$W/big" || fail "truncate failed"

# free_port FALLBACK: a random port in 20000..31999 (below the ephemeral
# range) that nothing listens on (TCP or UDP), so that concurrent runs of
# the suite do not collide on fixed ports; FALLBACK when ss is missing.
free_port() {
	command -v ss >/dev/null 2>&1 || { echo "$1"; return; }
	fp_i=0
	while [ $fp_i -lt 50 ]; do
		fp_ns=$(date +%N | sed 's/^0*//')
		fp_p=$((20000 + (${fp_ns:-0} / 1000 + $$ * 7919 + $1 * 31 + fp_i * 104729) % 12000))
		if [ -z "$(ss -Hltn "( sport = :$fp_p )" 2>/dev/null)" ] &&
			[ -z "$(ss -Hlun "( sport = :$fp_p )" 2>/dev/null)" ]; then
			echo "$fp_p"
			return
		fi
		fp_i=$((fp_i + 1))
	done
	echo "$1"
}

# run_pair NAME LLP PORT: receiver + sender in the background ($RP, $SP),
# both already moving data when this returns.
run_pair() {
	rp_n=$1 rp_llp=$2 rp_port=$3
	start_recv "$rp_n-r" "$rp_llp" "$rp_port" --timeout 30
	"$XFER" send --llp "$rp_llp" --connect "127.0.0.1:$rp_port" --streams 4 --timeout 30 \
		"$W/big" >"$W/$rp_n-s.out" 2>"$W/$rp_n-s.err" &
	SP=$!
	PIDS="$PIDS $SP"
	wait_progress "$rp_n-r" "$SP"
	sleep 0.5
	kill -0 "$SP" 2>/dev/null || fail "$rp_n: sender ended before the kill: $(tail -n1 "$W/$rp_n-s.err")"
	kill -0 "$RP" 2>/dev/null || fail "$rp_n: receiver ended before the kill: $(tail -n1 "$W/$rp_n-r.err")"
}

# kill_one NAME LLP PORT WHO: kill -9 WHO (recv or send); the other side
# must exit non-zero within 10 s with one reason line.
kill_one() {
	k_n=$1 k_llp=$2 k_port=$3 k_who=$4
	run_pair "$k_n" "$k_llp" "$k_port"
	if [ "$k_who" = recv ]; then
		k_dead=$RP k_surv=$SP k_err="$W/$k_n-s.err" k_out="$W/$k_n-s.out" k_role=sender
	else
		k_dead=$SP k_surv=$RP k_err="$W/$k_n-r.err" k_out="$W/$k_n-r.out" k_role=receiver
	fi
	kill -9 "$k_dead"
	k_t0=$(now)
	# wait_pid fails the test when the survivor runs 12 s more; the 10 s
	# limit is checked on the measured time
	if wait_pid "$k_surv" 12; then fail "$k_n: $k_role exited 0 after its peer was killed"; fi
	k_e=$(elapsed "$k_t0")
	wait "$k_dead" 2>/dev/null
	[ -s "$k_out" ] && fail "$k_n: $k_role printed a hash: $(cat "$k_out")"
	k_r=$(one_reason "$k_err")
	lt "$k_e" 10 || fail "$k_n: $k_role needed $k_e s to notice ($k_r)"
	echo "ok $k_n: $k_who killed, $k_role exited non-zero after $k_e s: $k_r"
}

# join_kill NAME PORT: the sender is killed while it is still joining (as
# soon as its first TCP connection is established, before the transfer
# runs): the receiver, which already accepted a connection of this
# transfer, must not wait for ever.
join_kill() {
	j_n=$1 j_port=$2
	command -v ss >/dev/null 2>&1 || { echo "skip $j_n: no ss"; return 0; }
	start_recv "$j_n-r" mpa "$j_port" --timeout 30
	"$XFER" send --llp mpa --connect "127.0.0.1:$j_port" --streams 4 --timeout 30 \
		"$W/big" >"$W/$j_n-s.out" 2>"$W/$j_n-s.err" &
	j_sp=$!
	PIDS="$PIDS $j_sp"
	j_i=0
	while [ -z "$(ss -Htn state established "( dport = :$j_port )" 2>/dev/null)" ]; do
		j_i=$((j_i + 1))
		[ $j_i -le 500 ] || fail "$j_n: the sender never connected"
		sleep 0.01
	done
	sleep 0.05 # its MPA Request is out: the receiver knows the transfer
	kill -9 "$j_sp"
	j_t0=$(now)
	if wait_pid "$RP" 12; then fail "$j_n: receiver exited 0 after its sender was killed"; fi
	j_e=$(elapsed "$j_t0")
	wait "$j_sp" 2>/dev/null
	j_r=$(one_reason "$W/$j_n-r.err")
	lt "$j_e" 10 || fail "$j_n: receiver needed $j_e s to notice ($j_r)"
	echo "ok $j_n: sender killed while joining, receiver exited non-zero after $j_e s: $j_r"
}

join_kill mpa-send-killed-joining "$(free_port 39564)"
kill_one mpa-recv-killed mpa "$(free_port 39560)" recv
kill_one mpa-send-killed mpa "$(free_port 39561)" send
kill_one sctp-recv-killed sctp "$(free_port 39562)" recv
kill_one sctp-send-killed sctp "$(free_port 39563)" send
exit 0

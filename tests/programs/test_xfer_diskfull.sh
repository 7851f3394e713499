# ddp-xfer: errors say what happened. The receiver
# writes --out into a 4 MiB tmpfs mounted here and the sender sends a
# 16 MiB file: the receiver's write fails with ENOSPC, it tells the sender
# why (an ABORT message on every stream, then an orderly close), the
# sender prints "the receiver stopped the transfer: disk full: ...", both
# exit non-zero with exactly one reason line, and neither OUT nor
# OUT.partial stays behind. Over MPA and SCTP. Needs root (mount).
. "$(dirname "$0")/xfer_lib.sh"
MNT=$W/mnt
mkdir "$MNT" || fail "mkdir"
if ! mount -t tmpfs -o size=4m ddpxfer-diskfull "$MNT" 2>/dev/null; then
	echo "SKIP $T: cannot mount a tmpfs (root needed)"
	exit 0
fi
trap 'umount "$MNT" 2>/dev/null; cleanup' EXIT
head -c 16777216 /dev/urandom >"$W/src" || fail "no source file"

full() {
	llp=$1 port=$2
	start_recv "full-$llp" "$llp" "$port" --out "$MNT/out"
	t0=$(now)
	"$XFER" send --llp "$llp" --connect "127.0.0.1:$port" --streams 2 --chunk 262144 \
		"$W/src" >"$W/full-$llp-s.out" 2>"$W/full-$llp-s.err" &
	sp=$!
	PIDS="$PIDS $sp"
	if wait_pid "$sp" 20; then fail "full-$llp: sender exited 0"; fi
	if wait_pid "$RP" 10; then fail "full-$llp: receiver exited 0"; fi
	rs=$(one_reason "$W/full-$llp-s.err")
	rr=$(one_reason "$W/full-$llp.err")
	case "$rs" in *"receiver stopped"*"disk full"*) ;;
	*) fail "full-$llp: the sender does not say the receiver's disk is full: $rs" ;; esac
	case "$rr" in *"No space left"*) ;; *) fail "full-$llp: receiver: $rr" ;; esac
	[ -s "$W/full-$llp-s.out" ] && fail "full-$llp: the sender printed a hash"
	[ -s "$W/full-$llp.out" ] && fail "full-$llp: the receiver printed a hash"
	[ -e "$MNT/out" ] && fail "full-$llp: a partial file stays under the real name"
	[ -e "$MNT/out.partial" ] && fail "full-$llp: out.partial stays behind"
	echo "ok full-$llp after $(elapsed "$t0") s: sender: $rs | receiver: $rr"
}

full mpa 29591
full sctp 29592
exit 0

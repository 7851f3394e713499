# Helpers for the ddp-xfer program tests (sourced by test_xfer_*.sh; not a
# test itself). POSIX sh. BUILD names the build directory (default build).
# Every helper fails the test with ONE line "FAIL <test>: <reason>".
set -u
BUILD=${BUILD:-build}
XFER=$BUILD/bin/ddp-xfer
T=$(basename "$0" .sh)
W=$(mktemp -d "${TMPDIR:-/tmp}/$T.XXXXXX") || exit 1
PIDS=""

cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "FAIL $T: $*"
	exit 1
}

if [ ! -x "$XFER" ]; then
	# configured without OpenSSL libcrypto: ddp-xfer is not built (CI has it)
	if grep -q '^HAVE_LIBCRYPTO = 0' config.mk 2>/dev/null; then
		echo "SKIP $T: ddp-xfer is not built (configured without libcrypto)"
		exit 0
	fi
	fail "$XFER not built"
fi
. "$(dirname "$0")/wait_lib.sh"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# true when $1 (seconds, may be fractional) < $2
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# start_recv NAME LLP PORT [ddp-xfer options...]: a receiver in the
# background (stdout $W/NAME.out, stderr $W/NAME.err, pid in $RP), waits
# until it listens (at most 10 s).
start_recv() {
	sr_n=$1 sr_llp=$2 sr_port=$3
	shift 3
	"$XFER" recv --llp "$sr_llp" --listen "127.0.0.1:$sr_port" "$@" >"$W/$sr_n.out" 2>"$W/$sr_n.err" &
	RP=$!
	PIDS="$PIDS $RP"
	wait_line "$W/$sr_n.err" "^recv: listening" "$RP" "$sr_n: receiver start"
}

# wait_progress NAME SP: wait until receiver NAME (started by start_recv)
# reports data on stream 0, while sender SP runs; at most 10 s.
wait_progress() {
	wait_line "$W/$1.err" "s0 " "$2" "$1: progress (sender $2)"
}

# wait_pid PID SECONDS: exit status of PID, or fail when it runs longer.
wait_pid() {
	wp_p=$1 wp_lim=$2 wp_i=0
	while :; do
		wp_s=$(ps -o stat= -p "$wp_p" 2>/dev/null)
		case "$wp_s" in "" | Z*) break ;; esac
		wp_i=$((wp_i + 1))
		[ $wp_i -le $((wp_lim * 10)) ] || fail "process $wp_p still running after $wp_lim s"
		sleep 0.1
	done
	wait "$wp_p"
}

# expect_hash FILE REF: FILE must hold exactly one line "sha256 <hex> bytes <n>"
# equal to the hash and size of $2 (sha256sum is the reference).
expect_hash() {
	eh_out=$1 eh_ref=$2
	eh_want="sha256 $(sha256sum "$eh_ref" | cut -d' ' -f1) bytes $(wc -c <"$eh_ref" | tr -d ' ')"
	eh_got=$(cat "$eh_out")
	[ "$eh_got" = "$eh_want" ] || fail "$eh_out: got '$eh_got', want '$eh_want'"
}

# one_reason FILE: stderr FILE has exactly one "ddp-xfer: " line; prints it.
one_reason() {
	or_c=$(grep -c "^ddp-xfer: " "$1")
	[ "$or_c" = 1 ] || fail "$1: $or_c 'ddp-xfer:' lines, want 1: $(tail -n3 "$1" | tr '\n' '|')"
	grep "^ddp-xfer: " "$1"
}

# transfer NAME LLP PORT FILE STREAMS OUT [recv opts] -- [send opts]:
# one whole transfer, both ends must exit 0 with the reference hash; with
# OUT != "-" the receiver writes OUT and it must equal FILE.
transfer() {
	tr_n=$1 tr_llp=$2 tr_port=$3 tr_file=$4 tr_streams=$5 tr_out=$6
	shift 6
	tr_ropt="" tr_sopt="" tr_side=r
	for tr_a in "$@"; do
		if [ "$tr_a" = "--" ]; then tr_side=s; continue; fi
		if [ $tr_side = r ]; then tr_ropt="$tr_ropt $tr_a"; else tr_sopt="$tr_sopt $tr_a"; fi
	done
	if [ "$tr_out" != "-" ]; then tr_ropt="$tr_ropt --out $tr_out"; fi
	# shellcheck disable=SC2086
	start_recv "$tr_n-r" "$tr_llp" "$tr_port" $tr_ropt
	tr_t0=$(now)
	# shellcheck disable=SC2086
	"$XFER" send --llp "$tr_llp" --connect "127.0.0.1:$tr_port" --streams "$tr_streams" $tr_sopt \
		"$tr_file" >"$W/$tr_n-s.out" 2>"$W/$tr_n-s.err" &
	tr_sp=$!
	PIDS="$PIDS $tr_sp"
	wait_pid "$tr_sp" 40 || fail "$tr_n: sender failed: $(tail -n1 "$W/$tr_n-s.err")"
	wait_pid "$RP" 10 || fail "$tr_n: receiver failed: $(tail -n1 "$W/$tr_n-r.err")"
	expect_hash "$W/$tr_n-s.out" "$tr_file"
	expect_hash "$W/$tr_n-r.out" "$tr_file"
	if [ "$tr_out" != "-" ]; then cmp -s "$tr_file" "$tr_out" || fail "$tr_n: $tr_out differs from $tr_file"; fi
	if grep -q "^ddp-xfer: " "$W/$tr_n-s.err" "$W/$tr_n-r.err"; then
		fail "$tr_n: error line after success: $(grep -h '^ddp-xfer: ' "$W/$tr_n-s.err" "$W/$tr_n-r.err")"
	fi
	echo "ok $tr_n: $tr_llp, $tr_streams streams, $(wc -c <"$tr_file" | tr -d ' ') octets in $(elapsed "$tr_t0") s"
}

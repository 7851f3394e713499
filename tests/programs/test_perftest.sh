#!/bin/sh
# ddp-perftest against itself over MPA and over SCTP: every test once at a
# small size (bandwidth with 2 queue pairs), both ends exit 0, both print
# perftest's table, and the #iterations columns match (n*q; n for
# latency; read_lat's server prints no table, as perftest's). Then a
# mismatch: send_bw with different -s on the two ends must end both with
# an error, not a hang.
set -u
BUILD=${BUILD:-build}
pt=$BUILD/bin/ddp-perftest
fail() { echo "test_perftest: $*"; exit 1; }
. "$(dirname "$0")/wait_lib.sh"
[ -x "$pt" ] || fail "no $pt"
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
port=29730
n=200
# the #iterations of the row for SIZE
iters() { sed -n "s/^ *$2  *\([0-9][0-9]*\)  .*/\1/p" "$1" | head -1; }
for llp in mpa sctp; do
	for t in write_bw read_bw send_bw write_lat read_lat; do
		port=$((port + 1))
		case $t in *_bw) s=4096 q=2 want=$((n * 2)) ;; *) s=2 q=1 want=$n ;; esac
		# a fresh file: the server's redirection happens in the background,
		# and the last server's "Waiting for client" must not start the client
		rm -f "$W/s" "$W/c"
		timeout 30 "$pt" "$t" --llp $llp -s $s -q $q -n $n -p $port --bind 127.0.0.1 \
			--timeout 20 >"$W/s" 2>&1 &
		sp=$!
		wait_line "$W/s" "Waiting for client" $sp "$llp $t server"
		timeout 30 "$pt" "$t" --llp $llp -s $s -q $q -n $n -p $port --timeout 20 \
			127.0.0.1 >"$W/c" 2>&1 ||
			fail "$llp $t client: exit $?: $(tail -n1 "$W/c"); server: $(tail -n2 "$W/s")"
		wait $sp || fail "$llp $t server: exit $?: $(tail -n1 "$W/s")"
		grep -q "#bytes" "$W/c" || fail "$llp $t client: no table"
		[ "$(iters "$W/c" $s)" = $want ] || fail "$llp $t client: iterations not $want: $(cat "$W/c")"
		if [ $t != read_lat ]; then
			[ "$(iters "$W/s" $s)" = $want ] ||
				fail "$llp $t server: iterations not $want: $(cat "$W/s")"
		fi
		echo "ok $llp $t: $(grep -A1 '#bytes' "$W/c" | tail -n1)"
	done
done
# mismatch: the receiver's buffers are smaller than the Sends
port=$((port + 1))
rm -f "$W/s" "$W/c"
timeout 30 "$pt" send_bw -s 4096 -n 20 -p $port --bind 127.0.0.1 --timeout 10 >"$W/s" 2>&1 &
sp=$!
wait_line "$W/s" "Waiting for client" $sp "mismatch server"
timeout 30 "$pt" send_bw -s 8192 -n 20 -p $port --timeout 10 127.0.0.1 >"$W/c" 2>&1
crc=$?
wait $sp
src=$?
[ $crc = 1 ] && [ $src = 1 ] || fail "mismatch: exits $crc/$src, expected 1/1"
grep -q "^ddp-perftest: " "$W/s" || fail "mismatch: the server gave no reason: $(cat "$W/s")"
grep -q "timed out" "$W/s" "$W/c" && fail "mismatch: timed out instead of an error"
echo "ok mismatch: $(tail -n1 "$W/s")"
exit 0

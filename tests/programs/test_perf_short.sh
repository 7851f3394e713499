#!/bin/sh
# Short ddp-perf runs: every LLP and mode once for a fraction of a second,
# JSON output with the documented fields, ratios in the table, and --plot.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
fail() { echo "test_perf_short: $*"; exit 1; }
. "$(dirname "$0")/wait_lib.sh"
[ -x "$perf" ] || fail "no $perf"
for llp in tcp usrsctp usrsctp-stock udp mpa sctp; do
	for mode in untagged tagged rtt; do
		case "$llp:$mode" in tcp:tagged|usrsctp*:tagged|udp:tagged|udp:rtt) continue ;; esac
		size=16384; [ "$mode" = rtt ] && size=64
		out=$(timeout 30 "$perf" --llp "$llp" --mode "$mode" --size "$size" --streams 2 \
			--duration 0.3 --json) || fail "$llp $mode: exit $?: $out"
		for f in '"llp":' '"mode":' '"size":' '"streams":' '"mbytes_per_s":' \
			 '"msgs_per_s":' '"copied_bytes_per_payload_byte":' '"ok":true' \
			 '"topology":"loopback-2proc"'; do
			echo "$out" | grep -q "$f" || fail "$llp $mode: no $f in $out"
		done
		echo "$out"
	done
done
# --one-process: both ends on one loop, as before the two-process default
for llp in tcp udp sctp; do
	out=$(timeout 30 "$perf" --one-process --llp "$llp" --size 16384 --streams 2 --duration 0.3 \
		--json) || fail "$llp --one-process: exit $?: $out"
	echo "$out" | grep -q '"ok":true' || fail "$llp --one-process failed: $out"
	echo "$out" | grep -q '"topology":"loopback-1proc"' || fail "$llp --one-process: $out"
	echo "$out" | grep -q '"mbytes_per_s":0.00,' && fail "$llp --one-process moved nothing: $out"
done
# RDMA Write / Read / Read round trip over libddp-rdmap, both DDP LLPs, in
# two processes (default) and one: ok, something moved, a round trip
for llp in mpa sctp; do
	for mode in write read read-rtt; do
		for topo in "" --one-process; do
			size=16384; [ "$mode" = read-rtt ] && size=64
			out=$(timeout 30 "$perf" $topo --llp "$llp" --mode "$mode" --size "$size" \
				--streams 2 --duration 0.3 --json) || fail "$llp $mode $topo: exit $?: $out"
			echo "$out"
			echo "$out" | grep -q "\"mode\":\"$mode\"" || fail "$llp $mode $topo: $out"
			echo "$out" | grep -q '"ok":true' || fail "$llp $mode $topo failed: $out"
			echo "$out" | grep -q '"msgs_per_s":0.0,' && fail "$llp $mode $topo moved nothing: $out"
			if [ "$mode" = read-rtt ]; then
				echo "$out" | grep -q '"rtt_us":0.00,' && fail "$llp read-rtt $topo: no rtt: $out"
			fi
		done
	done
done
"$perf" --llp tcp --mode write >/dev/null 2>&1 && fail "--mode write accepted for tcp"
# udp: loopback datagrams are the route's MTU (65536) - 28, capped at 65507;
# --mtu is the link MTU; no rtt mode
out=$(timeout 30 "$perf" --llp udp --duration 0.2 --json) || fail "udp: $out"
echo "$out" | grep -q '"udp_payload":65507' || fail "udp loopback datagram size: $out"
out=$(timeout 30 "$perf" --llp udp --duration 0.2 --mtu 1500 --json) || fail "udp --mtu: $out"
echo "$out" | grep -q '"udp_payload":1472' || fail "udp --mtu 1500 datagram size: $out"
"$perf" --llp udp --mode rtt --duration 0.2 >/dev/null 2>&1 && fail "udp rtt accepted"
# MPA without CRC (both ends ask C=0), for measuring what the CRC costs
out=$(timeout 30 "$perf" --llp mpa --mode tagged --size 16384 --duration 0.3 --json --no-crc) ||
	fail "mpa --no-crc: exit $?: $out"
echo "$out" | grep -q '"no_crc":true' || fail "mpa --no-crc: no \"no_crc\":true in $out"
echo "$out" | grep -q '"ok":true' || fail "mpa --no-crc failed: $out"
"$perf" --llp sctp --no-crc >/dev/null 2>&1 && fail "--no-crc accepted for sctp"
# the heap is kept unless --heap-trim (usrsctp's per-packet mallocs; README)
# (ASan's allocator ignores mallopt: a sanitizer build reports heap_trim true)
if ! grep -qa __asan_init "$perf"; then
	echo "$out" | grep -q '"heap_trim":false' || fail "heap not kept by default: $out"
fi
out=$(timeout 30 "$perf" --llp usrsctp --size 1024 --duration 0.2 --json --heap-trim) ||
	fail "--heap-trim: exit $?: $out"
echo "$out" | grep -q '"heap_trim":true' || fail "--heap-trim not reported: $out"
# ... and a server that wants CRCs makes a --no-crc client fail with a reason
# (the server takes a port from the kernel and names it: no fixed port to
# collide with, and no guessing how long it takes to start)
err=$(mktemp)
timeout 20 "$perf" --server --llp mpa --listen 127.0.0.1:0 >/dev/null 2>"$err" &
srv=$!
wait_line "$err" '^ddp-perf: MPA server on port [0-9]' $srv "the MPA server"
port=$(sed -n 's/^ddp-perf: MPA server on port \([0-9][0-9]*\)$/\1/p' "$err")
out=$(timeout 20 "$perf" --connect 127.0.0.1:$port --llp mpa --no-crc --size 16384 \
	--duration 0.3 --json 2>&1) && { kill $srv; fail "--no-crc against a CRC server passed: $out"; }
kill $srv 2>/dev/null; wait $srv 2>/dev/null
rm -f "$err"
echo "$out" | grep -q 'peer asked for CRCs' || fail "--no-crc mismatch without a reason: $out"
# the table and the plot
png=$(mktemp --suffix=.png)
tbl=$(timeout 60 "$perf" --llp mpa --size 1024 --duration 0.3 --plot "$png") || fail "table run failed"
echo "$tbl" | grep -q "MB/s" || fail "no table: $tbl"
echo "$tbl" | grep -q "^Topology: loopback, server and client in two processes" || fail "no topology: $tbl"
# a short comparison of two LLPs: the ratio columns are filled in
tbl=$(timeout 60 "$perf" --sizes 16384 --llps usrsctp,udp,sctp --duration 0.3) || fail "comparison: $tbl"
echo "$tbl"
[ "$(echo "$tbl" | grep -c '^sctp  *\(un\)\{0,1\}tagged .*x .*x ')" = 4 ] ||
	fail "sctp rows without both ratios: $tbl"
# ... with the RDMA rows: Write and Read at 64 KiB x 1 (no 64 KiB baseline
# here, so no ratio) and the 64-octet Read round trip against usrsctp's
for mode in write read; do
	echo "$tbl" | grep -q "^sctp  *$mode  *65536  *1  *[0-9]" || fail "no sctp $mode row: $tbl"
done
echo "$tbl" | grep -q '^sctp  *read-rtt  *64  *1 .*x .*rtt' || fail "no sctp read-rtt row: $tbl"
"$perf" --llps bogus >/dev/null 2>&1 && fail "--llps bogus accepted"
if command -v gnuplot >/dev/null 2>&1; then
	[ -s "$png" ] || fail "--plot wrote nothing"
	head -c 8 "$png" | od -An -c | grep -q 'P   N   G' || fail "--plot did not write a PNG"
fi
rm -f "$png"
# bad arguments are refused
"$perf" --size 0 >/dev/null 2>&1 && fail "--size 0 accepted"
"$perf" --mode bogus >/dev/null 2>&1 && fail "--mode bogus accepted"
echo "test_perf_short: ok"

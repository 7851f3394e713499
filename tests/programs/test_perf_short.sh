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
# the tcp row sends as iperf3 does: whole messages in writes of 128 KiB,
# Nagle on (TCP_NODELAY only for the round trip)
if command -v strace >/dev/null 2>&1; then
	tr=$(mktemp)
	# (LeakSanitizer cannot run under ptrace: off for these two runs)
	strace -f -qq -e trace=write,setsockopt -o "$tr" env ASAN_OPTIONS=detect_leaks=0 \
		timeout 30 "$perf" --one-process --llp tcp \
		--size 1024 --duration 0.2 --json >/dev/null || fail "tcp under strace: exit $?"
	grep -q 'TCP_NODELAY, \[1\]' "$tr" && fail "tcp bulk run sets TCP_NODELAY: $(grep NODELAY "$tr" | head -3)"
	grep -q '^[0-9]* *write([0-9]*, ".*"\.\.\., 131072) = ' "$tr" ||
		fail "tcp bulk run makes no 128 KiB write: $(grep 'write(' "$tr" | head -3)"
	strace -f -qq -e trace=setsockopt -o "$tr" env ASAN_OPTIONS=detect_leaks=0 \
		timeout 30 "$perf" --one-process --llp tcp \
		--mode rtt --size 64 --duration 0.2 --json >/dev/null || fail "tcp rtt under strace: exit $?"
	grep -q 'TCP_NODELAY, \[1\]' "$tr" || fail "tcp rtt run without TCP_NODELAY"
	rm -f "$tr"
else
	echo "test_perf_short: no strace, the tcp write pattern is not checked"
fi
# the iperf3 row: iperf3's own goodput when it is installed, else n/a
# (skipped, not failed: exit 0)
out=$(timeout 30 "$perf" --llp iperf3 --size 65536 --duration 0.3 --json) || fail "iperf3: exit $?: $out"
echo "$out"
if command -v iperf3 >/dev/null 2>&1; then
	echo "$out" | grep -q '"ok":true' || fail "iperf3 row failed: $out"
	echo "$out" | grep -q '"mbytes_per_s":0.00,' && fail "iperf3 moved nothing: $out"
else
	echo "$out" | grep -q '"skipped":true' || fail "no iperf3, row not skipped: $out"
fi
out=$(DDP_PERF_IPERF3=/nonexistent/iperf3 timeout 30 "$perf" --llp iperf3 --duration 0.3 --json) ||
	fail "iperf3 missing: exit $?: $out"
echo "$out" | grep -q '"ok":false,"skipped":true,"error":"/nonexistent/iperf3 not installed"' ||
	fail "iperf3 missing, row not skipped: $out"
tbl=$(DDP_PERF_IPERF3=/nonexistent/iperf3 timeout 60 "$perf" --sizes 65536 --llps tcp,iperf3,mpa \
	--duration 0.3) || fail "comparison without iperf3: exit $?: $tbl"
echo "$tbl" | grep -q '^iperf3  *raw  *65536  *1  n/a: /nonexistent/iperf3 not installed' ||
	fail "no n/a iperf3 row: $tbl"
echo "$tbl" | grep -q '^mpa  *untagged  *65536  *1 .*x .*vs tcp\(, win .*\)\{0,1\}$' || fail "mpa not against tcp: $tbl"
# Every DDP/MPA ratio is against the stronger of tcp and iperf3 of its size
# and streams: checked on the JSON lines of a real run...
if command -v iperf3 >/dev/null 2>&1; then
	js=$(timeout 90 "$perf" --sizes 65536 --llps tcp,iperf3,mpa --duration 0.3 --json) ||
		fail "comparison with iperf3: exit $?: $js"
	echo "$js"
	echo "$js" | awk '
		/"mode":"(read-)?rtt"/ { next }
		{ match($0, /"llp":"[^"]*"/); llp = substr($0, RSTART + 7, RLENGTH - 8)
		  match($0, /"streams":[0-9]*/); st = substr($0, RSTART + 10, RLENGTH - 10)
		  match($0, /"size":[0-9]*/); sz = substr($0, RSTART + 7, RLENGTH - 7)
		  match($0, /"mbytes_per_s":[0-9.]*/); mb = substr($0, RSTART + 15, RLENGTH - 15) + 0
		  k = sz "x" st }
		llp == "tcp" { tcp[k] = mb; if ($0 !~ /"ok":true/) bad = bad " tcp " k }
		llp == "iperf3" { ip[k] = mb; seen[k] = 1; if ($0 !~ /"ok":true/) bad = bad " iperf3 " k }
		llp == "mpa" && k in tcp {
			want = ip[k] > tcp[k] ? "iperf3" : "tcp"; base = ip[k] > tcp[k] ? ip[k] : tcp[k]
			if ($0 !~ "\"baseline\":\"" want "\"") bad = bad " mpa " k " not vs " want
			match($0, /"ratio":[0-9.]*/); r = substr($0, RSTART + 8, RLENGTH - 8) + 0
			if (base > 0 && (r - mb / base > 0.01 || mb / base - r > 0.01))
				bad = bad " mpa " k " ratio " r " not " mb / base
			if ($0 !~ /"vs_tcp":/ || $0 !~ /"vs_iperf3":/) bad = bad " mpa " k " without both"
			n++ }
		END { if (!seen["65536x1"] || !seen["65536x16"]) bad = bad " no iperf3 rows"
		      if (n < 4) bad = bad " " n " mpa rows"
		      if (bad != "") { print "BAD" bad; exit 1 } }' || fail "ratio baselines wrong"
	# ... and decided by a stand-in iperf3 (the real one serves, the
	# client's output is canned): far above tcp it is the baseline; alone
	# and below 1 % of the row it is a stalled baseline, no ratio
	fake=$(mktemp -d) png=$(mktemp --suffix=.png)
	for bytes in 900000000000 1000; do
		rm -f "$png"
		cat >"$fake/iperf3" <<EOS
#!/bin/sh
case " \$* " in *" -s "*) exec iperf3 "\$@" ;; esac
printf '{"end":{"sum_received":{"seconds":1,"bytes":$bytes,"bits_per_second":%d}}}\n' $((bytes * 8))
EOS
		chmod +x "$fake/iperf3"
		llps=tcp,iperf3,mpa; [ $bytes = 1000 ] && llps=iperf3,mpa
		tbl=$(DDP_PERF_IPERF3=$fake/iperf3 timeout 60 "$perf" --one-process --sizes 65536 \
			--llps $llps --duration 0.3 --plot "$png") || fail "stand-in iperf3 $bytes: exit $?: $tbl"
		echo "$tbl"
		if [ $bytes = 1000 ]; then
			echo "$tbl" | grep -q '^mpa  *untagged  *65536  *1 .* n/a .*vs iperf3, .*n/a (baseline stalled)$' ||
				fail "stalled baseline gives a ratio: $tbl"
			echo "$tbl" | grep -q '[0-9]\{4,\}\.[0-9][0-9]x' && fail "a huge ratio printed: $tbl"
			# the plot is drawn all the same (the stalled row an empty slot)
			if command -v gnuplot >/dev/null 2>&1; then
				[ -s "$png" ] || fail "no plot with a stalled baseline"
			fi
		else
			echo "$tbl" | grep -q '^mpa  *untagged  *65536  *1 .* 0\.0[0-9]x .*vs iperf3\(, win .*\)\{0,1\}$' ||
				fail "mpa not against the stronger iperf3: $tbl"
			echo "$tbl" | grep -q '^DDP/MPA ratios against: 65536 x1: iperf3 900000' ||
				fail "footer does not name the baseline: $tbl"
		fi
	done
	rm -rf "$fake" "$png"
fi
# bad arguments are refused
"$perf" --size 0 >/dev/null 2>&1 && fail "--size 0 accepted"
"$perf" --mode bogus >/dev/null 2>&1 && fail "--mode bogus accepted"
echo "test_perf_short: ok"

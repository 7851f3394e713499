#!/bin/sh
# ddp-perf --netns: the whole comparison (every LLP and iperf3, one size, 1 and 16
# streams, RDMA Write and Read, the round trips) between two network namespaces that ddp-perf
# makes and removes itself, joined by a veth pair at MTU 1500, server and
# client in two processes. Short runs: every row must be there and have
# succeeded (iperf3: skipped when it is not installed; usrsctp-system: when
# its ddp-perf is not built, make perf-system-usrsctp); the speed is not
# checked. The namespaces must be gone after.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
fail() { echo "test_perf_netns: $*"; exit 1; }
[ -x "$perf" ] || fail "no $perf"
out=$(mktemp)
# ddp-perf names its namespaces after its pid (ddpperfA<pid>, ddpperfB<pid>):
# only this test's own runs are checked, whatever else runs beside it
left() { ip netns list 2>/dev/null | grep -q "ddpperf[AB]$(cat "$out.pid")\b"; }
timeout 120 sh -c 'echo $$ >"$0.pid"; exec "$@"' "$out" "$perf" --netns --mtu 1500 --duration 0.3 \
	--sizes 16384 --json >"$out" 2>"$out.err"
rc=$?
cat "$out" "$out.err"
[ $rc = 0 ] || fail "exit status $rc: $(tail -n 3 "$out.err")"
left && fail "namespaces left behind: $(ip netns list)"
rows=0
for st in 1 16; do
	for r in tcp:untagged iperf3:untagged usrsctp:untagged usrsctp-stock:untagged \
		 usrsctp-system:untagged udp:untagged mpa:untagged mpa:tagged sctp:untagged sctp:tagged; do
		llp=${r%%:*} mode=${r#*:}
		line=$(grep "\"llp\":\"$llp\",\"mode\":\"$mode\",\"size\":16384,\"streams\":$st," "$out")
		[ -n "$line" ] || fail "no row $llp $mode x$st"
		rows=$((rows + 1))
	done
done
for llp in tcp mpa usrsctp usrsctp-system sctp; do
	grep -q "\"llp\":\"$llp\",\"mode\":\"rtt\"" "$out" || fail "no rtt row of $llp"
	rows=$((rows + 1))
done
for llp in mpa sctp; do # RDMA Write and Read (64 KiB x 1), the Read round trip
	for mode in write read; do
		grep -q "\"llp\":\"$llp\",\"mode\":\"$mode\",\"size\":65536,\"streams\":1," "$out" ||
			fail "no $mode row of $llp"
		rows=$((rows + 1))
	done
	grep -q "\"llp\":\"$llp\",\"mode\":\"read-rtt\",\"size\":64," "$out" ||
		fail "no read-rtt row of $llp"
	rows=$((rows + 1))
done
[ "$(wc -l <"$out")" = $rows ] || fail "$(wc -l <"$out") rows, expected $rows"
# iperf3 installed: its rows measured in the server's namespace, as
# every other row; not installed: skipped. usrsctp-system: measured in
# namespaces of its ddp-perf's own when that is built, else skipped with
# the make target. Those are the only rows not ok.
skipped=$(grep -c '"skipped":true' "$out")
want=0
command -v iperf3 >/dev/null 2>&1 || want=2
sys=$("$perf" --help 2>&1 | sed -n 's/.*libusrsctp that the usrsctp-system row runs; default \(.*\),$/\1/p')
[ -x "$sys" ] || want=$((want + 3))
[ "$skipped" = $want ] || fail "$skipped rows skipped, expected $want: $(grep '"skipped":true' "$out")"
grep '"skipped":true' "$out" | grep -v '"llp":"iperf3"' |
	grep -v '"llp":"usrsctp-system",.*"error":"no .* (make perf-system-usrsctp builds it)"' &&
	fail "rows skipped without a reason"
[ "$(grep -c '"ok":true' "$out")" = $((rows - skipped)) ] ||
	fail "failed rows: $(grep -v '"ok":true' "$out")"
[ "$(grep -c '"topology":"netns-veth-mtu1500"' "$out")" = $rows ] || fail "topology not netns-veth-mtu1500"
grep '"llp":"udp"' "$out" | grep -q '"udp_payload":1472' || fail "udp datagrams are not 1500 - 28 octets"
grep '"mode":"\(read-\)\{0,1\}rtt"' "$out" | grep -q '"rtt_us":0.00' &&
	fail "an rtt row without a round trip"
grep -v '"mode":"\(read-\)\{0,1\}rtt"' "$out" | grep -v '"skipped":true' |
	grep -q '"mbytes_per_s":0.00,' &&
	fail "a row that moved nothing"
# each DDP/MPA row names the stronger TCP baseline of its group
for st in 1 16; do
	t=$(grep "\"llp\":\"tcp\",\"mode\":\"untagged\",\"size\":16384,\"streams\":$st," "$out" |
		sed 's/.*"mbytes_per_s":\([0-9.]*\),.*/\1/')
	i=$(grep "\"llp\":\"iperf3\",\"mode\":\"untagged\",\"size\":16384,\"streams\":$st," "$out" |
		grep -v '"skipped":true' | sed 's/.*"mbytes_per_s":\([0-9.]*\),.*/\1/')
	want=$(awk -v t="$t" -v i="${i:-0}" 'BEGIN { print (i + 0 > t + 0) ? "iperf3" : "tcp" }')
	grep "\"llp\":\"mpa\",\"mode\":\"[a-z]*\",\"size\":16384,\"streams\":$st," "$out" |
		grep -v "\"baseline\":\"$want\"" && fail "mpa x$st not against $want (tcp $t, iperf3 $i)"
done
# the table names the topology
tbl=$(timeout 30 "$perf" --netns --duration 0.3 --sizes 1024 --llps udp,sctp 2>&1) || fail "table run: $tbl"
echo "$tbl"
echo "$tbl" | grep -q "^Topology: two network namespaces joined by a veth pair" || fail "no topology line"
echo "$tbl" | grep -q "^sctp .*x " || fail "no vs udp ratio"
# --link SPEC: the same namespaces joined through linkem; a 2 ms round trip
# shows in the raw round trip, every row succeeds, linkem leaves nothing
if [ -x "$BUILD/bin/linkem" ] && [ -c /dev/net/tun ]; then
	timeout 120 sh -c 'echo $$ >"$0.pid"; exec "$@"' "$out" "$perf" --link delay=1ms --duration 0.3 \
		--sizes 16384 --llps tcp,mpa,sctp,usrsctp --json >"$out" 2>"$out.err" ||
		fail "--link: exit status $?: $(tail -n 3 "$out.err")"
	left && fail "--link: namespaces left behind"
	grep -q '"topology":"netns-linkem-mtu1500\[delay=1ms\]"' "$out" || fail "--link: topology"
	[ "$(grep -c '"ok":true' "$out")" = "$(wc -l <"$out")" ] ||
		fail "--link: failed rows: $(grep -v '"ok":true' "$out")"
	rtt=$(grep '"llp":"tcp","mode":"rtt"' "$out" | sed 's/.*"rtt_us":\([0-9.]*\).*/\1/')
	awk -v r="$rtt" 'BEGIN { exit !(r >= 1900 && r < 4000) }' ||
		fail "--link delay=1ms: raw round trip $rtt us, expected 2 ms"
	echo "ok: --link delay=1ms, raw round trip $rtt us"
fi
rm -f "$out" "$out.err" "$out.pid"
echo "test_perf_netns: ok"

#!/bin/sh
# ddp-perf --sweep: the throughput rows once per value of a path parameter,
# each value its own pair of namespaces joined by linkem. Short runs: a
# 2-point round-trip sweep must fill every cell of its tables (a rate above
# zero for every row at every point, a ratio for every DDP row), write the
# plot, and leave no namespace behind; a loss sweep whose only TCP baseline
# stalls (a stand-in iperf3 that reports 1000 octets) must print n/a for
# that ratio, never a quotient; SIGTERM ends a sweep at once, leaving no
# namespace. The speed is not checked.
set -u
BUILD=${BUILD:-build}
perf=$BUILD/bin/ddp-perf
fail() { echo "test_perf_sweep: $*"; exit 1; }
[ -x "$perf" ] || fail "no $perf"
[ "$(id -u)" = 0 ] || { echo "test_perf_sweep: needs root (namespaces); skipped"; exit 77; }
[ -x "$BUILD/bin/linkem" ] && [ -c /dev/net/tun ] || { echo "test_perf_sweep: no linkem or TUN; skipped"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "test_perf_sweep: no iproute2; skipped"; exit 77; }
# the namespaces' names (ddp-perf's DDP_PERF_NETNS): this run's own
export DDP_PERF_NETNS=${DDP_PERF_NETNS:-ddpsweep}$$
out=$(mktemp) png=$(mktemp --suffix=.png)
rm -f "$png"
timeout 300 "$perf" --sweep rtt=1ms,4ms --llps tcp,mpa,usrsctp,sctp --duration 1 \
	--plot "$png" >"$out" 2>"$out.err"
rc=$?
cat "$out" "$out.err"
[ $rc = 77 ] && { echo "test_perf_sweep: ddp-perf skipped the namespaces"; exit 77; }
[ $rc = 0 ] || fail "exit status $rc: $(tail -n 3 "$out.err")"
ip netns list 2>/dev/null | grep -q "^${DDP_PERF_NETNS}[AB]" &&
	fail "namespaces left behind: $(ip netns list | grep "^${DDP_PERF_NETNS}")"
# the links each point ran on: delay rtt/2 each way
grep -q '^ddp-perf: sweep rtt=1ms: link delay=500us, 12 rows$' "$out.err" || fail "no 1ms point"
grep -q '^ddp-perf: sweep rtt=4ms: link delay=2ms, 12 rows$' "$out.err" || fail "no 4ms point"
# one table per stream count, a line per point: 6 rates, 6 ratios
for st in "1 stream" "16 streams"; do
	grep -q "^Sweep of the round trip .*65536-octet messages, $st; MB/s" "$out" || fail "no table for $st"
done
grep -q '^rtt  *tcp  *usrsctp  *mpa-u  *mpa-t  *sctp-u  *sctp-t |  *mpa-u/TCP  *mpa-t/TCP  *sctp-u/usr  *sctp-u/tcp  *sctp-t/usr  *sctp-t/tcp$' "$out" ||
	fail "table header"
lines=$(grep -E '^(1ms|4ms) ' "$out")
[ "$(echo "$lines" | wc -l)" = 4 ] || fail "expected 4 point lines (2 points x 2 stream counts): $lines"
echo "$lines" | awk '{
	bar = 0; rates = 0; ratios = 0
	for (i = 2; i <= NF; i++) {
		if ($i == "|") { bar = i; continue }
		if (!bar) { if ($i ~ /^[0-9]+\.[0-9]$/ && $i + 0 > 0) rates++ }
		else if ($i ~ /^[0-9]+\.[0-9][0-9]x$/) ratios++
	}
	if (rates != 6 || ratios != 6) { print "unfilled: " $0; bad = 1 }
} END { exit bad }' || fail "a row without a rate or a ratio"
grep -q 'FAILED\|n/a' "$out" && fail "failed or n/a cells: $(grep 'FAILED\|n/a' "$out")"
if command -v gnuplot >/dev/null 2>&1; then
	[ -s "$png" ] || fail "--plot wrote nothing"
	head -c 8 "$png" | od -An -c | grep -q 'P   N   G' || fail "--plot did not write a PNG"
fi
rm -f "$png"
# a stalled baseline: its ratio is n/a, named as such, in the sweep's table
# (and in the comparison table: test_perf_short)
if command -v iperf3 >/dev/null 2>&1; then
	fake=$(mktemp -d)
	cat >"$fake/iperf3" <<'EOS'
#!/bin/sh
case " $* " in *" -s "*) exec iperf3 "$@" ;; esac
printf '{"end":{"sum_received":{"seconds":1,"bytes":1000,"bits_per_second":8000}}}\n'
EOS
	chmod +x "$fake/iperf3"
	DDP_PERF_IPERF3=$fake/iperf3 timeout 300 "$perf" --sweep loss=0,0.1% --llps iperf3,mpa \
		--duration 0.6 >"$out" 2>"$out.err" || fail "stalled sweep: exit $?: $(tail -n 3 "$out.err")"
	cat "$out"
	rm -rf "$fake"
	for v in 0 0.1%; do
		grep -q "^$v  *0\.0  *[0-9.]*  *[0-9.]* |  *n/a  *n/a$" "$out" || fail "loss $v: no n/a ratios"
		grep -q "^  $v, mpa-u/TCP: n/a (baseline stalled)$" "$out" || fail "loss $v: stalled not named"
	done
	grep -q '[0-9]\{4,\}\.[0-9][0-9]x' "$out" && fail "a huge ratio printed"
fi
# SIGTERM ends the whole sweep: the running point stops, no further point
# starts (each would take seconds to set up), the status says the signal,
# and no namespace is left behind
"$perf" --sweep rtt=1ms,2ms,3ms,4ms --llps tcp --duration 5 >"$out" 2>"$out.err" &
pp=$!
i=0
until grep -q '^ddp-perf: sweep rtt=1ms' "$out.err" || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
kill -TERM $pp
t0=$(date +%s)
wait $pp
rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit status $rc, not 143: $(tail -n 3 "$out.err")"
[ $(($(date +%s) - t0)) -le 10 ] || fail "SIGTERM: the sweep took $(($(date +%s) - t0)) s to end"
grep -q '^ddp-perf: sweep rtt=2ms' "$out.err" && fail "SIGTERM: the next point started"
ip netns list 2>/dev/null | grep -q "^${DDP_PERF_NETNS}[AB]" &&
	fail "SIGTERM: namespaces left behind: $(ip netns list | grep "^${DDP_PERF_NETNS}")"
rm -f "$out" "$out.err"
# bad sweeps are refused
"$perf" --sweep jitter=1ms >/dev/null 2>&1 && fail "--sweep jitter accepted"
"$perf" --sweep rtt=10 >/dev/null 2>&1 && fail "--sweep rtt without a unit accepted"
"$perf" --sweep loss=2 >/dev/null 2>&1 && fail "--sweep loss=2 accepted"
"$perf" --sweep rtt=1ms --llp mpa >/dev/null 2>&1 && fail "--sweep with --llp accepted"
echo "test_perf_sweep: ok"

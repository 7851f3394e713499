#!/bin/sh
# linkem delay: ping's median round trip through delay=10ms is 20 ms within 5 %;
# per-direction delays (fwd 15 ms, rev 4 ms) seen one way each by
# timestamped datagrams (the median of 200) within 5 %; jitter=2ms spreads
# them uniformly over 8..12 ms. SIGUSR1 shows the counters; SIGTERM stops
# linkem and it removes its namespaces.
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
linkem_begin test_linkem_delay

linkem_up "delay=10ms" lkd || fail "link did not come up"
out=$(ip netns exec "$LK_NS_A" ping -n -c 21 -i 0.05 "$LK_ADDR_B") || fail "ping failed: $out"
# the median: one late wake-up of a busy machine must not move it
rtt=$(printf '%s\n' "$out" | sed -n 's/.* time=\([0-9.]*\) ms$/\1/p' | sort -n | sed -n 11p)
echo "delay=10ms: ping median rtt $rtt ms of 21 (want 20 +- 5 %)"
lk_within "$rtt" 20 0.05 || fail "round trip $rtt ms, want 20 ms +- 5 %"
linkem_stats
echo "$LK_STATS"
[ "$(linkem_counter fwd passed)" -ge 21 ] && [ "$(linkem_counter rev passed)" -ge 21 ] ||
	fail "SIGUSR1 counters do not show the pings: $LK_STATS"
pid=$LK_PID
linkem_down
kill -0 "$pid" 2>/dev/null && fail "linkem still running after SIGTERM"
[ "$LK_LEFTOVER" = 0 ] || fail "linkem left its namespaces behind"

linkem_up "fwd:delay=15ms;rev:delay=4ms" lkd || fail "link did not come up"
linkem_udp 200 1000 || fail "udp probe failed: $LK_UDP"
f=$(lk_field "$LK_UDP" owd_med_us)
linkem_udp 200 1000 64 rev || fail "udp probe failed: $LK_UDP"
r=$(lk_field "$LK_UDP" owd_med_us)
echo "fwd:delay=15ms;rev:delay=4ms: one-way A->B $f us, B->A $r us"
lk_within "$f" 15000 0.05 || fail "A->B one-way delay $f us, want 15 ms +- 5 %"
lk_within "$r" 4000 0.05 || fail "B->A one-way delay $r us, want 4 ms +- 5 %"
linkem_down

linkem_up "delay=10ms,jitter=2ms,reorder=1" lkd || fail "link did not come up"
linkem_udp 1000 2000 || fail "udp probe failed: $LK_UDP"
lo=$(lk_field "$LK_UDP" owd_min_us) p10=$(lk_field "$LK_UDP" owd_p10_us)
med=$(lk_field "$LK_UDP" owd_med_us) p90=$(lk_field "$LK_UDP" owd_p90_us)
echo "delay=10ms,jitter=2ms: one-way min $lo, 10th/50th/90th percentile $p10 / $med / $p90 us"
# uniform over 8..12 ms: none below 8, the 10th percentile at 8.4 ms, the
# median at 10 ms (a late wake-up only moves the upper ones)
lk_within "$med" 10000 0.05 || fail "median one-way delay $med us, want 10 ms +- 5 %"
awk -v lo="$lo" -v p="$p10" 'BEGIN { exit !(lo >= 7900 && p >= 8200 && p <= 8800) }' ||
	fail "one-way delays from $lo us, 10th percentile $p10 us: want >= 8000, 8400 +- 200"
linkem_down
[ "$LK_LEFTOVER" = 0 ] || fail "linkem left its namespaces behind"
echo "test_linkem_delay: ok"

#!/bin/sh
# linkem reordering happens only when asked: 20,000 datagrams 50 us apart
# through delay=2ms,jitter=1ms arrive in order with reorder=0 (their delays
# still spread by the jitter), and largely out of order with reorder=1; the
# receiver and linkem's counter agree on which.
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
linkem_begin test_linkem_reorder
N=20000

linkem_up "delay=2ms,jitter=1ms,reorder=0" lko || fail "link did not come up"
linkem_udp $N 20000 || fail "udp probe failed: $LK_UDP"
linkem_done "reorder=0: $LK_UDP"
[ "$(lk_field "$LK_UDP" reordered)" = 0 ] || fail "reordered with reorder=0"
[ "$(linkem_counter fwd reordered)" = 0 ] || fail "linkem counted reordering with reorder=0"
awk -v lo="$(lk_field "$LK_UDP" owd_min_us)" -v hi="$(lk_field "$LK_UDP" owd_max_us)" \
	'BEGIN { exit !(hi - lo >= 900) }' || fail "jitter did not spread the delays"

linkem_up "delay=2ms,jitter=1ms,reorder=1" lko || fail "link did not come up"
linkem_udp $N 20000 || fail "udp probe failed: $LK_UDP"
linkem_done "reorder=1: $LK_UDP"
r=$(lk_field "$LK_UDP" reordered)
[ "$r" -ge $((N / 10)) ] || fail "only $r of $N reordered with reorder=1"
[ "$(linkem_counter fwd reordered)" -ge $((N / 10)) ] || fail "linkem counted $(linkem_counter fwd reordered) reordered"
echo "test_linkem_reorder: ok"

#!/bin/sh
# linkem outage=1s@1s: datagrams sent 1 ms apart for 3 s from the moment the
# link is up; the link drops every one of them for one second (one hole of
# 1000 datagrams +- 5 %), none outside it, and linkem counts them as outage
# drops (the receiver may miss a few more that never reached linkem on a
# host too busy to run it: at most 5 %). After the outage the link works
# again (ping).
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
linkem_begin test_linkem_outage

linkem_up "delay=1ms,outage=1s@1s" lkt || fail "link did not come up"
LK_UDP_IDLE=1500 linkem_udp 3000 1000 || fail "udp probe failed: $LK_UDP"
ip netns exec "$LK_NS_A" ping -n -q -c 1 -W 2 "$LK_ADDR_B" >/dev/null || fail "no link after the outage"
linkem_done "outage=1s@1s: $LK_UDP (sent in $LK_UDP_SECS s)"
# 3000 datagrams and the echo request of the ping
lost=$(linkem_counter fwd outage) pre=$(linkem_unread 3001)
[ "$pre" -le 150 ] || fail "$pre datagrams never reached linkem"
lk_within "$lost" 1000 0.05 || fail "$lost lost to the outage, want 1000 +- 5 %"
[ "$pre" != 0 ] || [ "$(lk_field "$LK_UDP" gaps)" = 1 ] || fail "$(lk_field "$LK_UDP" gaps) holes, want one"
[ "$(lk_field "$LK_UDP" lost)" = $((lost + pre)) ] ||
	fail "receiver lost $(lk_field "$LK_UDP" lost), linkem counted $lost outage drops (+ $pre unread)"
echo "test_linkem_outage: ok"

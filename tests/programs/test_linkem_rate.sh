#!/bin/sh
# linkem rate: one TCP flow through delay=5ms,rate=50mbit,queue=100 carries
# 50 Mbit/s of 1500-octet IP packets, 48.27 Mbit/s of payload (1448 of 1500
# octets with timestamps), within 5 % (measured after the first second).
# The bottleneck queue: 1000-octet datagrams offered at 4 times
# rate=20mbit,queue=200 come out at the rate plus the queue (within 10 %),
# the last of them 200 x 411 us = 82 ms late (-5 %..+15 %: a busy machine
# only adds to it), the rest
# tail-dropped, and the receiver misses exactly what linkem counts.
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
linkem_begin test_linkem_rate

linkem_up "delay=5ms,rate=50mbit,queue=100" lkr || fail "link did not come up"
linkem_tcp 9701 1000 4 || fail "tcp-send failed"
linkem_done "rate=50mbit: $LK_TCP"
bps=$(lk_field "$LK_TCP" goodput_bps)
lk_within "$bps" 48266667 0.05 || fail "TCP goodput $bps bit/s, want 48.27 Mbit/s +- 5 %"

linkem_up "rate=20mbit,queue=200" lkr || fail "link did not come up"
linkem_udp 5000 10000 1000 || fail "udp probe failed: $LK_UDP"
linkem_done "rate=20mbit,queue=200: $LK_UDP (sent in $LK_UDP_SECS s)"
got=$(lk_field "$LK_UDP" unique)
# 1028 IP octets a datagram: 2432 a second leave, plus the 200 queued
want=$(awk -v s="$LK_UDP_SECS" 'BEGIN { printf "%d", 20e6 / 8 / 1028 * s + 200 }')
lk_within "$got" "$want" 0.1 || fail "$got datagrams through, want $want +- 10 %"
hi=$(lk_field "$LK_UDP" owd_max_us)
awk -v v="$hi" 'BEGIN { exit !(v >= 0.95 * 82240 && v <= 1.15 * 82240) }' ||
	fail "longest one-way delay $hi us, want 82.2 ms (a full queue) -5 %..+15 %"
pre=$(linkem_unread 5000)
[ "$pre" -le 250 ] || fail "$pre datagrams never reached linkem"
[ "$(lk_field "$LK_UDP" lost)" = $(($(linkem_counter fwd queue) + pre)) ] ||
	fail "receiver lost $(lk_field "$LK_UDP" lost), linkem dropped $(linkem_counter fwd queue) at the queue (+ $pre unread)"
echo "test_linkem_rate: ok"

#!/bin/sh
# linkem loss over 100,000 datagrams each: loss=1% loses 1 % within +-20 %
# relative, one at a time (mean hole < 1.2 datagrams); Gilbert-Elliott
# ge=p:1%/r:30% (1-h 100 %, 1-k 0 %) loses p/(p+r) = 3.23 % within +-20 % in
# holes of 1/r = 3.33 datagrams on average (+-20 %). What the receiver
# misses is exactly what linkem counts as lost (plus what never reached it:
# a host too busy to run linkem, not the link; at most 5 %, and the rates
# count only what entered the link); the reverse direction is untouched by
# rev:loss=0.
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
linkem_begin test_linkem_loss
N=100000

linkem_up "loss=1%;rev:loss=0" lkl || fail "link did not come up"
linkem_udp $N 50000 || fail "udp probe failed: $LK_UDP"
linkem_done "$LK_UDP"
check_counts() {
	pre=$(linkem_unread $N) in=$(linkem_counter fwd reads) lost=$(linkem_counter fwd lost)
	gaps=$(lk_field "$LK_UDP" gaps)
	[ "$pre" -le $((N / 20)) ] || fail "$pre datagrams never reached linkem"
	[ "$(lk_field "$LK_UDP" lost)" = $((lost + pre)) ] ||
		fail "receiver lost $(lk_field "$LK_UDP" lost), linkem counted $lost (+ $pre unread)"
}
check_counts
echo "loss=1%: $lost lost of $in"
lk_within "$lost" "$(awk -v n="$in" 'BEGIN { print n * 0.01 }')" 0.2 || fail "lost $lost of $in, want 1 % +- 20 %"
[ "$(linkem_counter rev lost)" = 0 ] || fail "rev lost packets with rev:loss=0"
if [ "$pre" = 0 ]; then
	awk -v l="$lost" -v g="$gaps" 'BEGIN { exit !(g > 0 && l / g < 1.2) }' || fail "random loss in bursts: $lost in $gaps holes"
else
	echo "(holes not checked: $pre datagrams never reached linkem)"
fi

linkem_up "ge=p:1%/r:30%" lkl || fail "link did not come up"
linkem_udp $N 50000 || fail "udp probe failed: $LK_UDP"
linkem_done "$LK_UDP"
check_counts
echo "ge=p:1%/r:30%: $lost lost of $in in $gaps holes"
lk_within "$lost" "$(awk -v n="$in" 'BEGIN { print n / 31 }')" 0.2 || fail "lost $lost of $in, want 3.23 % +- 20 %"
if [ "$pre" = 0 ]; then
	awk -v l="$lost" -v g="$gaps" 'BEGIN { b = g ? l / g : 0; d = b - 10 / 3; if (d < 0) d = -d; exit !(d <= 0.2 * 10 / 3) }' ||
		fail "mean hole $lost/$gaps, want 3.33 +- 20 %"
else
	echo "(holes not checked: $pre datagrams never reached linkem)"
fi
echo "test_linkem_loss: ok"

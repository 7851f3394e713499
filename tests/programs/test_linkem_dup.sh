#!/bin/sh
# linkem dup=2% over 100,000 datagrams: 2,000 extra copies within +-20 %,
# none lost, and the receiver sees exactly the copies linkem counts (the
# rate counts what entered the link: a host too busy to run linkem may drop
# some before it, at most 5 %).
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
linkem_begin test_linkem_dup
N=100000

linkem_up "dup=2%" lku || fail "link did not come up"
linkem_udp $N 50000 || fail "udp probe failed: $LK_UDP"
linkem_done "dup=2%: $LK_UDP"
dup=$(lk_field "$LK_UDP" dup)
pre=$(linkem_unread $N) in=$(linkem_counter fwd reads)
[ "$pre" -le $((N / 20)) ] || fail "$pre datagrams never reached linkem"
lk_within "$dup" "$(awk -v n="$in" 'BEGIN { print n * 0.02 }')" 0.2 || fail "$dup copies of $in, want 2 % +- 20 %"
[ "$(lk_field "$LK_UDP" lost)" = "$pre" ] || fail "datagrams lost with dup only"
[ "$dup" = "$(linkem_counter fwd dup)" ] || fail "receiver saw $dup copies, linkem made $(linkem_counter fwd dup)"
echo "test_linkem_dup: ok"

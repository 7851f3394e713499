#!/bin/sh
# linkem dup=2% over 100,000 datagrams: 2,000 extra copies within +-20 %,
# none lost, and the receiver sees exactly the copies linkem counts.
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
fail() { echo "test_linkem_dup: $*"; linkem_down; exit 1; }
linkem_need
trap linkem_down EXIT
N=100000

linkem_up "dup=2%" lku || fail "link did not come up"
linkem_udp $N 50000 || fail "udp probe failed: $LK_UDP"
linkem_down
dup=$(lk_field "$LK_UDP" dup)
echo "dup=2%: $LK_UDP"
echo "$LK_STATS"
lk_within "$dup" 2000 0.2 || fail "$dup copies of $N, want 2000 +- 20 %"
[ "$(lk_field "$LK_UDP" lost)" = 0 ] || fail "datagrams lost with dup only"
[ "$dup" = "$(linkem_counter fwd dup)" ] || fail "receiver saw $dup copies, linkem made $(linkem_counter fwd dup)"
echo "test_linkem_dup: ok"

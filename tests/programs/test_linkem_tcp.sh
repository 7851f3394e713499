#!/bin/sh
# linkem cuts TCP super-packets (TSO through the TUN devices) into runs of
# wire packets when loss, duplication or reordering hit some of them: a TCP
# stream through loss=1%,dup=1%,delay=2ms,jitter=1ms,reorder=1 arrives
# intact (every octet where the sender put it), linkem cut super-packets
# (fewer reads than wire packets) and lost, copied and reordered some.
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
fail() { echo "test_linkem_tcp: $*"; linkem_down; exit 1; }
linkem_need
trap linkem_down EXIT
probe=${LINKEM_PROBE:-$BUILD/bin/linkem-probe}

linkem_up "loss=1%,dup=1%,delay=2ms,jitter=1ms,reorder=1" lkc || fail "link did not come up"
out=$(mktemp)
ip netns exec "$LK_NS_B" "$probe" tcp-recv 9702 0 >"$out" &
rp=$!
i=0
while ! grep -q listening "$out" && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
ip netns exec "$LK_NS_A" "$probe" tcp-send "$LK_ADDR_B" 9702 2 >/dev/null || fail "tcp-send failed"
wait $rp
line=$(tail -n 1 "$out")
rm -f "$out"
linkem_down
echo "$line"
echo "$LK_STATS"
bytes=$(lk_field "$line" bytes)
[ "${bytes:-0}" -gt 1000000 ] || fail "only ${bytes:-0} octets crossed"
[ "$(lk_field "$line" corrupt)" = 0 ] || fail "$(lk_field "$line" corrupt) octets corrupt"
[ "$(linkem_counter fwd reads)" -lt "$(linkem_counter fwd passed)" ] || fail "no super-packets"
for k in lost dup reordered; do
	[ "$(linkem_counter fwd $k)" -gt 0 ] || fail "fwd $k is 0"
done
[ "$(linkem_counter fwd errors)" = 0 ] || fail "errors"
echo "test_linkem_tcp: ok"

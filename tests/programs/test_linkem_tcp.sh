#!/bin/sh
# linkem cuts TCP super-packets (TSO through the TUN devices) into runs of
# wire packets when loss, duplication or reordering hit some of them: a TCP
# stream through loss=1%,dup=1%,delay=2ms,jitter=1ms,reorder=1 arrives
# intact (every octet where the sender put it), linkem cut super-packets
# (fewer reads than wire packets) and lost, copied and reordered some.
set -u
BUILD=${BUILD:-build}
. tests/programs/linkem_lib.sh
linkem_begin test_linkem_tcp

linkem_up "loss=1%,dup=1%,delay=2ms,jitter=1ms,reorder=1" lkc || fail "link did not come up"
linkem_tcp 9702 0 2 || fail "tcp-send failed"
linkem_done "$LK_TCP"
bytes=$(lk_field "$LK_TCP" bytes)
[ "${bytes:-0}" -gt 1000000 ] || fail "only ${bytes:-0} octets crossed"
[ "$(lk_field "$LK_TCP" corrupt)" = 0 ] || fail "$(lk_field "$LK_TCP" corrupt) octets corrupt"
[ "$(linkem_counter fwd reads)" -lt "$(linkem_counter fwd passed)" ] || fail "no super-packets"
for k in lost dup reordered; do
	[ "$(linkem_counter fwd $k)" -gt 0 ] || fail "fwd $k is 0"
done
[ "$(linkem_counter fwd errors)" = 0 ] || fail "errors"
echo "test_linkem_tcp: ok"

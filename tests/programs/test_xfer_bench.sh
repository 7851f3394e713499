# ddp-xfer --bench on loopback (ports 29580-29583): one core's SHA-256 rate,
# a transfer over each LLP (both ends must agree on the digest, else the
# row says "(failed)" and the exit status is 1), ddp-perf's tagged ceiling
# beside it, and the ratio to the slower ceiling; a missing file and bad
# usage fail.
. "$(dirname "$0")/xfer_lib.sh"
head -c 20000000 /dev/urandom >"$W/f20" || fail "cannot make the test file"
"$XFER" --bench --port 29580 --streams 4 "$W/f20" >"$W/b.out" 2>"$W/b.err" ||
	fail "--bench failed: $(cat "$W/b.out" "$W/b.err" | tr '\n' '|')"
cat "$W/b.out"
awk '/^SHA-256, one core/ { if ($(NF-1) + 0 > 0) ok = 1 } END { exit !ok }' "$W/b.out" ||
	fail "no SHA-256 rate: $(cat "$W/b.out")"
for llp in mpa sctp; do
	# llp, xfer MiB/s, ddp-perf MiB/s, ceiling, ratio: all numbers > 0,
	# the ceiling the smaller of the SHA-256 rate and ddp-perf's
	awk -v l=$llp '/^SHA-256/ { s = $(NF-1) }
		$1 == l && $2 + 0 > 0 && $3 + 0 > 0 && $5 + 0 > 0 {
			c = ($3 < s) ? $3 : s; if ($4 - c < 0.2 && c - $4 < 0.2) ok = 1 }
		END { exit !ok }' "$W/b.out" || fail "$llp row: $(grep "^$llp " "$W/b.out")"
done
"$XFER" --bench --port 29580 "$W/nonexistent" >/dev/null 2>&1
[ $? = 1 ] || fail "--bench on a missing file: want exit 1"
"$XFER" --bench --llp nope "$W/f20" >/dev/null 2>&1
[ $? = 2 ] || fail "--bench --llp nope: want exit 2"
echo "ok bench: both LLPs measured against SHA-256 and ddp-perf"
exit 0

# ddp-xfer's SHA-256 (OpenSSL libcrypto, demos/ddp-xfer/digest.c) equals
# sha256sum(1) for every length 0..200 (all padding cases: 55/56/63/64
# octets in the last block) and a 3 MB + 5 file; `ddp-xfer sha256 FILE`
# hashes with the same code the transfer uses.
. "$(dirname "$0")/xfer_lib.sh"
head -c 200 /dev/urandom >"$W/r200"
n=0
while [ $n -le 200 ]; do
	head -c $n "$W/r200" >"$W/f"
	want="sha256 $(sha256sum "$W/f" | cut -d' ' -f1) bytes $n"
	got=$("$XFER" sha256 "$W/f") || fail "ddp-xfer sha256 failed at length $n"
	[ "$got" = "$want" ] || fail "length $n: got '$got', want '$want'"
	n=$((n + 1))
done
head -c 3000005 /dev/urandom >"$W/big"
expect_hash_cmd() {
	"$XFER" sha256 "$W/big" >"$W/big.out" || fail "ddp-xfer sha256 failed"
	expect_hash "$W/big.out" "$W/big"
}
expect_hash_cmd
echo "ok sha256: lengths 0..200 and 3000005 match sha256sum"
exit 0

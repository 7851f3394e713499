#!/bin/sh
# Self-check of ddp_sctp.lua with tshark + text2pcap (not part of make check:
# tshark is optional). Builds SCTP DATA chunks with PPID 16/17 by hand
# (layouts: RFC 5043 §3, RFC 6581 §7) and compares
# the decoded fields. Exit 0 pass, 1 fail, 77 skipped (no tshark/text2pcap).
#   sh tools/wireshark/check.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
lua=$here/ddp_sctp.lua
for t in tshark text2pcap; do
	command -v $t >/dev/null || { echo "skip: $t not installed"; exit 77; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/ddp-ws.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
nfail=0

# pcap PPID HEXLINES... -> $T/p.pcap, one SCTP packet per line
pcap() {
	ppid=$1; shift
	: > "$T/p.txt"
	for l in "$@"; do echo "0000 $l" >> "$T/p.txt"; done
	text2pcap -q -S 9899,9899,$ppid "$T/p.txt" "$T/p.pcap" 2>/dev/null
}
# expect DESCRIPTION EXPECTED TSHARK-ARGS...: one output line per packet
expect() {
	d=$1 want=$2; shift 2
	got=$(tshark -r "$T/p.pcap" -X lua_script:"$lua" "$@" 2>/dev/null | tr '\n' '|')
	if [ "$got" = "$want" ]; then echo "ok   $d"; else
		echo "FAIL $d"; echo "     want: $want"; echo "     got:  $got"
		nfail=$((nfail + 1)); fi
}
F="-T fields -E separator=, -e ddp_sctp.ssn -e ddp_sctp.fcode -e ddp_sctp.ird -e ddp_sctp.ord
   -e ddp_sctp.ird_ord.a -e ddp_sctp.ird_ord.d -e ddp_sctp.pd_len -e ddp_sctp.pd"

# Initiate ssn 0 "hi"; Accept ssn 0 no PD; Reject ssn 0 "no"; Terminate ssn 9
pcap 17 "00 00 00 01 68 69" "00 00 00 02" "00 00 00 03 6e 6f" "00 09 00 04"
# shellcheck disable=SC2086
expect "plain control codes 1-4" \
	"0,0x0001,,,,,2,6869|0,0x0002,,,,,0,|0,0x0003,,,,,2,6e6f|9,0x0004,,,,,0,|" $F

# Enhanced Initiate: A=1 D=1 IRD 5 ORD 3 + "AB"; Enhanced Accept 0x3FFF both
pcap 17 "00 00 00 05 80 05 40 03 41 42" "00 00 00 06 3f ff 3f ff"
# shellcheck disable=SC2086
expect "enhanced Initiate/Accept decode the IRD/ORD word (RFC 6581 §7)" \
	"0,0x0005,5,3,1,1,2,4142|0,0x0006,16383,16383,0,0,0,|" $F

# Enhanced Reject: by default all private data is ULP data (libddp's format)
pcap 17 "00 01 00 07 00 0a 00 0b 41"
# shellcheck disable=SC2086
expect "enhanced Reject: ULP data only by default" "1,0x0007,,,,,5,000a000b41|" $F
# shellcheck disable=SC2086
expect "enhanced Reject: IRD/ORD word with the preference" \
	"1,0x0007,10,11,0,0,1,41|" -o ddp_sctp.reject_ird_ord:TRUE $F

# malformed: 3-octet control message, Terminate with PD, enhanced w/o word
pcap 17 "00 00 00" "00 02 00 04 ff" "00 00 00 05 01 02 03"
expect "expert infos for malformed control messages" \
	"control message shorter than 4 octets|Terminate MUST NOT carry private data (RFC 5043 §5.2.3)|Enhanced Initiate/Accept without the IRD/ORD word (RFC 6581 §7)|" \
	-T fields -e _ws.expert.message

# PPID 16: DDP-SSN 7, untagged L=1 QN 0 MSN 1 MO 0 RsvdULP 0x1234567890 "abc"
pcap 16 "00 07 41 12 34 56 78 90 00 00 00 00 00 00 00 01 00 00 00 00 61 62 63"
expect "DDP segment chunk: DDP-SSN, then Wireshark's iwarp_ddp_rdmap" \
	"7,0,1,0,1|" -T fields -E separator=, -e ddp_sctp.ssn -e iwarp_ddp.qn \
	-e iwarp_ddp.msn -e iwarp_ddp.mo -e iwarp_ddp.last_flag
info=$(tshark -r "$T/p.pcap" -X lua_script:"$lua" 2>/dev/null)
case $info in
*"DDP/SCTP"*"[DDP-SSN 7]") echo "ok   protocol and info columns name DDP/SCTP and the DDP-SSN" ;;
*) echo "FAIL columns: $info"; nfail=$((nfail + 1)) ;;
esac
[ "$nfail" -eq 0 ] || { echo "check: $nfail failed"; exit 1; }
echo "check: all passed"

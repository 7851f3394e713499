#!/bin/sh
# Install the Debian packages libddp needs to build, test and fuzz.
# Idempotent and quick when everything is present (dpkg-query only).
# Set DDP_NO_APT=1 to skip (e.g. a configure without usrsctp/libevent).
set -u
PKGS="gcc make autoconf pkg-config libc6-dev dpkg-dev libusrsctp-dev libevent-dev libisal-dev libssl-dev libcmocka-dev clang clang-format libclang-rt-14-dev llvm valgrind iproute2 nftables iputils-ping gnuplot-nox procps abigail-tools iperf3"
[ "${DDP_NO_APT:-0}" = 1 ] && exit 0

# libddp-sctp builds usrsctp from Debian's own source package
# (scripts/usrsctp-source.sh): apt needs a deb-src entry for the archive the
# system's packages come from. Made once from the deb entries already there.
src_list=/etc/apt/sources.list.d/libddp-deb-src.sources
add_deb_src() {
	grep -rqsE '^(Types:.*deb-src|deb-src[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	[ "$(id -u)" = 0 ] || { echo "install-deps: no deb-src entry for apt (not root; continuing)" >&2; return 0; }
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			sed -n '/^Types:.*deb/,/^$/p' "$f" | sed 's/^Types:.*/Types: deb-src/'
			echo
		done
		grep -hE '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			sed 's/^deb\([[:space:]]\)/deb-src\1/' >"$src_list.oneline"
	} >"$src_list.tmp"
	if [ -s "$src_list.oneline" ]; then
		mv "$src_list.oneline" "${src_list%.sources}.list"
	else
		rm -f "$src_list.oneline"
	fi
	if [ -s "$src_list.tmp" ]; then mv "$src_list.tmp" "$src_list"; else rm -f "$src_list.tmp"; fi
	apt-get update -qq >/dev/null 2>&1 || echo "install-deps: apt-get update failed after adding deb-src" >&2
}
add_deb_src
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$st" in *"ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: missing packages:$missing (not root or no apt-get; continuing)" >&2
	exit 0
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq $missing >/dev/null 2>&1 || {
	apt-get update -qq >/dev/null 2>&1
	apt-get install -y -qq $missing >/dev/null || { echo "install-deps: apt-get failed" >&2; exit 1; }
}
exit 0

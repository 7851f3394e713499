#!/bin/sh
# Install the Debian packages libddp needs to build, test and fuzz.
# Idempotent and quick when everything is present (dpkg-query only).
# Set DDP_NO_APT=1 to skip (e.g. a configure without usrsctp/libevent).
set -u
PKGS="gcc make autoconf pkg-config libc6-dev libusrsctp-dev libevent-dev libisal-dev libssl-dev libcmocka-dev clang clang-format libclang-rt-14-dev llvm valgrind iproute2 iputils-ping gnuplot-nox procps abigail-tools iperf3"
[ "${DDP_NO_APT:-0}" = 1 ] && exit 0
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

#!/bin/sh
# The usrsctp that libddp-sctp links: Debian's own source package of
# libusrsctp, unpacked with Debian's patches (dpkg-source), then this
# repository's patch series on top (adapters/sctp/usrsctp/patches/series).
# Usage: scripts/usrsctp-source.sh VERSION DOWNLOAD_DIR TREE PATCH_DIR
#   VERSION       the Debian version to fetch (apt-get source libusrsctp=VERSION)
#   DOWNLOAD_DIR  where the .dsc and its tarballs are kept between builds
#   TREE          replaced by the patched source tree; TREE/.patched marks it done
#   PATCH_DIR     holds `series` (one patch file name a line, # comments)
# The download needs a deb-src entry (scripts/install-deps.sh adds one for
# the archive the system's own packages come from) and dpkg-dev.
set -eu
ver=$1 dl=$2 tree=$3 pd=$4
dsc=$dl/libusrsctp_$(echo "$ver" | sed 's/^[0-9]*://').dsc
if [ ! -f "$dsc" ]; then
	mkdir -p "$dl"
	if ! (cd "$dl" && apt-get source -q --download-only "libusrsctp=$ver" >apt-source.log 2>&1); then
		echo "usrsctp-source: cannot fetch Debian's libusrsctp $ver source package:" >&2
		tail -3 "$dl/apt-source.log" >&2
		echo "usrsctp-source: run 'sh scripts/install-deps.sh' as root (it adds the deb-src entry)," >&2
		echo "usrsctp-source: or build against the packaged library: ./configure --with-system-usrsctp" >&2
		exit 1
	fi
fi
command -v dpkg-source >/dev/null || {
	echo "usrsctp-source: dpkg-source not found (Debian package dpkg-dev)" >&2
	exit 1
}
rm -rf "$tree.tmp"
mkdir -p "$tree.tmp"
dpkg-source --no-check -x "$dsc" "$tree.tmp/src" >"$tree.tmp/unpack.log" 2>&1 || {
	cat "$tree.tmp/unpack.log" >&2
	exit 1
}
n=0
for p in $(grep -v '^[[:space:]]*#' "$pd/series" 2>/dev/null); do
	patch -d "$tree.tmp/src" -p1 --forward --quiet <"$pd/$p" || {
		echo "usrsctp-source: $pd/$p does not apply to libusrsctp $ver" >&2
		exit 1
	}
	n=$((n + 1))
done
rm -rf "$tree"
mv "$tree.tmp/src" "$tree"
rm -rf "$tree.tmp"
echo "usrsctp-source: libusrsctp $ver with $n patch(es) of $pd in $tree"
touch "$tree/.patched"

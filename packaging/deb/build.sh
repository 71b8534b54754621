#!/usr/bin/env bash
# `make deb`: the Debian package of passkeyd, built with dpkg-deb alone (no debhelper), from `make install` into
# a staging root with the Debian paths. Depends: is what dpkg-shlibdeps derives from the binary's libraries.
# usage: packaging/deb/build.sh OUTPUT_FOLDER    (prints the path of the .deb)
set -euo pipefail
cd "$(dirname "$0")/../.."
output=${1:?usage: packaging/deb/build.sh OUTPUT_FOLDER}
maintainer=${DEB_MAINTAINER:-passkeyd maintainers <maintainers@users.noreply.a-seed-0e16112e.example>}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
unit_folder=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || true)

${MAKE:-make} --no-print-directory install DESTDIR="$root" PREFIX=/usr UNITDIR="${unit_folder:-/lib/systemd/system}" >/dev/null
# As dh_strip does for executables: no symbol table or debugging information (78 MB → 60 MB).
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/passkeyd"

# The package's version is the binary's own ("passkeyd 1.2.3" → 1.2.3).
version=$("$root/usr/bin/passkeyd" --version | awk 'NR == 1 {print $NF}')
[[ $version =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || { echo "passkeyd --version gave no Debian version: '$version'" >&2; exit 1; }
architecture=$(dpkg --print-architecture)
mkdir -p "$root/DEBIAN" "$stage/debian"
# dpkg-shlibdeps reads the shlibs and symbols files of the installed library packages; it needs a debian/control.
printf 'Source: passkeyd\n\nPackage: passkeyd\nArchitecture: any\n' >"$stage/debian/control"
# (Its warnings, e.g. that nothing of libevent-2.1.so.7 itself is used, are kept for when it fails.)
depends=$(cd "$stage" && dpkg-shlibdeps -O -e root/usr/bin/passkeyd 2>"$stage/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { cat "$stage/shlibdeps.log" >&2; echo "dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat >"$root/DEBIAN/control" <<CONTROL
Package: passkeyd
Version: $version
Architecture: $architecture
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: net
Priority: optional
Description: passkey (WebAuthn) and Sign in with Apple server
 passkeyd is an HTTPS JSON API for passkey registration and sign-in with strict
 server-side verification of every WebAuthn Level 3 step and attestation format,
 server-side verification of Sign in with Apple identity tokens, and the
 associated-domain files that make passkeys work for iOS and Android apps.
 .
 The package installs the server (linked with the Swift runtime, so it needs no
 Swift toolchain), a systemd unit, the demo site, the shipped attestation roots
 and an example configuration in /etc/passkeyd. It starts nothing: edit
 /etc/passkeyd/passkeyd.json, then run systemctl enable --now passkeyd.
CONTROL
echo /etc/passkeyd/passkeyd.json >"$root/DEBIAN/conffiles"
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$root/DEBIAN/"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

mkdir -p "$output"
package="$output/passkeyd_${version}_${architecture}.deb"
dpkg-deb --root-owner-group --build "$root" "$package" >/dev/null
echo "$package"

#!/usr/bin/env bash
# `make image`: the OCI image of passkeyd, built with buildah from scratch (no Docker, no base image, nothing pulled):
# the binary, the dynamic loader and every shared library it links (as ldd finds them), the CA certificates, www/ and
# TrustAnchors/ as `make install` places them, /etc/passwd and /etc/group with the user passkeyd (10001), the image's
# configuration (packaging/image/passkeyd.json) and /var/lib/passkeyd as a volume owned by passkeyd. No shell, no
# package manager. Committed in Docker's format (the only one with HEALTHCHECK), tagged passkeyd:VERSION, and
# exported as an OCI archive (an OCI layout holding that image) that `podman load` and `docker load` take.
# usage: BINARY=path packaging/image/build.sh OUTPUT_FOLDER    (prints the path of the archive)
# Storage: buildah's default, or STORAGE_ROOT and STORAGE_RUNROOT (a test's temporary folders); the image stays there
# (as passkeyd:VERSION) unless KEEP_IMAGE=0.
set -euo pipefail
cd "$(dirname "$0")/../.."
output=${1:?usage: BINARY=path packaging/image/build.sh OUTPUT_FOLDER}
binary=${BINARY:?BINARY must name the passkeyd binary to package}
[ -x "$binary" ] || { echo "no executable binary at $binary" >&2; exit 1; }
# Docker's format for the working container too: OCI's has no HEALTHCHECK.
export BUILDAH_FORMAT=docker
buildah=(buildah)
[ -n "${STORAGE_ROOT:-}" ] && buildah+=(--root "$STORAGE_ROOT" --runroot "${STORAGE_RUNROOT:?STORAGE_RUNROOT goes with STORAGE_ROOT}")
stage=$(mktemp -d)
container=""
cleanup() {
  [ -n "$container" ] && "${buildah[@]}" rm "$container" >/dev/null 2>&1
  rm -rf "$stage"
}
trap cleanup EXIT

version=$("$binary" --version | awk 'NR == 1 {print $NF}')
source_version=$(sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/passkeyd/Version.swift)
[ "$version" = "$source_version" ] || { echo "the binary is $version, Sources/passkeyd/Version.swift says $source_version" >&2; exit 1; }

root=$stage/root
# The binary, www/ and TrustAnchors/ where `make install` puts them with PREFIX=/usr; not its unit, docs or /etc.
${MAKE:-make} --no-print-directory install DESTDIR="$root" PREFIX=/usr BINARY="$binary" >/dev/null
rm -rf "$root/usr/lib/systemd" "$root/usr/share/doc" "$root/etc/passkeyd" "$root/lib"
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/passkeyd"

# The dynamic loader and each library the binary links, at the path ldd resolves (symbolic links followed).
libraries=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
[ -n "$libraries" ] || { echo "ldd lists no libraries for $binary" >&2; exit 1; }
for library in $libraries; do
  install -D -m 0755 "$(readlink -f "$library")" "$root$library"
done

install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
# OpenSSL's default CA file (OPENSSLDIR/cert.pem) is Debian's bundle, as on the host.
mkdir -p "$root/usr/lib/ssl"
ln -s /etc/ssl/certs/ca-certificates.crt "$root/usr/lib/ssl/cert.pem"
install -D -m 0644 packaging/image/passkeyd.json "$root/etc/passkeyd/passkeyd.json"
printf 'root:x:0:0:root:/root:/nonexistent\npasskeyd:x:10001:10001:passkeyd:/var/lib/passkeyd:/nonexistent\n' >"$root/etc/passwd"
printf 'root:x:0:\npasskeyd:x:10001:\n' >"$root/etc/group"
chmod 0644 "$root/etc/passwd" "$root/etc/group"
install -d -m 1777 "$root/tmp"
install -d -m 0755 "$root/var" "$root/var/lib"
install -d -m 0700 "$root/var/lib/passkeyd"
chown -R 0:0 "$root"
chown 10001:10001 "$root/var/lib/passkeyd"

# The tree goes in as it is, owners and modes included (buildah copy would give the volume's folder 0755).
container=$("${buildah[@]}" from --quiet scratch)
mountpoint=$("${buildah[@]}" mount "$container")
cp -a "$root/." "$mountpoint/"
"${buildah[@]}" umount "$container" >/dev/null
"${buildah[@]}" config \
  --user 10001:10001 \
  --workingdir /var/lib/passkeyd \
  --volume /var/lib/passkeyd \
  --port 8443/tcp \
  --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
  --entrypoint '["/usr/bin/passkeyd"]' \
  --cmd '["serve", "--config", "/etc/passkeyd/passkeyd.json"]' \
  --stop-signal SIGTERM \
  --created-by "passkeyd packaging/image/build.sh" \
  --healthcheck 'CMD /usr/bin/passkeyd healthcheck --config /etc/passkeyd/passkeyd.json' \
  --healthcheck-interval 30s --healthcheck-timeout 5s --healthcheck-start-period 10s --healthcheck-retries 3 \
  --label org.opencontainers.image.title=passkeyd \
  --label org.opencontainers.image.description="passkey (WebAuthn) and Sign in with Apple server" \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  "$container"
"${buildah[@]}" commit --quiet --format docker --rm "$container" "localhost/passkeyd:$version" >/dev/null
container=""
mkdir -p "$output"
archive="$output/passkeyd-$version.oci.tar"
rm -f "$archive"
# The OCI layout with the Docker manifest and configuration (v2s2) in it: converted to OCI's, the HEALTHCHECK is lost.
"${buildah[@]}" push --quiet --format v2s2 "localhost/passkeyd:$version" "oci-archive:$archive:passkeyd:$version" >/dev/null
[ "${KEEP_IMAGE:-1}" = 1 ] || "${buildah[@]}" rmi "localhost/passkeyd:$version" >/dev/null
echo "$archive"

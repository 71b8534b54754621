#!/bin/sh
# An app adds passkeyd by its repository URL and uses only the client library: clone by URL (a file:// URL to this
# repository, at the committed HEAD, so no network is needed), build, run, and check that none of the server's
# modules was built. Run by `make client-swift-test`; it tests what is committed, not the working tree.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repository=$(git -C "$here" rev-parse --show-toplevel)
revision=$(git -C "$repository" rev-parse HEAD)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/Consumer" "$work/remote"
# SwiftPM names a package by its URL's last component, as it would `https://github.com/…/passkeyd`.
ln -s "$repository" "$work/remote/passkeyd"
cp "$here/Sources/Consumer/main.swift" "$work/Sources/Consumer/"
sed -e "s|@URL@|file://$work/remote/passkeyd|" -e "s|@REVISION@|$revision|" "$here/Package.swift.template" >"$work/Package.swift"
cd "$work"
swift build --product Consumer
output=$(./.build/debug/Consumer)
expected="client for https://example.com, nonce hash ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
if [ "$output" != "$expected" ]; then
    echo "client-by-URL: the consumer printed '$output', expected '$expected'" >&2
    exit 1
fi
# The Swift modules compiled: the client and the app's own, none of the server's.
built=$(find .build/debug/Modules/ -maxdepth 1 -name '*.swiftmodule' -printf '%f\n' | sed 's/\.swiftmodule$//' | sort | tr '\n' ' ')
if [ "$built" != "Consumer PasskeydClient " ]; then
    echo "client-by-URL: an app that uses only the client got these modules compiled: $built" >&2
    exit 1
fi
echo "client-by-URL: resolved passkeyd at $revision by URL, compiled only: $built"

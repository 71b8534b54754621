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
mkdir -p "$work/Sources/Consumer"
cp "$here/Sources/Consumer/main.swift" "$work/Sources/Consumer/"
sed -e "s|@URL@|file://$repository|" -e "s|@REVISION@|$revision|" "$here/Package.swift.template" >"$work/Package.swift"
cd "$work"
swift build --product Consumer
output=$(./.build/debug/Consumer)
expected="client for https://example.com, nonce hash ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
if [ "$output" != "$expected" ]; then
    echo "client-by-URL: the consumer printed '$output', expected '$expected'" >&2
    exit 1
fi
built=$(find .build/debug -maxdepth 1 -name '*.build' -printf '%f\n' | sort | tr '\n' ' ')
for module in WebAuthnCore CryptoCore Storage HTTPServer RelyingPartyServer CBOR; do
    case " $built" in
    *" $module.build "*)
        echo "client-by-URL: the server module $module was built for an app that uses only the client ($built)" >&2
        exit 1
        ;;
    esac
done
echo "client-by-URL: resolved $repository at $revision, built only: $built"

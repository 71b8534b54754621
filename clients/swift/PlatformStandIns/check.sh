#!/bin/sh
# Type-checks the Apple-only files of PasskeydClient (the AuthenticationServices layer and the Keychain token store)
# on Linux, against stand-ins of the SDK declarations they use (this folder), so that they cannot rot unseen.
# Run by `make client-swift-test`. A stand-in gets Apple's exact signature when the platform files start using it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sources="$here/../Sources"
modules=$(mktemp -d)
trap 'rm -rf "$modules"' EXIT
for module in AuthenticationServices Security; do
    swiftc -swift-version 6 -parse-as-library -module-name "$module" -emit-module \
        -emit-module-path "$modules/$module.swiftmodule" "$here/$module.swift"
done
swiftc -swift-version 6 -typecheck -warnings-as-errors -parse-as-library -module-name PasskeydClient \
    -I "$modules" -I "$sources/COpenSSLDigest" "$sources"/PasskeydClient/*.swift
echo "platform layer type-checked against the stand-ins: AuthenticationServices, Security"

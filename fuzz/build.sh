#!/usr/bin/env bash
# Builds passkeyd's fuzz targets with plain swiftc, without touching Package.swift.
#
#   fuzz/build.sh fuzz   [target...]   libFuzzer + AddressSanitizer binaries in .build-fuzz/fuzz/bin/
#   fuzz/build.sh replay [target...]   the same targets without the fuzzer runtime, in .build-fuzz/replay/bin/;
#                                      each takes corpus files or folders as arguments and runs every file once
#
# The package's library modules the targets import, with everything they depend on, are derived from Package.swift
# (`swift package dump-package` through fuzz/modules.py, so no module list is kept here), compiled once per mode into
# static libraries (instrumented for coverage in `fuzz` mode, `-enable-testing` so targets can `@testable import`
# internal parsers) and rebuilt only when a source under Sources/ changes.
# Every target is fuzz/Targets/<name>.swift plus fuzz/Support/*.swift (and ReplayMain.swift in replay mode).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
shift || true
case "$mode" in
  fuzz) sanitize=(-sanitize=fuzzer,address -DFUZZING) ;;
  replay) sanitize=() ;;
  *) echo "usage: fuzz/build.sh fuzz|replay [target...]" >&2; exit 2 ;;
esac

SWIFTC=${SWIFTC:-swiftc}
out=.build-fuzz/$mode
mkdir -p "$out/modules" "$out/bin"

# From Package.swift: the library modules in build order, the system-library folders they reach, what those link.
package=$("${SWIFT:-swift}" package dump-package)
derived=$(python3 fuzz/modules.py fuzz/Targets/*.swift fuzz/Support/*.swift <<<"$package")
read -r -a modules <<<"$(sed -n 's/^modules //p' <<<"$derived")"
read -r -a cmodules <<<"$(sed -n 's/^cmodules //p' <<<"$derived")"
read -r -a includes <<<"$(sed -n 's/^includes //p' <<<"$derived")"
read -r -a links <<<"$(sed -n 's/^links //p' <<<"$derived")"
[ ${#modules[@]} -gt 0 ] || { echo "fuzz/build.sh: no modules derived from Package.swift" >&2; exit 1; }

common=(-O -wmo -swift-version 6 -package-name passkeyd -parse-as-library -enable-testing
        "${includes[@]/#/-I}" -I "$out/modules" "${sanitize[@]}")

built=()
# A C target (its include/module.modulemap names the header Swift sees): its .c files into lib<name>.a, uninstrumented.
build_c_module() {
  local name=$1 library="$out/modules/lib$1.a"
  built+=("$library")
  if [ -f "$library" ] && [ -z "$(find "Sources/$name" -newer "$library" \( -name '*.c' -o -name '*.h' \) -print -quit)" ]; then
    return
  fi
  echo "  C module $name ($mode)" >&2
  local objects=()
  for source in "Sources/$name"/*.c; do
    local object="$out/modules/$name-$(basename "$source" .c).o"
    "${CC:-clang}" -O2 -fPIC -I "Sources/$name/include" -c "$source" -o "$object"
    objects+=("$object")
  done
  rm -f "$library" && ar rcs "$library" "${objects[@]}"
}

build_module() {
  local name=$1 library="$out/modules/lib$1.a"
  # Rebuild when a source of the module, or the library of a module built before it, is newer than the library.
  if [ -f "$library" ] && [ -z "$(find "Sources/$name" "${built[@]}" -newer "$library" \( -name '*.swift' -o -name '*.a' -o -name '*.json' \) -print -quit)" ]; then
    built+=("$library")
    return
  fi
  built+=("$library")
  echo "  module $name ($mode)" >&2
  local sources
  mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
  # The module's `embedInCode` resources, as SwiftPM generates them: `PackageResources.<file name, . as _>` bytes.
  local embedded="$out/modules/$name-resources.swift"
  if PACKAGE_JSON=$package python3 - "$name" "$embedded" <<'PYTHON'
import json, os, re, sys
name, output = sys.argv[1], sys.argv[2]
target = next(t for t in json.loads(os.environ["PACKAGE_JSON"])["targets"] if t["name"] == name)
files = [r["path"] for r in target.get("resources", []) if "embedInCode" in r["rule"]]
if not files:
    sys.exit(1)
with open(output, "w") as swift:
    swift.write("enum PackageResources {\n")
    for path in files:
        data = open(os.path.join("Sources", name, path), "rb").read()
        # SwiftPM's name for it: every character that cannot be in an identifier becomes "_" (recovery-page.js:
        # recovery_page_js), with "_" before a leading digit.
        identifier = re.sub(r"[^A-Za-z0-9_]", "_", os.path.basename(path))
        identifier = "_" + identifier if identifier[0].isdigit() else identifier
        swift.write(f"    static let {identifier}: [UInt8] = [{','.join(map(str, data))}]\n")
    swift.write("}\n")
PYTHON
  then sources+=("$embedded"); fi
  "$SWIFTC" "${common[@]}" -module-name "$name" -emit-module -emit-module-path "$out/modules/$name.swiftmodule" \
    -emit-library -static -o "$library" "${sources[@]}"
}

for module in "${cmodules[@]}"; do build_c_module "$module"; done
for module in "${modules[@]}"; do build_module "$module"; done

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd fuzz/Targets && ls *.swift | sed 's/\.swift$//' | sort)
fi

support=(fuzz/Support/Fixtures.swift)
[ "$mode" = replay ] && support+=(fuzz/Support/ReplayMain.swift)
# Static libraries are linked dependents first, so that each one's references resolve in those after it.
libraries=()
for (( index=${#modules[@]}-1; index>=0; index-- )); do libraries+=("$out/modules/lib${modules[$index]}.a"); done
for module in "${cmodules[@]}"; do libraries+=("$out/modules/lib$module.a"); done

for target in "${targets[@]}"; do
  binary="$out/bin/$target"
  source="fuzz/Targets/$target.swift"
  [ -f "$source" ] || { echo "no such target: $target" >&2; exit 2; }
  if [ -f "$binary" ] && [ -z "$(find "$source" fuzz/Support "$out/modules" -newer "$binary" -print -quit)" ]; then
    continue
  fi
  echo "  target $target ($mode)" >&2
  "$SWIFTC" "${common[@]}" -module-name FuzzTarget "$source" "${support[@]}" "${libraries[@]}" \
    "${links[@]/#/-l}" \
    -o "$binary" 2> >(grep -v -e 'Cannot export local symbol' -e '^$' >&2 || true)
done

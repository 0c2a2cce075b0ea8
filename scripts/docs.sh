#!/usr/bin/env bash
# Builds the DocC documentation of the Lifeline module with the docc that ships with the
# toolchain, and fails on any DocC warning. No package plugin: nothing extra to resolve.
#
# 1. Copies the gallery pictures the catalog's articles embed into its Resources
#    (scripts/docs-pictures.sh).
# 2. Extracts the module's public symbol graph from the debug build
#    (`swift package dump-symbol-graph`, which reuses `swift build`'s products).
# 3. Runs `docc convert --warnings-as-errors` into .build/docs/Lifeline.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."

catalog=Sources/Lifeline/Lifeline.docc
output=.build/docs/Lifeline.doccarchive

scripts/docs-pictures.sh

if command -v docc >/dev/null 2>&1; then
    docc=(docc)
elif command -v xcrun >/dev/null 2>&1; then
    docc=(xcrun docc)
else
    echo "docs: no docc: it ships with the Swift toolchain (usr/bin/docc)" >&2
    exit 1
fi

dump=$(swift package dump-symbol-graph --minimum-access-level public 2>&1) || { echo "$dump" >&2; exit 1; }
graphs=$(printf '%s\n' "$dump" | sed -n 's/^Files written to //p' | tail -1)
[ -d "$graphs" ] || { echo "$dump" >&2; echo "docs: swift package dump-symbol-graph wrote no symbol graphs" >&2; exit 1; }
symbols=$(mktemp -d)
trap 'rm -rf "$symbols"' EXIT
cp "$graphs/Lifeline.symbols.json" "$symbols/"
cp "$graphs"/Lifeline@*.symbols.json "$symbols/" 2>/dev/null || true

rm -rf "$output"
mkdir -p "$(dirname "$output")"
"${docc[@]}" convert "$catalog" \
    --additional-symbol-graph-dir "$symbols" \
    --fallback-display-name Lifeline \
    --fallback-bundle-identifier org.lifeline.Lifeline \
    --output-path "$output" \
    --warnings-as-errors
echo "docs: wrote $output" >&2

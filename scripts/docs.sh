#!/usr/bin/env bash
# Builds the DocC documentation of the Lifeline module with the docc that ships with the
# toolchain, and fails on any DocC warning. No package plugin: nothing extra to resolve.
#
# 1. Copies the gallery pictures the catalog's articles embed from output/ into the catalog's
#    Resources, as DocC's light and dark pairs (name.svg, name~dark.svg): the docs show what
#    `make demo` drew, and a test checks that the copies match the gallery.
# 2. Extracts the module's public symbol graph from the debug build
#    (`swift package dump-symbol-graph`, which reuses `swift build`'s products).
# 3. Runs `docc convert --warnings-as-errors` into .build/docs/Lifeline.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."

catalog=Sources/Lifeline/Lifeline.docc
output=.build/docs/Lifeline.doccarchive

# The sample story whose pictures the catalog shows, and which of its pictures.
story=retain-cycle
pictures=(sequence marbles graph)
mkdir -p "$catalog/Resources"
for picture in "${pictures[@]}"; do
    for variant in "" "~dark"; do
        source="output/$story/$picture$variant.svg"
        [ -f "$source" ] || { echo "docs: $source is missing: run make demo" >&2; exit 1; }
        cmp -s "$source" "$catalog/Resources/$story-$picture$variant.svg" \
            || cp "$source" "$catalog/Resources/$story-$picture$variant.svg"
    done
done

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

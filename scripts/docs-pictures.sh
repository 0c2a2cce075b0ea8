#!/usr/bin/env bash
# Copies the gallery pictures the DocC catalog's articles embed from output/ into the catalog's
# Resources, as DocC's light and dark pairs (name.svg, name~dark.svg), so that the docs show what
# the current Lifeline draws. `make demo` runs it after writing the gallery, and
# scripts/docs.sh before building the docs; DocumentationTests checks that the copies match.
set -euo pipefail
cd "$(dirname "$0")/.."

resources=Sources/Lifeline/Lifeline.docc/Resources
# The sample story whose pictures the catalog shows, and which of its pictures.
story=retain-cycle
pictures=(sequence marbles graph)

mkdir -p "$resources"
for picture in "${pictures[@]}"; do
    for variant in "" "~dark"; do
        source="output/$story/$picture$variant.svg"
        [ -f "$source" ] || { echo "docs: $source is missing: run make demo" >&2; exit 1; }
        cmp -s "$source" "$resources/$story-$picture$variant.svg" || cp "$source" "$resources/$story-$picture$variant.svg"
    done
done

#!/usr/bin/env bash
# Installs what Lifeline needs on a fresh Debian machine, and nothing when it is all there.
# - libgraphviz-dev, pkg-config: the in-process Graphviz renderer (CGraphviz finds libgvc
#   through pkg-config).
# - fonts-liberation2: Graphviz lays text out with the installed fonts; the gallery's graph
#   SVGs are byte-identical only with the same fonts.
# - libxml2-utils (xmllint), plantuml, librsvg2-bin (rsvg-convert): the tests validate every
#   SVG and PlantUML file Lifeline writes, and render SVGs to PNG.
# - time (GNU time): `make benchmark` measures each command's peak memory with it.
set -euo pipefail

packages=(libgraphviz-dev pkg-config fonts-liberation2 libxml2-utils plantuml librsvg2-bin time)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "setup: these Debian packages are missing and this user cannot install them: ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# bench-structure.sh — the token engine's declarations against tree-sitter's grammars.
#
#   scripts/bench-structure.sh [-v N] [-min 0.97] DIR...
#
# Every TypeScript/JavaScript, Python and Java file of each DIR (checkouts, e.g. the clones
# bench-candidates.sh uses) is parsed by tree-sitter (github.com/smacker/go-tree-sitter) and read
# by pipeline/candidates (typescript, python, java); per language it prints the share of tree-sitter's declarations
# (functions, classes, interfaces, enums, type aliases, methods, constructors, Java fields, outside
# function bodies) the engine found, and of those the share with the same first and last line,
# and the engine's declarations tree-sitter does not have. Exit 1 below -min (default 0.97).
# tree-sitter is C: this needs cgo and a C compiler, only here; prscout's build stays pure Go.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/scripts/bench/structure" && CGO_ENABLED=1 go build -o "$tmp/structure" .)
"$tmp/structure" "$@"

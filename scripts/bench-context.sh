#!/bin/sh
# Benchmark (c): /v1/context's stage on a 2,000-file, ~20 MB change through the
# local git provider. Prints wall time and peak RSS next to the targets
# (< 2 s, < 300 MB) and their ratio.
# Usage: scripts/bench-context.sh [files] [runs]
set -eu
files=${1:-2000}
runs=${2:-3}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench-context" ./scripts/bench/context
"$tmp/bench-context" gen -dir "$tmp/repo" -files "$files"
"$tmp/bench-context" run -dir "$tmp/repo" -n "$runs"

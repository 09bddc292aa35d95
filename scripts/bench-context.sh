#!/bin/sh
# Benchmark (c): /v1/context's stage on a 2,000-file, ~20 MB change through the
# local git provider. Prints wall time and peak RSS next to the targets
# (< 2 s, < 300 MB) and their ratio, plus CPU seconds per run of prscout and
# of git (wall time depends on how busy the machine is; CPU much less).
# Usage: scripts/bench-context.sh [files] [runs]
set -eu
files=${1:-2000}
runs=${2:-3}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench-context" ./scripts/bench/context
"$tmp/bench-context" gen -dir "$tmp/repo" -files "$files"
# Separate processes: each peak RSS is its own. "stream" is how the API
# should answer (ContextResult.WriteJSON); "marshal" is what json.Marshal
# (gin's c.JSON) would cost; "none" is the stage alone.
for enc in none stream marshal; do
	"$tmp/bench-context" run -dir "$tmp/repo" -n "$runs" -json "$enc"
	echo
done
# The same without reading sources during the diff, for comparison.
"$tmp/bench-context" run -dir "$tmp/repo" -n "$runs" -json stream -readahead=false

#!/bin/sh
# Benchmark: /v1/context on a real range of about 200 changed files against
# the git work it cannot avoid (issue #22). The figures in
# docs/benchmarks.md are hashicorp/terraform (Go) and google/gson (Java),
# public repositories on GitHub: the first-parent range of the main branch
# ending at its tip that first reaches 200 changed files (the script prints
# both commit ids).
#
# It clones REPO (never checked out, never changed) into a temporary folder
# without a work tree, builds prscout, starts `prscout serve` on loopback with
# the local provider over the clone (with candidates, and with
# PRSCOUT_CANDIDATES_MAX=0) and, in N alternating rounds, times POST
# /v1/context of the range against `git diff -U30 base head` plus
# `git cat-file --batch` of the changed files' head blobs. It prints the
# medians, the ratios and the CPU per request of each side. It also times
# the range's first request on fresh servers, cold and after they served the
# range that ends where this one begins (a long-running server meeting a new
# change: what it kept is the unchanged files, not this range's readings).
# It exits non-zero when the median ratio with candidates over the rounds
# is over MAX_RATIO (1.5, issue #22's target: the pairs timed in one run);
# the fresh servers' ratios are printed and judged only against
# MAX_FIRST_RATIO when it is set.
#
# Usage: scripts/bench-context-range.sh REPO [N]
#   env: FILES (200), HEAD_REF (origin/main or origin/master of the clone),
#        COLD (3 fresh servers), WARMED (3 servers warmed on the preceding
#        range), MAX_RATIO (1.5), MAX_FIRST_RATIO (unset: not judged)
set -eu
repo=${1:-${REPO:-}}
if [ -z "$repo" ]; then
	echo "usage: $0 REPO [N]   (REPO: a git clone with history)" >&2
	exit 2
fi
n=${2:-${N:-7}}
repo=$(cd "$repo" && pwd)
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q --no-checkout "$repo" "$tmp/repo"
go build -o "$tmp/prscout" ./cmd/prscout
go build -o "$tmp/contextrange" ./scripts/bench/contextrange
echo "repository: $(basename "$repo")"
"$tmp/contextrange" run -repo "$tmp/repo" -bin "$tmp/prscout" -head "${HEAD_REF:-}" -n "$n" \
	-files "${FILES:-200}" -cold "${COLD:-3}" -warmed "${WARMED:-3}" -max-ratio "${MAX_RATIO:-1.5}" -max-first-ratio "${MAX_FIRST_RATIO:-0}"

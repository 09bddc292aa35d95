#!/bin/sh
# Benchmark: /v1/context on a stream of distinct pull requests, as a
# long-running server meets them (issue #40). For each REPO (a git clone
# with history) it picks RANGES disjoint first-parent windows of COMMITS
# commits spread over the history of its origin/main or origin/master (or
# HEAD_REF), and in PASSES passes starts a fresh `prscout serve` on loopback
# with the local provider over a clone of REPO and asks it every range once
# (each pass starting at another range), each request timed against the
# range's raw git (`git diff -U30 base head` plus `git cat-file --batch` of
# the new sources, as scripts/bench-context-range.sh defines it) in the same
# run, pair by pair. It prints each range's figures beside the raw git's and,
# labelled and not judged, the same ranges asked again (a repeated range).
# It exits non-zero when, for any REPO, the median ratio over the ranges is
# over MAX_MEDIAN (1.3), the worst range over MAX_WORST (2) or a fresh
# server's first request over MAX_FIRST (2.5). The figures in
# docs/benchmarks.md are google/gson, prometheus/client_golang, honojs/hono
# and encode/httpx.
#
# Usage: scripts/bench-context-stream.sh REPO...
#   env: RANGES (8), COMMITS (25), MIN_FILES (10), PASSES (3), HEAD_REF,
#        SPAN (0: the ranges spread over the whole history; N: over the newest N commits),
#        MAX_MEDIAN (1.3), MAX_WORST (2), MAX_FIRST (2.5)
set -eu
if [ $# -eq 0 ]; then
	echo "usage: $0 REPO...   (each REPO: a git clone with history)" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/prscout" ./cmd/prscout
go build -o "$tmp/contextrange" ./scripts/bench/contextrange
failed=0
for repo in "$@"; do
	name=$(basename "$repo")
	git clone -q --no-checkout "$repo" "$tmp/$name"
	echo "repository: $name"
	"$tmp/contextrange" stream -repo "$tmp/$name" -bin "$tmp/prscout" -head "${HEAD_REF:-}" \
		-ranges "${RANGES:-8}" -span "${SPAN:-0}" -commits "${COMMITS:-25}" -min-files "${MIN_FILES:-10}" -passes "${PASSES:-3}" \
		-max-median "${MAX_MEDIAN:-1.3}" -max-worst "${MAX_WORST:-2}" -max-first "${MAX_FIRST:-2.5}" || failed=1
	rm -rf "${tmp:?}/$name"
done
exit $failed

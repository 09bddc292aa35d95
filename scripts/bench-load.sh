#!/bin/sh
# Load test on loopback (README "Running at scale"): requests/s, p50 and p99
# per stage at a stated payload, prscout's RSS under load, goroutines before
# and after, and a graceful shutdown that loses no in-flight answer.
# Exits 1 on request errors, goroutine growth or a lost answer.
#   ./scripts/bench-load.sh [-c 8] [-d 5s] [-inflight 20]
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/prscout" ./cmd/prscout
go build -o "$tmp/load" ./scripts/bench/load
"$tmp/load" -bin "$tmp/prscout" "$@"

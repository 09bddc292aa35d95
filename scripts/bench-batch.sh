#!/bin/sh
# Benchmark (a): batch lookup of 12 files against an upstream with 100 ms
# latency per call, parallel (Batcher) vs one by one (the n8n loop), and a
# repeat at the same commit. Prints both times, the ratios and the repeat's
# upstream calls in one run; exits 1 when a target is missed.
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/bench/batch "$@"

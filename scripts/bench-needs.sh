#!/usr/bin/env bash
# bench-needs.sh — benchmark (b): one /v1/needs call (request body decoded,
# pipeline.Needs, answer encoded) at the API's cap, 1,000 needs, and at a
# realistic 12 needs. Prints both figures (CPU and wall time per call) and
# exits 1 when the cap costs 5 ms or more of CPU, or 12 needs 0.2 ms or more.
#
#   scripts/bench-needs.sh
#   MAX_CAP=4ms MAX_SMALL=150us scripts/bench-needs.sh
#
# Needs go on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench-needs" ./scripts/bench/needs
"$tmp/bench-needs" -max-cap "${MAX_CAP:-5ms}" -max-small "${MAX_SMALL:-200us}"

#!/usr/bin/env bash
# bench-needs.sh — benchmark (b): /v1/needs logic (pipeline.Needs) on a scout
# answer of FILES changed files × NEEDS needs each, against the reference
# workflow's JavaScript for the same step (n8n Code node "needs 요청 생성",
# scripts/bench/needs/seed.js) run in node,
# both in-process timing loops on the same generated input. Prints both times
# and the ratios in one run.
#
#   scripts/bench-needs.sh            # 2,000 × 20
#   FILES=200 NEEDS=5 scripts/bench-needs.sh
#
# Needs go and node on PATH. Figures are CPU time per call (process CPU: GC
# included) and wall time, on a possibly busy machine: compare the ratio, not
# the absolute numbers.
#
# Target: pipeline.Needs on the parsed JSON costs at most the CPU of node
# parsing the same JSON and running the reference step (ratio <= MAX_RATIO,
# 1.00 by default); the script exits 1 above it.
set -euo pipefail
cd "$(dirname "$0")/.."

FILES=${FILES:-2000}
NEEDS=${NEEDS:-20}
MAX_RATIO=${MAX_RATIO:-1.00}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/bench-needs" ./scripts/bench/needs
"$tmp/bench-needs" -files "$FILES" -needs "$NEEDS" -out "$tmp/input.json" >"$tmp/go.txt"
node scripts/bench/needs/seed.js "$tmp/input.json" "$tmp/reference-requests.json" >"$tmp/node.txt"
"$tmp/bench-needs" -check "$tmp/reference-requests.json" >"$tmp/check.txt"

val() { grep -oh "\b$1=[0-9]*" "$tmp"/*.txt | head -1 | cut -d= -f2; }
ms() { awk -v n="$1" 'BEGIN { printf "%9.2f ms", n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() { printf '%-60s %s  %s\n' "$1" "$(ms "$(val "${2}_cpu_ns_per_op")")" "$(ms "$(val "${2}_wall_ns_per_op")")"; }

echo "needs benchmark: $FILES files x $NEEDS needs = $((FILES * NEEDS)) needs, $(val go_input_bytes) bytes of scout JSON"
grep -h -e '^go_version' -e '^go_proposed' -e '^go_reasons' -e '^node_version' -e '^node_ref_requests' -e '^ref_requests' "$tmp"/go.txt "$tmp"/node.txt "$tmp"/check.txt | sed 's/^/  /'
echo
printf '%-60s %12s  %12s\n' "per call" "CPU" "wall"
row "go   pipeline.Needs, scout as parsed JSON (decode included)" go_json
row "go   pipeline.Needs, scout as raw text with a json fence" go_text
row "node reference JS, items already parsed (stops at 12 requests)" node_ref
row "node reference JS + JSON.parse of the same scout JSON" node_ref_parse
row "node reference JS without the early exit + JSON.parse" node_nobreak_parse
echo
go_json=$(val go_json_cpu_ns_per_op)
echo "CPU ratio go(json) / node(ref + JSON.parse)          = $(ratio "$go_json" "$(val node_ref_parse_cpu_ns_per_op)")   same bytes in, same step (<1: go faster)"
echo "CPU ratio go(json) / node(ref, pre-parsed items)     = $(ratio "$go_json" "$(val node_ref_cpu_ns_per_op)")"
echo "CPU ratio go(json) / node(no early exit + JSON.parse) = $(ratio "$go_json" "$(val node_nobreak_parse_cpu_ns_per_op)")"
echo "note: the reference JS stops at the 12th request and drops refusals silently; pipeline.Needs checks,"
echo "      normalizes and reports every one of the $((FILES * NEEDS)) needs (rejected[] + stats)."
r=$(ratio "$go_json" "$(val node_ref_parse_cpu_ns_per_op)")
if awk -v r="$r" -v max="$MAX_RATIO" 'BEGIN { exit !(r <= max) }'; then
	echo "PASS: CPU ratio go(json) / node(ref + JSON.parse) = $r <= $MAX_RATIO"
else
	echo "FAIL: CPU ratio go(json) / node(ref + JSON.parse) = $r > $MAX_RATIO"
	exit 1
fi

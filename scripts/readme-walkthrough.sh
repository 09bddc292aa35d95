#!/usr/bin/env bash
# Runs README.md's "Five minutes" walk-through exactly as written (its one
# ```sh block, extracted from the README at run time), in a clone of this
# checkout's HEAD inside a namespace of its own (network: loopback only, so
# port 8080 is free; pids: `go run ... &` and its server end with it), then
# checks what it printed. It leaves no file behind: the clone is removed and
# the checkout's `git status` is compared before and after.
# Needs Go (modules already downloaded), git, curl, jq, unshare, ip.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "readme-walkthrough: $*"; }
fail() { say "FAIL: $*"; exit 1; }

if [ "${1:-}" != --inner ]; then
	for c in go git curl jq unshare ip; do command -v "$c" >/dev/null || fail "$c is required"; done
	before=$(git -C "$ROOT" status --porcelain --untracked-files=all)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/prscout-readme.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	git clone -q "$ROOT" "$tmp/repo"
	# The walk-through reviews the last three commits: the clone has them.
	awk '/^## Five minutes/{on=1} on&&/^```sh$/{grab=1;next} grab&&/^```$/{exit} grab{print}' "$ROOT/README.md" >"$tmp/walkthrough.sh"
	[ -s "$tmp/walkthrough.sh" ] || fail "README.md has no \`\`\`sh block under \"## Five minutes\""
	say "running $(wc -l <"$tmp/walkthrough.sh") lines of README.md in a clone of HEAD"
	rc=0
	GOFLAGS=-mod=mod GOPROXY=off unshare -n -p -f -m --mount-proc bash "$0" --inner "$tmp" >"$tmp/out.txt" 2>&1 || rc=$?
	after=$(git -C "$ROOT" status --porcelain --untracked-files=all)
	[ "$before" = "$after" ] || fail "the checkout changed: $(diff <(echo "$before") <(echo "$after") | head -5)"
	if [ "$rc" -ne 0 ]; then
		tail -30 "$tmp/out.txt" || true
		fail "the walk-through failed (exit $rc)"
	fi
	say "ok: $(cat "$tmp/summary.txt"); no file left behind"
	exit 0
fi

# --- inside the namespace ---------------------------------------------------------
tmp=$2
ip link set lo up
cd "$tmp/repo"
bash -euo pipefail "$tmp/walkthrough.sh" >"$tmp/printed.txt" 2>&1 || { cat "$tmp/printed.txt"; exit 1; }
cat "$tmp/printed.txt"
out=$(cat "$tmp/printed.txt")
# What each step must have shown: a change of files, the refused path, the
# lookups, a review prompt, and the rendered summary.
for want in '"mode": "full"' '"reason": "parent_escape"' '"op": "get_file"' '"reviewPass": 2' '## prscout review'; do
	grep -qF -- "$want" <<<"$out" || { echo "the walk-through's output lacks $want"; exit 1; }
done
# Its last line removes what it wrote.
left=$(git status --porcelain --untracked-files=all)
[ -z "$left" ] || { echo "the walk-through leaves files behind: $left"; exit 1; }
echo "$(grep -c '"ok": true' <<<"$out") lookup(s) read, $(grep -c '"reason": "parent_escape"' <<<"$out") path refused, summary rendered" >"$tmp/summary.txt"

#!/usr/bin/env bash
# bench-candidates.sh — recall of pipeline/candidates against the Go type checker, next to a
# textual baseline, and its speed on a large repository.
#
#   scripts/bench-candidates.sh [REPOS_DIR]
#
# REPOS_DIR (default: $PRSCOUT_BENCH_REPOS, else ${TMPDIR:-/tmp}/prscout-bench-repos) holds git
# clones with history, named <owner>+<name>:
#   spf13+cobra, urfave+cli, go-chi+chi   recall, used while tuning the engine
#   sirupsen+logrus, google+go-cmp         recall, held out of any tuning, reported on their own
#   hashicorp+terraform                    speed (a repository of more than 5,000 files)
#   sindresorhus+ky                        TypeScript recall, used while tuning (optional, needs node and npm)
#   pmndrs+zustand                         TypeScript recall, held out (optional, needs node and npm)
# The clones are checked out commit by commit (they end where they started). The type checker
# needs each repository's dependencies, through the Go module proxy or a warm module cache; its
# truth is cached in REPOS_DIR/.truth, so a second run takes seconds.
#
# Prints, per repository and for the tuning set, the held-out repository and all: recall@5,
# recall@12 and precision@12 over the commits whose truth is not empty, the number of files
# listed on average when it is empty, and the same for the baseline (identifiers of the changed
# lines, git grep, files ranked by matching lines). Then the median time of candidates.Find for a
# 20-file change of the large repository through prscout's production tree: a gitmirror of the
# clone, fetched from the fake Bitbucket over git's smart HTTP (the first fetch's time and disk are
# printed), read through localgit's code tree (TREE=worktree times the work-tree reads instead,
# TREE=localgit the code tree over the clone itself).
#
# When node, npm and both TypeScript clones are there, the same recall runs on TypeScript with the
# TypeScript compiler's symbols and its language service's references as truth
# (scripts/bench/candidates/ts/truth.mjs; its pinned typescript is installed with npm ci into
# ${XDG_CACHE_HOME:-~/.cache}/prscout-bench-ts, outside the repository). Its figures are reported,
# not held to the Go targets; it fails only with fewer than 20 commits.
#
# Environment: N commits per repository (default 20), VERBOSE=1 prints every commit's list with
# its misses. Exit codes: 0 targets met, 1 a target missed, 2 repositories missing. Not part of
# the test command: it needs the clones and the module proxy.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${PRSCOUT_BENCH_REPOS:-${TMPDIR:-/tmp}/prscout-bench-repos}}
missing=()
for r in spf13+cobra urfave+cli go-chi+chi sirupsen+logrus google+go-cmp hashicorp+terraform; do
  [[ -d "$dir/$r/.git" ]] || missing+=("$r")
done
if ((${#missing[@]})); then
  {
    echo "bench-candidates: missing clones in $dir: ${missing[*]}"
    echo "bench-candidates: clone each public repository <owner>/<name> with its history into $dir/<owner>+<name>,"
    echo "  e.g. git clone <url of spf13/cobra> $dir/spf13+cobra, or pass another REPOS_DIR"
  } >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/scripts/bench/candidates" && go build -o "$tmp/bench" .)

verbose=()
[[ "${VERBOSE:-}" == 1 ]] && verbose=(-v)
rc=0
"$tmp/bench" recall -repos "$dir" -n "${N:-20}" "${verbose[@]}" || rc=$?
echo
if [[ -d "$dir/sindresorhus+ky/.git" && -d "$dir/pmndrs+zustand/.git" ]] && command -v node >/dev/null && command -v npm >/dev/null; then
  ts=${XDG_CACHE_HOME:-$HOME/.cache}/prscout-bench-ts
  mkdir -p "$ts"
  src=$root/scripts/bench/candidates/ts
  if ! cmp -s "$src/package-lock.json" "$ts/package-lock.json" || [[ ! -d "$ts/node_modules/typescript" ]]; then
    cp "$src/package.json" "$src/package-lock.json" "$ts/"
    (cd "$ts" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null)
  fi
  cp "$src/truth.mjs" "$ts/"
  "$tmp/bench" recall -lang ts -tsdir "$ts" -repos "$dir" -n "${N:-20}" "${verbose[@]}" || { r=$?; ((rc == 0)) && rc=$r; }
else
  echo "bench-candidates: TypeScript recall skipped: it needs node, npm and clones of sindresorhus/ky and pmndrs/zustand in $dir/<owner>+<name>"
fi
echo
"$tmp/bench" speed -repo "$dir/hashicorp+terraform" -files 20 -runs "${RUNS:-10}" -tree "${TREE:-mirror}" || { r=$?; ((rc == 0)) && rc=$r; }
exit "$rc"

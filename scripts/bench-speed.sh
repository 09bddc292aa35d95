#!/usr/bin/env bash
# bench-speed.sh — how long the context candidates take for a 20-file change of a large repository,
# warm, in each language the tree-sitter reader reads, beside a peer: git grep of the changed lines'
# identifiers over the same files.
#
#   scripts/bench-speed.sh [REPOS_DIR]
#
# REPOS_DIR (default: $PRSCOUT_BENCH_REPOS, else ${TMPDIR:-/tmp}/prscout-bench-repos) holds git
# clones named <owner>+<name> (a clone without a work tree will do; they are only read). The
# repositories, each of at least 5,000 files but Ruby's (none that size could be fetched; rails has
# 4,983), and Swift none:
#   rust denoland+deno, php symfony+symfony, csharp dotnet+efcore, kotlin
#   spring-projects+spring-framework (its .kt files), c libgit2+libgit2, cpp Kitware+CMake, scala
#   scala+scala, ruby rails+rails
# For each: the newest first-parent range HEAD~k..HEAD that modifies >= 20 files of the language,
# cut to 20, run through candidates.Find over localgit's code tree at HEAD (prscout's production
# tree for a local clone) RUNS times (default 10) after a warm-up, the readings cache kept between
# runs as a server keeps it; the median is printed with the tree's calls and the peer's median. The
# go, ts, py and java speeds are bench-candidates.sh's.
#
# Environment: LANGS (comma-separated, default all of the above), RUNS. Exit codes: 0 every median
# under 300 ms on a repository of >= 5,000 files, 1 one over (or a repository under 5,000 files),
# 2 repositories missing. Not part of the test command: it needs the clones, and times on a shared
# machine vary (the load average is printed).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${PRSCOUT_BENCH_REPOS:-${TMPDIR:-/tmp}/prscout-bench-repos}}
declare -A repos=(
  [rust]=denoland+deno [php]=symfony+symfony [csharp]=dotnet+efcore
  [kotlin]=spring-projects+spring-framework [c]=libgit2+libgit2 [cpp]=Kitware+CMake
  [scala]=scala+scala [ruby]=rails+rails
)
langs=${LANGS:-rust,php,csharp,kotlin,c,cpp,scala,ruby}
IFS=, read -ra langs <<<"$langs"
for l in "${langs[@]}"; do
  [[ -n "${repos[$l]:-}" ]] || { echo "bench-speed: no repository for $l (have: ${!repos[*]})" >&2; exit 2; }
  [[ -d "$dir/${repos[$l]}" ]] || { echo "bench-speed: missing clone $dir/${repos[$l]}" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/scripts/bench/candidates" && go build -o "$tmp/bench" .)
rc=0
for l in "${langs[@]}"; do
  echo "== $l: ${repos[$l]}"
  "$tmp/bench" speed -lang "$l" -repo "$dir/${repos[$l]}" -files 20 -runs "${RUNS:-10}" -tree localgit || rc=1
  echo
done
exit "$rc"

#!/usr/bin/env bash
# bench-candidates.sh — recall of pipeline/candidates against each language's own analyzer, next
# to a textual baseline, and its speed on a large repository per language.
#
#   scripts/bench-candidates.sh [REPOS_DIR]
#
# REPOS_DIR (default: $PRSCOUT_BENCH_REPOS, else ${TMPDIR:-/tmp}/prscout-bench-repos) holds git
# clones with history, named <owner>+<name> (the held-out ones took no part in tuning):
#   Go (the type checker): spf13+cobra, urfave+cli, go-chi+chi; held out sirupsen+logrus, google+go-cmp;
#     speed hashicorp+terraform (5,457 files)
#   TypeScript/JavaScript (the TypeScript compiler and language service, npm): honojs+hono, trpc+trpc,
#     sindresorhus+got, sindresorhus+ky, pmndrs+zustand, ianstormtaylor+superstruct, iamkun+dayjs,
#     typestack+class-validator, colinhacks+zod, mobxjs+mobx, date-fns+date-fns, ajv-validator+ajv,
#     sinclairzx81+typebox, typestack+class-transformer, vinejs+vine, sindresorhus+ow, runtypes+runtypes;
#     held out jquense+yup, immerjs+immer; speed withastro+astro
#   Python (jedi): encode+httpx, pallets+click, python-attrs+attrs; held out psf+requests,
#     marshmallow-code+marshmallow; speed ansible+ansible
#   Java (javac's com.sun.source, JDK 17): google+gson, jhy+jsoup, square+javapoet; held out
#     apache+commons-cli, apache+commons-lang; speed spring-projects+spring-framework
#   C (clangd, c/truth.py): held out libgit2+libgit2, redis+hiredis
#   C++ (clangd): held out fmtlib+fmt, gabime+spdlog
# Each commit is checked out in a temporary work tree of its clone (git worktree add), never in the
# clone itself, so a clone's own work tree is left alone and two runs may share the clones. The Go type checker
# needs each repository's dependencies, through the Go module proxy or a warm module cache. The
# TypeScript analyzer's pinned typescript is installed with npm ci into
# ${XDG_CACHE_HOME:-~/.cache}/prscout-bench-ts, outside the repository; jedi must be importable by
# python3 (0.20.0, as in the image); javac and java come from the JDK; C and C++ need clangd, which the
# script installs from Debian (apt-get install clangd) when it is missing. Truths are cached in
# REPOS_DIR/.truth, keyed by the analyzer script's hash, so a second run takes seconds.
#
# Prints, per language and repository, for the tuning set, the held-out repository and all:
# recall@5, recall@12 and precision@12 over the commits whose truth is not empty, the number of
# files listed on average when it is empty, and the same for the baseline (identifiers of the
# changed lines, git grep, files ranked by matching lines). Targets: Go recall@12 >= 0.95,
# recall@5 >= 0.85, precision@12 >= 0.45; every other language recall@12 >= 0.90, recall@5 >=
# 0.80, precision@12 >= 0.50; empty <= 2 and >= 60 commits each. Then, per language, the held-out
# repositories again on N commits each sampled uniformly since SINCE (default 2020-01-01: the
# commits in the order of their ids, not the newest), judged against the held-out targets of every
# language: recall@12 >= 0.90, recall@5 >= 0.80, precision@12 >= 0.50, empty <= 2 (C and C++, all of whose
# repositories are held out, run this sampled run only). Then the median time of
# candidates.Find for a 20-file change of each large repository (< 300 ms): Go through prscout's
# production tree (a gitmirror of the clone fetched from the fake Bitbucket over git's smart HTTP;
# TREE=worktree or TREE=localgit choose another), the other languages through localgit's code tree.
#
# Environment: N commits per repository (default 25), SINCE (2020-01-01), LANGS (default "go ts py java c cpp"), VERBOSE=1
# prints every commit's list with its misses. Exit codes: 0 targets met, 1 a target missed, 2
# repositories or tools missing. Not part of the test command: it needs the clones.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${PRSCOUT_BENCH_REPOS:-${TMPDIR:-/tmp}/prscout-bench-repos}}
langs=${LANGS:-go ts py java c cpp}
declare -A repos=(
  [go]="spf13+cobra urfave+cli go-chi+chi sirupsen+logrus google+go-cmp hashicorp+terraform"
  [ts]="honojs+hono trpc+trpc sindresorhus+got sindresorhus+ky pmndrs+zustand ianstormtaylor+superstruct iamkun+dayjs typestack+class-validator colinhacks+zod mobxjs+mobx date-fns+date-fns ajv-validator+ajv sinclairzx81+typebox typestack+class-transformer vinejs+vine sindresorhus+ow runtypes+runtypes jquense+yup immerjs+immer withastro+astro"
  [py]="encode+httpx pallets+click python-attrs+attrs psf+requests marshmallow-code+marshmallow ansible+ansible"
  [java]="google+gson jhy+jsoup square+javapoet apache+commons-cli apache+commons-lang spring-projects+spring-framework"
  [c]="libgit2+libgit2 redis+hiredis"
  [cpp]="fmtlib+fmt gabime+spdlog"
)
declare -A big=([go]=hashicorp+terraform [ts]=withastro+astro [py]=ansible+ansible [java]=spring-projects+spring-framework)
missing=()
for l in $langs; do
  for r in ${repos[$l]:?unknown language $l}; do
    [[ -d "$dir/$r/.git" ]] || missing+=("$r")
  done
done
if ((${#missing[@]})); then
  {
    echo "bench-candidates: missing clones in $dir: ${missing[*]}"
    echo "bench-candidates: clone each public repository <owner>/<name> with its history into $dir/<owner>+<name>,"
    echo "  e.g. git clone <url of spf13/cobra> $dir/spf13+cobra, or pass another REPOS_DIR, or set LANGS"
  } >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/scripts/bench/candidates" && go build -o "$tmp/bench" .)

verbose=()
[[ "${VERBOSE:-}" == 1 ]] && verbose=(-v)
rc=0
keep() { local r=$1; ((rc == 0 || rc == 2 && r == 1)) && rc=$r; return 0; }
for l in $langs; do
  extra=()
  case $l in
  ts)
    command -v node >/dev/null && command -v npm >/dev/null || { echo "bench-candidates: TypeScript needs node and npm" >&2; exit 2; }
    ts=${XDG_CACHE_HOME:-$HOME/.cache}/prscout-bench-ts
    mkdir -p "$ts"
    src=$root/scripts/bench/candidates/ts
    if ! cmp -s "$src/package-lock.json" "$ts/package-lock.json" || [[ ! -d "$ts/node_modules/typescript" ]]; then
      cp "$src/package.json" "$src/package-lock.json" "$ts/"
      (cd "$ts" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null)
    fi
    cp "$src/truth.mjs" "$ts/"
    extra=(-tsdir "$ts")
    ;;
  py)
    python3 -c 'import jedi' 2>/dev/null || { echo "bench-candidates: Python needs jedi importable by python3 (pip install jedi==0.20.0)" >&2; exit 2; }
    extra=(-analyzers "$root/scripts/bench/candidates")
    ;;
  java)
    command -v javac >/dev/null || { echo "bench-candidates: Java needs a JDK (javac)" >&2; exit 2; }
    extra=(-analyzers "$root/scripts/bench/candidates")
    ;;
  c | cpp)
    if ! command -v clangd >/dev/null; then
      sudo=()
      ((EUID == 0)) || sudo=(sudo)
      "${sudo[@]}" apt-get install -y clangd >/dev/null || { echo "bench-candidates: C and C++ need clangd (apt-get install clangd)" >&2; exit 2; }
    fi
    extra=(-analyzers "$root/scripts/bench/candidates")
    ;;
  esac
  if [[ $l != c && $l != cpp ]]; then
    "$tmp/bench" recall -lang "$l" "${extra[@]}" -repos "$dir" -n "${N:-25}" "${verbose[@]}" || keep $?
  fi
  echo
  echo "held out, commits sampled since ${SINCE:-2020-01-01}:"
  "$tmp/bench" recall -lang "$l" "${extra[@]}" -repos "$dir" -n "${N:-25}" -set held-out -since "${SINCE:-2020-01-01}" "${verbose[@]}" || keep $?
  echo
done
for l in $langs; do
  [[ -n ${big[$l]:-} ]] || continue # C and C++: scripts/bench-speed.sh
  tree=localgit
  [[ $l == go ]] && tree=${TREE:-mirror}
  "$tmp/bench" speed -lang "$l" -repo "$dir/${big[$l]}" -files 20 -runs "${RUNS:-10}" -tree "$tree" || keep $?
  echo
done
exit "$rc"

#!/usr/bin/env bash
# bench-cochange.sh — the context candidates against a truth any language has: the other files of
# real commits, next to three baselines, per language, tuning and held-out repositories apart.
#
#   scripts/bench-cochange.sh [REPOS_DIR]
#
# REPOS_DIR (default: $PRSCOUT_BENCH_REPOS, else ${TMPDIR:-/tmp}/prscout-bench-repos) holds git
# clones with history, named <owner>+<name>; they are only read: each is mirrored once (git clone
# --mirror, hard links) into WORK_DIR (default ${TMPDIR:-/tmp}/prscout-bench-cochange), and the run
# reads git objects there, never a work tree. The repositories, fixed before any figure was seen
# (the tuning ones are those the engines were tuned on; only they set the co-change rules):
#   Go: spf13+cobra, urfave+cli, go-chi+chi; held out sirupsen+logrus, google+go-cmp, client_golang
#     (prometheus/client_golang), hashicorp+terraform
#   Java: google+gson, jhy+jsoup, square+javapoet; held out apache+commons-cli,
#     spring-projects+spring-framework
#   Python: encode+httpx, pallets+click, python-attrs+attrs; held out psf+requests, ansible+ansible
#   TypeScript/JavaScript: honojs+hono, trpc+trpc, sindresorhus+got, sindresorhus+ky,
#     pmndrs+zustand; held out jquense+yup, withastro+astro
#   C jqlang+jq, C++ Kitware+CMake (tuning repositories of the clangd benchmark, whose C++ set also
#     holds jbeder+yaml-cpp and google+googletest)
#   tuning, one per language that had none: Rust denoland+deno (commits whose shown file is Rust),
#     Ruby rails+rails, PHP symfony+symfony, C# dotnet+efcore, Kotlin square+kotlinpoet, Swift
#     Quick+Nimble, Scala scala+scala
#   held out: Rust BurntSushi+ripgrep, tokio-rs+axum; Ruby sinatra+sinatra, jekyll+jekyll; PHP
#     guzzle+guzzle, slimphp+Slim; C# JamesNK+Newtonsoft.Json, AutoMapper+AutoMapper; Kotlin
#     square+okio, square+moshi; C libgit2+libgit2, redis+hiredis; C++ fmtlib+fmt, gabime+spdlog; Swift
#     Alamofire+Alamofire, apple+swift-argument-parser; Scala com-lihaoyi+os-lib, typelevel+cats
#
# For each repository: the non-merge commits of the default branch since 2020 with at most 50 files
# are sampled uniformly (a fixed seed per repository): N (default 35) that changed >= 2 non-test code
# files and EMPTY (default 8) that changed one. The non-test code file with most changed lines is the
# change (its diff against the commit's first parent; the tree read at the commit, the history as of
# the first parent, so strictly before the commit); the truth is the commit's other non-test code
# files still present after it. Scored: prscout (candidates.Find through localgit, co-change
# included), identifier grep (the changed lines' identifiers, keywords and names under three letters
# left out, git grep -w in the shown file's language family, files ranked by matching lines), the
# same directory's code files, and the co-change history alone (support >= 2, confidence >= 0.3, by
# confidence). Every method is judged on the non-test code files it lists, as the truth holds only
# those: the baselines list nothing else; prscout's answer also lists the tests that break (after its
# production files), and that answer as given is printed apart ("prscout+tests"). Printed per
# repository and per language: recall@12, precision@12 and the files listed on average when the truth
# is empty. Targets, on each language's held-out set: prscout above the best single baseline on
# recall@12 and on precision@12, <= 3 listed on empty truth, >= 50 commits.
#
# Environment: N, EMPTY, LANGS (comma-separated: go,java,py,ts,rust,ruby,php,csharp,kotlin,c,cpp,swift,
# scala; default all), SET (tuning or held: only those repositories), J repositories at once (default
# 2), VERBOSE=1 prints every commit's lists, DUMP=FILE writes each tuning commit's signals (prscout's
# whole answer, every identifier-grep hit, the directory, every history pair) as JSON lines to weigh
# the ranking's signals offline (held-out repositories are never dumped), MINCONF=0.2 runs the
# history-alone baseline at another confidence bound (the sweep in docs/review.md). Exit codes: 0 targets met,
# 1 a target missed, 2 repositories missing. Not part of the test command.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${PRSCOUT_BENCH_REPOS:-${TMPDIR:-/tmp}/prscout-bench-repos}}
work=${WORK_DIR:-${TMPDIR:-/tmp}/prscout-bench-cochange}
mkdir -p "$work"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/scripts/bench/candidates" && go build -o "$tmp/bench" .)
args=(-repos "$dir" -work "$work" -n "${N:-35}" -empty "${EMPTY:-8}" -j "${J:-2}")
[[ -n "${LANGS:-}" ]] && args+=(-langs "$LANGS")
[[ -n "${SET:-}" ]] && args+=(-set "$SET")
[[ "${VERBOSE:-}" == 1 ]] && args+=(-v)
[[ -n "${DUMP:-}" ]] && args+=(-dump "$DUMP")
[[ -n "${MINCONF:-}" ]] && args+=(-minconf "$MINCONF")
"$tmp/bench" cochange "${args[@]}"

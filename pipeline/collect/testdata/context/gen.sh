#!/bin/sh
# Regenerates testdata/context/basic: a raw `git diff -M -U30` of a change that
# covers every case of the context stage (modified, windowed long file,
# renamed, pure rename, added, deleted, binary, noise, secret, symlink,
# backticks in content) and the head tree the fake repository serves.
# Run from pipeline/: sh testdata/context/gen.sh
set -eu
out=$(cd "$(dirname "$0")" && pwd)/basic
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
cd "$tmp"
git init -q -b main .
mkdir -p pkg dist config
printf 'package pkg\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' > pkg/add.go
i=1; while [ $i -le 1031 ]; do printf 'line %d of the long file\n' $i; i=$((i+1)); done > pkg/long.txt
printf 'def old():\n    return 1\n\n\ndef keep():\n    return 2\n' > old.py
printf 'unchanged content\nfor a pure rename\n' > pure.txt
printf 'print("bye")\n' > removed.py
printf 'var a=1;\n' > dist/app.js
printf 'SECRET=one\n' > .env
printf 'token: one\n' > config/secrets.yaml
printf '# Title\n\nText.\n' > README.md
git add -A && git commit -q -m base

sed -i 's/return a + b/return a + b + 0/' pkg/add.go
sed -i 's/^line 10 of/line 10 (changed) of/; s/^line 1000 of/line 1000 (changed) of/' pkg/long.txt
git mv old.py new.py && sed -i 's/return 1/return 10/' new.py
git mv pure.txt pure2.txt
git rm -q removed.py
printf 'export const x: number = 1;\n' > added.ts
printf '\211PNG\r\n\032\n\000\000binary' > logo.png
printf 'raw\000\001\002' > data.bin
printf 'var a=2;\n' > dist/app.js
printf 'SECRET=two\n' > .env
printf 'token: two\n' > config/secrets.yaml
ln -s ../outside link
printf '# Title\n\nText.\n\n```sh\nmake\n```\n' > README.md
git add -A && git commit -q -m change

rm -rf "$out" && mkdir -p "$out/head"
git diff --no-color --no-ext-diff -M -U30 HEAD~1 HEAD > "$out/diff.patch"
git archive HEAD | tar -x -C "$out/head"
# Secret files are never read: keep them out of the fake repository.
rm -rf "$out/head/link" "$out/head/.env" "$out/head/config"

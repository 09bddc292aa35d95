#!/usr/bin/env bash
# Fails when a tracked file is a build output: an executable binary (ELF,
# Mach-O or PE magic, anywhere) or a file over 1 MiB outside a testdata/
# folder. Run by scripts/test.sh; build outputs are ignored in .gitignore.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1 << 20))
bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  magic=$(od -An -tx1 -N4 -- "$f" | tr -d ' \n')
  case "$magic" in
    7f454c46) kind="an ELF executable" ;;
    feedface|feedfacf|cefaedfe|cffaedfe|cafebabe) kind="a Mach-O executable" ;;
    4d5a*) kind="a PE (Windows) executable" ;;
    *) kind="" ;;
  esac
  if [ -n "$kind" ]; then
    echo "tracked build output: $f is $kind (git rm --cached it and ignore its path)"; bad=1
    continue
  fi
  case "/$f" in */testdata/*) continue ;; esac
  size=$(stat -c %s -- "$f")
  if [ "$size" -gt "$limit" ]; then
    echo "tracked file over 1 MiB outside testdata/: $f ($size bytes)"; bad=1
  fi
done < <(git ls-files -z)
exit "$bad"

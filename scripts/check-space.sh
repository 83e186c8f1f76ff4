#!/usr/bin/env bash
# Usage: check-space.sh GB DIR…
# Fails, saying what to do, when a file system holding one of DIRs has
# less than GB gigabytes free: a test run on a full disk failed after
# half a minute with "no space left on device" buried in compiler output.
set -euo pipefail
need=$1
shift
declare -A seen=()
for dir in "$@"; do
  mkdir -p "$dir"
  read -r fs avail < <(df -Pk "$dir" | awk 'NR == 2 {print $1, $4}')
  [ -n "${seen[$fs]:-}" ] && continue
  seen[$fs]=1
  free=$((avail / 1048576))
  if [ "$free" -lt "$need" ]; then
    echo "make test: only ${free} GB free on $fs, which holds $dir; the test tiers write about ${need} GB (Go's build cache, test folders, the package)." >&2
    echo "Free some space (\`go clean -cache\` empties Go's build cache; old clones and /tmp/Test* folders may be removed) and run again." >&2
    exit 1
  fi
done

#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
for f in notes/*.md; do echo "- [$(sed -n "s/^# //p" "$f" | head -1)]($f)"; done > INDEX.md

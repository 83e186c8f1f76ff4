#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
grep -rn "TODO" --include=*.py . | sed "s|^\./||" > TODO.md

#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
cd docs && for f in *; do l=$(echo "$f" | tr A-Z a-z); [ "$f" = "$l" ] || mv "$f" "$l"; done

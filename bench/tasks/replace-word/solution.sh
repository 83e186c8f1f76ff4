#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
find docs -name "*.md" -exec sed -i "s/colour/color/g" {} +

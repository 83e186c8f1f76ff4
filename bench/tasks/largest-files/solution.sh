#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
ls -S | head -3 > largest.txt

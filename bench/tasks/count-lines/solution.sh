#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
for f in *.py; do echo "$f: $(wc -l < "$f")"; done > counts.txt

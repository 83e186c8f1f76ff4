#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
cd photos && for f in IMG_*.jpg; do d=$(sed -n "s/^taken: //p" "$f"); mv "$f" "$d.jpg"; done

#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
sed -i "s/1\.4\.2/1.4.3/g" package.json VERSION README.md

#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
printf "node_modules/\ndist/\n*.log\n" > .gitignore

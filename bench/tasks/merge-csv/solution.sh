#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
{ cat jan.csv; tail -n +2 feb.csv; } > all.csv

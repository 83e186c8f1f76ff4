#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
awk -F, 'NR>1{s+=$3} END{printf "%.2f\n", s}' expenses.csv > total.txt

#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
awk -F, 'NR==1{print "| " $1 " | " $2 " | " $3 " |"; print "| --- | --- | --- |"; next} {print "| " $1 " | " $2 " | " $3 " |"}' people.csv > people.md

#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
wc -w < essay.txt > wordcount.txt

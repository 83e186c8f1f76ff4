#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
sort -u emails.txt > unique.txt

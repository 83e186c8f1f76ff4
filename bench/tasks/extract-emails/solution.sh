#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
grep -oE "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]+" contacts.txt | sort -u > emails.txt

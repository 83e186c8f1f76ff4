#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
cp settings.ini settings.ini.bak && sed -i "s/^theme=.*/theme=dark/" settings.ini

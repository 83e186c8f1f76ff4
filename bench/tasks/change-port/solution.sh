#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
sed -i "s/8080/9090/" config.yaml .env

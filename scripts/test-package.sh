#!/usr/bin/env bash
# Installs the .deb make package built with apt (as root, on this very
# machine), runs shrimp from PATH (version, help, man page, completion,
# doctor), starts the installed app from its desktop entry's Exec line in
# the current X display (run under xvfb-run) and screenshots its window,
# then removes the package and checks that none of its files is left and
# that the user's data directory is kept.
# Usage: scripts/test-package.sh PACKAGE_DIR
set -euo pipefail
dir=$(realpath "$1")
deb=$(ls "$dir"/shrimp_*_amd64.deb)
id=io.github.shrimp_harness.Shrimp
fail() { echo "test-package: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root: it installs and removes a package"

if dpkg -s shrimp >/dev/null 2>&1; then
  echo "test-package: removing a shrimp package already installed"
  apt-get remove -y --purge shrimp >/dev/null
fi
mapfile -t files < <(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$')

echo "test-package: apt-get install $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" >"$dir/apt-install.log" 2>&1 ||
  { cat "$dir/apt-install.log"; fail "apt-get install failed"; }
[ "$(command -v shrimp)" = /usr/bin/shrimp ] || fail "shrimp is not /usr/bin/shrimp on PATH: $(command -v shrimp)"
want=$(dpkg-deb -f "$deb" Version)
shrimp version | tee "$dir/version.txt"
git_version=$(git -C "$(dirname "$0")/.." describe --tags --always --dirty)
grep -q -- "$git_version" "$dir/version.txt" || fail "shrimp version does not say $git_version (the package is $want)"
shrimp --help >"$dir/help.txt"; grep -q "^Commands:" "$dir/help.txt" || fail "shrimp --help has no command list"
man -w shrimp >/dev/null || fail "man shrimp finds no page"
bash -c 'source /usr/share/bash-completion/completions/shrimp && type _shrimp' >/dev/null || fail "the bash completion does not load"
desktop-file-validate "/usr/share/applications/$id.desktop" || fail "the installed desktop entry does not validate"

data=$(mktemp -d)
SHRIMP_DATA_DIR=$data OLLAMA_HOST=http://127.0.0.1:9 shrimp doctor >"$dir/doctor.txt" && fail "doctor passed with no Ollama"
grep -q "^fail  ollama" "$dir/doctor.txt" || { cat "$dir/doctor.txt"; fail "doctor does not name the missing Ollama"; }

# The app, as the application menu starts it: the desktop entry's Exec.
exec_line=$(sed -n 's/^Exec=//p' "/usr/share/applications/$id.desktop")
log=$dir/app.log
SHRIMP_DATA_DIR=$data OLLAMA_HOST=http://127.0.0.1:9 $exec_line >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 1200); do
  grep -q "window ready" "$log" && break
  kill -0 $pid 2>/dev/null || { cat "$log"; fail "the installed app exited early"; }
  sleep 0.1
done
grep -q "window ready" "$log" || { cat "$log"; fail "no window after 120 s"; }
wid=$(xdotool search --sync --onlyvisible --name '^Shrimp$' | head -1)
sleep 1.5 # first paint
import -window "$wid" "$dir/installed.png"
colours=$(identify -format %k "$dir/installed.png")
[ "$colours" -ge 50 ] || fail "the installed app's window looks blank ($colours colours)"
echo "test-package: the installed app opened a window ($colours colours, $dir/installed.png)"
kill $pid; wait $pid 2>/dev/null || true
trap - EXIT

echo "test-package: apt-get remove --purge shrimp"
DEBIAN_FRONTEND=noninteractive apt-get remove -y --purge shrimp >"$dir/apt-remove.log" 2>&1 ||
  { cat "$dir/apt-remove.log"; fail "apt-get remove failed"; }
left=0
for f in "${files[@]}"; do
  if [ -e "$f" ]; then echo "test-package: left behind: $f"; left=1; fi
done
[ $left = 0 ] || fail "files of the package are left after removal"
hash -r
command -v shrimp >/dev/null && fail "shrimp is still on PATH: $(command -v shrimp)"
[ -f "$data/shrimp.db" ] || fail "the user's data directory $data was not kept"
rm -rf "$data"
echo "test-package: ok (${#files[@]} files installed and removed; the data directory kept)"

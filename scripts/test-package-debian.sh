#!/usr/bin/env bash
# Installs the .deb make package built into a fresh Debian of another
# release (default trixie, Debian 13: WebKitGTK 4.1 only, the t64 library
# names) made with debootstrap in a chroot, runs shrimp there (version,
# doctor) and opens the installed app's window under a virtual X server
# inside the chroot, then removes the package. It proves the package
# installs and runs beyond the release it was built on. The chroot is kept
# in ~/.cache/shrimp/debian-SUITE (about 700 MB; SHRIMP_DEBIAN_CACHE moves
# it) for the next run.
# Usage: scripts/test-package-debian.sh PACKAGE_DIR [SUITE]
set -euo pipefail
dir=$(realpath "$1")
suite=${2:-trixie}
deb=$(ls "$dir"/shrimp_*_amd64.deb)
here=$(cd "$(dirname "$0")/.." && pwd)
# Outside the clone: cached across clones (as the Ollama build is), and
# never where git add or go's ./... would take in its files.
root=${SHRIMP_DEBIAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shrimp}/debian-$suite
fail() { echo "test-package-debian: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root: it makes a chroot"

# A chroot made before is used again when it is whole: device nodes and
# the mount points are there (a copy of its files alone, as git would
# keep them, has neither).
whole() { [ -x "$root/usr/bin/apt-get" ] && [ -c "$root/dev/null" ] && [ -d "$root/proc" ] && [ -d "$root/dev/pts" ] && [ -d "$root/dev/shm" ]; }
if ! whole; then
  "$here/scripts/apt-ensure.sh" debootstrap
  echo "test-package-debian: debootstrap $suite into $root"
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian >"$dir/debootstrap-$suite.log" 2>&1 ||
    { tail -20 "$dir/debootstrap-$suite.log"; fail "debootstrap $suite failed"; }
fi
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
# Filesystems of the chroot's own, none of the host's bound in: debootstrap
# made the device nodes, and a mount a killed run leaves behind holds
# nothing an rm -rf of the chroot could take from the host.
mount -t proc proc "$root/proc" || fail "cannot mount proc in $root"
mounted+=("$root/proc")
mount -t tmpfs -o mode=1777 shm "$root/dev/shm" || fail "cannot mount a tmpfs on $root/dev/shm"
mounted+=("$root/dev/shm")
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" || fail "cannot mount devpts on $root/dev/pts"
mounted+=("$root/dev/pts")
chr() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
grep -q "^VERSION_CODENAME=$suite" "$root/etc/os-release" || [ "$suite" = sid ] || fail "$root is not $suite: $(grep PRETTY "$root/etc/os-release")"
echo "test-package-debian: in $(sed -n 's/^PRETTY_NAME=//p' "$root/etc/os-release")"

cp "$deb" "$root/tmp/shrimp.deb"
chr apt-get update -qq >/dev/null
chr dpkg -s shrimp >/dev/null 2>&1 && chr apt-get remove -y -qq --purge shrimp >/dev/null
echo "test-package-debian: apt-get install $(basename "$deb") (and a virtual X server to open it in)"
chr apt-get install -y --no-install-recommends /tmp/shrimp.deb xvfb xauth xdotool imagemagick dbus >"$dir/apt-install-$suite.log" 2>&1 ||
  { tail -30 "$dir/apt-install-$suite.log"; fail "apt-get install failed in $suite"; }
chr shrimp version | tee "$dir/version-$suite.txt"
chr dpkg-query -W -f='${Package} ${Version}\n' libwebkit2gtk-4.1-0 libgtk-3-0t64 libgtk-3-0 2>/dev/null | tee "$dir/libraries-$suite.txt" || true

chr env SHRIMP_DATA_DIR=/tmp/data OLLAMA_HOST=http://127.0.0.1:9 shrimp doctor >"$dir/doctor-$suite.txt" 2>&1 || true
grep -q "^fail  ollama" "$dir/doctor-$suite.txt" || { cat "$dir/doctor-$suite.txt"; fail "doctor does not name the missing Ollama"; }
grep -q "WebKitGTK 4.1 are installed" "$dir/doctor-$suite.txt" || { cat "$dir/doctor-$suite.txt"; fail "doctor does not find the window's libraries"; }

# The window, as the application menu starts it, in a virtual X server of
# the chroot's own; the script it runs waits for the window and
# screenshots it.
exec_line=$(sed -n 's/^Exec=//p' "$root/usr/share/applications/io.github.shrimp_harness.Shrimp.desktop")
cat >"$root/tmp/open-window.sh" <<EOF
#!/bin/sh
SHRIMP_DATA_DIR=/tmp/data OLLAMA_HOST=http://127.0.0.1:9 $exec_line >/tmp/app.log 2>&1 &
pid=\$!
i=0
while [ \$i -lt 1200 ] && ! grep -q "window ready" /tmp/app.log; do
  kill -0 \$pid 2>/dev/null || { cat /tmp/app.log; exit 1; }
  sleep 0.1; i=\$((i + 1))
done
grep -q "window ready" /tmp/app.log || { cat /tmp/app.log; exit 1; }
wid=\$(xdotool search --sync --onlyvisible --name '^Shrimp\$' | head -1)
sleep 1.5
import -window "\$wid" /tmp/installed.png
kill \$pid
EOF
chmod +x "$root/tmp/open-window.sh"
chr dbus-run-session -- xvfb-run -a -s "-screen 0 1280x800x24" /tmp/open-window.sh >"$dir/window-$suite.log" 2>&1 ||
  { cat "$dir/window-$suite.log"; fail "the installed app opened no window in $suite"; }
cp "$root/tmp/installed.png" "$dir/installed-$suite.png"
colours=$(identify -format %k "$dir/installed-$suite.png")
[ "$colours" -ge 50 ] || fail "the installed app's window looks blank in $suite ($colours colours)"
echo "test-package-debian: the installed app opened a window in $suite ($colours colours, $dir/installed-$suite.png)"

chr apt-get remove -y -qq --purge shrimp >/dev/null || fail "apt-get remove failed in $suite"
chr sh -c '! command -v shrimp' || fail "shrimp is still installed in $suite"
echo "test-package-debian: ok ($suite)"

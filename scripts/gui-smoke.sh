#!/usr/bin/env bash
# GUI smoke test: runs the real binary in the current X display (use
# xvfb-run), waits for the window, screenshots it, fails when the shot is
# blank, clicks a sidebar entry with xdotool and fails when nothing changed.
# Usage: scripts/gui-smoke.sh BINARY OUTDIR
set -euo pipefail
bin=$1 out=$2
mkdir -p "$out"
data=$(mktemp -d)
log="$out/app.log"
# A closed port: the status bar must show the call to action.
OLLAMA_HOST=http://127.0.0.1:9 SHRIMP_DATA_DIR="$data" "$bin" >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

for _ in $(seq 1 300); do
  grep -q "window ready" "$log" && break
  kill -0 "$pid" 2>/dev/null || { echo "gui-smoke: the app exited early:"; cat "$log"; exit 1; }
  sleep 0.1
done
grep -q "window ready" "$log" || { echo "gui-smoke: no 'window ready' after 30 s:"; cat "$log"; exit 1; }
wid=$(xdotool search --sync --onlyvisible --name '^Shrimp$' | head -1)
sleep 1.5 # first paint and the first status poll

import -window "$wid" "$out/1-chat.png"
colours=$(identify -format %k "$out/1-chat.png")
echo "gui-smoke: first screenshot has $colours colours"
if [ "$colours" -lt 50 ]; then echo "gui-smoke: the window looks blank ($colours colours)"; exit 1; fi

# Sidebar: 200 px wide; entries start near y=60 and are ~39 px apart.
# Timeline is the second entry.
xdotool mousemove --window "$wid" 90 100 click 1
sleep 0.8
import -window "$wid" "$out/2-timeline.png"
diff=$(compare -metric AE "$out/1-chat.png" "$out/2-timeline.png" null: 2>&1 || true)
echo "gui-smoke: $diff pixels changed after clicking Timeline"
if [ "${diff%% *}" = "0" ]; then echo "gui-smoke: clicking the sidebar changed nothing"; exit 1; fi
echo "gui-smoke: ok, screenshots in $out"

#!/bin/sh
# A pre-tool-call hook for shell.run: deny commands that match a pattern.
#   shrimp hooks add pre-tool-call --tool shell.run -- /bin/sh /path/to/deny-shell.sh
# The call arrives on stdin as JSON: {"tool":"shell.run","arguments":{"command":"…"},…}
call=$(cat)
for bad in 'rm -rf' 'git push' 'curl [^|]*\| *(ba)?sh' 'sudo '; do
  if printf '%s' "$call" | grep -Eq -- "$bad"; then
    echo "this machine's hook does not allow commands matching: $bad" >&2
    exit 2 # deny; stderr is the reason the model reads
  fi
done
exit 0 # no objection: the approval mode decides

#!/bin/sh
# An agent:run-ended hook: a desktop notification saying how the run ended.
#   shrimp hooks add agent:run-ended -- /bin/sh /path/to/notify-run-ended.sh
# The event arrives on stdin as JSON:
#   {"seq":…,"session":"…","type":"agent:run-ended","data":{"status":"responded","tool_calls":3,…}}
event=$(cat)
status=$(printf '%s' "$event" | sed -n 's/.*"status":"\([a-z]*\)".*/\1/p')
calls=$(printf '%s' "$event" | sed -n 's/.*"tool_calls":\([0-9]*\).*/\1/p')
exec ${NOTIFY:-notify-send} "Shrimp" "The run ended (${status:-?}) after ${calls:-0} tool calls"

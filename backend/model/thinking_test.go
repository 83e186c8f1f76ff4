package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseThink: what Settings, SHRIMP_THINK and --think take, and what
// each sends as the request's "think" (nothing for the model's own).
func TestParseThink(t *testing.T) {
	cases := []struct {
		in   string
		want Think
		wire string // the request's "think" as JSON; "" when not sent
	}{
		{"", ThinkDefault, ""},
		{" default ", ThinkDefault, ""},
		{"on", ThinkOn, "true"},
		{"true", ThinkOn, "true"}, // --think alone
		{"Off", ThinkOff, "false"},
		{"no", ThinkOff, "false"},
		{"low", ThinkLow, `"low"`},
		{"medium", ThinkMedium, `"medium"`},
		{"HIGH", ThinkHigh, `"high"`},
	}
	for _, c := range cases {
		got, err := ParseThink(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseThink(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		v := got.Value()
		if c.wire == "" {
			if v != nil {
				t.Errorf("%q sends %v, want nothing", c.in, v)
			}
			continue
		}
		b, err := json.Marshal(v)
		if err != nil || string(b) != c.wire {
			t.Errorf("%q sends %s (%v), want %s", c.in, b, err, c.wire)
		}
	}
	for _, bad := range []string{"max", "2", "sometimes"} {
		if _, err := ParseThink(bad); err == nil || !strings.Contains(err.Error(), "not on, off, low, medium or high") {
			t.Errorf("ParseThink(%q): %v", bad, err)
		}
	}
}

// TestThinks: the models Ollama lists as thinking.
func TestThinks(t *testing.T) {
	if !(Details{Capabilities: []string{"completion", "tools", "thinking"}}).Thinks() {
		t.Error("qwen3's capabilities: not taken as thinking")
	}
	if (Details{Capabilities: []string{"completion", "tools"}}).Thinks() || (Details{}).Thinks() {
		t.Error("a model that does not list thinking taken as thinking")
	}
}

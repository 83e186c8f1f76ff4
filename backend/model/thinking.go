package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// Think is what a chat request asks of a reasoning model's thinking
// (Ollama's `think`). Ollama turns thinking on for every model that lists
// the "thinking" capability when a request does not say (v0.24.0's
// ChatHandler), so qwen3 or deepseek-r1 on a CPU spends hundreds of
// tokens, often minutes, before each answer or tool call unless it is
// asked not to. gpt-oss takes an effort instead (low, medium, high) and
// cannot be turned off; other thinking models take a level as "on".
type Think string

// The values of Think, as Settings, SHRIMP_THINK and --think take them.
const (
	ThinkDefault Think = ""    // the model's own: on for thinking models
	ThinkOn      Think = "on"  // think (refused by a model that cannot: asked again without)
	ThinkOff     Think = "off" // answer without thinking: faster, for models that allow it
	ThinkLow     Think = "low" // gpt-oss's efforts; "on" for other thinking models
	ThinkMedium  Think = "medium"
	ThinkHigh    Think = "high"
)

// ParseThink reads a Think: "" or "default", "on" (true, yes), "off"
// (false, no), or an effort, low, medium or high.
func ParseThink(s string) (Think, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default":
		return ThinkDefault, nil
	case "on", "true", "yes":
		return ThinkOn, nil
	case "off", "false", "no":
		return ThinkOff, nil
	case "low":
		return ThinkLow, nil
	case "medium":
		return ThinkMedium, nil
	case "high":
		return ThinkHigh, nil
	}
	return ThinkDefault, fmt.Errorf("thinking %q is not on, off, low, medium or high (empty: the model's own, which is on for models that think)", s)
}

// Value is t as a chat request's `think` (nil: not sent).
func (t Think) Value() *api.ThinkValue {
	switch t {
	case ThinkOn:
		return &api.ThinkValue{Value: true}
	case ThinkOff:
		return &api.ThinkValue{Value: false}
	case ThinkLow, ThinkMedium, ThinkHigh:
		return &api.ThinkValue{Value: string(t)}
	}
	return nil
}

// Thinks reports whether Ollama lists the model as thinking (qwen3,
// deepseek-r1, gpt-oss, magistral): it thinks unless asked not to.
func (d Details) Thinks() bool { return slices.Contains(d.Capabilities, "thinking") }

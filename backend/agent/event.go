package agent

import (
	"encoding/json"
	"time"
)

// Type names an event kind as "area:what". Every kind is a constant in the
// package of the area that publishes it.
type Type string

// The loop's own vocabulary.
const (
	TypeRunStarted Type = "agent:run-started"
	TypeThinking   Type = "agent:thinking"
	TypeToken      Type = "agent:token"
	TypeToolCall   Type = "agent:tool-call"
	TypeToolResult Type = "agent:tool-result"
	TypeResponse   Type = "agent:response"
	TypeError      Type = "agent:error"
	TypeRunEnded   Type = "agent:run-ended"
	// TypeModelLoading: Ollama must first load the model (into memory, or
	// again for another context size), which takes seconds to minutes.
	TypeModelLoading Type = "agent:model-loading"
	// TypeModelLoaded: how long Ollama took to load it.
	TypeModelLoaded Type = "agent:model-loaded"
	// TypeSentBack: after the model answered, a check the user set up
	// (a pre-run-end hook: the tests must pass) said the work is not
	// done, and the model goes on with what it said.
	TypeSentBack Type = "agent:sent-back"
)

// Event is one thing that happened, in the one JSON form used on the bus, in
// the store, in `chat --json` and in the window. Seq and Session are stamped
// by the session runner; events from outside a session (the Ollama status)
// have neither.
type Event struct {
	Seq     int64     `json:"seq"`
	Session string    `json:"session"`
	Type    Type      `json:"type"`
	Time    time.Time `json:"time"`
	Data    any       `json:"data"`
}

// Area returns the part of the type before the colon ("agent", "memory").
func (t Type) Area() string {
	for i := range len(t) {
		if t[i] == ':' {
			return string(t[:i])
		}
	}
	return string(t)
}

// RawData returns the event's data as JSON, whatever form it holds (a typed
// payload before storing, raw JSON after loading).
func (e Event) RawData() (json.RawMessage, error) {
	if raw, ok := e.Data.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(e.Data)
}

package model

import (
	"context"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"
)

// InMemory is a model Ollama holds in memory (/api/ps).
type InMemory struct {
	Name          string    `json:"name"`
	Size          int64     `json:"size"`      // bytes of memory it takes
	SizeVRAM      int64     `json:"size_vram"` // of which on the GPU
	ContextLength int       `json:"context_length"`
	Until         time.Time `json:"until"`   // when Ollama unloads it unless used again
	Forever       bool      `json:"forever"` // kept until Ollama stops (a keep-alive of -1)
}

// foreverAfter: an expiry this far out is a keep-alive of -1, which Ollama
// keeps as math.MaxInt64 nanoseconds (about 292 years).
const foreverAfter = 100 * 365 * 24 * time.Hour

// InMemory lists the models Ollama holds in memory now.
func (c *Client) InMemory(ctx context.Context) ([]InMemory, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	ps, err := c.API().ListRunning(ctx)
	if err != nil {
		return nil, c.explain(err, "")
	}
	out := make([]InMemory, 0, len(ps.Models))
	for _, m := range ps.Models {
		out = append(out, InMemory{Name: m.Name, Size: m.Size, SizeVRAM: m.SizeVRAM, ContextLength: m.ContextLength,
			Until: m.ExpiresAt, Forever: time.Until(m.ExpiresAt) > foreverAfter})
	}
	return out, nil
}

// Unload asks Ollama to take a model out of memory now, as `ollama stop`
// does (a chat with no messages and a keep-alive of 0); its next request
// loads it again.
func (c *Client) Unload(ctx context.Context, name string) error {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	stream := false
	err := c.API().Chat(ctx, &api.ChatRequest{Model: name, Stream: &stream, KeepAlive: &api.Duration{Duration: 0}}, func(api.ChatResponse) error { return nil })
	if err != nil {
		return fmt.Errorf("unload %s: %w", name, c.explain(err, name))
	}
	return nil
}

package model

import (
	"context"
	"time"

	"github.com/ollama/ollama/api"
)

// loadedBelow is the load time under which a chat loaded nothing: a warm
// runner reports a millisecond or two (ollama v0.24.0: 1.4–1.8 ms),
// loading even a 30 KB test model takes 45–300 ms (docs/BENCHMARKS.md).
const loadedBelow = 20 * time.Millisecond

// psWait bounds the question to Ollama; a slow answer says nothing.
const psWait = 2 * time.Second

// loadKey names a context size Ollama keeps a model at for a requested
// one (it caps num_ctx at what the model was trained for, and some
// setups give a runner more).
type loadKey struct {
	host, model    string
	loaded, numCtx int
}

// Loading reports whether a chat with model at numCtx will first have
// Ollama load it (agent.Loader): it is not among the models Ollama has in
// memory (/api/ps), or it is there at another context size, which Ollama
// loads it again for. loaded is that size (0: not in memory). A size seen
// to need no load before (the chat's load time said so) is not reported
// again. When Ollama does not answer at once, nothing is reported.
func (c *Client) Loading(ctx context.Context, model string, numCtx int) (int, bool) {
	ctx, cancel := context.WithTimeout(ctx, psWait)
	defer cancel()
	a, host := c.client()
	ps, err := a.ListRunning(ctx)
	if err != nil {
		return 0, false
	}
	for _, m := range ps.Models {
		if !SameModel(m.Name, model) && !SameModel(m.Model, model) {
			continue
		}
		if m.ContextLength == 0 || numCtx == 0 || m.ContextLength == numCtx {
			return m.ContextLength, false
		}
		k := loadKey{host, model, m.ContextLength, numCtx}
		if _, settled := c.settled.Load(k); settled {
			return m.ContextLength, false
		}
		if v, ok := c.justLoaded.LoadAndDelete(expectKey{host, model}); ok && v.(int) == numCtx {
			// Loaded by this client's last chat for numCtx: the size it is
			// at is the one Ollama gives numCtx.
			c.settled.Store(k, true)
			return m.ContextLength, false
		}
		c.expected.Store(expectKey{host, model}, k)
		return m.ContextLength, true
	}
	return 0, true
}

// expectKey names the last reload Loading reported for a model.
type expectKey struct{ host, model string }

// learnLoad notes, from a chat's last chunk, that it loaded the model
// (the size Ollama then shows is the one it gives that num_ctx), or that
// a reload Loading reported for another context size did not happen
// (that size is what Ollama keeps the model at for the one requested).
func (c *Client) learnLoad(req *api.ChatRequest, resp api.ChatResponse) {
	_, host := c.client()
	n, _ := req.Options["num_ctx"].(int)
	if resp.LoadDuration >= loadedBelow {
		c.justLoaded.Store(expectKey{host, req.Model}, n)
	}
	v, ok := c.expected.LoadAndDelete(expectKey{host, req.Model})
	if !ok {
		return
	}
	if k := v.(loadKey); n == k.numCtx && resp.LoadDuration < loadedBelow {
		c.settled.Store(k, true)
	}
}

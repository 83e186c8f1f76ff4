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

// Asking Ollama which models it holds costs a local server well under a
// millisecond, and is done before every model call. An Ollama across a
// network costs its round trip each turn: once two answers in a row took
// psSlow or more, a model this client chatted with at the same context
// size less than warmFor ago is taken to be in memory without asking
// (Ollama keeps a model 5 minutes by default; a run's turns follow each
// other within seconds). A model pushed out between turns is then said
// after its load (agent). One slow answer of a busy local server is not
// enough, nor does a server that cannot answer count as slow.
const (
	psSlow  = 50 * time.Millisecond
	warmFor = 30 * time.Second
)

// modelKey names one model on one Ollama.
type modelKey struct{ host, model string }

// sizes are a context size Ollama keeps a model at (in memory) and the
// num_ctx asked for: it caps num_ctx at what the model was trained for,
// and some setups give a runner more.
type sizes struct{ loaded, asked int }

// modelLoad is what a client knows of one model's loading.
type modelLoad struct {
	settled    map[sizes]bool // seen to need no reload
	expected   *sizes         // the reload Loading last reported, until a chat says whether it happened
	justLoaded *int           // the num_ctx the last chat loaded the model at, until Loading reads it
	lastAsked  int            // the num_ctx of the last chat
	lastChat   time.Time      // when the last chat ended
	slowAsks   int            // Ollama's last answers, in a row, that took psSlow or more
}

// loadOf returns the record of key, made on first use; call with loadMu
// held.
func (c *Client) loadOf(key modelKey) *modelLoad {
	if c.loads == nil {
		c.loads = map[modelKey]*modelLoad{}
	}
	st := c.loads[key]
	if st == nil {
		st = &modelLoad{settled: map[sizes]bool{}}
		c.loads[key] = st
	}
	return st
}

// Loading reports whether a chat with model at numCtx will first have
// Ollama load it (agent.Loader): it is not among the models Ollama has in
// memory (/api/ps), or it is there at another context size, which Ollama
// loads it again for. loaded is that size (0: not in memory). A size seen
// to need no load before (the chat's load time said so) is not reported
// again. When Ollama does not answer at once, nothing is reported; nor is
// it asked when asking is slow and the model was used just now (psSlow).
func (c *Client) Loading(ctx context.Context, model string, numCtx int) (int, bool) {
	a, host := c.client()
	key := modelKey{host, model}
	c.loadMu.Lock()
	st := c.loadOf(key)
	slow := psSlow
	if c.slowAnswer > 0 {
		slow = c.slowAnswer
	}
	warm := st.slowAsks >= 2 && st.lastAsked == numCtx && time.Since(st.lastChat) < warmFor
	c.loadMu.Unlock()
	if warm {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, psWait)
	defer cancel()
	start := time.Now()
	ps, err := a.ListRunning(ctx)
	took := time.Since(start)
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	if err != nil {
		return 0, false
	}
	if took >= slow {
		st.slowAsks++
	} else {
		st.slowAsks = 0
	}
	for _, m := range ps.Models {
		if !SameModel(m.Name, model) && !SameModel(m.Model, model) {
			continue
		}
		if m.ContextLength == 0 || numCtx == 0 || m.ContextLength == numCtx {
			return m.ContextLength, false
		}
		k := sizes{m.ContextLength, numCtx}
		if st.settled[k] {
			return k.loaded, false
		}
		loadedAt := st.justLoaded
		st.justLoaded = nil
		if loadedAt != nil && *loadedAt == numCtx {
			// Loaded by this client's last chat for numCtx: the size it is
			// at is the one Ollama gives numCtx.
			st.settled[k] = true
			return k.loaded, false
		}
		st.expected = &k
		return k.loaded, true
	}
	return 0, true
}

// learnLoad notes, from a chat's last chunk, when the model was last used
// and at what size, that the chat loaded it (the size Ollama then shows is
// the one it gives that num_ctx), or that a reload Loading reported for
// another context size did not happen (that size is what Ollama keeps the
// model at for the one requested).
func (c *Client) learnLoad(req *api.ChatRequest, resp api.ChatResponse) {
	_, host := c.client()
	n, _ := req.Options["num_ctx"].(int)
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	st := c.loadOf(modelKey{host, req.Model})
	st.lastAsked, st.lastChat = n, time.Now()
	if resp.LoadDuration >= loadedBelow {
		st.justLoaded = &n
	}
	if k := st.expected; k != nil {
		st.expected = nil
		if n == k.asked && resp.LoadDuration < loadedBelow {
			st.settled[*k] = true
		}
	}
}

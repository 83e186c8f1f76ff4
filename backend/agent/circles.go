package agent

import (
	"encoding/json"
	"fmt"
	"hash/maphash"

	"github.com/ollama/ollama/api"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// Small local models go round in circles: they call the same few tools
// over and over, each call giving what it gave before (an `ls` six times,
// then `ls -la` five; reading two files in turn until the turn limit).
// The guard against three identical calls in a row misses any circle of
// two calls or more, which ran until Agent.MaxTurns: minutes of a CPU's
// time for nothing. So the loop keeps, for each call that ran, its
// arguments and what it gave, and
//   - a call that gives what the same call gave earlier in the request,
//     while that earlier result was in the model's view (in the last
//     prompt it was sent, not stubbed or summarised away to fit the
//     context, which tells the model to call again), is a repeat: its
//     result goes back with a note saying so, that nothing it looks at
//     changed and asking again will not tell more (and, once its calls
//     have gone round twice, that a third time ends the request);
//   - the run ends once its last calls are the same circle of up to
//     maxCircle calls, each a repeat, three times over.
//
// A call that gives what the same call gave earlier, once that result
// was left out of the model's view to fit its context, is no repeat: the
// stub it was left as tells the model to call again, and it learns what
// it had lost. But a model whose context cannot hold what it reads (two
// files, each pushing the other out) reads them in turn until the turn
// limit. Such a call is marked refetched; once its calls have gone round
// twice, each refetched or repeated, its result says the context cannot
// hold them all and to write down what it needs before the next call,
// and the run ends, saying to raise the context size, once they went
// round three times.
//
// A result is compared with its digits left out, so a command whose
// output says how long it took, or when, counts as the same; a call
// whose result changes (a file written between two reads, a test that
// now passes) is no repeat.

// maxCircle is the longest circle of calls the loop looks for.
const maxCircle = 4

// ranCall is a call that ran, as the circle guard compares calls.
type ranCall struct {
	key    uint64 // tool and arguments (callKeyOf)
	result uint64 // what it gave, digits left out
	shown  uint64 // its id and what the model was given (shownHash)
	repeat bool   // it gave what a call in view had given
	again  bool   // it gave what a call the model was sent had given, in view or not
}

// isRepeat and isAgain are what circle looks for.
func (c ranCall) isRepeat() bool { return c.repeat }
func (c ranCall) isAgain() bool  { return c.again }

// same reports whether two calls are the same call with the same result.
func (c ranCall) same(d ranCall) bool { return c.key == d.key && c.result == d.result }

// seed is the hash seed results are compared with (one per process).
var seed = maphash.MakeSeed()

// callKeyOf is the tool and its arguments, hashed (a write's content can
// be megabytes) after jsonplain.Plain, so two calls that differ only in
// how the model ordered or escaped them are the same call.
func callKeyOf(name string, args json.RawMessage) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(name)
	h.WriteByte(0)
	h.Write(jsonplain.Plain(args))
	return h.Sum64()
}

// resultHash hashes what a call gave, its error and its output, with
// each run of digits as one '#'.
func resultHash(res ToolResult) uint64 {
	b := make([]byte, 0, len(res.Error)+1+len(res.Output))
	for _, s := range []string{res.Error, "\x00", res.Output} {
		digits := false
		for i := range len(s) { // bytes: a digit is never part of a longer character
			c := s[i]
			if c >= '0' && c <= '9' {
				if !digits {
					b = append(b, '#')
				}
				digits = true
				continue
			}
			digits = false
			b = append(b, c)
		}
	}
	return maphash.Bytes(seed, b)
}

// shownHash hashes a tool message as the model is sent it: the call's id
// and the content.
func shownHash(id, content string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(id)
	h.WriteByte(0)
	h.WriteString(content)
	return h.Sum64()
}

// inView records which results the model is sent in msgs (the prompt of
// the turn whose calls come next), as they were given, and adds them to
// those it was ever sent.
func (r *run) inView(msgs []api.Message) {
	clear(r.shown)
	if r.shown == nil {
		r.shown, r.sent = map[uint64]bool{}, map[uint64]bool{}
	}
	for _, m := range msgs {
		if m.Role == "tool" {
			h := shownHash(m.ToolCallID, m.Content)
			r.shown[h], r.sent[h] = true, true
		}
	}
}

// circle returns the length of the circle of calls the last times*k
// calls of ran go round times over, each one that counts (isRepeat, or
// isAgain; 0: none). The shortest is found first.
func circle(ran []ranCall, times int, counts func(ranCall) bool) int {
	for k := 1; k <= maxCircle && times*k <= len(ran); k++ {
		tail := ran[len(ran)-times*k:]
		if lo.EveryBy(lo.Range(len(tail)-k), func(i int) bool { return counts(tail[i+k]) && tail[i+k].same(tail[i]) }) {
			return k
		}
	}
	return 0
}

// changed reports whether the last call that ran was the call key and
// gave what no call the model was sent had given: a call made again whose
// result moves on (a status polled while a build runs) is not stopped by
// the guard against the same call three times in a row.
func (r *run) changed(key uint64) bool {
	if len(r.ran) == 0 {
		return false
	}
	last := r.ran[len(r.ran)-1]
	return last.key == key && !last.again
}

// didNotRun records a call that did not run (malformed, or denied): no
// circle goes through it.
func (r *run) didNotRun() {
	r.ran = append(r.ran, ranCall{key: maphash.String(seed, fmt.Sprint("\x00not run ", len(r.ran)))}) // a key no call has
}

// repeated records a call that ran (key, callKeyOf, and res, its result) and, when
// it repeats one, adds a note saying so to res's output. A non-nil stop
// ends the run once the result is recorded.
func (r *run) repeated(key uint64, res *ToolResult) (stop error) {
	this := ranCall{key: key, result: resultHash(*res)}
	before, earlier := -1, -1
	for i, c := range r.ran {
		switch {
		case !c.same(this):
		case r.shown[c.shown]:
			before = i
		case r.sent[c.shown]: // shown once, then left out; not: asked for in the same reply
			earlier = i
		}
	}
	earlier = max(earlier, before)
	this.repeat, this.again = before >= 0, earlier >= 0
	r.ran = append(r.ran, this)
	defer func() { r.ran[len(r.ran)-1].shown = shownHash(res.ID, toolContent(*res)) }()
	if !this.again {
		return nil
	}
	if this.repeat {
		r.ended.Repeated++
		res.Repeated = true
	} else {
		r.ended.Refetched++
		res.Refetched = true
	}
	calls := func(k int) string { return lo.Ternary(k == 1, "call", plural.N(k, "call", "calls in a row")) }
	if k := circle(r.ran, 3, ranCall.isRepeat); k > 0 {
		return fmt.Errorf("the model went round in circles: it made the same %s three times over, each giving what it gave before, so the run was stopped; ask again more specifically (say what to do once it has looked), or try a larger model", calls(k))
	}
	if k := circle(r.ran, 3, ranCall.isAgain); k > 0 {
		return fmt.Errorf("the model's context (%d tokens) cannot hold what this request reads: it made the same %s three times over, each giving what it gave before, as what they gave was left out to fit the context before it was used, so the run was stopped; raise the model's context size (Settings → Context size, or shrimp models ctx MODEL TOKENS), or ask about fewer things at once",
			r.numCtx, calls(k))
	}
	if !this.repeat {
		if k := circle(r.ran, 2, ranCall.isAgain); k > 0 {
			res.Output += "\n[Shrimp: " + lo.Ternary(k == 1, "this call gave what it gave before, and its result was left out of your view to fit the model's context, which cannot hold it with the rest.",
				fmt.Sprintf("your last %d calls gave what they gave before; each result was left out of your view to fit the model's context, which cannot hold them all at once.", k)) +
				" Write down in your reply what you need from a result before the next call, or answer from what you see now: calling " + lo.Ternary(k == 1, "it", "them round") + " once more stops the request.]"
		}
		return nil
	}
	ago := len(r.ran) - 1 - before
	note := fmt.Sprintf("\n[Shrimp: the same call gave this same result %s ago in this request: what it looks at has not changed, and calling it again will not tell you more. Go on with what you have; to wait for something to change, run one command that waits for it rather than asking again.",
		lo.Ternary(ago == 1, "one call", plural.N(ago, "call", "calls")))
	switch k := circle(r.ran, 2, ranCall.isRepeat); {
	case k == 1:
		note += " Calling it a third time in a row stops the request."
	case k > 1:
		note += fmt.Sprintf(" Your last %d calls repeat the %d before them, with the same results: repeating them once more stops the request.", k, k)
	}
	res.Output += note + "]"
	return nil
}

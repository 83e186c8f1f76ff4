package agent

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/ollama/ollama/api"
)

// A local model with thinking on often plans a call, then answers as if it
// had run ("I've saved the summary to notes.md.") with no call made: the
// run ends, the timeline shows no call, and the user who reads only the
// answer believes it. Such a reply is an unbacked claim when a sentence
// of it says a file, a folder or an address was acted on (claims.json:
// an actor or a passive auxiliary before a verb of what tools do, no
// negation, condition or future) and no tool call or result of the
// conversation names it. The loop then asks the model once a run to do it
// or say it was not done.

//go:embed claims.json
var claimsJSON []byte

// claimWords is claims.json.
type claimWords struct {
	Verbs   []string `json:"verbs"`
	Actors  []string `json:"actors"`
	Passive []string `json:"passive"`
	Others  []string `json:"others"`
	Unless  []string `json:"unless"`
}

// claimSets are claims.json's lists as sets.
var claimSets = func() struct{ verbs, actors, passive, others, unless map[string]bool } {
	var d claimWords
	if err := json.Unmarshal(claimsJSON, &d); err != nil {
		panic(fmt.Sprintf("agent: claims.json: %v", err)) // embedded data; a test reads it
	}
	set := func(ws []string) map[string]bool {
		m := make(map[string]bool, len(ws))
		for _, w := range ws {
			m[w] = true
		}
		return m
	}
	return struct{ verbs, actors, passive, others, unless map[string]bool }{set(d.Verbs), set(d.Actors), set(d.Passive), set(d.Others), set(d.Unless)}
}()

// pathLike matches what names a file, a folder or an address: a name with
// an extension (notes.md, report.final.pdf), a path with a slash
// (src/app, ~/Downloads), a host or an address (example.com,
// bob@example.com).
var pathLike = regexp.MustCompile(`(?:~?[\w.-]*/)+[\w.-]+|[\w@+-]+(?:\.[\w-]+)*\.[a-zA-Z][a-zA-Z0-9]{0,7}\b`)

// fenced matches a fenced block of code.
var fenced = regexp.MustCompile("(?s)```.*?(```|$)")

// claimNudge is what a model whose answer claims unbacked work is told.
const claimNudge = "Your answer says %q of %s, but no tool call in this conversation touched %s, so nothing was done to it. If my request asks for it, call the tool now; if not, answer again without saying it was done."

// unbackedClaim returns the first name a sentence of reply says was
// acted on that no tool call or result in msgs names, and the verb; ""
// when there is none. A sentence in the passive ("notes.md has been
// saved") claims only a name the request holds: one with no actor can be
// news ("Node.js was updated").
func unbackedClaim(reply, request string, msgs []api.Message) (name, verb string) {
	var seen string // what the calls and results named, lower case: read at the first claim
	request = strings.ToLower(request)
	for _, s := range sentences(reply) {
		v, actor := claimVerb(s)
		if v == "" {
			continue
		}
		for _, p := range pathLike.FindAllString(s, -1) {
			p = strings.Trim(p, ".-/")
			base := strings.ToLower(p[strings.LastIndex(p, "/")+1:])
			if base == "" || !actor && !strings.Contains(request, base) {
				continue
			}
			if seen == "" {
				seen = named(msgs)
			}
			if !strings.Contains(seen, base) {
				return p, v
			}
		}
	}
	return "", ""
}

// named is what the tool calls and results of msgs say, lower case.
func named(msgs []api.Message) string {
	var b strings.Builder
	b.WriteByte('\n') // never empty
	for _, m := range msgs {
		if m.Role == "tool" {
			b.WriteString(strings.ToLower(m.Content))
			b.WriteByte('\n')
		}
		for _, c := range m.ToolCalls {
			b.WriteString(strings.ToLower(c.Function.Arguments.String()))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// claimVerb returns the verb a sentence says something was done with
// (after an actor or a passive auxiliary), and whether an actor (first
// person) said it; "" when it says no such thing, says it of another
// (you, they: up to the clause's end), or says it otherwise (a negation,
// a condition, a future).
func claimVerb(sentence string) (string, bool) {
	if strings.ContainsAny(sentence, "?？") {
		return "", false
	}
	type word struct {
		w   string
		end bool // a clause ends after it (a comma, a semicolon)
	}
	var words []word
	for _, raw := range strings.Fields(strings.ToLower(strings.ReplaceAll(sentence, "’", "'"))) {
		w := strings.Trim(raw, ".,;:!()\"*_`")
		if claimSets.unless[w] || strings.HasSuffix(w, "n't") {
			return "", false
		}
		words = append(words, word{w, strings.HasSuffix(raw, ",") || strings.HasSuffix(raw, ";")})
	}
	marked, actor, other := false, false, false
	for _, x := range words {
		switch w := x.w; {
		case claimSets.actors[w]:
			marked, actor, other = true, true, false
		case claimSets.others[w]: // "You have saved notes.md": the user's act
			marked, actor, other = false, false, true
		case claimSets.passive[w] && !other:
			marked = true
		case marked && claimSets.verbs[w]:
			return w, actor
		}
		if x.end {
			other = false
		}
	}
	return "", false
}

// sentences splits text, its fenced code left out, at sentence ends: a
// full stop, an exclamation mark or a colon before a blank (not the dot
// of "main.go"), and lines.
func sentences(text string) []string {
	text = fenced.ReplaceAllString(text, "\n") // code says what it does, not what was done
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		end := text[i] == '\n' || (text[i] == '.' || text[i] == '!' || text[i] == ':') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n')
		if end {
			if s := strings.TrimSpace(text[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

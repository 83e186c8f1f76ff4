package agent

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/samber/lo"
)

// A small local model often ends its turn saying what it will do next
// ("Let me check the config file.", "I'll now create the script:") with
// no tool call: taken as its answer, the run ends with nothing done, and
// the user has to say "go on". Such a reply is a promise when, with no
// question in it,
//   - it ends as text that was to be followed by more (a colon, an
//     ellipsis), or
//   - it is short (maxPromise characters) and a clause of its last
//     sentence opens as the model's next step does (promises.json: "let me", "I'll", "je
//     vais", "让我"…), not as a polite ending ("let me know", "I'll be
//     here").
//
// The loop then asks the model once a run to call the tool or give its
// answer. A reply taken for a promise that was an answer costs one turn,
// in which the model gives its answer again.

//go:embed promises.json
var promisesJSON []byte

// promiseWords is promises.json.
type promiseWords struct {
	Openers  map[string][]string `json:"openers"` // by language
	Closings []string            `json:"closings"`
}

var promiseData = func() promiseWords {
	var d promiseWords
	if err := json.Unmarshal(promisesJSON, &d); err != nil {
		panic(fmt.Sprintf("agent: promises.json: %v", err)) // embedded data; a test reads it
	}
	return d
}()

// maxPromise is the most characters a reply may have to be taken for a
// promise by its words: a promise is a sentence or two, an answer that
// ends with "I'll …" is longer.
const maxPromise = 280

// openerWords and openerRunes are how far into a clause of its last
// sentence a promise's opener may stand ("now I will", "and I'll"): in
// words, or in characters for a script written without spaces.
const (
	openerWords = 2
	openerRunes = 8
)

// promiseNudge is what a model whose reply was a promise is told.
const promiseNudge = "You wrote what you would do next, but your reply called no tool, so nothing was done. If my request asks you to do it, call the tool now; if not, or if the task is done, give your final answer."

// promises reports whether a reply with no tool call says what the model
// will do next instead of answering.
func promises(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text, "?？") {
		return false
	}
	if strings.HasSuffix(text, ":") || strings.HasSuffix(text, "：") || strings.HasSuffix(text, "...") || strings.HasSuffix(text, "…") {
		return true
	}
	if utf8.RuneCountInString(text) > maxPromise {
		return false
	}
	last := strings.ToLower(strings.ReplaceAll(lastSentence(text), "’", "'"))
	for _, clause := range strings.FieldsFunc(last, func(r rune) bool { return strings.ContainsRune(",;，；、", r) }) {
		words := lo.Map(strings.Fields(clause), func(w string, _ int) string { return strings.Trim(w, "\"'“”‘()[]*_") })
		for _, openers := range promiseData.Openers {
			for _, o := range openers {
				if opens(clause, words, o) {
					return true
				}
			}
		}
	}
	return false
}

// opens reports whether opener o stands at the start of a clause (split
// into words) and the clause does not go on as a closing.
func opens(clause string, words []string, o string) bool {
	if r, _ := utf8.DecodeRuneInString(o); r > unicode.MaxLatin1 && !unicode.Is(unicode.Latin, r) {
		head := []rune(strings.TrimSpace(clause))
		return strings.Contains(string(head[:min(openerRunes, len(head))]), o)
	}
	ow := strings.Fields(o)
	for i := 0; i < openerWords && i+len(ow) <= len(words); i++ {
		if strings.Join(words[i:i+len(ow)], " ") != o {
			continue
		}
		rest := strings.Join(words[i:], " ")
		return !lo.SomeBy(promiseData.Closings, func(c string) bool { return strings.HasPrefix(rest, c) })
	}
	return false
}

// lastSentence is the last sentence of text, its final punctuation left
// out. A sentence ends at a full stop or exclamation mark before a space
// (not the dot of "main.go"), at a line's end, or at a full-width stop.
func lastSentence(text string) string {
	text = strings.TrimRight(text, ".!。！ \n\t")
	for i := len(text) - 1; i >= 0; i-- {
		switch {
		case text[i] == '\n',
			(text[i] == '.' || text[i] == '!') && i+1 < len(text) && text[i+1] == ' ':
			return strings.TrimSpace(text[i+1:])
		case strings.HasPrefix(text[i:], "。") || strings.HasPrefix(text[i:], "！"):
			return strings.TrimSpace(text[i+len("。"):])
		}
	}
	return strings.TrimSpace(text)
}

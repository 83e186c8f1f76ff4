// Package redact takes secrets out of text before Shrimp keeps or shows
// it: private keys, cloud and API tokens, passwords in URLs and in
// NAME=value lines, and the values of the process's own environment
// variables whose names say they are secret.
//
// Its contract: [Redactor.String] returns the text with each secret
// replaced by a visible marker, [REDACTED:kind], and how many it replaced;
// the rest is left as it was, and redacting twice changes nothing more.
// The patterns are data (redact.json), chosen for precision over recall: a
// pattern that names the secret part (a group named "secret") replaces only
// that part, and one marked "digit" only a value holding a digit, so code
// such as API_KEY = os.environ["API_KEY"] stays.
package redact

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

//go:embed redact.json
var patternsJSON []byte

type pattern struct {
	Kind    string   `json:"kind"`
	Any     []string `json:"any"`   // the pattern runs only on text holding one of these
	Fold    bool     `json:"fold"`  // compare Any without regard to case
	Digit   bool     `json:"digit"` // the secret must hold a digit
	Pattern string   `json:"pattern"`
	re      *regexp.Regexp
	secret  int // index of the "secret" group, 0 for the whole match
}

// may reports whether s may hold a match: the regular expressions are
// slow on large outputs (~5 MB/s), the literals fast.
func (p *pattern) may(s, lower string) bool {
	if p.Fold {
		s = lower
	}
	for _, a := range p.Any {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}

var patterns, secretName = mustLoad(patternsJSON)

// mustLoad reads redact.json: the patterns, and how an environment
// variable's name says it holds a secret.
func mustLoad(b []byte) ([]pattern, *regexp.Regexp) {
	var file struct {
		EnvNames string    `json:"env_names"`
		Patterns []pattern `json:"patterns"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		panic(fmt.Sprintf("redact.json: %v", err))
	}
	out := file.Patterns
	for i := range out {
		if len(out[i].Any) == 0 {
			panic(fmt.Sprintf("redact.json: %s has no literals to look for first", out[i].Kind))
		}
		if out[i].Fold {
			for j, a := range out[i].Any {
				out[i].Any[j] = strings.ToLower(a)
			}
		}
		out[i].re = regexp.MustCompile(out[i].Pattern)
		if j := out[i].re.SubexpIndex("secret"); j > 0 {
			out[i].secret = j
		}
	}
	return out, regexp.MustCompile(file.EnvNames)
}

// Redactor replaces secrets in text. The zero value uses the patterns
// only; [New] adds the environment's secret values.
type Redactor struct {
	values []value // literal secrets, longest first
}

type value struct {
	text, kind string
}

// New returns a Redactor that also replaces the values of the variables
// in environ (os.Environ's form) whose names say they hold secrets: values
// of at least 8 characters that are not paths, plain numbers or plain
// words (a PASSWORD=password would hide the word everywhere).
func New(environ []string) *Redactor {
	r := &Redactor{}
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || len(val) < 8 || !secretName.MatchString(name) || strings.HasPrefix(val, "/") || strings.TrimFunc(val, unicode.IsDigit) == "" || strings.TrimFunc(val, unicode.IsLetter) == "" {
			continue
		}
		r.values = append(r.values, value{val, "env:" + name})
	}
	sort.Slice(r.values, func(i, j int) bool { return len(r.values[i].text) > len(r.values[j].text) })
	return r
}

// FromEnv is New(os.Environ()).
func FromEnv() *Redactor { return New(os.Environ()) }

// String returns s with its secrets replaced and how many were. Every
// pattern reads the text as it came, and overlapping secrets become one
// marker (the first pattern's kind): replacing one pattern's match before
// the next one read the text hid the next one's context (a cut key's
// BEGIN line ate the "https" of a URL whose password then went through).
func (r *Redactor) String(s string) (string, int) {
	type span struct {
		from, to int
		kind     string
	}
	// Markers an earlier redaction left are not secrets, nor part of one:
	// "https://[REDACTED:github-token]@host" reads as user "[REDACTED"
	// with password "github-token]".
	var markers [][]int
	if strings.Contains(s, "[REDACTED:") {
		markers = markerRe.FindAllStringIndex(s, -1)
	}
	inMarker := func(from, to int) bool {
		return slices.ContainsFunc(markers, func(m []int) bool { return from < m[1] && m[0] < to })
	}
	var spans []span
	if r != nil {
		for _, v := range r.values {
			for at := 0; ; {
				i := strings.Index(s[at:], v.text)
				if i < 0 {
					break
				}
				if from, to := at+i, at+i+len(v.text); !inMarker(from, to) {
					spans = append(spans, span{from, to, v.kind})
				}
				at += i + len(v.text)
			}
		}
	}
	lower := ""
	for _, p := range patterns {
		if p.Fold && lower == "" {
			lower = strings.ToLower(s)
		}
		if !p.may(s, lower) || !p.re.MatchString(s) {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
			from, to := m[2*p.secret], m[2*p.secret+1]
			if from < 0 || (p.Digit && !strings.ContainsAny(s[from:to], "0123456789")) || inMarker(from, to) {
				continue
			}
			spans = append(spans, span{from, to, p.Kind})
		}
	}
	if len(spans) == 0 {
		return s, 0
	}
	// Earlier first, the longer of two at one place; on a tie the values
	// and the patterns keep their order.
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].from != spans[j].from {
			return spans[i].from < spans[j].from
		}
		return spans[i].to > spans[j].to
	})
	var b strings.Builder
	last, n := 0, 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && spans[i].from < cur.to; i++ {
			cur.to = max(cur.to, spans[i].to)
		}
		b.WriteString(s[last:cur.from])
		b.WriteString(marker(cur.kind))
		last = cur.to
		n++
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// markerRe finds the markers String leaves.
var markerRe = regexp.MustCompile(`\[REDACTED:[A-Za-z0-9:_.-]+\]`)

func marker(kind string) string { return "[REDACTED:" + kind + "]" }

// Holds reports whether s holds a marker a redaction left: text with a
// secret Shrimp did not keep.
func Holds(s string) bool {
	return strings.Contains(s, "[REDACTED:") && markerRe.MatchString(s)
}

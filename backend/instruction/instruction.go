// Package instruction finds what a long request asks for: the part a
// person wrote, not the material pasted into it.
//
// Its contract: Of returns a request of at most MaxWords (100) words
// unchanged. A longer one almost always wraps pasted material (an email,
// an article, a log) in an instruction at its start ("translate this into
// French: …"), at its end ("… summarise the above"), or both; Of returns
// its first and last segments (split at line breaks and at sentence ends),
// each cut to Half words from the request's outer ends, so that the
// material does not decide which task the request is. It reads only the
// request's layout and punctuation, never particular words, and never
// fails.
package instruction

import (
	"strings"
	"unicode"
)

const (
	// MaxWords is the longest request read whole. What a person writes,
	// chatty requests included, rarely runs past it (the evaluation sets'
	// longest has 38 words, and a chatty one may put its task in any
	// sentence), while pasted material (an email, an article, a log)
	// usually does; shorter material is read with the request, as before.
	MaxWords = 100
	// Half is how many words of each end a longer request keeps.
	Half = 30
)

// Of returns the part of request that says what to do (see the package
// doc).
func Of(request string) string {
	if len(strings.Fields(request)) <= MaxWords {
		return request
	}
	segs := segments(request)
	first, last := strings.Fields(segs[0]), strings.Fields(segs[len(segs)-1])
	if len(segs) == 1 {
		return strings.Join(first[:Half], " ") + "\n" + strings.Join(first[len(first)-Half:], " ")
	}
	return strings.Join(first[:min(Half, len(first))], " ") + "\n" + strings.Join(last[max(0, len(last)-Half):], " ")
}

func isDash(r rune) bool { return r == '-' || r == '–' || r == '—' }

// segments splits text at line breaks and after sentence punctuation
// followed by a space (". ", "? ", "! ", ": ", "; ") and at a dash between
// spaces, keeping the non-blank pieces (at least one: text has words).
func segments(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	cut := func(end, next int) {
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = next
	}
	for i, r := range rs {
		spaced := i+1 < len(rs) && unicode.IsSpace(rs[i+1])
		switch {
		case r == '\n' || r == '\r':
			cut(i, i+1)
		case strings.ContainsRune(".?!:;", r) && spaced:
			cut(i+1, i+1)
		case isDash(r) && spaced:
			j := i
			for j > 0 && isDash(rs[j-1]) {
				j--
			}
			if j > 0 && unicode.IsSpace(rs[j-1]) {
				cut(j, i+1)
			}
		}
	}
	cut(len(rs), len(rs))
	return out
}

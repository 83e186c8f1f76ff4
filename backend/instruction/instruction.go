// Package instruction finds what a long request asks for: the part a
// person wrote, not the material pasted into it.
//
// Its contract: Of returns a request of at most MaxWords (100) words
// unchanged, but for runs of ASCII letters and digits longer than MaxRun:
// no word is that long, so such a run is material too (a DNA sequence, a
// hash, a blob of base64), and it is left out unless the request holds
// nothing else. A longer one almost always wraps pasted material (an
// email, an article, a log) in an instruction at its start ("translate
// this into French: …"), at its end ("… summarise the above"), or both;
// Of returns its first and last segments (split at line breaks and at
// sentence ends), each cut to Half words from the request's outer ends, so
// that the material does not decide which task the request is. It reads
// only the request's layout, punctuation and run lengths, never particular
// words, and never fails. What it returns is at most MaxBytes long.
package instruction

import (
	"strings"
	"unicode"

	"github.com/shrimp-harness/shrimp/internal/textcut"
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
	// MaxRun is the longest run of letters and digits read as a word: a
	// long German compound has about 40. A longer run (thousands of
	// letters, to the sentence encoder's 128 pieces) outweighed the words
	// around it, so "find the restriction sites in this dna sequence
	// <20,000 letters>" recalled another chore on another sequence.
	MaxRun = 48
	// MaxBytes bounds what Of returns: words are whitespace-separated, so
	// material without spaces (base64 broken by '+' and '/', minified
	// code) counted as a few words and was read, learned as a trigger and
	// quoted in hints whole (19 KB of a 40 KB blob). Beyond it, Of keeps
	// its first and last MaxBytes/2.
	MaxBytes = 2000
)

// Of returns the part of request that says what to do (see the package
// doc).
func Of(request string) string {
	return bounded(of(request))
}

func of(request string) string {
	request = withoutRuns(request)
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

// bounded returns text when it has at most MaxBytes, else its first and
// last MaxBytes/2 on two lines, cut between characters.
func bounded(text string) string {
	if len(text) <= MaxBytes {
		return text
	}
	head := textcut.Before(text, MaxBytes/2)
	tail := textcut.After(text, len(text)-MaxBytes/2+1) // room for the line break
	return strings.TrimSpace(text[:head]) + "\n" + strings.TrimSpace(text[tail:])
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

// withoutRuns returns text without its runs of ASCII letters and digits
// longer than MaxRun, or text itself when it has none or nothing else.
// Runs are ASCII: scripts written without spaces (Chinese, Japanese, Thai)
// make long runs of words, not of material.
func withoutRuns(text string) string {
	var b strings.Builder
	start, kept, cut := 0, false, false // start: the current run's first byte
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isAlnum(text[i]) {
			continue
		}
		if i-start > MaxRun {
			cut = true
		} else {
			b.WriteString(text[start:i])
			kept = kept || i > start
		}
		if i < len(text) {
			b.WriteByte(text[i])
		}
		start = i + 1
	}
	if !cut || !kept {
		return text
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

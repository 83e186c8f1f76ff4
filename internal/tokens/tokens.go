// Package tokens estimates how many tokens a model's tokenizer makes of a
// text, without the tokenizer: Shrimp sizes prompts to fit num_ctx, and
// Ollama drops the front of a prompt that does not fit without a word.
//
// Its contract: Count is linear in the text's characters, by class
// (letters, digits, blanks, line breaks, punctuation, changes of class
// inside a word, words, CJK, Cyrillic, other scripts' letters, other
// symbols), with
// non-negative weights fitted to the larger of two real BPE tokenizers'
// counts (cl100k_base and o200k_base: Llama 3's and Phi-4's tokenizers
// are of the first kind, Qwen's and Gemma's closer to the second) over
// prose in ten languages, code, JSON, logs, base64 and hex
// (scripts/fit-tokens, `make fit-tokens`; weights.json). Four bytes a
// token, the rule it replaced, counted base64 at a third of its tokens,
// logs and hex at half, JSON at 60% and CJK at 70%.
package tokens

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Features are the counts Count weighs, in weights.json's order.
type Features [NumFeatures]float64

// The features.
const (
	Letters     = iota // Latin letters
	Digits             // ASCII digits
	Spaces             // spaces
	Breaks             // line breaks and tabs
	Punct              // other ASCII characters
	Switches           // changes of class inside a word: aB, a1, 1a (base64, hex, camelCase)
	Words              // runs of ASCII letters
	CJK                // Han, kana, Hangul
	Cyrillic           // Cyrillic letters
	OtherLetter        // letters of other scripts (Greek, Arabic, Hebrew, Devanagari, Thai, …)
	Other              // everything else (symbols, emoji, marks)
	NumFeatures
)

// Names are the features' names, as weights.json lists them.
var Names = [NumFeatures]string{"letters", "digits", "spaces", "breaks", "punct", "switches", "words", "cjk", "cyrillic", "other_letter", "other"}

//go:embed weights.json
var weightsJSON []byte

var weights = func() Features {
	var d struct {
		Features [NumFeatures]string `json:"features"`
		Weights  Features            `json:"weights"`
	}
	if err := json.Unmarshal(weightsJSON, &d); err != nil || d.Features != Names {
		panic(fmt.Sprintf("tokens: weights.json is not for these features (%v): run make fit-tokens", err)) // embedded data; a test reads it
	}
	return d.Weights
}()

// Count estimates the tokens of s.
func Count(s string) int { return Of(s).Tokens() }

// Tokens is the estimate of a text with these features.
func (f Features) Tokens() int {
	n := 0.0
	for i, w := range weights {
		n += w * f[i]
	}
	return int(n + 0.999)
}

// Add returns the features of two texts one after the other when the
// first ends with a line break (no word runs across it): Of(a+b) is
// Of(a).Add(Of(b)), so a text built line by line is counted once.
func (f Features) Add(g Features) Features {
	for i := range f {
		f[i] += g[i]
	}
	return f
}

// Bytes is about how many bytes of s make n of its tokens (s's own bytes
// per token, at least one), for cutting s to a number of tokens.
func Bytes(s string, n int) int {
	c := Count(s)
	if c == 0 {
		return n
	}
	return max(1, n*len(s)/c)
}

// JSON estimates the tokens of v as JSON (tool definitions, call
// arguments); a value that does not encode counts nothing.
func JSON(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return Count(string(b))
}

// ascii classes.
const (
	cNone = iota
	cLower
	cUpper
	cDigit
)

// Of returns the features of s.
func Of(s string) Features {
	var f Features
	prev := cNone // class of the previous character inside a word
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			cls := cNone
			switch {
			case c >= 'a' && c <= 'z':
				f[Letters]++
				cls = cLower
			case c >= 'A' && c <= 'Z':
				f[Letters]++
				cls = cUpper
			case c >= '0' && c <= '9':
				f[Digits]++
				cls = cDigit
			case c == ' ':
				f[Spaces]++
			case c == '\n' || c == '\t' || c == '\r':
				f[Breaks]++
			default:
				f[Punct]++
			}
			switch {
			case cls == cNone:
			case prev == cNone:
				if cls != cDigit {
					f[Words]++
				}
			case cls != prev && !(prev == cUpper && cls == cLower):
				f[Switches]++
				if cls != cDigit && prev == cDigit {
					f[Words]++
				}
			}
			prev = cls
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		prev = cNone
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			f[CJK]++
		case unicode.Is(unicode.Latin, r):
			f[Letters]++ // é, ü, ß: letters of words, like ASCII's
		case unicode.Is(unicode.Cyrillic, r):
			f[Cyrillic]++
		case unicode.IsLetter(r):
			f[OtherLetter]++
		default:
			f[Other]++
		}
	}
	return f
}

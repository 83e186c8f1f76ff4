package memory

import (
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// stopWords carry no intent: articles, pronouns, auxiliaries and the filler
// people put around requests ("please", "can you", "just").
var stopWords = set(`a an the and or but if then so of to in on at by for from with without into onto about as is are was were be been being
do does did doing done have has had having i me my mine myself we our ours you your yours he she it its they them their this that these those
there here what which who whom whose when where why how can could would should will shall may might must
please pls just also too very really quite some any all each every again now then ok okay hey hi hello thanks thank
up out over under off via per than like lol anyway well still only even much many more most one ones thing things stuff
let lets let's want wanna need gonna going get got make made help tell give
anyone anybody someone somebody something anything everyone everything nobody nothing
according regarding whether while away
after before during since until around across through between against among within upon toward towards
no not never don doesn didn isn aren wasn weren haven hasn hadn won wouldn couldn shouldn am pm`)

// genericWords are content words so common in requests that matching them
// says little ("file", "today"); they count for less in the confidence.
var genericWords = set(`file files folder folders new old today tomorrow yesterday day days week month year time times
write read find check set add put list open show look use using run create change update remove delete send save
last next first latest recent newest morning evening night computer machine app apps thing text note notes
document documents item items name names number numbers way work`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// words splits text into lower-case words of letters and digits; an
// apostrophe's suffix ("morning's") is dropped, and a phrasal verb whose
// two words are separated by spaces only becomes one word.
func words(text string) []string {
	var out []string
	text = strings.ToLower(text)
	adjacent := false // only spaces since the last word
	for len(text) > 0 {
		i := strings.IndexFunc(text, isWordRune)
		if i < 0 {
			break
		}
		if i > 0 {
			adjacent = adjacent && strings.TrimLeft(text[:i], " \t") == ""
		}
		text = text[i:]
		j := strings.IndexFunc(text, func(r rune) bool { return !isWordRune(r) })
		if j < 0 {
			j = len(text)
		}
		f := text[:j]
		text = text[j:]
		if k := strings.IndexByte(f, '\''); k >= 0 {
			f = f[:k]
		}
		if f == "" {
			adjacent = false
			continue
		}
		if n := len(out); n > 0 && adjacent {
			if joined, ok := phrasalVerbs[out[n-1]+" "+f]; ok {
				out[n-1] = joined
				adjacent = false
				continue
			}
		}
		out = append(out, f)
		adjacent = true
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' }

// phrasalVerbs are two-word verbs, compound nouns and two-word names of
// one thing, read as one word: "log in" matches "login" and not "the
// server log", "back up" matches "backup" and not "go back", "pull
// request" is one thing and a "property owner" is a landlord. The index holds triggers in these words:
// editing the list needs a new mappingVersion.
var phrasalVerbs = map[string]string{
	"log in": "login", "log on": "login", "logged in": "login", "logging in": "login",
	"sign in": "signin", "signed in": "signin", "sign on": "signin",
	"sign up": "signup", "signed up": "signup",
	"back up": "backup", "backed up": "backup", "backing up": "backup",
	"start up": "startup", "shut down": "shutdown",
	"clean up": "cleanup", "tidy up": "tidy",
	"look up": "lookup", "looked up": "lookup",
	"log out": "logout", "sign out": "logout", "log off": "logout",
	// Phrasal verbs read as the plain verb they mean.
	"get rid": "remove", "throw away": "remove", "throw out": "remove",
	"clear up": "cleanup", "sort out": "organise", "figure out": "find",
	"look into": "check", "go over": "check", "go through": "check", "look over": "check",
	"keep track": "track", "put together": "assemble", "reach out": "contact",
	"in touch": "contact", "look for": "search", "turn into": "convert",
	"boot up": "startup", "print off": "print", "fix up": "fix", "call back": "call",
	"hand in": "submit", "send in": "submit",
	// Compound nouns people write either way.
	"pull request": "pullrequest", "merge request": "pullrequest",
	"to do": "todo", "e mail": "email", "wi fi": "wifi",
	"web site": "website", "web page": "webpage", "screen shot": "screenshot",
	"file name": "filename", "user name": "username",
	// Two-word names of one thing, read as that thing.
	"property owner": "landlord", "property manager": "landlord", "letting agent": "landlord",
	"next door": "neighbour", "hard drive": "disk", "hard disk": "disk",
	"travel document": "passport", "screen capture": "screenshot", "screen grab": "screenshot",
	"cell phone": "phone", "mobile phone": "phone", "web browser": "browser",
	"video call": "call", "phone call": "call", "social media": "socialmedia",
	"turn off": "disable", "switch off": "disable", "turn on": "enable", "switch on": "enable",
	"put off": "postpone", "call off": "cancel", "print out": "print",
	"write down": "note", "jot down": "note", "note down": "note",
	"clear out": "clear", "clean out": "cleanup", "data breach": "breach",
	"washing machine": "washer", "dish washer": "dishwasher", "grocery store": "supermarket",
	"car park": "parking", "parking lot": "parking", "trash can": "bin", "garbage can": "bin",
	"rubbish bin": "bin", "birth date": "birthday", "day off": "holiday", "days off": "holiday",
	"time off": "holiday", "sick day": "sick", "sick leave": "sick", "credit card": "card",
	"debit card": "card", "user manual": "manual", "instruction manual": "manual",
	"instruction booklet": "manual", "operating system": "os", "home screen": "homescreen",
	"source code": "code", "code base": "codebase", "command line": "terminal",
	"keyboard shortcut": "shortcut", "memory stick": "usb", "flash drive": "usb",
	"thumb drive": "usb", "usb stick": "usb", "cloud storage": "cloud", "online storage": "cloud",
	"junk mail": "spam", "time zone": "timezone", "due date": "deadline", "tax return": "tax",
	"pay slip": "payslip", "stand up": "standup", "follow up": "followup", "get together": "gathering",
	"best friend": "friend",
	// British and American names of one thing.
	"zip code": "postcode", "post code": "postcode", "estate agent": "realtor", "real estate agent": "realtor",
	"part exchange": "tradein", "trade in": "tradein", "current account": "checking",
	"checking account": "checking", "running late": "late",
}

// stem returns the English Snowball stem of a lower-case word.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}

// term is one content word of a text.
type term struct {
	word    string // as written (lower case)
	stem    string
	generic bool
	lex     int32 // the word's lexicon ID, -1 when unknown or generic
}

// terms returns the distinct content words of text.
func terms(text string) []term {
	var out []term
	seen := map[string]bool{}
	for _, w := range words(text) {
		if stopWords[w] {
			continue
		}
		s := stem(w)
		if seen[s] {
			continue
		}
		seen[s] = true
		t := term{word: w, stem: s, generic: genericWords[w] || genericWords[s], lex: -1}
		if !t.generic {
			t.lex = lex().Lookup(w)
		}
		out = append(out, t)
	}
	return out
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance, stopping early above limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	var bufA, bufB [32]rune
	ra, rb := appendRunes(bufA[:0], a), appendRunes(bufB[:0], b)
	var b1, b2, b3 [33]int
	var prev2, prev, cur []int
	if len(rb) < 33 {
		prev2, prev, cur = b1[:len(rb)+1], b2[:len(rb)+1], b3[:len(rb)+1]
	} else {
		prev2, prev, cur = make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// typoLimit is how many edits still count as the same word.
func typoLimit(w string) int {
	switch n := len([]rune(w)); {
	case n <= 3:
		return 0
	case n <= 6:
		return 1
	default:
		return 2
	}
}

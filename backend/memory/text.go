package memory

import (
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// stopWords carry no intent: articles, pronouns, auxiliaries and the filler
// people put around requests ("please", "can you", "just").
var stopWords = set(`a an the and or but if then so of to in on at by for from with without into onto about as is are was were be been being
do does did doing done have has had having i me my mine myself we our ours us you your yours yourself he him his himself she hers herself it its itself they them their theirs themselves this that these those
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
// The last line are light verbs and measure words whose sense comes from
// their neighbours ("take a photo", "how long does it take"): two of them
// must not pass for a match ("how long does it take to walk a mile" is
// not "what's taking so long when my computer starts").
var genericWords = set(`file files folder folders new old today tomorrow yesterday day days week month year time times
write read find check set add put list open show look use using run create change update remove delete send save
last next first latest recent newest morning evening night computer machine app apps thing text note notes
document documents item items name names number numbers way work setup
take takes taking took taken long short little lot lots kind sure try tries tried trying know knew known think thought say says said seem seems seemed come comes came coming go goes went gone`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// words splits text into lower-case words of letters and digits; an
// apostrophe's suffix ("morning's") is dropped, and two or three words
// that make one of the joins ("log in", "out of office") become one word
// when only spaces, or a hyphen ("log-in", "e-mail"), separate them.
func words(text string) []string {
	var out []string
	text = strings.ToLower(text)
	adjacent := false // only spaces, or one hyphen, since the last word
	pair := false     // the last word followed the one before it that way too
	for len(text) > 0 {
		i := strings.IndexFunc(text, isWordRune)
		if i < 0 {
			break
		}
		sep := ""
		if i > 0 {
			sep = text[:i]
			adjacent = adjacent && (strings.TrimLeft(sep, " \t") == "" || sep == "-")
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
		f = numeral(f)
		if f == "" {
			adjacent = false
			continue
		}
		if n, unit, ok := measure(f); ok {
			// "1gb" is "1 gb": the unit matches "gigabyte"; "1200x400"
			// is "1200 400", like "1200 by 400".
			out = append(out, n)
			f = unit
		}
		if n := len(out); n > 0 && (adjacent || sep == ",") {
			if number, ok := compose(out[n-1], f, adjacent); ok {
				out[n-1] = number
				continue
			}
		}
		if n := len(out); n > 1 && adjacent && pair && objectPronouns[out[n-1]] {
			// A phrasal verb around its object: "turn them off" is
			// "turn off", "back it up" is "back up".
			if joined, ok := join(out[n-2] + " " + f); ok {
				out = append(out[:n-2], joined)
				adjacent, pair = false, false
				continue
			}
		}
		if n := len(out); n > 0 && adjacent {
			if pair {
				if joined, ok := joinThree(out[n-2], out[n-1], f); ok {
					out = append(out[:n-2], joined)
					adjacent, pair = false, false
					continue
				}
			}
			if joined, ok := joinTwo(out[n-1], f); ok {
				// The joined word may join again ("2 factor" is 2fa,
				// "2fa authentication" too).
				out[n-1] = joined
				pair = false
				continue
			}
		}
		pair = adjacent && len(out) > 0
		out = append(out, f)
		adjacent = true
	}
	return out
}

// numberWords are the number words read as numerals, so "three days"
// matches "3 days" and "every third day", and "both" lists match "the two"
// lists. "one", "first" and "second" are not among them: they are mostly
// a pronoun, an order and a unit of time.
var numberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
	"eighteen": "18", "nineteen": "19", "forty": "40", "fifty": "50", "sixty": "60",
	"seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100",
	"third": "3", "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7", "eighth": "8",
	"ninth": "9", "tenth": "10", "eleventh": "11", "twelfth": "12", "both": "2", "trio": "3",
}

// numeral reads a number word as its numeral, and a time of day ("8am")
// or an ordinal written in digits ("3rd") as its number; other words are
// returned as they are.
func numeral(w string) string {
	if n, ok := numberWords[w]; ok {
		return n
	}
	for _, suffix := range []string{"am", "pm", "st", "nd", "rd", "th"} {
		if n, ok := strings.CutSuffix(w, suffix); ok && digits(n) {
			return n
		}
	}
	if n, ok := strings.CutSuffix(w, "k"); ok && digits(n) {
		return n + "000" // "250k"
	}
	return w
}

// compose reads a number written in two words as one numeral: "twenty
// five" (20 5) is 25, "250 thousand" is 250000 like "250k", and
// "250,000" too (a comma between digits and three digits, when the words
// are not adjacent). Anything else is not composed.
func compose(prev, w string, adjacent bool) (string, bool) {
	if !digits(prev) {
		return "", false
	}
	if !adjacent {
		return prev + w, len(w) == 3 && digits(w) && len(prev) <= 3
	}
	switch {
	case w == "thousand":
		return prev + "000", true
	case w == "million":
		return prev + "000000", true
	case w == "100" && len(prev) == 1 && prev != "0":
		return prev + "00", true // "two hundred"
	case len(prev) == 2 && prev[1] == '0' && prev[0] >= '2': // "twenty five"
		if w == "one" {
			w = "1"
		}
		return prev[:1] + w, len(w) == 1 && w >= "1" && w <= "9"
	}
	return "", false
}

// objectPronouns may stand between a phrasal verb and its particle.
var objectPronouns = set("it them him her me us this that everything")

// units are the units written after a number without a space.
var units = set("gb mb kb tb px km kg mph cm mm ml hz ghz mhz mbps gbps kw kwh")

// measure splits a number written with its unit ("1gb", "400px"), or two
// dimensions ("1200x400").
func measure(w string) (n, unit string, ok bool) {
	i := strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' })
	switch {
	case i <= 0:
		return "", "", false
	case units[w[i:]]:
		return w[:i], w[i:], true
	case w[i] == 'x' && digits(w[i+1:]):
		return w[:i], w[i+1:], true
	}
	return "", "", false
}

// digits reports whether w is a non-empty run of ASCII digits.
func digits(w string) bool { return w != "" && strings.Trim(w, "0123456789") == "" }

// join looks words up in joins, the last one also without a plural "s"
// ("pull requests" is one pullrequest each), the first also in its other
// forms ("tidying up", "places to stay").
func join(words string) (string, bool) {
	if j, ok := joinForms[words]; ok {
		return j, true
	}
	if singular, ok := strings.CutSuffix(words, "s"); ok && !strings.HasSuffix(singular, "s") {
		j, ok := joinForms[singular]
		return j, ok
	}
	return "", false
}

// joinForms are the joins, and the joins with their first word in another
// form: "tidy up" is also "tidies up", "tidied up" and "tidying up". Forms
// are made by rule, so some are not words; such keys never match.
var joinForms = func() map[string]string {
	m := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(joins)) {
		m[k] = joins[k]
	}
	for _, k := range slices.Sorted(maps.Keys(joins)) {
		first, rest, _ := strings.Cut(k, " ")
		for _, f := range forms(first) {
			if key := f + " " + rest; m[key] == "" {
				m[key] = joins[k]
			}
		}
	}
	return m
}()

// forms are a word's other forms by rule: plural or third person, past,
// and -ing ("tidy": tidies, tidied, tidying; "log": logs, logged,
// logging; "place": places, placed, placing), and an irregular verb's.
func forms(w string) []string {
	out := []string{w + "s", w + "es", w + "ed", w + "ing"}
	n := len(w)
	switch last := w[n-1]; {
	case last == 'e':
		out = append(out, w+"d", w[:n-1]+"ing")
	case last == 'y' && n > 2 && !strings.ContainsRune("aeiou", rune(w[n-2])):
		out = append(out, w[:n-1]+"ies", w[:n-1]+"ied", w+"ing")
	case n >= 3 && !strings.ContainsRune("aeiouwxy", rune(last)) &&
		strings.ContainsRune("aeiou", rune(w[n-2])) && !strings.ContainsRune("aeiou", rune(w[n-3])):
		out = append(out, w+w[n-1:]+"ed", w+w[n-1:]+"ing") // log, logged
	}
	out = append(out, irregularForms[w]...)
	slices.Sort(out)
	return out
}

// joinThree is join for three words, forgiving one slip of one edit in a
// word of four letters or more that is not a common word ("out of
// ofice").
func joinThree(a, b, c string) (string, bool) {
	if j, ok := join(a + " " + b + " " + c); ok {
		return j, true
	}
	ws := [3]string{a, b, c}
	// A slip leaves two of the three words right: look the joins up by
	// each pair of them, then check the third.
	for skip := range ws {
		for _, e := range joinsOfThree[skip][without(ws, skip)] {
			w := ws[skip]
			if len(w) >= 4 && editDistance(w, e.words[skip], 1) == 1 && !commonWord(w) {
				return e.value, true
			}
		}
	}
	return "", false
}

// without is the two of three words left when the one at skip is taken
// out.
func without(ws [3]string, skip int) [2]string {
	switch skip {
	case 0:
		return [2]string{ws[1], ws[2]}
	case 1:
		return [2]string{ws[0], ws[2]}
	}
	return [2]string{ws[0], ws[1]}
}

// joinOfThree is a three-word join, word by word.
type joinOfThree struct {
	words [3]string
	value string
}

// joinsOfThree index the three-word joins by the two words left when the
// one at each position is taken out, in a fixed order.
var joinsOfThree = func() (ix [3]map[[2]string][]joinOfThree) {
	for skip := range ix {
		ix[skip] = map[[2]string][]joinOfThree{}
	}
	for _, k := range slices.Sorted(maps.Keys(joins)) {
		f := strings.Fields(k)
		if len(f) != 3 {
			continue
		}
		e := joinOfThree{[3]string{f[0], f[1], f[2]}, joins[k]}
		for skip := range ix {
			pair := without(e.words, skip)
			ix[skip][pair] = append(ix[skip][pair], e)
		}
	}
	return ix
}()

// joinTwo is join for two words, forgiving a slip of one edit in either
// word when that word has at least four letters and is not itself a
// common word ("bakc up" is a backup; "book for" is not "look for"), or
// when the other word, spelt right, is a content word of five letters or
// more ("tumble dyer" is a tumble dryer): a typo inside a phrase would
// otherwise leave its words apart while the trigger's are joined.
func joinTwo(a, b string) (string, bool) {
	if j, ok := join(a + " " + b); ok {
		return j, true
	}
	if j, ok := slipJoin(b, a, joinsByWord.first[a]); ok {
		return j, true
	}
	return slipJoin(a, b, joinsByWord.second[b])
}

// slipJoin is the join among parts whose other word is one edit from w,
// when w could be a slip beside the rightly spelt word sure: four letters
// or more, and not a common word unless sure says what phrase it is.
func slipJoin(w, sure string, parts []joinPart) (string, bool) {
	if len(w) < 4 || len(parts) == 0 || commonWord(w) && (len(sure) < 5 || stopWords[sure]) {
		return "", false
	}
	for _, e := range parts {
		if editDistance(w, e.other, 1) <= 1 {
			return e.value, true
		}
	}
	return "", false
}

// joinPart is a two-word join seen from one of its words.
type joinPart struct{ other, value string }

// joinsByWord indexes the two-word joins by their first and second word.
var joinsByWord = func() (ix struct{ first, second map[string][]joinPart }) {
	ix.first, ix.second = map[string][]joinPart{}, map[string][]joinPart{}
	for k, v := range joins {
		if a, b, ok := strings.Cut(k, " "); ok && !strings.Contains(b, " ") {
			ix.first[a] = append(ix.first[a], joinPart{b, v})
			ix.second[b] = append(ix.second[b], joinPart{a, v})
		}
	}
	// In a fixed order, so that a slip close to two joins always reads
	// the same way.
	for _, m := range []map[string][]joinPart{ix.first, ix.second} {
		for _, parts := range m {
			slices.SortFunc(parts, func(x, y joinPart) int { return strings.Compare(x.other+" "+x.value, y.other+" "+y.value) })
		}
	}
	return ix
}()

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' }

// stem returns the English Snowball stem of a lower-case word, reading an
// irregular past form as its verb first ("wrote" and "written" are
// "write").
func stem(w string) string {
	if base, ok := irregular[w]; ok {
		w = base
	}
	if len(w) <= 3 {
		return w
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}

// irregular maps the past forms of irregular verbs to the verb, for the
// verbs whose forms have no other common meaning: "left", "saw", "shot",
// "spoke", "bit", "stuck", "rose" and "found" (a company) are not among
// them, nor "sent": "the email they sent" describes, "send" asks.
var irregular = func() map[string]string {
	m := map[string]string{}
	for verb, forms := range irregularForms {
		for _, f := range forms {
			m[f] = verb
		}
	}
	return m
}()

// irregularForms are an irregular verb's forms, by the verb.
var irregularForms = func() map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(irregularVerbs), "\n") {
		forms := strings.Fields(line)
		m[forms[0]] = forms[1:]
	}
	return m
}()

// irregularVerbs lists one verb per line, then its irregular forms.
const irregularVerbs = `
write wrote written
build built
sell sold
tell told
keep kept
bring brought
buy bought
think thought
choose chose chosen
drive drove driven
freeze froze frozen
forget forgot forgotten
hide hid hidden
run ran
lend lent
wake woke woken
wear wore worn
tear tore torn
throw threw thrown
grow grew grown
know knew known
draw drew drawn
begin began begun
teach taught
catch caught
seek sought
sleep slept
meet met
hold held
stand stood
understand understood
speak spoken
steal stole stolen
eat ate eaten
drink drank
ring rang rung
sing sang sung
shake shook shaken
feed fed
dig dug
hang hung
win won
lose lost
pay paid
lay laid
become became
undo undid undone
redo redid redone
rewrite rewrote rewritten
withdraw withdrew withdrawn
give gave given
take took taken
see seen
go went gone
fall fell fallen
rise risen
show shown
fly flew flown
break broke
forgive forgave forgiven
mistake mistook
`

// term is one content word of a text.
type term struct {
	word    string // as written (lower case)
	stem    string
	generic bool
	lex     int32 // the word's lexicon ID, -1 when unknown or generic
	// closed is the stem of the word written together with the next
	// one ("sun set" as "sunset"), to match a closed compound in the
	// other text; empty for the last word.
	closed string
}

// terms returns the distinct content words of text.
func terms(text string) []term {
	var out []term
	seen := map[string]bool{}
	ws := words(text)
	for i, w := range ws {
		if stopWords[w] {
			continue
		}
		s := stem(w)
		if seen[s] {
			continue
		}
		seen[s] = true
		// A slip of a stop word ("themselfs", "wiht") counts as little as
		// a generic word, but may still be a slip of a content word
		// ("pone" is "phone" as much as "done").
		t := term{word: w, stem: s, generic: genericWords[w] || genericWords[s] || stopSlip(w), lex: -1}
		if !t.generic {
			t.lex = lex().Lookup(w)
		}
		if i+1 < len(ws) && !stopWords[ws[i+1]] && !digits(w) && !digits(ws[i+1]) && lex().Has(w+ws[i+1]) {
			t.closed = stem(w + ws[i+1]) // only words people write closed
		}
		out = append(out, t)
	}
	return out
}

// stopSlip reports whether w, not itself a common word, may be a slip of
// a stop word ("themselfs", "wiht", "teh"): as a distinctive word of its
// own it would ask for something no trigger has.
func stopSlip(w string) bool {
	if len(w) < 3 || digits(w) || commonWord(w) {
		return false
	}
	lim := typoLimit(w)
	// Words more than lim letters longer or shorter are further apart.
	for n := max(3, len(w)-lim); n <= len(w)+lim && n < len(stopWordsByLength); n++ {
		for _, sw := range stopWordsByLength[n] {
			if lim > 0 && n >= 4 && editDistance(w, sw, lim) <= lim || len(w) == 3 && transposed(w, sw) {
				return true
			}
		}
	}
	return false
}

// stopWordsByLength are the stop words by their length, each length in a
// fixed order.
var stopWordsByLength = func() (out [][]string) {
	for _, w := range slices.Sorted(maps.Keys(stopWords)) {
		for len(out) <= len(w) {
			out = append(out, nil)
		}
		out[len(w)] = append(out[len(w)], w)
	}
	return out
}()

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

// asksWhatItIs reports whether text only asks for knowledge or advice:
// what something is or means, how it works, who made it, what is good for
// it ("what is a robot vacuum", "what does MOT stand for", "explain what
// docker is", "how do memory leaks happen", "who invented double glazing",
// "why do dogs like the beach", "what's a good book about productivity").
// However much such a question shares with a procedure's trigger, it is
// not a task. A question about the user's own things ("what
// is filling up my disk") or with a second clause ("what does error E119
// mean? check the manual") is a task. A question after some chat ("my cat
// knocked coffee everywhere, lol. anyway, any tips for keeping a kitten off
// the counters?") is still a question.
func asksWhatItIs(text string) bool {
	whole := strings.ToLower(strings.TrimSpace(text))
	if asksOnly(whole) {
		return true
	}
	last := whole
	for _, end := range []string{". ", "! ", "? "} {
		if i := strings.LastIndex(strings.TrimRight(last, "?!. "), end); i >= 0 {
			last = last[i+len(end):]
		}
	}
	last = strings.TrimSpace(last)
	for _, opener := range []string{"anyway", "anyhow", "so", "ok", "okay", "btw"} {
		if rest, ok := strings.CutPrefix(last, opener); ok && (strings.HasPrefix(rest, ",") || strings.HasPrefix(rest, " ")) {
			last = strings.TrimLeft(rest, ", ")
			break
		}
	}
	return last != whole && asksOnly(last)
}

// asksOnly is asksWhatItIs for one sentence, in lower case and trimmed.
func asksOnly(text string) bool {
	t := strings.TrimRight(text, "?!. ")
	if strings.ContainsAny(t, "?!,;:") {
		return false
	}
	w := words(t)
	about := w
	if len(w) > 2 && w[0] == "tell" && w[1] == "me" {
		about = w[2:] // "tell me about X" is for the user, not about them
	}
	if slices.ContainsFunc(about, func(x string) bool { return ownWords[x] }) {
		return false
	}
	switch {
	case len(w) >= 3 && w[0] == "explain" && (w[1] == "what" || w[1] == "how"):
		return true
	case len(w) >= 3 && w[0] == "what" && w[1] == "does":
		return slices.Contains(w, "mean") || slices.Contains(w, "stand")
	case len(w) >= 4 && w[0] == "how" && (w[1] == "does" || w[1] == "do"):
		// "how does wifi work", "how do thumbnails work on youtube"
		for i := 3; i < len(w); i++ {
			if (w[i] == "work" || w[i] == "happen") && (i == len(w)-1 || placeWords[w[i+1]]) {
				return true
			}
		}
		return false
	case len(w) >= 4 && w[0] == "how" && (w[1] == "many" || w[1] == "much"):
		// "how many calories are in a banana", "how much does a new
		// boiler cost"; "how many files are in the downloads folder"
		// counts particular things.
		return !slices.Contains(w, "the") && (slices.Contains(w, "a") || slices.Contains(w, "an"))
	case len(w) >= 4 && w[0] == "how" && w[1] == "long" && (w[3] == "a" || w[3] == "an" || w[3] == "it"):
		// "how long does a flight to berlin take"
		return true
	case len(w) >= 4 && w[0] == "what" && slices.Contains(w[1:4], "difference"):
		// "what's the difference between flac and mp3"
		return true
	case len(w) >= 4 && w[0] == "is" && w[1] == "it" && judgements[w[2]]:
		// "is it better to rent or buy a house"
		return true
	case len(w) >= 4 && w[0] == "tell" && w[1] == "me" && w[2] == "about":
		// "tell me about the history of email" (the user's own things
		// were ruled out above: "tell me about my meetings" is a task)
		return true
	case len(w) >= 4 && w[0] == "why" && (w[1] == "is" || w[1] == "are") && w[2] != "the":
		// "why are flights so expensive in summer"; "why is the site
		// slow" is about a particular site
		return true
	case len(w) >= 5 && w[0] == "what" && adviceWays(afterCopula(w[1:])):
		return true
	case len(w) >= 5 && w[0] == "where" && (w[1] == "does" || w[1] == "do") && w[len(w)-2] == "come" && w[len(w)-1] == "from":
		// "where does the word email come from"
		return true
	case len(w) >= 3 && (w[0] == "any" || w[0] == "some") && (w[1] == "tips" || w[1] == "advice" || w[1] == "ideas"):
		// "any tips to become better at public speaking"
		return true
	case len(w) >= 3 && w[0] == "who" && historyVerbs[w[1]]:
		return true
	case len(w) >= 4 && (w[0] == "what" || w[0] == "which") && historyTimes[w[1]]:
		// "what year did the first email get sent"
		return true
	case len(w) >= 4 && w[0] == "when" && (w[1] == "was" || w[1] == "were") && historyVerbs[w[len(w)-1]]:
		// "when was the telephone invented"
		return true
	case len(w) >= 4 && w[0] == "why" && w[1] == "do" && w[2] != "the":
		// "why do photos come out blurry" asks about things in general;
		// "why do the tests fail on the build server" is about these.
		return true
	case len(w) >= 2 && w[0] == "what":
		// "what is a X", "what are X", "what's a X" ("what's" reads as
		// "what"), naming at most three words. "the" and longer phrases
		// are left alone: "what's the lowest fare to lisbon" is a task.
		rest := afterCopula(w[1:])
		asked := len(rest) < len(w)-1
		if len(rest) > 0 && (rest[0] == "a" || rest[0] == "an") {
			rest, asked = rest[1:], true
		}
		// "what is using port 8080" asks about something going on: a task.
		return asked && len(rest) > 0 && len(rest) <= 3 && rest[0] != "the" && !strings.HasSuffix(rest[0], "ing")
	}
	return false
}

// historyVerbs make "who invented X" a question about history.
var historyVerbs = set("invented wrote discovered painted composed founded built designed created directed")

// afterCopula is the words after a leading "is" or "are" ("what is a X";
// "what's" reads as "what").
func afterCopula(w []string) []string {
	if len(w) > 0 && (w[0] == "is" || w[0] == "are") {
		return w[1:]
	}
	return w
}

// adviceWays reports whether the words after "what" (and "is") ask for a
// recommendation or a way in general: "what's a good book about X", "what
// is the healthiest way to cook X".
func adviceWays(w []string) bool {
	if len(w) < 3 {
		return false
	}
	switch {
	case (w[0] == "a" || w[0] == "an") && (w[1] == "good" || w[1] == "nice" || w[1] == "fun"):
		return true
	case w[0] == "the" && bestWays[w[1]] && w[2] == "way":
		return true
	}
	return false
}

// bestWays make "what's the best way to X" a question for advice; not
// "cheapest" or "quickest", which ask for a fare or a route.
var bestWays = set("best easiest healthiest simplest right proper safest")

// placeWords may follow "work" in "how does X work on Y".
var placeWords = set("on in at for with without when through under")

// judgements make "is it better to X" a question for advice.
var judgements = set("better worse safe worth ok okay normal true possible healthy legal bad good cheaper")

// historyTimes make "what year did X" a question about history.
var historyTimes = set("year years century decade")

// ownWords mark a question about the user's own things.
var ownWords = set("my our your mine ours this these those i me we us")

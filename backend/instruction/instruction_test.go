package instruction

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// words returns n words of filler, standing for pasted text.
func words(n int) string {
	f := make([]string, n)
	for i := range f {
		f[i] = "w" + strings.Repeat("x", i%3)
	}
	return strings.Join(f, " ")
}

// first and last return s's first or last n words.
func first(n int, s string) string { f := strings.Fields(s); return strings.Join(f[:n], " ") }
func last(n int, s string) string  { f := strings.Fields(s); return strings.Join(f[len(f)-n:], " ") }

func TestOf(t *testing.T) {
	paste := words(100) + ". " + words(80) + "."
	for _, tc := range []struct {
		name, request, want string
	}{
		{"short requests are read whole", "summarise this article: " + words(20), "summarise this article: " + words(20)},
		{"at the limit", words(MaxWords), words(MaxWords)},
		{"a chatty request, its task in the middle", words(30) + ". convert the report to pdf. " + words(40) + ".", words(30) + ". convert the report to pdf. " + words(40) + "."},
		{"instruction first, after a colon", "translate this into french: " + paste, "translate this into french:\n" + last(Half, paste)},
		{"instruction last, on its own line", paste + "\n\nsummarise the above in three bullets", first(Half, paste) + "\nsummarise the above in three bullets"},
		{"instruction last, after a dash", paste + " -- turn it into a shopping list", first(Half, paste) + "\nturn it into a shopping list"},
		{"at both ends", "is this right? " + paste + " what do you think?", "is this right?\nwhat do you think?"},
		{"no punctuation at all", words(200), first(Half, words(200)) + "\n" + last(Half, words(200))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.request); got != tc.want {
				t.Fatalf("Of(…) = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOfNeverLong(t *testing.T) {
	for _, r := range []string{words(MaxWords + 1), words(5000), "a:\n" + words(900) + "\n\n\n", strings.Repeat("— ", 500) + words(MaxWords+10), strings.Repeat("word.\n", 300)} {
		if n := len(strings.Fields(Of(r))); n > 2*Half || n == 0 {
			t.Fatalf("Of kept %d words of a %d-word request, want 1 to %d", n, len(strings.Fields(r)), 2*Half)
		}
	}
}

// TestOfBoundedInBytes: material without spaces counts as few words, so
// it is bounded by bytes too: its first and last MaxBytes/2, whole
// characters, the instruction at its start kept.
func TestOfBoundedInBytes(t *testing.T) {
	blob := strings.Repeat("aGVsbG8gd29y/bGQ+dGhp", 2000) // base64 broken by '/' and '+': no run is long
	cjk := strings.Repeat("把这份报告转换成PDF格式", 400)
	for _, tc := range []struct {
		name, request, start, end string
	}{
		{"base64 after the instruction", "please summarise this blob:\n" + blob, "please summarise this blob:\n", "+dGhp"},
		{"a long text without spaces", cjk, "把这份", "PDF格式"},
		{"minified code, then the instruction", strings.Repeat("function(a){return a+1};", 500) + "\nwhat does this do?", "function(a)", "what does this do?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Of(tc.request)
			if len(got) > MaxBytes || !utf8.ValidString(got) || !strings.HasPrefix(got, tc.start) || !strings.HasSuffix(got, tc.end) {
				t.Fatalf("Of kept %d bytes (valid UTF-8: %v), want at most %d from %q to %q: %.80q…%.80q", len(got), utf8.ValidString(got), MaxBytes, tc.start, tc.end, got, got[max(0, len(got)-80):])
			}
		})
	}
	if r := strings.Repeat("é", MaxBytes/2); Of(r) != r {
		t.Fatal("a request of MaxBytes was changed")
	}
}

// TestRuns: a run of ASCII letters and digits longer than any word is
// material and is left out; words, paths, URLs and text in scripts
// written without spaces are kept.
func TestRuns(t *testing.T) {
	dna := strings.Repeat("gattaca", 100)
	long := strings.Repeat("x", MaxRun)
	cjk := strings.Repeat("把这份报告转换成PDF格式", 5)
	for _, tc := range []struct {
		name, request, want string
	}{
		{"a sequence after the instruction", "find the restriction sites in this dna sequence " + dna, "find the restriction sites in this dna sequence "},
		{"a hash inside", "is " + dna + " the checksum of my iso?", "is  the checksum of my iso?"},
		{"a run of exactly MaxRun is a word", "look up " + long, "look up " + long},
		{"one letter more is not", "look up " + long + "x", "look up "},
		{"base64 keeps its short pieces", "decode aGVsbG8gd29ybGQgdGhpcyBpcyBhIHZlcnkgbG9uZyBzdHJpbmcgb2YgYmFzZTY0IHRleHQ/yes please", "decode /yes please"},
		{"paths and URLs are kept", "open ~/Documents/quarterly-report-final-v2.docx from https://example.com/a/b", "open ~/Documents/quarterly-report-final-v2.docx from https://example.com/a/b"},
		{"a script without spaces is not a run", cjk, cjk},
		{"only a run: nothing else to read", dna, dna},
		{"only a run and punctuation", dna + "?!", dna + "?!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.request); got != tc.want {
				t.Fatalf("Of(…) = %q, want %q", got, tc.want)
			}
		})
	}
}

package memory

import "testing"

func TestWordMatch(t *testing.T) {
	for _, tc := range []struct {
		trigger, request string
		want             float64
	}{
		{"photos", "photos", wExact},
		{"photos", "photo", wExact},           // same stem
		{"photos", "photso", wTypo},           // a slip
		{"calendar", "calender", wTypo},       // a misspelling common enough to be in the lexicon, but rare
		{"letter", "better", wRealWordTypo},   // two common words an edit apart
		{"luggage", "baggage", wSynonym},      // curated synonym group
		{"thesis", "dissertation", wSynonym},  // lexicon cosine 0.92: credit capped at a curated synonym's
		{"holiday", "vacation", wNear + 0.16}, // cosine 0.71
		{"thesis", "banana", 0},
		{"folder", "dissertation", 0}, // generic trigger words get no credit by meaning
	} {
		got := wordMatch(terms(tc.trigger)[0], terms(tc.request))
		want := tc.want
		if got < want-0.01 || got > want+0.01 {
			t.Errorf("wordMatch(%q, %q) = %.3f, want %.3f", tc.trigger, tc.request, got, want)
		}
	}
}

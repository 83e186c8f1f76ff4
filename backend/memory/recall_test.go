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
		got := pairMatch(terms(tc.request)[0], terms(tc.trigger)[0])
		want := tc.want
		if got < want-0.01 || got > want+0.01 {
			t.Errorf("pairMatch(%q, %q) = %.3f, want %.3f", tc.trigger, tc.request, got, want)
		}
	}
}

func TestConfidenceIsSymmetric(t *testing.T) {
	trigger := [][]term{terms("email the landlord about the heating")}
	conf := func(request string) float64 { return confidence(newMatcher(terms(request)), trigger) }
	same := conf("email the landlord about the heating")
	longer := conf("it's freezing again, please email the landlord about the heating before noon")
	// Two of the trigger's three words, in a request about other things:
	// the trigger's side alone would say 0.67.
	elsewhere := conf("the landlord sent an email about parking permits, recycling and the intercom")
	if same < 0.99 {
		t.Errorf("the trigger itself scores %.2f, want 1", same)
	}
	if longer < Threshold || longer >= same {
		t.Errorf("the request inside a longer message scores %.2f, want at least %.2f and below %.2f", longer, Threshold, same)
	}
	if elsewhere >= Threshold {
		t.Errorf("a request about something else that shares two words scores %.2f, want below %.2f", elsewhere, Threshold)
	}
}

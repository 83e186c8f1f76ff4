package spell

import "testing"

func TestOSA(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"merge", "merge", 2, 0},
		{"mrege", "merge", 2, 1}, // two letters swapped
		{"gest", "guest", 2, 1},  // one dropped
		{"spreadsheats", "spreadsheets", 2, 1},
		{"pfd", "pdf", 2, 1},
		{"helath", "health", 2, 1},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 1, 2}, // past the limit: limit+1
		{"a", "abcdef", 2, 3},
	} {
		if got := OSA(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("OSA(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

func TestSpellerCorrects(t *testing.T) {
	sp := Default()
	if sp == nil {
		t.Fatal("no speller: the lexicon did not load")
	}
	known := Vocabulary{"paris": 1, "train": 2, "dropbox": 1, "gone": 0}
	for _, tc := range []struct {
		word string
		hint bool
		want string
	}{
		{"batery", false, "battery"},
		{"chekc", false, "check"},
		{"spreadsheats", false, "spreadsheets"},
		{"recieve", false, "receive"},
		{"dekstop", false, "desktop"},
		{"trian", true, "train"},      // the store's word first ("brian" is as near)
		{"battery", false, "battery"}, // a word: left alone
		{"pairs", true, "pairs"},      // a common word is never corrected
		{"dropbx", true, "dropbox"},   // to the store's vocabulary
		{"zxqwv", false, "zxqwv"},     // nothing near: left alone
		{"abc", false, "abc"},         // too short to guess
		{"v2.3", false, "v2.3"},       // not a word
	} {
		var k Vocabulary
		if tc.hint {
			k = known
		}
		if got := sp.Correct(tc.word, k); got != tc.want {
			t.Errorf("Correct(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	// A word the store no longer holds (count 0) is no target.
	if got := sp.Correct("dropbx", Vocabulary{"dropbox": 0}); got == "dropbox" {
		t.Errorf("Correct(dropbx) = %q from a vocabulary word with count 0", got)
	}
}

package procedures

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/spell"
)

// TestRecallByMeaning: requests that share no word that matters with the
// trigger they mean are recalled by meaning (sentence vectors, words close
// in meaning), with a probability as the score; the filters still hold,
// and requests about something else stay unrecalled.
func TestRecallByMeaning(t *testing.T) {
	ctx := context.Background()
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	procs := map[string]string{
		"meetings": "tell me which meetings I can skip next week",
		"folders":  "delete the empty folders in my documents",
		"location": "find out which apps are allowed to use my location",
		"mechanic": "find a mechanic to fix the rattling noise in my car",
		"window":   "draft an email to the landlord asking when the broken window will be fixed",
	}
	ids := learnEach(t, m, procs, func(key string) []string { return []string{"fs.list", "fs.read", "tool." + key} })
	for _, tc := range []struct {
		request, want string
		has           func(string) bool
	}{
		{"which of next week's meetings are optional for me", "meetings", all},
		{"remove folders with nothing in them from my documents", "folders", all},
		{"which apps can see where i am", "location", all},
		// The same request when the chain's tool is gone: nothing.
		{"which apps can see where i am", "", func(t string) bool { return t != "tool.location" }},
		{"what's the tallest mountain in europe", "", all},
		// Known false positive (docs/recall-log.md, ninth session): "which apps use the most
		// battery" takes the location procedure, as two "which apps ..."
		// requests about a phone.
	} {
		hits, err := m.Recall(ctx, tc.request, tc.has, 3)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && len(hits) > 0:
			t.Errorf("%q recalled %q (score %.2f), want nothing", tc.request, hits[0].Procedure.Trigger, hits[0].Score)
		case tc.want != "" && (len(hits) != 1 || hits[0].Procedure.ID != ids[tc.want]):
			t.Errorf("%q: got %+v, want %q alone", tc.request, hits, procs[tc.want])
		case tc.want != "" && (hits[0].Score < model.Threshold || hits[0].Score > 1):
			t.Errorf("%q: score %.3f, want a probability in [%.2f, 1]", tc.request, hits[0].Score, model.Threshold)
		}
	}
	// Forgotten by the user: not rescued either.
	if _, err := m.Forget(ctx, ids["meetings"], true); err != nil {
		t.Fatal(err)
	}
	if hits, _ := m.Recall(ctx, "which of next week's meetings are optional for me", all, 3); len(hits) > 0 {
		t.Errorf("forgotten procedure rescued: %+v", hits)
	}
}

// TestWordOrderBreaksTies: two triggers with the same words in opposite
// directions each win their own wording, whatever their uses, once their
// sentence vectors are computed.
func TestWordOrderBreaksTies(t *testing.T) {
	ctx := context.Background()
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	pairs := [][2]string{
		{"Convert the PDF of my CV into a Word document", "convert the word document of my cv into a pdf"},
		{"copy the photos from the laptop to the phone", "copy the photos from the phone to the laptop"},
	}
	for i, pair := range pairs {
		var ids [2]string
		for j, trig := range pair {
			p := Procedure{ID: fmt.Sprintf("p%d%d", i, j), Trigger: trig, Tools: listReadWrite, Uses: 1 - j}
			if err := m.Add(ctx, p); err != nil {
				t.Fatal(err)
			}
			ids[j] = p.ID
		}
		// Word order is the sentence vectors' to tell: by words alone the
		// twins tie and the more used wins. Without waiting for them the
		// test passed or failed by how fast the encoder was (3 in 10 runs
		// failed).
		if err := m.Settle(ctx); err != nil {
			t.Fatal(err)
		}
		for j, trig := range pair {
			hits, err := m.Recall(ctx, trig, all, 3)
			if err != nil || len(hits) == 0 || hits[0].Procedure.ID != ids[j] {
				t.Errorf("%q: got %+v, want %s first", trig, hits, ids[j])
			}
		}
	}
}

// TestForgottenBlocksItsSibling: a request about a forgotten procedure is
// not rescued by the nearest procedure that may be recalled, which would
// be a sibling, not what was asked for.
func TestForgottenBlocksItsSibling(t *testing.T) {
	ctx := context.Background()
	const request = "email the signed lease to my landlord"
	sibling := Procedure{ID: "p-heating", Trigger: "reply to the landlord about the broken heating", Tools: listReadWrite}
	forgotten := Procedure{ID: "p-lease", Trigger: request, Tools: []string{"fs.search", "mail.draft", "mail.search"}, Forgotten: true}

	// The sibling alone is close enough to be rescued: what the block
	// below has to stop.
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	if err := m.Add(ctx, sibling); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if hits, _ := m.Recall(ctx, request, all, 3); len(hits) != 1 || hits[0].Procedure.ID != sibling.ID {
		t.Fatalf("alone, the sibling is not rescued (%+v): the test needs a pair that is", hits)
	}

	if err := m.Add(ctx, forgotten); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if hits, _ := m.Recall(ctx, request, all, 3); len(hits) > 0 {
		t.Errorf("the forgotten procedure's request recalled %q", hits[0].Procedure.Trigger)
	}
	// The same when the procedure names a tool that is gone.
	if _, err := m.Restore(ctx, forgotten.ID); err != nil {
		t.Fatal(err)
	}
	noDraft := func(tool string) bool { return tool != "fs.search" }
	if hits, _ := m.Recall(ctx, request, noDraft, 3); len(hits) > 0 {
		t.Errorf("the stale procedure's request recalled %q", hits[0].Procedure.Trigger)
	}
	if hits, _ := m.Recall(ctx, request, all, 3); len(hits) == 0 || hits[0].Procedure.ID != forgotten.ID {
		t.Errorf("restored, the procedure is not recalled first: %+v", hits)
	}
}

// TestCandidatesByMeaning: a request that shares no word with the trigger
// it means, and whose words have no near neighbour in it either, reaches
// ranking through the nearest sentence vectors; by words alone it is not
// a candidate at all.
func TestCandidatesByMeaning(t *testing.T) {
	ctx := context.Background()
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	procs := map[string]string{
		"party":   "draft an email inviting the neighbours to the block party on saturday",
		"startup": "check which apps start automaticaly when i log in",
		"backup":  "back up my photos to the external drive",
	}
	ids := learnEach(t, m, procs, func(key string) []string { return []string{"fs.list", "fs.read", "tool." + key} })
	request := "write a message asking the people on our street to come to the street fest this weekend"
	_, ranked, err := m.Rank(ctx, request, all)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ranked, func(r recall.Ranked) bool { return r.ID == ids["party"] }) {
		t.Fatalf("%q: the party procedure is not a candidate: %+v", request, ranked)
	}
	m.mu.RLock()
	q := recall.Analyse(request, spell.Default(), m.words)
	byWords, err := m.index.search(q, m.docFreq, len(m.procs), searchLimit)
	m.mu.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(byWords, ids["party"]) {
		t.Skipf("the index found %q by its words too: this request no longer tests the vectors' candidates", procs["party"])
	}
}

// TestExactRepeatRanksFirst: a request asked again word for word ranks
// its own procedure first, above a near twin that differs in one word the
// word vectors put close (three and five, Saturday and Sunday), however
// the twin's uses compare: a candidate at least as close on every feature
// never ranks lower (the ranking's weights are fitted non-negative).
func TestExactRepeatRanksFirst(t *testing.T) {
	ctx := context.Background()
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	pairs := [][2]string{
		{"squash my last three commits into one", "squash my last five commits into one"},
		{"book the tennis court for saturday morning", "book the tennis court for sunday morning"},
		{"check how much ram my laptop has left", "check how much cpu my laptop has left"},
		{"convert the word doc on my desktop to pdf", "convert the pdf on my desktop to a word doc"},
	}
	var procs []Procedure
	for i, p := range pairs {
		for j, trig := range p {
			procs = append(procs, Procedure{ID: fmt.Sprintf("p%d%d", i, j), Trigger: trig, Tools: listReadWrite, Uses: 3 * j})
		}
	}
	if err := m.AddAll(ctx, procs); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		for j, trig := range p {
			_, ranked, err := m.Rank(ctx, trig, all)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("p%d%d", i, j)
			if len(ranked) == 0 {
				t.Errorf("%q ranked nothing, want its own procedure %s first", trig, want)
			} else if ranked[0].ID != want {
				t.Errorf("%q ranked %s first, want its own procedure %s", trig, ranked[0].ID, want)
			}
		}
	}
}

// TestRepeatIsWork: a request that repeats a learned trigger word for word
// is recalled even when it reads like a question (the work model alone
// turned both of these down: p(work) 0.21 and 0.49), with or without its
// question mark, and in other languages, whatever the English speller
// makes of their words; one that only shares its topic is no repeat; and
// a verbatim repeat of a forgotten procedure is not answered by its
// sibling.
func TestRepeatIsWork(t *testing.T) {
	ctx := context.Background()
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	procs := []Procedure{
		{ID: "disk", Trigger: "what is eating up all my disk space", Tools: listReadWrite},
		{ID: "trash", Trigger: "free up disk space by emptying the trash and the downloads folder", Tools: listReadWrite},
		{ID: "lasagne", Trigger: "find a recipe for a vegan lasagne", Tools: listReadWrite},
		{ID: "curry", Trigger: "find a recipe for a chicken curry and add it to my notes", Tools: listReadWrite},
		{ID: "pdf", Trigger: "how big is the pdf on my desktop", Tools: listReadWrite},
		{ID: "pdf2", Trigger: "shrink the pdf on my desktop so it fits in an email", Tools: listReadWrite},
		// Requests in other languages: the English speller makes English
		// words of theirs ("fais" "fans", "mois" "moss"), not always the
		// same with the store's words as it was and as it is.
		{ID: "somme", Trigger: "fais la somme des dépenses du mois dans le tableur", Tools: listReadWrite},
		{ID: "journaux", Trigger: "compresse les journaux de plus de sept jours dans une archive", Tools: listReadWrite},
		{ID: "dentista", Trigger: "añade la reunión con el dentista al calendario el martes a las diez", Tools: listReadWrite},
	}
	if err := m.AddAll(ctx, procs); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ request, want string }{
		{"what is eating up all my disk space", "disk"},
		{"What is eating up all my disk space?", "disk"},
		{"find a recipe for a vegan lasagne", "lasagne"},
		{"how big is the pdf on my desktop?", "pdf"},
		{"fais la somme des dépenses du mois dans le tableur", "somme"},
		{"Añade la reunión con el dentista al calendario el martes a las diez.", "dentista"},
	} {
		hits, err := m.Recall(ctx, tc.request, all, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Procedure.ID != tc.want {
			t.Errorf("%q recalled %v, want %s first", tc.request, triggers(hits), tc.want)
		}
	}
	_, ranked, err := m.Rank(ctx, "what is disk space", all)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ranked {
		if r.Repeat {
			t.Errorf("%q is taken as a repeat of %s", "what is disk space", r.ID)
		}
	}
	if _, err := m.Forget(ctx, "pdf", true); err != nil {
		t.Fatal(err)
	}
	if hits, err := m.Recall(ctx, "how big is the pdf on my desktop", all, 3); err != nil || len(hits) > 0 {
		t.Errorf("a repeat of a forgotten procedure recalled %v (%v), want nothing", triggers(hits), err)
	}
}

// TestEncodeBudget: a recall whose encoding cannot finish within its
// budget ranks and decides by words (no vector, and still the right
// procedure); with time it has the vector; a caller that gives up gets
// its context's error.
func TestEncodeBudget(t *testing.T) {
	ctx := context.Background()
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	trig := "print the boarding passes for our flight on thursday"
	if err := m.AddAll(ctx, []Procedure{{ID: "passes", Trigger: trig, Tools: listReadWrite}, {ID: "ebook", Trigger: "convert this ebook for my kindle", Tools: listReadWrite}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		budget time.Duration
		vector bool
	}{{"no time", 0, false}, {"an hour", time.Hour, true}} {
		q, ranked, _, err := m.rank(ctx, trig, all, tc.budget)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Vector != nil; got != tc.vector {
			t.Errorf("%s: request vector present = %v, want %v", tc.name, got, tc.vector)
		}
		if len(ranked) == 0 || ranked[0].ID != "passes" {
			t.Errorf("%s: ranked %v first, want passes", tc.name, ranked)
		}
	}
	m.SetEncodeBudget(0)
	if hits, err := m.Recall(ctx, trig, all, 3); err != nil || len(hits) == 0 || hits[0].Procedure.ID != "passes" {
		t.Errorf("with no time to encode, recalled %v (%v), want passes by its words", triggers(hits), err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Recall(done, trig, all, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled recall returned %v, want context.Canceled", err)
	}
}

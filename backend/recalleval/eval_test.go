package recalleval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// loadSet reads an evaluation set the way the eval command does.
func loadSet(t *testing.T, path string) *Dataset {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := LoadDataset(f)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestRecallQuality runs the evaluation sets through the agent's recall
// (as `shrimp procedures eval` does) and scores them the way the kit's
// score.py does: recall@1 over answerable queries, the false-positive rate
// over expect-null ones, and never a forgotten or unknown-tool procedure.
// The floors sit a little under the measured scores, so a change that
// costs quality fails here rather than in the held-out scoring.
func TestRecallQuality(t *testing.T) {
	var pooled struct{ answerable, top1, top5, null, fp int }
	defer func() {
		if t.Failed() || pooled.answerable == 0 {
			return
		}
		r1 := float64(pooled.top1) / float64(pooled.answerable)
		r5 := float64(pooled.top5) / float64(pooled.answerable)
		fpr := float64(pooled.fp) / float64(pooled.null)
		t.Logf("all sets pooled: recall@1 %.3f, recall@5 %.3f, false positives %.3f", r1, r5, fpr)
		if r1 < 0.93 || r5 < 0.94 || fpr > 0.05 {
			t.Errorf("pooled recall@1 %.3f (floor 0.93), recall@5 %.3f (floor 0.94), false positives %.3f (ceiling 0.05)", r1, r5, fpr)
		}
	}()
	for _, tc := range []qualityCase{
		// Floors sit 0.03 under the scores measured with the fitted model
		// of #17 (refitted in the sixteenth session with a monotone
		// ranking) and nearest-vector candidates (false-positive ceilings
		// 0.03 over, at least 0.05); the pooled check below holds the
		// studied sets together. dev32 to dev38 are unread: docs/recall.md.
		{"sample.jsonl", 0.89, 0.93, 0.05, "r@1 0.922, r@5 0.961, fp 0.000"},
		{"dev.jsonl", 0.93, 0.95, 0.28, "r@1 0.967, r@5 0.983, fp 0.250"},
		{"dev2.jsonl", 0.93, 0.97, 0.15, "r@1 0.965, r@5 1.000, fp 0.111"},
		{"dev3.jsonl", 0.91, 0.93, 0.08, "r@1 0.942, r@5 0.962, fp 0.045"},
		{"dev4.jsonl", 0.95, 0.95, 0.11, "r@1 0.988, r@5 0.988, fp 0.080"},
		{"dev5.jsonl", 0.95, 0.95, 0.05, "r@1 0.987, r@5 0.987, fp 0.000"},
		{"dev6.jsonl", 0.95, 0.97, 0.05, "r@1 0.988, r@5 1.000, fp 0.000"},
		{"dev7.jsonl", 0.93, 0.94, 0.05, "r@1 0.961, r@5 0.974, fp 0.000"},
		{"dev8.jsonl", 0.95, 0.95, 0.05, "r@1 0.989, r@5 0.989, fp 0.000"},
		{"dev9.jsonl", 0.97, 0.97, 0.05, "r@1 1.000, r@5 1.000, fp 0.000"},
		{"dev10.jsonl", 0.94, 0.97, 0.05, "r@1 0.975, r@5 1.000, fp 0.000"},
		{"dev11.jsonl", 0.94, 0.94, 0.05, "r@1 0.976, r@5 0.976, fp 0.000"},
		{"dev12.jsonl", 0.95, 0.95, 0.05, "r@1 0.988, r@5 0.988, fp 0.000"},
		{"dev13.jsonl", 0.93, 0.94, 0.05, "r@1 0.964, r@5 0.976, fp 0.000"},
		{"dev14.jsonl", 0.93, 0.94, 0.05, "r@1 0.964, r@5 0.976, fp 0.000"},
		{"dev15.jsonl", 0.94, 0.95, 0.05, "r@1 0.975, r@5 0.988, fp 0.000"},
		{"dev16.jsonl", 0.95, 0.97, 0.05, "r@1 0.988, r@5 1.000, fp 0.000"},
		{"dev17.jsonl", 0.92, 0.92, 0.05, "r@1 0.951, r@5 0.951, fp 0.000"},
		{"dev18.jsonl", 0.93, 0.95, 0.06, "r@1 0.964, r@5 0.988, fp 0.024"},
		{"dev19.jsonl", 0.92, 0.92, 0.05, "r@1 0.952, r@5 0.952, fp 0.000"},
		{"dev20.jsonl", 0.92, 0.92, 0.05, "r@1 0.952, r@5 0.952, fp 0.000"},
		{"dev21.jsonl", 0.89, 0.94, 0.05, "r@1 0.928, r@5 0.976, fp 0.000"},
		{"dev22.jsonl", 0.94, 0.94, 0.05, "r@1 0.975, r@5 0.975, fp 0.000"},
		{"dev23.jsonl", 0.94, 0.97, 0.05, "r@1 0.976, r@5 1.000, fp 0.000"},
		{"dev24.jsonl", 0.89, 0.92, 0.05, "r@1 0.929, r@5 0.952, fp 0.000"},
		{"dev25.jsonl", 0.95, 0.95, 0.06, "r@1 0.988, r@5 0.988, fp 0.030"},
		{"dev26.jsonl", 0.97, 0.97, 0.05, "r@1 1.000, r@5 1.000, fp 0.000"},
		{"dev27.jsonl", 0.95, 0.95, 0.05, "r@1 0.988, r@5 0.988, fp 0.000"},
		{"dev28.jsonl", 0.91, 0.93, 0.05, "r@1 0.940, r@5 0.964, fp 0.000"},
		{"dev29.jsonl", 0.92, 0.94, 0.05, "r@1 0.958, r@5 0.979, fp 0.000"},
		{"dev30.jsonl", 0.94, 0.97, 0.05, "r@1 0.978, r@5 1.000, fp 0.000"},
		{"dev31.jsonl", 0.89, 0.92, 0.05, "r@1 0.929, r@5 0.952, fp 0.000"},
		{"dev32.jsonl", 0.92, 0.92, 0.07, "r@1 0.953, r@5 0.953, fp 0.040"},
		{"dev33.jsonl", 0.87, 0.87, 0.05, "r@1 0.905, r@5 0.905, fp 0.000"},
		{"dev34.jsonl", 0.94, 0.94, 0.11, "r@1 0.977, r@5 0.977, fp 0.077"},
		{"dev35.jsonl", 0.94, 0.94, 0.11, "r@1 0.975, r@5 0.975, fp 0.071"},
		{"dev36.jsonl", 0.94, 0.94, 0.15, "r@1 0.978, r@5 0.978, fp 0.115"},
		{"dev37.jsonl", 0.93, 0.94, 0.18, "r@1 0.962, r@5 0.977, fp 0.149"},
		{"dev38.jsonl", 0.93, 0.95, 0.14, "r@1 0.966, r@5 0.983, fp 0.103"},
		// Written blind in the twentieth session, measured once.
		{"dev39.jsonl", 0.95, 0.95, 0.05, "r@1 0.980, r@5 0.980, fp 0.000"},
		{"dev40.jsonl", 0.97, 0.97, 0.06, "r@1 1.000, r@5 1.000, fp 0.033"},
		{"dev41.jsonl", 0.87, 0.91, 0.05, "r@1 0.902, r@5 0.941, fp 0.000"},
		// German, Spanish and French requests (twenty-fifth session): the
		// false positives are its four new chores, as in English.
		{"languages.jsonl", 0.92, 0.92, 0.35, "r@1 1.000, r@5 1.000, fp 0.308"},
		// French, German, Spanish and Chinese (forty-third session): the
		// misses are rewordings the English work model turned down.
		{"languages2.jsonl", 0.65, 0.65, 0.1, "r@1 0.714, r@5 0.714, fp 0.000"},
		// The same with Chinese, a repeat and a rewording of each procedure
		// (sixtieth session): a French repeat the speller read otherwise
		// than its trigger was turned down until repeats were known as
		// typed too.
		{"languages3.jsonl", 0.85, 0.85, 0.05, "r@1 0.875, r@5 0.875, fp 0.000"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			c := scoreSet(t, loadSet(t, path), path)
			pooled.answerable, pooled.top1, pooled.top5 = pooled.answerable+c.answerable, pooled.top1+c.top1, pooled.top5+c.top5
			pooled.null, pooled.fp = pooled.null+c.null, pooled.fp+c.fp
			t.Logf("%s: %s; measured at the last recall change: %s", tc.file, c, tc.measured)
			c.check(t, tc.minR1, tc.minR5, tc.maxFP)
		})
	}
}

// qualityCase is a set with the scores it must keep and those last
// measured.
type qualityCase struct {
	file                string
	minR1, minR5, maxFP float64
	measured            string
}

// counts are one set's scores as score.py counts them.
type counts struct{ answerable, top1, top5, null, fp int }

func (c counts) rates() (r1, r5, fp float64) {
	return float64(c.top1) / float64(c.answerable), float64(c.top5) / float64(c.answerable), float64(c.fp) / float64(c.null)
}

func (c counts) String() string {
	r1, r5, fp := c.rates()
	return fmt.Sprintf("recall@1 %.3f, recall@5 %.3f (%d, %d of %d), false positives %.3f (%d/%d)", r1, r5, c.top1, c.top5, c.answerable, fp, c.fp, c.null)
}

// check fails t when a rate is past its floor or ceiling.
func (c counts) check(t *testing.T, minR1, minR5, maxFP float64) {
	t.Helper()
	if r1, r5, fp := c.rates(); r1 < minR1 || r5 < minR5 || fp > maxFP {
		t.Errorf("recall@1 %.3f (floor %.2f), recall@5 %.3f (floor %.2f), false positives %.3f (ceiling %.2f)", r1, minR1, r5, minR5, fp, maxFP)
	}
}

// scoreSet runs ds through the agent's recall, as `shrimp procedures eval`
// does, and scores it against the labels of the set at path; returning a
// forgotten or unknown-tool procedure is an error.
func scoreSet(t *testing.T, ds *Dataset, path string) counts {
	t.Helper()
	var out bytes.Buffer
	if err := Eval(context.Background(), ds, []string{"bleve"}, &out, nil); err != nil {
		t.Fatal(err)
	}
	l, err := ReadLabels(path)
	if err != nil {
		t.Fatal(err)
	}
	var c counts
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r Result
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		exp := l[r.Query].Expect
		for _, id := range r.Results {
			if id == l[r.Query].Target && id != "" {
				t.Errorf("%s returned %s, a forgotten or unknown-tool procedure", r.Query, id)
			}
		}
		if exp == "" {
			c.null++
			if len(r.Results) > 0 {
				c.fp++
			}
			continue
		}
		c.answerable++
		if len(r.Results) > 0 && r.Results[0] == exp {
			c.top1++
		}
		if slices.Contains(r.Results[:min(5, len(r.Results))], exp) {
			c.top5++
		}
	}
	return c
}

// TestRecallQualityCrowded scores the sample and the unread sets in a
// store several times their size: each set's procedures and those of four
// studied sets (dev28 to dev31, 119 more), as the held-out set's store is
// several times the sample's. Some of the crowd's procedures are close to
// a set's own (the same chore on another day), so these scores are a
// little under what a store without near-duplicates would give; they
// guard against losing more as the store grows. Numbers: docs/recall.md.
func TestRecallQualityCrowded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: each crowded set encodes ~140 triggers")
	}
	var crowd []*Dataset
	for _, name := range []string{"dev28.jsonl", "dev29.jsonl", "dev30.jsonl", "dev31.jsonl"} {
		crowd = append(crowd, loadSet(t, filepath.Join("testdata", name)))
	}
	for _, tc := range []qualityCase{
		// Floors 0.03 under the sixteenth session's measurement (the
		// model refitted with a monotone ranking), ceilings 0.03 over.
		{"sample.jsonl", 0.81, 0.91, 0.07, "r@1 0.843, r@5 0.941, fp 0.033"},
		{"dev32.jsonl", 0.87, 0.92, 0.07, "r@1 0.907, r@5 0.953, fp 0.040"},
		{"dev33.jsonl", 0.82, 0.87, 0.05, "r@1 0.857, r@5 0.905, fp 0.000"},
		{"dev34.jsonl", 0.78, 0.92, 0.15, "r@1 0.818, r@5 0.955, fp 0.115"},
		{"dev35.jsonl", 0.84, 0.92, 0.28, "r@1 0.875, r@5 0.950, fp 0.250"},
		{"dev36.jsonl", 0.77, 0.88, 0.27, "r@1 0.800, r@5 0.911, fp 0.231"},
		{"dev38.jsonl", 0.88, 0.93, 0.14, "r@1 0.915, r@5 0.966, fp 0.103"},
		{"dev39.jsonl", 0.87, 0.95, 0.05, "r@1 0.902, r@5 0.980, fp 0.000"},
		{"dev40.jsonl", 0.87, 0.95, 0.06, "r@1 0.902, r@5 0.980, fp 0.033"},
		{"dev41.jsonl", 0.85, 0.91, 0.05, "r@1 0.882, r@5 0.941, fp 0.000"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			ds := loadSet(t, path)
			own := len(ds.Procedures)
			for i, c := range crowd {
				ds.Crowd(c, fmt.Sprintf("crowd%d:", i))
			}
			c := scoreSet(t, ds, path)
			t.Logf("%s in a store of %d (%d its own): %s; measured: %s", tc.file, len(ds.Procedures), own, c, tc.measured)
			c.check(t, tc.minR1, tc.minR5, tc.maxFP)
		})
	}
}

// A crowded set gains the other's procedures under prefixed IDs, their
// forgets and tools (prefixed as well), and none of its queries.
func TestCrowd(t *testing.T) {
	d := &Dataset{Tools: map[string]bool{"fs.read": true}, Forgets: map[string]int{"p1": 1}, Procedures: []procedures.Procedure{{ID: "p1"}}, Queries: []Query{{ID: "q1"}}}
	d.Procedures[0].Tools = []string{"fs.read", "web.fetch"} // unknown in d's set
	o := &Dataset{Tools: map[string]bool{"web.fetch": true}, Forgets: map[string]int{"p1": 3}, Procedures: []procedures.Procedure{{ID: "p1", Trigger: "other", Tools: []string{"web.fetch"}}}, Queries: []Query{{ID: "q9"}}}
	d.Crowd(o, "x:")
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"procedures", len(d.Procedures), 2},
		{"crowd's id", d.Procedures[1].ID, "x:p1"},
		{"crowd's trigger", d.Procedures[1].Trigger, "other"},
		{"own forgets", d.Forgets["p1"], 1},
		{"crowd's forgets", d.Forgets["x:p1"], 3},
		{"crowd's tool, prefixed", d.Tools["x:web.fetch"], true},
		{"crowd's chain, prefixed", d.Procedures[1].Tools[0], "x:web.fetch"},
		{"crowd's tool does not revive d's unknown-tool procedure", d.Tools["web.fetch"], false},
		{"own tool", d.Tools["fs.read"], true},
		{"queries", len(d.Queries), 1},
		{"other's procedures untouched", o.Procedures[0].ID, "p1"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestTypoRobustness misspells the triggers of several sets the way people
// slip (each word of four letters or more, with chance 0.6, or 0.3 for a
// stop word, by two letters swapped, one dropped, one doubled or one hit
// on a neighbouring key; words of seven letters or more sometimes twice),
// with a fixed seed, and recalls every recallable procedure by its
// misspelt trigger from the right store, then by its right trigger from a
// store of misspelt ones: typos in the request and in the stored trigger
// alike.
func TestTypoRobustness(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		file     string
		minR1    float64
		measured string
	}{
		// Measured with the fitted model of #17; floors 0.03 under.
		{"sample.jsonl", 0.91, "query typos 1.000, trigger typos 0.944"},
		{"dev4.jsonl", 0.95, "query typos 1.000, trigger typos 1.000"},
		{"dev12.jsonl", 0.90, "query typos 1.000, trigger typos 0.932"},
		{"dev20.jsonl", 0.87, "query typos 1.000, trigger typos 0.909"},
		{"dev22.jsonl", 0.95, "query typos 1.000, trigger typos 1.000"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ds := loadSet(t, filepath.Join("testdata", tc.file))
			rng := rand.New(rand.NewPCG(1, 2))
			has := func(t string) bool { return ds.Tools[t] }
			clean := make([]procedures.Procedure, len(ds.Procedures))
			slipped := make([]procedures.Procedure, len(ds.Procedures))
			for i, p := range ds.Procedures {
				p.Demerits = ds.Forgets[p.ID]
				clean[i] = p
				p.Trigger = misspell(p.Trigger, rng)
				slipped[i] = p
			}
			for _, dir := range []struct {
				name          string
				stored, asked []procedures.Procedure
			}{
				{"query typos", clean, slipped},
				{"trigger typos", slipped, clean},
			} {
				st, err := store.Open(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				mem, err := procedures.OpenInMemory(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				mem.WaitForMeaning()
				if err := mem.AddAll(ctx, dir.stored); err != nil {
					t.Fatal(err)
				}
				if err := mem.Settle(ctx); err != nil {
					t.Fatal(err)
				}
				asked, found := 0, 0
				for i, p := range dir.stored {
					if status, _ := procedures.Status(p, has); status != procedures.StatusActive {
						continue
					}
					asked++
					hits, err := mem.Recall(ctx, dir.asked[i].Trigger, has, 5)
					if err != nil {
						t.Fatal(err)
					}
					if len(hits) > 0 && hits[0].Procedure.ID == p.ID {
						found++
					} else {
						t.Logf("%s: %q did not recall %q first", dir.name, dir.asked[i].Trigger, p.Trigger)
					}
				}
				mem.Close()
				st.Close()
				r1 := float64(found) / float64(asked)
				t.Logf("%s: recall@1 %.3f (%d of %d); measured when written: %s", dir.name, r1, found, asked, tc.measured)
				if r1 < tc.minR1 {
					t.Errorf("%s: recall@1 %.3f, floor %.2f", dir.name, r1, tc.minR1)
				}
			}
		})
	}
}

// misspell slips some of text's words the way typists do.
func misspell(text string, rng *rand.Rand) string {
	const rows = "qwertyuiop asdfghjkl  zxcvbnm"
	slip := func(w string) string {
		i := 1 + rng.IntN(len(w)-2)
		switch rng.IntN(4) {
		case 0:
			return w[:i] + w[i+1:i+2] + w[i:i+1] + w[i+2:]
		case 1:
			return w[:i] + w[i+1:]
		case 2:
			return w[:i] + w[i:i+1] + w[i:]
		}
		k := strings.IndexByte(rows, w[i])
		if k < 0 {
			return w
		}
		// A key beside it on the same row.
		n := k + 1
		if n >= len(rows) || rows[n] == ' ' || rng.IntN(2) == 0 && k > 0 && rows[k-1] != ' ' {
			n = k - 1
		}
		if n < 0 || rows[n] == ' ' {
			return w
		}
		return w[:i] + rows[n:n+1] + w[i+1:]
	}
	ws := strings.Fields(text)
	for i, w := range ws {
		core := strings.ToLower(strings.Trim(w, ".,?!;:"))
		chance := 0.6
		if recall.IsStop(core) {
			chance = 0.3 // "wiht", "abotu": slipped too, if less often
		}
		if len(core) < 4 || strings.IndexFunc(core, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 || rng.Float64() >= chance {
			continue
		}
		s := slip(core)
		if len(core) >= 7 && rng.Float64() < 0.3 {
			s = slip(s)
		}
		ws[i] = s
	}
	return strings.Join(ws, " ")
}

// TestPastedMaterial scores testdata/pasted.jsonl: the sample's
// procedures and six that work on text given with the request
// (summarise, translate, reply, action items, a log, a recipe), asked with
// 120-180 words of pasted material before or after the instruction.
// Reading the whole request, recall scored 0.333 / 0.333 / 0.250: the
// material decided the task. Reading its ends (package instruction):
// 1.000 / 1.000 / 0.500. The two false positives are "<recipe> how long
// does this keep?" (the recipe's shopping list) and "lol look what my
// flatmate sent: <email>" (a reply to the flatmate's email).
func TestPastedMaterial(t *testing.T) {
	path := filepath.Join("testdata", "pasted.jsonl")
	c := scoreSet(t, loadSet(t, path), path)
	t.Logf("pasted.jsonl: %s", c)
	c.check(t, 0.9, 0.9, 0.5)
}

// TestQuestionsRecallNothing asks questions that fit no procedure
// (testdata/questions.txt: knowledge, advice and chit-chat on the topics
// people give an assistant) of one store holding every set's procedures,
// and counts the questions that recall anything: a false positive each.
func TestQuestionsRecallNothing(t *testing.T) {
	// measured 0.014 (2 of 139) with 1,561 procedures, nearest-vector
	// candidates and the model fitted with them; the same with 1,669
	// (dev37 added); 0.022 (3 of 139) with 1,709 (dev38 added) and the
	// ranking refitted monotone, and with 1,781 (dev39-dev41 added)
	recallNothing(t, "questions.txt", 0.06)
}

// TestStrangersRecallNothing asks for work no stored procedure does
// (testdata/strangers.txt: chores an assistant is asked for, each sharing
// less than half of every set's triggers' words: "order a pizza with extra
// olives", "update my linkedin headline") of the same store. It is the
// weak point of #17's design (docs/recall.md): the acceptance model has
// only seen requests whose task was stored, and the sentence encoder puts
// unrelated chores at cosine 0.5-0.6, where paraphrases sit too. The
// ceiling guards today's rate (0.727, 40 of 55, with 1,781 procedures;
// 0.732, 41 of 56, with 1,709; 0.714 with 1,669 before the sixteenth
// session's refit and dev38), which is far above the target of 0.05.
// "reset the router" was dropped with dev39, which holds that chore.
func TestStrangersRecallNothing(t *testing.T) {
	recallNothing(t, "strangers.txt", 0.8)
}

// recallNothing asks each line of testdata/file (none fits any
// procedure) of one store holding every set's procedures (the sample's
// and the dev sets') and fails when more than ceiling of them recall
// something.
func recallNothing(t *testing.T, file string, ceiling float64) {
	ctx := context.Background()
	paths, err := filepath.Glob(filepath.Join("testdata", "dev*.jsonl"))
	paths = append(paths, filepath.Join("testdata", "sample.jsonl"))
	if err != nil || len(paths) == 1 {
		t.Fatalf("no sets: %v", err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mem, err := procedures.OpenInMemory(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	mem.WaitForMeaning()
	tools := map[string]bool{}
	var procs []procedures.Procedure
	for _, path := range paths {
		ds := loadSet(t, path)
		for _, p := range ds.Procedures {
			p.Demerits = ds.Forgets[p.ID]
			p.ID = filepath.Base(path) + ":" + p.ID // ids repeat across sets
			procs = append(procs, p)
		}
		for tool := range ds.Tools {
			tools[tool] = true
		}
	}
	if err := mem.AddAll(ctx, procs); err != nil {
		t.Fatal(err)
	}
	if err := mem.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	asked, recalled := 0, 0
	for _, q := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		asked++
		hits, err := mem.Recall(ctx, q, func(t string) bool { return tools[t] }, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) > 0 {
			recalled++
			t.Logf("%q recalled %q (%.2f)", q, hits[0].Procedure.Trigger, hits[0].Score)
		}
	}
	rate := float64(recalled) / float64(asked)
	t.Logf("%d of %d in %s recalled a procedure from %d: false positives %.3f", recalled, asked, file, len(procs), rate)
	if rate > ceiling {
		t.Errorf("false positives %.3f, ceiling %.2f", rate, ceiling)
	}
}

func TestReadLabels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "set.jsonl")
	if err := os.WriteFile(path, []byte(`{"kind":"procedure","id":"p1","trigger":"x","tools":[]}
{"kind":"query","id":"q1","text":"x","expect":"p1","type":"repeat"}

{"kind":"query","id":"q2","text":"y","expect":null,"type":"forgotten","target":"p1","variant":"repeat"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := ReadLabels(path)
	if err != nil || len(l) != 2 || l["q1"] != (Label{Expect: "p1", Type: "repeat"}) || l["q2"] != (Label{Type: "forgotten", Target: "p1"}) {
		t.Fatalf("labels %+v %v", l, err)
	}
	if err := os.WriteFile(path, []byte("{\"kind\":\"query\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLabels(path); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a malformed line: %v", err)
	}
}

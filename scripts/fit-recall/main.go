// Command fit-recall fits recall's ranking and acceptance models to the
// studied evaluation sets and writes backend/recall/model.json (`make
// fit-recall`). With -eval it scores sets with the current model instead,
// without fitting: the quick loop for trying a feature, before the real
// measurement through `shrimp procedures eval` and score.py.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/recalleval"
	"github.com/shrimp-harness/shrimp/backend/store"
)

type set struct {
	name   string
	texts  []string
	qs     []recall.Query
	ranked [][]recall.Ranked // with the cosine; Rescore drops it
	expect []string
	kinds  []string // query types: read only to fit the intent direction
}

// load ranks every query of a set through the procedural memory, as the
// agent's recall does (a fresh temporary store, the index's candidates,
// the sentence vectors), and reads the labels the fit needs. The
// procedures of crowd join the store under prefixed IDs: other tasks, so a
// set can be measured in a store several times its size.
func load(ctx context.Context, path string, crowd []string) (*set, error) {
	ds, err := readSet(path)
	if err != nil {
		return nil, err
	}
	labels, err := recalleval.ReadLabels(path)
	if err != nil {
		return nil, err
	}
	s := &set{name: filepath.Base(path)}
	for _, q := range ds.Queries {
		s.texts = append(s.texts, q.Text)
		s.expect = append(s.expect, labels[q.ID].Expect)
		s.kinds = append(s.kinds, labels[q.ID].Type)
	}
	own := len(ds.Procedures)
	for _, c := range crowd {
		cs, err := readSet(c)
		if err != nil {
			return nil, err
		}
		ds.Crowd(cs, filepath.Base(c)+":")
	}
	if len(crowd) > 0 {
		s.name += fmt.Sprintf("+%d", len(ds.Procedures)-own)
	}
	n := len(s.texts)
	s.qs, s.ranked, err = rankAll(ctx, withDemerits(ds), ds.Tools, append(slices.Clone(s.texts), strangerTexts...))
	if err != nil || len(strangerTexts) == 0 {
		return s, err
	}
	st := &set{name: s.name + "~strangers", texts: strangerTexts, qs: s.qs[n:], ranked: s.ranked[n:]}
	for range strangerTexts {
		st.expect, st.kinds = append(st.expect, ""), append(st.kinds, "stranger")
	}
	s.qs, s.ranked = s.qs[:n], s.ranked[:n]
	strangerSets = append(strangerSets, st)
	return s, err
}

// strangerTexts are the -strangers requests; strangerSets hold them as
// ranked against each set's own store, measured and never fitted on.
var (
	strangerTexts []string
	strangerSets  []*set
)

// readSet reads an evaluation set.
func readSet(path string) (*recalleval.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ds, err := recalleval.LoadDataset(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// withDemerits is ds's procedures with their forgets as demerits.
func withDemerits(ds *recalleval.Dataset) []procedures.Procedure {
	procs := make([]procedures.Procedure, len(ds.Procedures))
	for i, p := range ds.Procedures {
		p.Demerits = ds.Forgets[p.ID]
		procs[i] = p
	}
	return procs
}

// embedder is the embedding model -embed-model names (nil: none).
var embedder procedures.Embedder

// rankAll ranks each text against one fresh store of procs (with the
// embedding model, when one is named).
func rankAll(ctx context.Context, procs []procedures.Procedure, tools map[string]bool, texts []string) ([]recall.Query, [][]recall.Ranked, error) {
	dir, err := os.MkdirTemp("", "fit-recall-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	mem, err := procedures.OpenInMemory(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	defer mem.Close()
	if err := mem.AddAll(ctx, procs); err != nil {
		return nil, nil, err
	}
	if err := mem.Settle(ctx); err != nil {
		return nil, nil, err
	}
	if err := recalleval.UseEmbedder(ctx, mem, embedder); err != nil {
		return nil, nil, err
	}
	has := func(t string) bool { return tools[t] }
	var qs []recall.Query
	var ranked [][]recall.Ranked
	for _, text := range texts {
		q, r, err := mem.Rank(ctx, text, has)
		if err != nil {
			return nil, nil, err
		}
		qs, ranked = append(qs, q), append(ranked, r)
	}
	return qs, ranked, nil
}

// questions ranks the questions of path (one per line; none fits any
// procedure: knowledge, advice, chit-chat) against one store of every
// procedure of files: hard negatives, since in a store that large most
// share a topic with some procedure.
func questions(ctx context.Context, files []string, path string) (*set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	all := &recalleval.Dataset{Tools: map[string]bool{}, Forgets: map[string]int{}}
	for _, file := range files {
		ds, err := readSet(file)
		if err != nil {
			return nil, err
		}
		all.Crowd(ds, filepath.Base(file)+":")
	}
	s := &set{name: filepath.Base(path)}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		s.texts = append(s.texts, line)
		s.expect = append(s.expect, "")
		s.kinds = append(s.kinds, "unrelated")
	}
	s.qs, s.ranked, err = rankAll(ctx, withDemerits(all), all.Tools, s.texts)
	return s, err
}

// view is one query as a model sees it: with or without the cosine.
func (s *set) view(m *recall.Model, i int, withCos bool) (recall.Query, []recall.Ranked) {
	q := s.qs[i]
	if !withCos {
		q.Vector = nil
	}
	return q, m.Rescore(s.ranked[i], withCos && q.Vector != nil)
}

func main() {
	eval := flag.Bool("eval", false, "score the sets with the current model instead of fitting")
	spread := flag.Float64("spread", defaults.spread, "how far below the best (log-odds) another candidate may be offered beside it")
	auc := flag.Bool("intent-auc", false, "print the intent classifier's AUC on the sets")
	questionsFile := flag.String("questions", "", "a file of questions no procedure fits, ranked against every set's procedures at once (hard negatives)")
	modelFile := flag.String("model", "", "with -eval: the model to score with (default: the built-in one)")
	why := flag.Bool("explain", false, "with -eval: print the misses and false positives")
	out := flag.String("out", "backend/recall/model.json", "where to write the fitted model")
	l2 := flag.Float64("l2", defaults.l2, "L2 penalty on the weights")
	intentL2 := flag.Float64("intent-l2", defaults.intentL2, "L2 penalty on the intent classifier's weights")
	fixed := flag.Float64("threshold", defaults.fixed, "a fixed acceptance threshold (0: choose it for -max-fp)")
	maxFP := flag.Float64("max-fp", defaults.maxFP, "the false-positive rate the threshold is chosen for on the fitted sets")
	monotone := flag.Bool("monotone", defaults.monotone, "keep the ranking's weights at zero or above (a candidate at least as close on every feature never ranks lower)")
	crowd := flag.Int("crowd", 0, "with -eval: add to each set's store the procedures of the next N sets named (cyclic), as other tasks")
	embedModel := flag.String("embed-model", "", "with -eval: compare meanings with this Ollama embedding model (at -ollama) as well as the built-in encoder")
	strangersFile := flag.String("strangers", "", "requests for tasks no set holds, ranked against each set's own store and reported apart")
	absent := flag.Float64("absent", defaults.absent, "the weight, in the acceptance fit, of each answerable request ranked without its task (how often a request for work asks for a task the store lacks, against one it holds)")
	ollamaHost := flag.String("ollama", os.Getenv("OLLAMA_HOST"), "with -embed-model: the Ollama server (default OLLAMA_HOST, else http://127.0.0.1:11434)")
	flag.Parse()
	if *embedModel != "" {
		if !*eval {
			log.Fatal("-embed-model measures; the model is fitted on the built-in encoder's cosines")
		}
		mc, err := model.New(*ollamaHost)
		if err != nil {
			log.Fatal(err)
		}
		embedder = model.Embedder{Client: mc, Model: *embedModel}
	}
	files := flag.Args()
	if len(files) == 0 {
		log.Fatal("usage: fit-recall [-eval] SET.jsonl...")
	}
	var sets []*set
	if *crowd > 0 && !*eval {
		log.Fatal("-crowd measures; the model is fitted on the sets' own stores")
	}
	if *strangersFile != "" {
		b, err := os.ReadFile(*strangersFile)
		if err != nil {
			log.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				strangerTexts = append(strangerTexts, l)
			}
		}
	}
	for i, f := range files {
		var others []string
		for k := 1; k <= min(*crowd, len(files)-1); k++ {
			others = append(others, files[(i+k)%len(files)])
		}
		s, err := load(context.Background(), f, others)
		if err != nil {
			log.Fatal(err)
		}
		sets = append(sets, s)
	}
	if *questionsFile != "" {
		s, err := questions(context.Background(), files, *questionsFile)
		if err != nil {
			log.Fatal(err)
		}
		sets = append(sets, s)
	}
	m := recall.Default()
	if *modelFile != "" {
		b, err := os.ReadFile(*modelFile)
		if err != nil {
			log.Fatal(err)
		}
		if m, err = recall.ParseModel(b); err != nil {
			log.Fatal(err)
		}
	}
	if !*eval {
		m = fitModel(sets, options{l2: *l2, intentL2: *intentL2, absent: *absent, maxFP: *maxFP, spread: *spread, fixed: *fixed, monotone: *monotone})
		if err := os.WriteFile(*out, encodeModel(m), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	coverage(sets)
	if *auc {
		intentAUC(m, sets)
	}
	if *why {
		for _, s := range sets {
			explain(m, s, s.texts)
		}
	}
	for _, withCos := range []bool{true, false} {
		var rec, all int
		for _, s := range strangerSets {
			r := score(m, s, withCos)
			rec, all = rec+r[3], all+r[4]
		}
		if all > 0 {
			fmt.Printf("strangers in each set's store cos=%-5v recalled %.3f (%d of %d)\n", withCos, frac(rec, all), rec, all)
		}
		var tot [5]int
		for _, s := range sets {
			r := score(m, s, withCos)
			for i := range tot {
				tot[i] += r[i]
			}
			fmt.Printf("%-14s cos=%-5v r@1 %.3f r@5 %.3f fp %.3f\n", s.name, withCos, frac(r[0], r[2]), frac(r[1], r[2]), frac(r[3], r[4]))
		}
		fmt.Printf("%-14s cos=%-5v r@1 %.3f r@5 %.3f fp %.3f\n", "ALL", withCos, frac(tot[0], tot[2]), frac(tot[1], tot[2]), frac(tot[3], tot[4]))
	}
}

func names(sets []*set) []string {
	var n []string
	for _, s := range sets {
		n = append(n, s.name)
	}
	return n
}

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// score returns top1, top5, answerable, false positives, nulls.
func score(m *recall.Model, s *set, withCos bool) [5]int {
	var r [5]int
	for i := range s.qs {
		q, ranked := s.view(m, i, withCos)
		got := m.Decide(q, ranked, withCos, 5)
		if s.expect[i] == "" {
			r[4]++
			if len(got) > 0 {
				r[3]++
			}
			continue
		}
		r[2]++
		for k, g := range got {
			if g.ID == s.expect[i] {
				if k == 0 {
					r[0]++
				}
				r[1]++
			}
		}
	}
	return r
}

func fit(sets []*set, o options) *recall.Model {
	l2 := o.l2
	m := recall.Default()
	m.Intent = intent(sets, o.intentL2)
	m.Form = form(sets, o.intentL2)
	for _, withCos := range []bool{true, false} {
		var x [][]float64
		var y, w []float64
		for _, s := range sets {
			for i := range s.qs {
				_, ranked := s.view(m, i, withCos)
				for _, r := range ranked {
					x = append(x, r.Features.Vector(withCos))
					if r.ID == s.expect[i] {
						y, w = append(y, 1), append(w, 10)
					} else {
						y, w = append(y, 0), append(w, 1)
					}
				}
			}
		}
		fitRank := FitLogistic
		if o.monotone {
			fitRank = FitLogisticNonNeg
		}
		beta, err := fitRank(x, y, w, l2)
		if err != nil {
			log.Fatal(err)
		}
		if withCos {
			m.RankFull = beta
		} else {
			m.RankWords = beta
		}
		// The runner-up's median score, the margins' floor.
		var nexts []float64
		for _, s := range sets {
			for i := range s.qs {
				if _, ranked := s.view(m, i, withCos); len(ranked) > 1 {
					nexts = append(nexts, ranked[1].Score)
				}
			}
		}
		slices.Sort(nexts)
		if withCos {
			m.NextFloorFull = nexts[len(nexts)/2]
		} else {
			m.NextFloorWords = nexts[len(nexts)/2]
		}
		// Acceptance on the refitted ranking, for requests for work (the
		// unrelated queries are the work model's to turn down).
		x, y = nil, nil
		var aw []float64
		var mx [][]float64 // merge rows: the acceptance rows and the absent-task ones
		var my []float64
		var wx [][]float64
		var wy []float64
		for _, s := range sets {
			for i := range s.qs {
				q, ranked := s.view(m, i, withCos)
				if s.expect[i] != "" || s.kinds[i] == "unrelated" {
					wx = append(wx, m.WorkInputs(q, withCos))
					wy = append(wy, b2f(s.expect[i] != ""))
				}
				top := slices.IndexFunc(ranked, func(r recall.Ranked) bool { return r.Recallable })
				if top < 0 || s.kinds[i] == "unrelated" {
					continue
				}
				in, same := m.AcceptInputs(q, ranked, top, withCos), b2f(ranked[top].ID == s.expect[i])
				x, y, aw = append(x, in), append(y, same), append(aw, 1)
				if s.expect[i] == "" {
					continue
				}
				// The same request had its task never been learned, the
				// state every new task's first request meets: its best
				// recallable candidate is not its task. Acceptance weighs
				// these rows by how often that happens (o.absent); merging
				// as often as the rest, since a wrong merge keeps a wrong
				// wording for good.
				absent := slices.DeleteFunc(slices.Clone(ranked), func(r recall.Ranked) bool { return r.ID == s.expect[i] })
				if t := slices.IndexFunc(absent, func(r recall.Ranked) bool { return r.Recallable }); t >= 0 && o.absent > 0 {
					x, y, aw = append(x, m.AcceptInputs(q, absent, t, withCos)), append(y, 0), append(aw, o.absent)
				}
				if !withCos {
					mx, my = append(mx, in), append(my, same)
					if len(absent) > 0 {
						mx, my = append(mx, m.AcceptInputs(q, absent, 0, false)), append(my, 0)
					}
				}
			}
		}
		beta, err = FitLogistic(x, y, aw, l2)
		if err != nil {
			log.Fatal(err)
		}
		if withCos {
			m.AcceptFull = beta
		} else {
			m.AcceptWords = beta
			if m.MergeWords, err = FitLogistic(mx, my, nil, l2); err != nil {
				log.Fatal(err)
			}
		}
		if beta, err = FitLogistic(wx, wy, nil, l2); err != nil {
			log.Fatal(err)
		}
		if withCos {
			m.WorkFull = beta
		} else {
			m.WorkWords = beta
		}
	}
	return m
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// explain prints each answerable query that missed, or null query that
// hit, with the top candidates' features.
func explain(m *recall.Model, s *set, texts []string) {
	for i := range s.qs {
		q, ranked := s.view(m, i, true)
		got := m.Decide(q, ranked, true, 5)
		ok := (s.expect[i] == "" && len(got) == 0) || (len(got) > 0 && got[0].ID == s.expect[i])
		if ok {
			continue
		}
		p := 0.0
		if top := slices.IndexFunc(ranked, func(r recall.Ranked) bool { return r.Recallable }); top >= 0 {
			p = m.Accept(m.AcceptInputs(q, ranked, top, true), true)
		}
		in := m.WorkInputs(q, true)
		fmt.Printf("MISS %q expect=%s p(accept)=%.2f p(work)=%.2f intent=%.2f form=%.2f\n", texts[i], s.expect[i], p, m.Work(q, true), in[0], in[1])
		for _, r := range ranked[:min(3, len(ranked))] {
			fmt.Printf("   %s rec=%v score=%.2f %+v\n", r.ID, r.Recallable, r.Score, r.Features)
		}
	}
}

// intent fits a logistic regression on the request's sentence vector
// that tells requests for work (the answerable queries) from questions and
// chit-chat (the unrelated ones), and returns its weights (bias first).
func intent(sets []*set, l2 float64) []float64 {
	var x [][]float64
	var y []float64
	for _, s := range sets {
		for i, q := range s.qs {
			if q.Vector == nil || (s.expect[i] == "" && s.kinds[i] != "unrelated") {
				continue
			}
			row := make([]float64, len(q.Vector))
			for j, v := range q.Vector {
				row[j] = float64(v)
			}
			x = append(x, row)
			if s.expect[i] != "" {
				y = append(y, 1)
			} else {
				y = append(y, 0)
			}
		}
	}
	beta, err := FitLogistic(x, y, nil, l2)
	if err != nil {
		log.Fatal(err)
	}
	return beta
}

// threshold is the lowest acceptance probability (in steps of 0.01) down
// to which the fitted sets' false-positive rate stays at most maxFP at
// every step, for the full model or the words-only one: scanned from high
// to low, so a dip in the rate below a higher one cannot pick it.
func threshold(m *recall.Model, sets []*set, maxFP float64, withCos bool) float64 {
	set := func(t float64) {
		if withCos {
			m.Threshold = t
		} else {
			m.ThresholdWords = t
		}
	}
	best := 0.9
	for step := 90; step >= 20; step-- {
		t := float64(step) / 100
		set(t)
		var fp, null int
		for _, s := range sets {
			r := score(m, s, withCos)
			fp, null = fp+r[3], null+r[4]
		}
		if frac(fp, null) > maxFP {
			break
		}
		best = t
	}
	set(best)
	return best
}

// coverage prints how many answerable queries have their procedure among
// the candidates at all.
func coverage(sets []*set) {
	var in, all int
	for _, s := range sets {
		for i, e := range s.expect {
			if e == "" {
				continue
			}
			all++
			if slices.ContainsFunc(s.ranked[i], func(r recall.Ranked) bool { return r.ID == e }) {
				in++
			}
		}
	}
	fmt.Printf("candidates hold the expected procedure for %d of %d answerable queries (%.3f)\n", in, all, frac(in, all))
}

// options are the fit's settings (main's flags).
type options struct {
	l2, intentL2, maxFP, spread, fixed float64
	monotone                           bool // ranking weights at zero or above
	// absent is the weight of the acceptance rows that ask for a task the
	// store lacks: each answerable request ranked without its own
	// procedure, its best recallable candidate labelled 0.
	absent float64
}

// defaults are the settings model.json is fitted with.
var defaults = options{l2: 1, intentL2: 1, maxFP: 0.03, spread: 2, fixed: 0.5, monotone: true}

// fitModel fits every weight and threshold to sets.
func fitModel(sets []*set, o options) *recall.Model {
	m := fit(sets, o)
	m.Spread = o.spread
	// Seven significant digits: the fit's last digits depend on the
	// order of its sums, which the shipped model's own ranking sets.
	round := func(v float64) float64 {
		r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 7, 64), 64)
		return r
	}
	for _, w := range [][]float64{m.RankFull, m.RankWords, m.AcceptFull, m.AcceptWords, m.MergeWords, m.WorkFull, m.WorkWords, m.Intent} {
		for i, v := range w {
			w[i] = round(v)
		}
	}
	for k, v := range m.Form {
		m.Form[k] = round(v)
	}
	m.NextFloorFull, m.NextFloorWords = round(m.NextFloorFull), round(m.NextFloorWords)
	if o.fixed > 0 {
		m.Threshold, m.ThresholdWords = o.fixed, o.fixed
	} else {
		m.Threshold = threshold(m, sets, o.maxFP, true)
		m.ThresholdWords = threshold(m, sets, o.maxFP, false)
	}
	m.Fitted = fmt.Sprintf("make fit-recall: logistic regression (L2 %.g) on %d studied sets: %s", o.l2, len(sets), strings.Join(names(sets), " "))
	if o.absent > 0 {
		m.Fitted += fmt.Sprintf("; acceptance also with each answerable request ranked without its task, weighted %g", o.absent)
	}
	return m
}

// encodeModel is model.json's text.
func encodeModel(m *recall.Model) []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

// intentAUC prints how well the model's intent classifier orders requests
// for work above the unrelated queries of sets (area under the ROC curve).
func intentAUC(m *recall.Model, sets []*set) {
	var work, other []float64
	for _, s := range sets {
		for i, q := range s.qs {
			if q.Vector == nil {
				continue
			}
			v := m.WorkInputs(q, true)[0] // the intent classifier's log-odds
			switch {
			case s.expect[i] != "":
				work = append(work, v)
			case s.kinds[i] == "unrelated":
				other = append(other, v)
			}
		}
	}
	wins := 0.0
	for _, w := range work {
		for _, o := range other {
			switch {
			case w > o:
				wins++
			case w == o:
				wins += 0.5
			}
		}
	}
	fmt.Printf("intent AUC %.3f over %d requests for work and %d unrelated\n", wins/float64(len(work)*len(other)), len(work), len(other))
}

// form fits the form classifier (see recall.Model.Form) on the sets'
// requests for work (the answerable queries) against their unrelated
// queries, and returns its weights by feature ("" the bias).
func form(sets []*set, l2 float64) map[string]float64 {
	index := map[string]int{}
	var names []string
	var rows [][]string
	var y []float64
	for _, s := range sets {
		for i, q := range s.qs {
			if s.expect[i] == "" && s.kinds[i] != "unrelated" {
				continue
			}
			for _, f := range q.Form {
				if _, ok := index[f]; !ok {
					index[f] = len(names)
					names = append(names, f)
				}
			}
			rows = append(rows, q.Form)
			if s.expect[i] != "" {
				y = append(y, 1)
			} else {
				y = append(y, 0)
			}
		}
	}
	x := make([][]float64, len(rows))
	for i, r := range rows {
		x[i] = make([]float64, len(names))
		for _, f := range r {
			x[i][index[f]] = 1
		}
	}
	beta, err := FitLogistic(x, y, nil, l2)
	if err != nil {
		log.Fatal(err)
	}
	out := map[string]float64{"": beta[0]}
	for i, n := range names {
		out[n] = beta[i+1]
	}
	return out
}

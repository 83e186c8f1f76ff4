package procedures

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/lexicon"
	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/sentence"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// synthetic makes n procedures with triggers of 6–14 words drawn (Zipf,
// s=1.1) from a vocabulary of 5,000 distinct words (20 everyday words
// first, so they are the most frequent, then real English words from the
// lexicon's frequency ranks 300 on, so the meaning layer has neighbours to
// expand and compare), and chains from a fixed tool list. Deterministic.
func synthetic(n int) []Procedure {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("photos calendar email invoice backup report meeting budget recipe playlist contract printer password battery spreadsheet slides summary translate archive")
	seen := map[string]bool{}
	for _, w := range vocab {
		seen[w] = true
	}
	for rank := 300; len(vocab) < 5000; rank++ {
		w := lexicon.Default().Word(rank)
		if !seen[w] && !recall.IsStop(w) && len(w) > 2 {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	zipf := rand.NewZipf(r, 1.1, 4, uint64(len(vocab)-1))
	tools := strings.Fields("fs.list fs.read fs.write fs.search shell.run web.fetch mail.draft calendar.add notes.append sheet.read")
	out := make([]Procedure, n)
	for i := range out {
		var w []string
		for range 6 + r.IntN(9) {
			w = append(w, vocab[zipf.Uint64()])
		}
		out[i] = Procedure{
			ID:      fmt.Sprintf("p%06d", i),
			Trigger: strings.Join(w, " "),
			Tools:   []string{tools[r.IntN(10)], tools[r.IntN(10)], tools[r.IntN(10)]},
			Uses:    r.IntN(4),
		}
	}
	return out
}

func benchMemory(b *testing.B, n int) (*Memory, []Procedure) {
	b.Helper()
	dir := b.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	m, err := Open(context.Background(), st, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	procs := synthetic(n)
	presetMeanings(m, procs)
	start := time.Now()
	if err := m.AddAll(context.Background(), procs); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d procedures in %v", n, time.Since(start).Round(time.Millisecond))
	return m, procs
}

// presetMeanings gives every synthetic trigger a sentence vector at once
// (a random unit vector: encoding 100,000 triggers would take half an hour,
// and the background workers would compete with what is measured). A
// rescue by meaning costs the same whatever the vectors hold: the request
// is encoded and compared with each candidate's vector.
func presetMeanings(m *Memory, procs []Procedure) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range procs {
		v := make([]float32, sentence.Dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		m.meanings.Keep(p.Trigger, v)
	}
}

// queries are a mix: a stored trigger reworded with a typo, half a trigger,
// a trigger in other words (each word swapped for its nearest lexicon
// neighbour), and text that fits nothing.
func queries(procs []Procedure) []string {
	r := rand.New(rand.NewPCG(3, 4))
	var qs []string
	for range 300 {
		p := procs[r.IntN(len(procs))]
		w := strings.Fields(p.Trigger)
		switch r.IntN(4) {
		case 0:
			slices.Reverse(w)
			if len(w[0]) > 4 {
				w[0] = w[0][1:]
			}
			qs = append(qs, strings.Join(w, " "))
		case 1:
			qs = append(qs, strings.Join(w[:len(w)/2+1], " ")+" please")
		case 2:
			for i, x := range w {
				if nb := lexicon.Default().Neighbors(x); len(nb) > 0 {
					w[i] = nb[0].Word
				}
			}
			qs = append(qs, strings.Join(w, " "))
		default:
			qs = append(qs, "what is the weather like in lisbon tomorrow afternoon")
		}
	}
	return qs
}

// Recall engines the benchmarks compare.
const (
	engineFull   = iota // words and meaning
	engineWords         // words only
	engineLike          // the prototype's SQL LIKE
	enginePasted        // words and meaning, each request wrapping pasted material
)

func benchRecall(b *testing.B, n int, engine int) {
	if testing.Short() || (n >= 100_000 && os.Getenv("SHRIMP_BENCH_LARGE") == "") {
		b.Skip("set SHRIMP_BENCH_LARGE=1 for 100,000 procedures (about 2 minutes to load)")
	}
	m, procs := benchMemory(b, n)
	m.wordsOnly = engine == engineWords
	qs := queries(procs)
	if engine == enginePasted {
		// Each request is an instruction followed by about 150 words
		// of material (past instruction.MaxWords): sixteen other
		// requests as sentences.
		pasted := make([]string, len(qs))
		for i, q := range qs {
			var material []string
			for k := 1; k <= 16; k++ {
				material = append(material, qs[(i+k*7)%len(qs)])
			}
			pasted[i] = q + ":\n" + strings.Join(material, ". ") + "."
		}
		qs = pasted
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		q := qs[i%len(qs)]
		start := time.Now()
		var err error
		if engine == engineLike {
			_, err = m.repo.RecallLike(context.Background(), q, ForgetThreshold, all, 3)
		} else {
			_, err = m.Recall(context.Background(), q, all, 3)
		}
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

func BenchmarkRecall10k(b *testing.B)       { benchRecall(b, 10_000, engineFull) }
func BenchmarkRecall100k(b *testing.B)      { benchRecall(b, 100_000, engineFull) }
func BenchmarkRecallWords10k(b *testing.B)  { benchRecall(b, 10_000, engineWords) }
func BenchmarkRecallWords100k(b *testing.B) { benchRecall(b, 100_000, engineWords) }
func BenchmarkRecallLike10k(b *testing.B)   { benchRecall(b, 10_000, engineLike) }
func BenchmarkRecallLike100k(b *testing.B)  { benchRecall(b, 100_000, engineLike) }
func BenchmarkRecallPasted10k(b *testing.B) { benchRecall(b, 10_000, enginePasted) }

// BenchmarkLearn is one Learn into a store of 10,000 procedures: the
// merge search, the SQLite write (synchronous FULL) and the index write.
func BenchmarkLearn(b *testing.B) {
	if testing.Short() {
		b.Skip("skipped in -short mode")
	}
	m, _ := benchMemory(b, 10_000)
	b.ResetTimer()
	for i := range b.N {
		if _, err := m.Learn(context.Background(), fmt.Sprintf("tidy the kalomi renzu folder number %d", i), []string{"fs.list", "fs.move", "fs.delete"}, nil, ""); err != nil {
			b.Fatal(err)
		}
		// The new trigger's sentence vector is computed in the
		// background; learning is one per request, so it is done long
		// before the next one. Not timed, and not left to compete.
		b.StopTimer()
		if err := m.Settle(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkRebuild10k rebuilds the on-disk index from 10,000 procedures.
func BenchmarkRebuild10k(b *testing.B) {
	if testing.Short() {
		b.Skip("skipped in -short mode")
	}
	m, _ := benchMemory(b, 10_000)
	b.ResetTimer()
	for range b.N {
		if err := m.Rebuild(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

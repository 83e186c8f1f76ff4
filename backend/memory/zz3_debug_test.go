package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/store"
)

// TestZZAnalyse: per query, confidence of expected vs best other, over all procedures.
func TestZZAnalyse(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip("debug")
	}
	lex().Len()
	files := []string{"sample", "dev", "dev2", "dev3", "dev4"}
	if f := os.Getenv("FILES"); f != "" {
		files = filepath.SplitList(f)
	}
	var allPos, allNeg []float64
	verbose := os.Getenv("V") != ""
	for _, name := range files {
		path := filepath.Join("testdata", name+".jsonl")
		f, _ := os.Open(path)
		ds, err := LoadDataset(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		l := readLabels(t, path)
		st, err := store.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		mem, err := OpenInMemory(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		procs := make([]Procedure, len(ds.Procedures))
		for i, p := range ds.Procedures {
			p.Demerits = ds.Forgets[p.ID]
			procs[i] = p
		}
		mem.AddAll(context.Background(), procs)
		has := func(s string) bool { return ds.Tools[s] }
		for _, q := range ds.Queries {
			qt := terms(q.Text)
			mt := newMatcher(qt)
			exp := l.expect[q.ID]
			var pos float64 = -1
			bestOther, bestID := 0.0, ""
			for id, p := range mem.procs {
				if !p.recallable() || slices.ContainsFunc(p.Tools, func(t string) bool { return !has(t) }) {
					continue
				}
				c := confidence(mt, p.terms)
				if id == exp {
					pos = c
				} else if c > bestOther {
					bestOther, bestID = c, id
				}
			}
			hits, _ := mem.recall(q.Text, has, 5, 0.0001)
			inCand := false
			for _, h := range hits {
				if h.Procedure.ID == exp {
					inCand = true
				}
			}
			if exp != "" {
				allPos = append(allPos, pos)
				if verbose && (pos < Threshold || bestOther >= pos) {
					fmt.Printf("%s MISS %.3f cand=%v other %.3f %s | %s\n", name, pos, inCand, bestOther, bestID, q.Text)
				}
			} else {
				allNeg = append(allNeg, bestOther)
				if verbose && bestOther >= Threshold {
					fmt.Printf("%s FP %.3f %s | %s\n", name, bestOther, mem.procs[bestID].Trigger, q.Text)
				}
			}
		}
		mem.Close()
		st.Close()
	}
	sort.Float64s(allNeg)
	for _, th := range []float64{0.35, 0.4, 0.45, 0.5, 0.55} {
		tp, fp := 0, 0
		for _, v := range allPos {
			if v >= th {
				tp++
			}
		}
		for _, v := range allNeg {
			if v >= th {
				fp++
			}
		}
		fmt.Printf("th %.2f: pos>=th %d/%d (%.3f)  neg>=th %d/%d (%.3f)\n", th, tp, len(allPos), float64(tp)/float64(len(allPos)), fp, len(allNeg), float64(fp)/float64(len(allNeg)))
	}
}

// Package recalleval runs recall evaluation sets in the recall-eval kit's
// JSON Lines format (../shared/recall-eval) through procedural memory, as
// `shrimp procedures eval` does: each set in a fresh temporary store, one
// result line per query and engine, for the kit's score.py. An engine sees
// the declared tools, the procedures, the forgets and each query's text,
// never the labels.
package recalleval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/spell"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/vectors"
)

// Dataset is a recall evaluation set in the recall-eval JSON Lines format.
// Only the fields an engine may read are kept: the declared tools, the
// procedures, the forgets and each query's id and text.
type Dataset struct {
	Tools      map[string]bool
	Procedures []procedures.Procedure
	Forgets    map[string]int
	Queries    []Query
}

// Query is one evaluation query.
type Query struct {
	ID   string
	Text string
}

// LoadDataset reads a dataset. Unknown kinds and malformed lines are
// errors with their line number.
func LoadDataset(r io.Reader) (*Dataset, error) {
	ds := &Dataset{Tools: map[string]bool{}, Forgets: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		// The struct names only the allowed fields: expect, type, target
		// and variant are never read.
		var row struct {
			Kind    string   `json:"kind"`
			Name    string   `json:"name"`
			ID      string   `json:"id"`
			Trigger string   `json:"trigger"`
			Tools   []string `json:"tools"`
			Uses    int      `json:"uses"`
			Times   *int     `json:"times"`
			Text    string   `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			return nil, fmt.Errorf("dataset line %d: %w", n, err)
		}
		switch row.Kind {
		case "tool":
			ds.Tools[row.Name] = true
		case "procedure":
			ds.Procedures = append(ds.Procedures, procedures.Procedure{ID: row.ID, Trigger: row.Trigger, Tools: row.Tools, Uses: row.Uses})
		case "forget":
			times := 1
			if row.Times != nil {
				times = *row.Times
			}
			ds.Forgets[row.ID] += times
		case "query":
			ds.Queries = append(ds.Queries, Query{ID: row.ID, Text: row.Text})
		default:
			return nil, fmt.Errorf("dataset line %d: unknown kind %q", n, row.Kind)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read dataset: %w", err)
	}
	return ds, nil
}

// Crowd adds other's procedures to d under IDs prefixed with prefix, with
// their forgets, and none of its queries: other tasks, so d's queries meet
// a store several times the size their set was written for (a real store
// grows; the evaluation sets hold 22 to 56 procedures). The crowd's tool
// names are prefixed too, so every procedure stays as eligible as in its
// own set: a tool one set declares never revives another's unknown-tool
// procedure.
func (d *Dataset) Crowd(other *Dataset, prefix string) {
	for _, p := range other.Procedures {
		p.ID = prefix + p.ID
		p.Tools = lo.Map(p.Tools, func(t string, _ int) string { return prefix + t })
		d.Procedures = append(d.Procedures, p)
	}
	for id, n := range other.Forgets {
		d.Forgets[prefix+id] += n
	}
	for t := range other.Tools {
		d.Tools[prefix+t] = true
	}
}

// Result is one line of evaluation output.
type Result struct {
	Query   string   `json:"query"`
	Engine  string   `json:"engine"`
	Results []string `json:"results"`
	Micros  int64    `json:"micros"`
}

// Engines lists the evaluation engines.
var Engines = []string{"bleve", "like"}

// Eval loads ds into a fresh temporary store (never the user's), applies
// the forgets, and runs every query through each engine, writing one
// result line per query and engine to w. With emb (an embedding model; nil
// for the built-in encoder alone), recall compares meanings with its
// vectors: every trigger must get one, and the store must be large enough
// to calibrate it, or nothing is scored (a measurement with holes would
// pass for the model's).
func Eval(ctx context.Context, ds *Dataset, engines []string, w io.Writer, emb procedures.Embedder) error {
	dir, err := os.MkdirTemp("", "shrimp-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	mem, err := procedures.OpenInMemory(ctx, st)
	if err != nil {
		return err
	}
	defer mem.Close()
	mem.WaitForMeaning()
	procs := make([]procedures.Procedure, len(ds.Procedures))
	for i, p := range ds.Procedures {
		p.Demerits = ds.Forgets[p.ID]
		procs[i] = p
	}
	if err := mem.AddAll(ctx, procs); err != nil {
		return err
	}
	// The triggers' sentence vectors are computed in the background; an
	// agent's store has them long before a similar request comes.
	if err := mem.Settle(ctx); err != nil {
		return err
	}
	if err := UseEmbedder(ctx, mem, emb); err != nil {
		return err
	}
	spell.Default() // loaded once per process: not part of any query's time
	has := func(t string) bool { return ds.Tools[t] }
	enc := json.NewEncoder(w)
	for _, engine := range engines {
		for _, q := range ds.Queries {
			start := time.Now()
			var ids []string
			switch engine {
			case "bleve":
				hits, err := mem.Recall(ctx, q.Text, has, 5)
				if err != nil {
					return err
				}
				for _, h := range hits {
					ids = append(ids, h.Procedure.ID)
				}
			case "like":
				if ids, err = st.Procedures().RecallLike(ctx, q.Text, procedures.ForgetThreshold, has, 5); err != nil {
					return err
				}
			default:
				return fmt.Errorf("unknown engine %q (use bleve, like or all)", engine)
			}
			if ids == nil {
				ids = []string{}
			}
			if err := enc.Encode(Result{Query: q.ID, Engine: engine, Results: ids, Micros: time.Since(start).Microseconds()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// UseEmbedder makes mem compare meanings with emb (nil: nothing to do) and
// waits until every stored request has its vector. It fails, saying why,
// when some do not or when recall would not use the model (a store too
// small to calibrate it).
func UseEmbedder(ctx context.Context, mem *procedures.Memory, emb procedures.Embedder) error {
	if emb == nil {
		return nil
	}
	if err := mem.SetEmbedder(ctx, emb); err != nil {
		return err
	}
	if err := mem.SettleEmbedder(ctx); err != nil {
		return err
	}
	st := mem.EmbedderStatus()
	switch {
	case st.Embedded < st.Wordings:
		return fmt.Errorf("the embedding model gave vectors for %d of %d stored requests (%v): nothing scored", st.Embedded, st.Wordings, st.Err)
	case !st.InUse:
		return fmt.Errorf("recall uses an embedding model once %d stored requests have its vectors; this set has %d: nothing scored", vectors.MinCalibration, st.Wordings)
	}
	return nil
}

// Label is what a query's line says about the answer: the fields an
// engine must never read, for scoring and for fitting recall's model.
type Label struct {
	Expect string // the procedure the query means, "" for none
	Type   string // repeat, reword, typo, synonym, long, unrelated, forgotten, unknown-tool
	Target string // the forgotten or unknown-tool procedure it aims at
}

// ReadLabels reads the labels of a dataset's queries, by query id.
// Malformed lines are errors with their line number.
func ReadLabels(path string) (map[string]Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]Label{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var row struct {
			Kind   string  `json:"kind"`
			ID     string  `json:"id"`
			Expect *string `json:"expect"`
			Type   string  `json:"type"`
			Target string  `json:"target"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if row.Kind != "query" {
			continue
		}
		l := Label{Type: row.Type, Target: row.Target}
		if row.Expect != nil {
			l.Expect = *row.Expect
		}
		out[row.ID] = l
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

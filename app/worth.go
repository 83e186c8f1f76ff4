package app

import (
	"context"
	"time"

	"github.com/shrimp-harness/shrimp/backend/metrics"
)

// ProcedureRuns is what a procedure's worth is judged by: the run that
// taught it and every run it was handed to.
type ProcedureRuns struct {
	Learned *metrics.Run  `json:"learned"`
	Uses    []metrics.Run `json:"uses"`
}

// ProcedureRuns returns the run that learned procedure id (nil when its
// measures are gone) and the runs that recalled it, oldest first.
func (a *App) ProcedureRuns(ctx context.Context, id string) (ProcedureRuns, error) {
	out := ProcedureRuns{Uses: []metrics.Run{}}
	mem, err := a.Memory(ctx)
	if err != nil {
		return out, err
	}
	p, err := mem.Get(id)
	if err != nil {
		return out, err
	}
	rows, err := a.Store.Metrics().Procedure(ctx, id)
	if err != nil {
		return out, err
	}
	out.Uses = metrics.FromRows(rows)
	if len(p.Sessions) > 0 {
		rows, err := a.Store.Metrics().Session(ctx, p.Sessions[0])
		if err != nil {
			return out, err
		}
		out.Learned = metrics.Learning(metrics.FromRows(rows), p.Tools)
	}
	return out, nil
}

// Worth compares the runs of the last days days (0: all) that were handed
// a procedure with those that were not, and estimates each procedure's
// saved turns: an observational comparison, to be labelled so.
func (a *App) Worth(ctx context.Context, days int) (metrics.Comparison, error) {
	since := time.Time{}
	if days > 0 {
		since = time.Now().AddDate(0, 0, -days)
	}
	rows, err := a.Store.Metrics().Since(ctx, since)
	if err != nil {
		return metrics.Comparison{Saved: map[string]float64{}}, err
	}
	return metrics.Compare(metrics.FromRows(rows)), nil
}

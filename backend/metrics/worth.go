package metrics

import (
	"slices"
	"sort"
)

// Group is the medians of a set of runs.
type Group struct {
	Runs      int     `json:"runs"`
	Turns     float64 `json:"median_turns"`
	ToolCalls float64 `json:"median_tool_calls"`
	Malformed float64 `json:"median_malformed_calls"`
	WallMS    float64 `json:"median_wall_ms"`
	Answered  float64 `json:"answered_share"` // share of runs that ended with an answer
}

// Comparison sets the runs that were handed a procedure beside those that
// were not. It is observational: the requests of the two groups differ.
type Comparison struct {
	With    Group `json:"with_recall"`
	Without Group `json:"without_recall"`
	// Saved estimates, per procedure, the model turns its followed runs
	// took fewer than the median run without recall (negative: more).
	Saved map[string]float64 `json:"saved_turns"`
}

// Compare groups runs by whether a procedure was recalled.
func Compare(runs []Run) Comparison {
	var with, without []Run
	for _, r := range runs {
		if len(r.Recalled) > 0 {
			with = append(with, r)
		} else {
			without = append(without, r)
		}
	}
	c := Comparison{With: group(with), Without: group(without), Saved: map[string]float64{}}
	if c.Without.Runs == 0 {
		return c // no baseline to save against
	}
	for _, r := range with {
		if r.Followed != nil {
			c.Saved[*r.Followed] += c.Without.Turns - float64(r.Turns)
		}
	}
	return c
}

func group(runs []Run) Group {
	g := Group{Runs: len(runs)}
	if len(runs) == 0 {
		return g
	}
	med := func(f func(Run) float64) float64 {
		v := make([]float64, 0, len(runs))
		for _, r := range runs {
			v = append(v, f(r))
		}
		return Median(v)
	}
	g.Turns = med(func(r Run) float64 { return float64(r.Turns) })
	g.ToolCalls = med(func(r Run) float64 { return float64(r.ToolCalls) })
	g.Malformed = med(func(r Run) float64 { return float64(r.Malformed) })
	g.WallMS = med(func(r Run) float64 { return float64(r.WallMS) })
	answered := 0
	for _, r := range runs {
		if r.Status == "responded" {
			answered++
		}
	}
	g.Answered = float64(answered) / float64(len(runs))
	return g
}

// Median is the middle value of v (the mean of the two middle ones for an
// even count; 0 for none). v is not changed.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := slices.Clone(v)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

// Learning picks, among a session's runs, the one that taught a procedure
// its chain: the first whose tools were that chain (nil when none).
func Learning(runs []Run, chain []string) *Run {
	for i, r := range runs {
		if slices.Equal(r.Chain, chain) {
			return &runs[i]
		}
	}
	return nil
}

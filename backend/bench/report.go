package bench

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// ReportInfo says what a report was run on.
type ReportInfo struct {
	Model   string
	Host    string
	Machine string
	When    time.Time
}

// bar is one bar of a chart.
type bar struct {
	X, Y, W, H float64
	Fill       string
	Title      string
}

// chart is an inline SVG bar chart: groups of an off and an on bar.
type chart struct {
	Title  string
	Width  float64
	Height float64
	Bars   []bar
	Labels []label
}

type label struct {
	X, Y   float64
	Text   string
	Anchor string
}

const (
	offColour = "#8fa3bf"
	onColour  = "#ff8a65"
)

// pairs draws one chart of off/on values per group, each group scaled to
// its own largest value when perGroup (measures of different units).
func pairs(title string, groups []string, off, on []float64, perGroup bool, unit func(float64) string) chart {
	const gw, bw, top, base = 90.0, 30.0, 24.0, 170.0
	c := chart{Title: title, Width: math.Max(320, gw*float64(len(groups))+20), Height: 230}
	globalMax := 0.0
	for i := range groups {
		globalMax = math.Max(globalMax, math.Max(off[i], on[i]))
	}
	for i, g := range groups {
		m := globalMax
		if perGroup {
			m = math.Max(off[i], on[i])
		}
		if m == 0 {
			m = 1
		}
		x := 10 + gw*float64(i)
		for j, v := range []float64{off[i], on[i]} {
			h := (base - top) * v / m
			fill, arm := offColour, "off"
			if j == 1 {
				fill, arm = onColour, "on"
			}
			bx := x + 12 + float64(j)*(bw+4)
			c.Bars = append(c.Bars, bar{X: bx, Y: base - h, W: bw, H: h, Fill: fill, Title: fmt.Sprintf("%s, memory %s: %s", g, arm, unit(v))})
			c.Labels = append(c.Labels, label{X: bx + bw/2, Y: base - h - 4, Text: unit(v), Anchor: "middle"})
		}
		c.Labels = append(c.Labels, label{X: x + 12 + bw + 2, Y: base + 16, Text: shorten(g, 14), Anchor: "middle"})
	}
	return c
}

func shorten(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func number(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func seconds(v float64) string { return fmt.Sprintf("%.1fs", v/1000) }

// WriteReport writes the HTML report: what it was run on, each arm's
// summary, charts of the medians and of each task, and every run.
func WriteReport(w io.Writer, info ReportInfo, results []Result) error {
	sums := Summarize(results)
	byArm := map[string]Summary{}
	for _, s := range sums {
		byArm[s.Arm] = s
	}
	var medOff, medOn []float64
	for _, n := range MeasureNames {
		medOff = append(medOff, byArm["off"].Measures[n].Median)
		medOn = append(medOn, byArm["on"].Measures[n].Median)
	}
	var tasks []string
	for _, r := range results {
		if !slices.Contains(tasks, r.Task) {
			tasks = append(tasks, r.Task)
		}
	}
	turnsOff, turnsOn := make([]float64, len(tasks)), make([]float64, len(tasks))
	wallOff, wallOn := make([]float64, len(tasks)), make([]float64, len(tasks))
	for _, r := range results {
		i := slices.Index(tasks, r.Task)
		if r.Arm == "off" {
			turnsOff[i] += float64(r.Metrics.Turns)
			wallOff[i] += float64(r.Metrics.WallMS)
		} else {
			turnsOn[i] += float64(r.Metrics.Turns)
			wallOn[i] += float64(r.Metrics.WallMS)
		}
	}
	data := map[string]any{
		"Info":    info,
		"When":    info.When.Format(time.RFC1123),
		"Sums":    sums,
		"Names":   MeasureNames,
		"Results": results,
		"Charts": []chart{
			pairs("Medians per run (each pair on its own scale)", MeasureNames, medOff, medOn, true, number),
			pairs("Model turns per task (all its runs)", tasks, turnsOff, turnsOn, false, number),
			pairs("Wall time per task (all its runs)", tasks, wallOff, wallOn, false, seconds),
		},
		"Off": offColour, "On": onColour,
	}
	return reportTemplate.Execute(w, data)
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":   func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) },
	"num":   number,
	"join":  strings.Join,
	"stats": func(s Summary, n string) Stats { return s.Measures[n] },
	"deref": func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	},
}).Parse(reportHTML))

// reportHTML is the report's template.
//
//go:embed report.html.tmpl
var reportHTML string

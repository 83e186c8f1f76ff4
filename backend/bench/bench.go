// Package bench runs the procedure benchmark: a suite of everyday file
// and shell chores (bench/tasks), each asked once and then in paraphrased
// repeats, in two arms — procedural memory off and on, each with a fresh
// store — every run in a fresh copy of the task's fixture, and judged by
// the task's own check command. It reports per arm the success rate and
// the medians and totals of the runs' measures (package metrics).
//
// Its contract: a task folder holds task.json ({request, repeats: three
// paraphrases, check}) and fixture/; a task that does not say all of that
// is an error naming the file. The check runs as `sh -c CHECK` in the
// workspace after the run, bounded by CheckTimeout; exit status 0 is
// success. A run that fails (Ollama down, the model stalls) is a failed
// run with its error, and the benchmark goes on.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/internal/tail"
)

// Task is one chore of the suite.
type Task struct {
	Name    string   `json:"-"`
	Dir     string   `json:"-"`
	Request string   `json:"request"`
	Repeats []string `json:"repeats"`
	Check   string   `json:"check"`
}

// Requests are the task's request and then its first n repeats.
func (t Task) Requests(n int) []string {
	return append([]string{t.Request}, t.Repeats[:min(n, len(t.Repeats))]...)
}

// LoadTasks reads every task folder in dir, by name.
func LoadTasks(dir string) ([]Task, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the tasks in %s: %w", dir, err)
	}
	var out []Task
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		td := filepath.Join(dir, e.Name())
		file := filepath.Join(td, "task.json")
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", e.Name(), err)
		}
		var t Task
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON: %w", file, err)
		}
		t.Name, t.Dir = e.Name(), td
		switch {
		case strings.TrimSpace(t.Request) == "":
			return nil, fmt.Errorf("%s: no request", file)
		case len(t.Repeats) < 3:
			return nil, fmt.Errorf("%s: %d repeats, want three paraphrases of the request", file, len(t.Repeats))
		case strings.TrimSpace(t.Check) == "":
			return nil, fmt.Errorf("%s: no check command", file)
		}
		if info, err := os.Stat(filepath.Join(td, "fixture")); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("task %s: no fixture/ folder", e.Name())
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no tasks in %s: each task is a folder with task.json and fixture/", dir)
	}
	return out, nil
}

// CheckTimeout bounds a task's check command.
const CheckTimeout = time.Minute

// Result is one run: a line of `--json`.
type Result struct {
	Arm     string      `json:"arm"` // off or on
	Task    string      `json:"task"`
	Request string      `json:"request"`
	Repeat  int         `json:"repeat"` // 0 for the request, 1… for its paraphrases
	Success bool        `json:"success"`
	Check   string      `json:"check_output,omitempty"`
	Error   string      `json:"error,omitempty"`
	Metrics metrics.Run `json:"metrics"`
}

// Arm runs requests with one configuration of Shrimp: Run is given the
// workspace and request and returns the run's measures.
type Arm struct {
	Name  string
	Run   func(ctx context.Context, workspace, request string) (metrics.Run, error)
	Close func()
}

// OpenArm prepares an arm ("off" or "on") with a fresh data directory.
type OpenArm func(name, dataDir string) (Arm, error)

// Run runs every task's requests in each arm and calls each with every
// result as it comes.
func Run(ctx context.Context, tasks []Task, repeats int, open OpenArm, each func(Result)) ([]Result, error) {
	var all []Result
	for _, name := range []string{"off", "on"} {
		data, err := os.MkdirTemp("", "shrimp-bench-"+name+"-")
		if err != nil {
			return all, err
		}
		arm, err := open(name, data)
		if err != nil {
			os.RemoveAll(data)
			return all, fmt.Errorf("arm %s: %w", name, err)
		}
		for _, t := range tasks {
			for i, req := range t.Requests(repeats) {
				if ctx.Err() != nil {
					arm.Close()
					os.RemoveAll(data)
					return all, ctx.Err()
				}
				r := runOne(ctx, arm, t, i, req)
				all = append(all, r)
				if each != nil {
					each(r)
				}
			}
		}
		arm.Close()
		os.RemoveAll(data)
	}
	return all, nil
}

func runOne(ctx context.Context, arm Arm, t Task, i int, req string) Result {
	r := Result{Arm: arm.Name, Task: t.Name, Request: req, Repeat: i}
	ws, err := os.MkdirTemp("", "shrimp-bench-ws-")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer os.RemoveAll(ws)
	if err := copyTree(filepath.Join(t.Dir, "fixture"), ws); err != nil {
		r.Error = err.Error()
		return r
	}
	m, err := arm.Run(ctx, ws, req)
	r.Metrics = m
	if err != nil {
		r.Error = err.Error()
	}
	cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", t.Check)
	cmd.Dir = ws
	out, err := cmd.CombinedOutput()
	r.Success = err == nil && r.Error == ""
	if err != nil {
		r.Check = strings.TrimSpace(fmt.Sprintf("%v: %s", err, tail.Last(strings.Split(strings.TrimSpace(string(out)), "\n"), 3)))
	}
	return r
}

// copyTree copies the regular files and folders under src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("fixture %s: only files and folders are copied", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// Stats are medians and totals of one measure.
type Stats struct {
	Median float64 `json:"median"`
	Total  float64 `json:"total"`
}

// Summary is one arm's line at the end of `--json`.
type Summary struct {
	Type        string           `json:"type"` // "summary"
	Arm         string           `json:"arm"`
	Runs        int              `json:"runs"`
	Successes   int              `json:"successes"`
	SuccessRate float64          `json:"success_rate"`
	Recalled    int              `json:"runs_with_recall"`
	Followed    int              `json:"runs_following_a_procedure"`
	Measures    map[string]Stats `json:"measures"` // turns, tool_calls, malformed_calls, repeated_calls, refetched_calls, tokens_in, tokens_out, wall_ms
}

// MeasureNames are the measures summarised, in report order.
var MeasureNames = []string{"turns", "tool_calls", "malformed_calls", "repeated_calls", "refetched_calls", "tokens_in", "tokens_out", "wall_ms"}

func measure(m metrics.Run, name string) float64 {
	switch name {
	case "turns":
		return float64(m.Turns)
	case "tool_calls":
		return float64(m.ToolCalls)
	case "malformed_calls":
		return float64(m.Malformed)
	case "repeated_calls":
		return float64(m.Repeated)
	case "refetched_calls":
		return float64(m.Refetched)
	case "tokens_in":
		return float64(m.TokensIn)
	case "tokens_out":
		return float64(m.TokensOut)
	case "wall_ms":
		return float64(m.WallMS)
	}
	return 0
}

// Summarize gives each arm's summary, off first.
func Summarize(results []Result) []Summary {
	var out []Summary
	for _, arm := range []string{"off", "on"} {
		s := Summary{Type: "summary", Arm: arm, Measures: map[string]Stats{}}
		values := map[string][]float64{}
		for _, r := range results {
			if r.Arm != arm {
				continue
			}
			s.Runs++
			if r.Success {
				s.Successes++
			}
			if len(r.Metrics.Recalled) > 0 {
				s.Recalled++
			}
			if r.Metrics.Followed != nil {
				s.Followed++
			}
			for _, n := range MeasureNames {
				values[n] = append(values[n], measure(r.Metrics, n))
			}
		}
		if s.Runs == 0 {
			continue
		}
		s.SuccessRate = float64(s.Successes) / float64(s.Runs)
		for _, n := range MeasureNames {
			s.Measures[n] = Stats{Median: metrics.Median(values[n]), Total: sum(values[n])}
		}
		out = append(out, s)
	}
	return out
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

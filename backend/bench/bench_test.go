package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/metrics"
)

const suite = "../../bench/tasks"

// TestSuiteChecks: every shipped task's check fails on its fixture as
// given and passes after its reference solution, so a success means the
// chore was done.
func TestSuiteChecks(t *testing.T) {
	tasks, err := LoadTasks(suite)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 20 {
		t.Fatalf("%d tasks, want at least 20", len(tasks))
	}
	for _, task := range tasks {
		t.Run(task.Name, func(t *testing.T) {
			check := func(ws string) error {
				cmd := exec.Command("sh", "-c", task.Check)
				cmd.Dir = ws
				return cmd.Run()
			}
			ws := t.TempDir()
			if err := copyTree(filepath.Join(task.Dir, "fixture"), ws); err != nil {
				t.Fatal(err)
			}
			if check(ws) == nil {
				t.Fatal("the check passes on the untouched fixture")
			}
			sol, err := filepath.Abs(filepath.Join(task.Dir, "solution.sh"))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", sol)
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("solution: %v %s", err, out)
			}
			if err := check(ws); err != nil {
				t.Fatalf("the check fails after the reference solution: %v", err)
			}
			if len(task.Repeats) != 3 || len(task.Requests(3)) != 4 || len(task.Requests(1)) != 2 {
				t.Errorf("requests: %v", task.Requests(3))
			}
		})
	}
}

func TestLoadTasksErrors(t *testing.T) {
	for _, c := range []struct {
		name, json string
		fixture    bool
		want       string
	}{
		{"no request", `{"repeats":["a","b","c"],"check":"true"}`, true, "no request"},
		{"two repeats", `{"request":"r","repeats":["a","b"],"check":"true"}`, true, "three paraphrases"},
		{"no check", `{"request":"r","repeats":["a","b","c"]}`, true, "no check"},
		{"no fixture", `{"request":"r","repeats":["a","b","c"],"check":"true"}`, false, "no fixture"},
		{"bad json", `{"request":`, true, "not valid JSON"},
	} {
		dir := t.TempDir()
		td := filepath.Join(dir, "t1")
		os.MkdirAll(td, 0o755)
		os.WriteFile(filepath.Join(td, "task.json"), []byte(c.json), 0o644)
		if c.fixture {
			os.MkdirAll(filepath.Join(td, "fixture"), 0o755)
		}
		if _, err := LoadTasks(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := LoadTasks(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no tasks") {
		t.Errorf("empty folder: %v", err)
	}
}

// TestRunAndReport drives two tasks through a fake arm: both arms run
// every request in a fresh workspace, checks judge them, a failed run
// goes on, and the summary and the report say so.
func TestRunAndReport(t *testing.T) {
	tasks, err := LoadTasks(suite)
	if err != nil {
		t.Fatal(err)
	}
	var two []Task
	for _, task := range tasks {
		if task.Name == "dedupe-emails" || task.Name == "gitignore" {
			two = append(two, task)
		}
	}
	seen := map[string]bool{}
	open := func(name, data string) (Arm, error) {
		return Arm{Name: name, Close: func() {}, Run: func(_ context.Context, ws, req string) (metrics.Run, error) {
			if seen[ws] {
				t.Errorf("workspace %s reused", ws)
			}
			seen[ws] = true
			run := metrics.Run{Turns: 3, ToolCalls: 2, WallMS: 100, Recalled: []string{}}
			if name == "on" && strings.Contains(req, "emails.txt has repeats") {
				id := "p-1"
				run.Recalled, run.Followed, run.Turns = []string{id}, &id, 2
			}
			// The arm "does" the dedupe task; gitignore fails outright.
			if strings.Contains(req, "gitignore") || strings.Contains(req, ".gitignore") {
				return run, errors.New("the model stalled")
			}
			cmd := exec.Command("sh", "-c", "sort -u emails.txt > unique.txt")
			cmd.Dir = ws
			return run, cmd.Run()
		}}, nil
	}
	results, err := Run(context.Background(), two, 1, open, nil)
	if err != nil || len(results) != 8 {
		t.Fatalf("%d results, %v", len(results), err)
	}
	sums := Summarize(results)
	if len(sums) != 2 || sums[0].Arm != "off" || sums[0].Successes != 2 || sums[0].Runs != 4 || sums[1].Followed != 1 || sums[1].Recalled != 1 {
		t.Fatalf("summaries: %+v", sums)
	}
	if m := sums[1].Measures["turns"]; m.Total != 11 || m.Median != 3 {
		t.Errorf("on turns: %+v", m)
	}
	for _, r := range results {
		if r.Task == "gitignore" && (r.Success || !strings.Contains(r.Error, "stalled")) {
			t.Errorf("a failed run: %+v", r)
		}
	}
	var b bytes.Buffer
	if err := WriteReport(&b, ReportInfo{Model: "m", Host: "h", Machine: "x", When: time.Now()}, results); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"<svg", "Medians per run", "followed p-1", "dedupe-emails", "the model stalled", "observational"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

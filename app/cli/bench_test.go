package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/bench"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// solver is a scripted model that does each bench task the same way:
// look at the folder, run the task's reference solution (bench/tasks/*/
// solution.sh), look again, answer. It proves the benchmark's mechanics
// (both arms, checks, recall across paraphrases, the report), not any
// benefit: a real model is needed for that (make bench-real).
func solver(t *testing.T, tasks []bench.Task) func(api.ChatRequest) ollamatest.Reply {
	solutions := map[string]string{}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(task.Dir, "solution.sh"))
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range task.Requests(3) {
			solutions[req] = string(b)
		}
	}
	return func(req api.ChatRequest) ollamatest.Reply {
		var request string
		tools := 0
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				request = m.Content
			case "tool":
				tools++
			}
		}
		sol, ok := solutions[request]
		switch {
		case !ok:
			return ollamatest.Text("I do not know this task.")
		case tools == 0:
			return ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}})
		case tools == 1:
			return ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": sol}})
		case tools == 2:
			return ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}})
		}
		return ollamatest.Text("Done.")
	}
}

// TestBenchProcedures runs `shrimp bench procedures` on the shipped suite
// against the scripted server: both arms run every task, the checks pass
// where the work was done, memory on recalls the learned procedure for the
// paraphrases and off never does, and the report is written.
func TestBenchProcedures(t *testing.T) {
	tasks, err := bench.LoadTasks("../../bench/tasks")
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: solver(t, tasks)})
	report := filepath.Join(t.TempDir(), "report.html")
	code, out, errOut := run("--ollama", srv.URL, "--model", "m", "bench", "procedures", "--tasks", "../../bench/tasks", "--repeats", "1", "--json", "--report", report)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var results []bench.Result
	var sums []bench.Summary
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"summary"`) {
			var s bench.Summary
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
			sums = append(sums, s)
			continue
		}
		var r bench.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a line that is neither a run nor a summary: %q", sc.Text())
		}
		results = append(results, r)
	}
	if len(results) != 4*len(tasks) || len(sums) != 2 {
		t.Fatalf("%d runs and %d summaries for %d tasks", len(results), len(sums), len(tasks))
	}
	recalledOn, firstRecalled := 0, 0
	for _, r := range results {
		if !r.Success {
			t.Errorf("%s %s #%d failed: %s %s", r.Arm, r.Task, r.Repeat, r.Error, r.Check)
		}
		if r.Metrics.Turns != 4 || r.Metrics.ToolCalls != 3 || r.Metrics.WallMS <= 0 {
			t.Errorf("%s %s #%d measures: %+v", r.Arm, r.Task, r.Repeat, r.Metrics)
		}
		switch {
		case r.Arm == "off" && len(r.Metrics.Recalled) > 0:
			t.Errorf("memory off recalled: %+v", r)
		case r.Arm == "on" && r.Repeat == 0 && len(r.Metrics.Recalled) > 0:
			// Another task's procedure: every task here runs the same chain
			// (fs.list, shell.run, fs.list), so their procedures merge and
			// recall hands the generic chain to new requests. Counted, not
			// failed: it is a finding about recall (see the #20 note).
			firstRecalled++
		case r.Arm == "on" && r.Repeat == 1 && r.Metrics.Followed != nil:
			recalledOn++
		}
	}
	// Recall is a decision, not a lookup: most paraphrases should find
	// their task's procedure (the count is logged for the record).
	t.Logf("memory on: %d of %d paraphrases recalled and followed their task's procedure; %d of %d first requests recalled another task's", recalledOn, len(tasks), firstRecalled, len(tasks))
	if recalledOn < len(tasks)/2 {
		t.Errorf("only %d of %d paraphrases recalled their procedure", recalledOn, len(tasks))
	}
	if sums[0].Arm != "off" || sums[0].SuccessRate != 1 || sums[1].SuccessRate != 1 || sums[0].Recalled != 0 || sums[1].Recalled < recalledOn {
		t.Errorf("summaries: %+v", sums)
	}
	b, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "gather-todos") {
		t.Fatalf("report: %v %d bytes", err, len(b))
	}
	// The terminal table.
	code, out, _ = run("--ollama", srv.URL, "--model", "m", "bench", "procedures", "--tasks", "../../bench/tasks", "--repeats", "0")
	if code != 0 || !strings.Contains(out, "success") || !strings.Contains(out, "off ") || !strings.Contains(out, "on  ") {
		t.Fatalf("table: %d\n%s", code, out)
	}
	if code, _, errOut := run("bench", "procedures", "--tasks", "../../bench/tasks"); code != 2 || !strings.Contains(errOut, "--model") {
		t.Fatalf("no model: %d %s", code, errOut)
	}
}

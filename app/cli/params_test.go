package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestModelParams: sampling settings set for a model reach Ollama with
// each of its requests (whole numbers as integers) and its run's start
// says them; `models params` says where each comes from (set here, the
// model's Modelfile, Ollama), NAME= and --reset go back to the model's
// own, and a setting out of range is refused before anything is kept.
func TestModelParams(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Parameters: "temperature                    0.6\ntop_k                          20\n",
		Replies: []ollamatest.Reply{ollamatest.Text("one"), ollamatest.Text("two")}})
	data := t.TempDir()
	code, out, errOut := run("--data-dir", data, "--ollama", srv.URL, "models", "params", "m")
	if code != 0 || !strings.Contains(out, "no sampling settings of yours") || !regexpLine(out, `temperature +0.6 +its Modelfile`) || !regexpLine(out, `seed +default +Ollama`) {
		t.Fatalf("before any: %d %s %s", code, out, errOut)
	}
	code, out, errOut = run("--data-dir", data, "--ollama", srv.URL, "models", "params", "M", "temperature=0.2", "seed=7")
	if code != 0 || !strings.Contains(out, ": requests are sent temperature 0.2, seed 7") || !regexpLine(out, `temperature +0.2 +set here`) || !regexpLine(out, `top_k +20 +its Modelfile`) {
		t.Fatalf("set: %d %s %s", code, out, errOut)
	}
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "hello")
	opts := srv.Requests()[0].Chat.Options
	if r.code != 0 || opts["temperature"] != 0.2 || opts["seed"] != float64(7) || opts["num_ctx"] == nil || opts["top_k"] != nil {
		t.Fatalf("the request's options: %v (exit %d, %s)", opts, r.code, r.stderr)
	}
	if started := r.data(t, "agent:run-started"); len(started) != 1 || !strings.Contains(mustJSON(started[0]["options"]), `"seed":7`) {
		t.Errorf("the run's start: %v", started)
	}

	// Out of range: refused, nothing kept.
	code, _, errOut = run("--data-dir", data, "--ollama", srv.URL, "models", "params", "m", "temperature=9")
	if code != 2 || !strings.Contains(errOut, "temperature 9 is outside 0 to 2") {
		t.Errorf("out of range: %d %s", code, errOut)
	}
	code, out, _ = run("--data-dir", data, "--ollama", srv.URL, "models", "params", "m", "seed=", "--json")
	var rows []paramRow
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 6 || rows[0].From != "set" || *rows[0].Value != 0.2 || rows[5].From != "ollama" || rows[5].Value != nil {
		t.Fatalf("seed= --json: %d %s", code, out)
	}
	code, out, _ = run("--data-dir", data, "--ollama", srv.URL, "models", "params", "m", "--reset")
	if code != 0 || !strings.Contains(out, "no sampling settings of yours") {
		t.Fatalf("--reset: %d %s", code, out)
	}
	r = chat(t, data, srv.URL, t.TempDir(), "--model", "m", "hello again")
	if opts := srv.Requests()[1].Chat.Options; r.code != 0 || opts["temperature"] != nil || opts["seed"] != nil {
		t.Errorf("after --reset: %v", opts)
	}
	if code, _, errOut = run("--data-dir", data, "models", "params"); code != 2 || !strings.Contains(errOut, "models params MODEL") {
		t.Errorf("no model: %d %s", code, errOut)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// regexpLine reports whether a line of out matches pattern.
func regexpLine(out, pattern string) bool {
	return regexp.MustCompile(`(?m)^` + pattern).MatchString(out)
}

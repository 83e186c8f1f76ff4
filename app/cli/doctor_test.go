package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
	"github.com/shrimp-harness/shrimp/internal/sandbox"
)

type doctorRow struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// doctor runs `shrimp doctor --json` and returns its rows by check.
func runDoctorJSON(t *testing.T, args ...string) (int, map[string]doctorRow) {
	t.Helper()
	code, out, errOut := run(append(args, "doctor", "--json")...)
	var rows []doctorRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	byCheck := map[string]doctorRow{}
	for _, r := range rows {
		if r.Status != "pass" && r.Status != "warn" && r.Status != "fail" {
			t.Errorf("check %s: status %q", r.Check, r.Status)
		}
		if r.Status != "pass" && r.Fix == "" {
			t.Errorf("check %s is %s without a fix", r.Check, r.Status)
		}
		byCheck[r.Check] = r
	}
	if len(rows) != 21 {
		t.Errorf("%d checks: %v", len(rows), rows)
	}
	return code, byCheck
}

// TestDoctor: each failing case of shrimp doctor, against the scripted
// Ollama and real data directories.
func TestDoctor(t *testing.T) {
	good := ollamatest.New(t, ollamatest.Model{Name: "qwen3:4b", TrainedCtx: 40960}, ollamatest.Model{Name: "plain", NoTools: true})
	short := ollamatest.New(t, ollamatest.Model{Name: "qwen3:4b"}) // trained for 4096
	noTools := ollamatest.New(t, ollamatest.Model{Name: "plain", NoTools: true})
	empty := ollamatest.New(t)
	// A web server at the address, not Ollama: the fix is the address.
	notOllama := httptest.NewServer(http.NotFoundHandler())
	defer notOllama.Close()
	cases := []struct {
		name   string
		host   string
		prep   func(t *testing.T, data string)
		code   int
		expect map[string]string // check -> status
		says   map[string]string // check -> text in detail or fix
		flags  []string          // more flags for doctor
	}{
		{"healthy", good.URL, nil, 0,
			map[string]string{"ollama": "pass", "tool models": "pass", "context size": "pass", "database": "pass", "procedure index": "pass", "other process": "pass", "data directory": "pass", "go release": "pass", "window log": "pass", "file history": "pass"},
			map[string]string{"tool models": "1 of 2 models can call tools: qwen3:4b", "context size": "trained for 40960 tokens; Shrimp sends num_ctx 8192 (the default)", "file history": "0 file changes in 0 sessions can be undone"}, nil},
		// A model trained for little: more cannot be set, another model can.
		{"a model trained for 4096", short.URL, nil, 0,
			map[string]string{"context size": "warn"}, map[string]string{"context size": "trained for a longer context"}, nil},
		// Set above what it was trained for: Ollama gives it no more.
		{"set above the trained context", short.URL, func(t *testing.T, data string) {
			if code, _, errOut := run("--data-dir", data, "models", "ctx", "qwen3:4b", "16384"); code != 0 {
				t.Fatal(errOut)
			}
		}, 0, map[string]string{"context size": "warn"}, map[string]string{"context size": "shrimp models ctx qwen3:4b 4096 (or 0)"}, nil},
		{"file history others can read", good.URL, func(t *testing.T, data string) {
			if err := os.MkdirAll(filepath.Join(data, "file-history"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(data, "file-history"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, 0, map[string]string{"file history": "warn"}, map[string]string{"file history": "chmod 700"}, nil},
		{"ollama down", "http://127.0.0.1:9", nil, 1,
			map[string]string{"ollama": "fail", "tool models": "fail", "context size": "warn"},
			map[string]string{"ollama": "no Ollama answers at http://127.0.0.1:9", "tool models": "reach Ollama first"}, nil},
		{"not Ollama at the address", notOllama.URL, nil, 1,
			map[string]string{"ollama": "fail", "tool models": "fail"},
			map[string]string{"ollama": "point Shrimp at Ollama: --ollama URL"}, nil},
		{"no tool models", noTools.URL, nil, 0,
			map[string]string{"ollama": "pass", "tool models": "warn"},
			map[string]string{"tool models": "ollama pull qwen3:4b"}, nil},
		{"no models", empty.URL, nil, 1,
			map[string]string{"tool models": "fail"},
			map[string]string{"tool models": "no models are installed"}, nil},
		{"a big context", good.URL, func(t *testing.T, data string) {
			if code, _, errOut := run("--data-dir", data, "models", "ctx", "qwen3:4b", "16384"); code != 0 {
				t.Fatal(errOut)
			}
		}, 0, map[string]string{"context size": "pass"}, map[string]string{"context size": "num_ctx 16384 (set with shrimp models ctx)"}, nil},
		// The model a chat would take: the default chosen in the window's
		// Settings, not the first that calls tools.
		{"the default chosen in Settings", good.URL, func(t *testing.T, data string) {
			st, err := store.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.SetSetting(context.Background(), app.SettingDefaultModel, "plain"); err != nil {
				t.Fatal(err)
			}
		}, 0, map[string]string{"context size": "warn"}, map[string]string{"context size": "plain:latest: trained for 4096"}, nil},
		// A model named as Ollama takes it, without its tag or in
		// another case, is the model Ollama lists (it was "not
		// installed"), and its context size is the one set however it
		// was typed.
		{"--model without its tag", good.URL, nil, 0, map[string]string{"context size": "warn"},
			map[string]string{"context size": "plain:latest: trained for 4096"}, []string{"--model", "plain"}},
		{"--model in another case", good.URL, func(t *testing.T, data string) {
			if code, _, errOut := run("--data-dir", data, "--ollama", good.URL, "models", "ctx", "Qwen3:4B", "16384"); code != 0 {
				t.Fatal(errOut)
			}
		}, 0, map[string]string{"context size": "pass"},
			map[string]string{"context size": "qwen3:4b: trained for 40960 tokens; Shrimp sends num_ctx 16384 (set with"}, []string{"--model", "QWEN3:4b"}},
		{"the window logged an error", good.URL, func(t *testing.T, data string) {
			log := "time=2026-12-02T10:00:00Z level=INFO msg=\"window ready\"\n" +
				"time=2026-12-02T10:01:00Z level=ERROR msg=\"keep what the session read from outside\" err=\"disk I/O error\"\n"
			if err := os.WriteFile(filepath.Join(data, "shrimp.log"), []byte(log), 0o600); err != nil {
				t.Fatal(err)
			}
		}, 0, map[string]string{"window log": "warn"}, map[string]string{"window log": `keep what the session read from outside" err="disk I/O error"`}, nil},
		{"damaged database", good.URL, func(t *testing.T, data string) {
			if err := os.WriteFile(filepath.Join(data, "shrimp.db"), []byte(strings.Repeat("not a database ", 500)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, 1, map[string]string{"database": "fail", "procedure index": "warn", "ollama": "pass", "file history": "warn"},
			map[string]string{"database": "shrimp doctor --salvage", "procedure index": "mend the database first"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			if c.prep != nil {
				c.prep(t, data)
			}
			code, rows := runDoctorJSON(t, append([]string{"--data-dir", data, "--ollama", c.host}, c.flags...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %v", code, c.code, rows)
			}
			for check, want := range c.expect {
				if rows[check].Status != want {
					t.Errorf("%s: %s (%s), want %s", check, rows[check].Status, rows[check].Detail, want)
				}
			}
			for check, text := range c.says {
				if r := rows[check]; !strings.Contains(r.Detail+" "+r.Fix, text) {
					t.Errorf("%s does not say %q: %+v", check, text, r)
				}
			}
		})
	}
}

// TestDoctorOtherProcess: a data directory another process holds is
// named with that process, and this one still has procedural memory (its
// own, from the database they share); the index it cannot check is said
// to be not checked.
func TestDoctorOtherProcess(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) is not installed (util-linux): the lock holder cannot be simulated")
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	data := t.TempDir()
	lock := filepath.Join(data, "procedures.bleve.lock")
	holder := exec.Command("flock", "--exclusive", lock, "sleep", "300")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-holder.Process.Pid, syscall.SIGKILL) // flock and its sleep
		_ = holder.Wait()
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		code, rows := runDoctorJSON(t, "--data-dir", data, "--ollama", srv.URL)
		r := rows["other process"]
		if strings.Contains(r.Detail, "pid ") {
			if code != 0 || r.Status != "pass" || !strings.Contains(r.Detail, "both recall and learn") || rows["procedure index"].Status != "warn" {
				t.Fatalf("exit %d, other process %+v, index %+v", code, r, rows["procedure index"])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lock was never seen: %+v", r)
		}
		time.Sleep(20 * time.Millisecond) // flock has not taken the lock yet
	}
}

// TestDoctorText: the text report puts the fix under a failing check, and
// --rebuild-index rebuilds.
func TestDoctorText(t *testing.T) {
	data := t.TempDir()
	code, out, errOut := run("--data-dir", data, "--ollama", "http://127.0.0.1:9", "doctor", "--rebuild-index")
	if code != 1 || !strings.Contains(out, "fail  ollama") || !strings.Contains(out, "→ ") || !strings.Contains(errOut, "rebuilt the procedure index") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestDoctorSandbox: the shell sandbox check says whether commands are
// confined here, and that switching it off leaves approval alone.
func TestDoctorSandbox(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	_, rows := runDoctorJSON(t, "--data-dir", t.TempDir(), "--ollama", srv.URL)
	r := rows["shell sandbox"]
	if _, err := sandbox.Check(); err == nil {
		if r.Status != "pass" || !strings.Contains(r.Detail, "write only in the workspace") {
			t.Errorf("with Landlock here: %+v", r)
		}
	} else if r.Status != "warn" || !strings.Contains(r.Detail, "not available") {
		t.Errorf("without Landlock (%v): %+v", err, r)
	}
	t.Setenv("SHRIMP_SANDBOX", "off")
	_, rows = runDoctorJSON(t, "--data-dir", t.TempDir(), "--ollama", srv.URL)
	if r := rows["shell sandbox"]; r.Status != "warn" || !strings.Contains(r.Detail, "SHRIMP_SANDBOX=off") || !strings.Contains(r.Detail, "anything you can") {
		t.Errorf("switched off: %+v", r)
	}
}

// TestDoctorWindowDrawing: the doctor says how the window would draw here,
// follows SHRIMP_WINDOW_GPU and warns about a value it does not read.
func TestDoctorWindowDrawing(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	for _, c := range []struct{ value, status, detail string }{
		{"on", "pass", "with the GPU, as SHRIMP_WINDOW_GPU=on asks"},
		{"off", "pass", "in software, as SHRIMP_WINDOW_GPU=off asks"},
		{"fast", "warn", `SHRIMP_WINDOW_GPU="fast" is neither on nor off`},
	} {
		t.Setenv("SHRIMP_WINDOW_GPU", c.value)
		_, rows := runDoctorJSON(t, "--data-dir", t.TempDir(), "--ollama", srv.URL)
		if r := rows["window drawing"]; r.Status != c.status || !strings.Contains(r.Detail, c.detail) {
			t.Errorf("SHRIMP_WINDOW_GPU=%s: %+v, want %s saying %q", c.value, r, c.status, c.detail)
		}
	}
}

// TestSalvageFromTheCLI: a command that meets a damaged database says how
// to salvage it, and `shrimp doctor --salvage` does, saying what it lost.
func TestSalvageFromTheCLI(t *testing.T) {
	data := t.TempDir()
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 200 {
		id := fmt.Sprintf("s%04d", i)
		if err := st.CreateSession(ctx, store.Session{ID: id, Title: strings.Repeat("request "+id+" ", 30), Model: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	db := filepath.Join(data, store.FileName)
	info, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	// Every fourth page of the second half: the sessions' and their
	// index's (the schema's are at the start).
	noise := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	pages := info.Size() / 4096
	for p := pages / 2; p < pages; p += 4 {
		if _, err := f.WriteAt(noise, p*4096); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	code, _, errOut := run("--data-dir", data, "sessions", "list")
	if code != 1 || !strings.Contains(errOut, "malformed") || !strings.Contains(errOut, "shrimp doctor --salvage") {
		t.Fatalf("sessions list on a damaged database: %d %s", code, errOut)
	}
	_, out, errOut := run("--data-dir", data, "--ollama", "http://127.0.0.1:9", "doctor", "--salvage")
	for _, want := range []string{"Salvaged " + db, "sessions", "could not be reached", "kept as " + db + ".damaged-", "database          " + db + " passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor --salvage does not say %q:\n%s\n%s", want, out, errOut)
		}
	}
	code, out, errOut = run("--data-dir", data, "sessions", "list", "--json")
	var sessions []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &sessions) != nil || len(sessions) == 0 || len(sessions) >= 200 {
		t.Errorf("sessions after the salvage: %d, %d sessions %s", code, len(sessions), errOut)
	}
}

// TestSessionsListLimitAndSearch: a long history lists the latest few,
// saying how many more there are, and a search lists those holding the
// text; a negative limit is a usage error.
func TestSessionsListLimitAndSearch(t *testing.T) {
	data := t.TempDir()
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 5 {
		title := fmt.Sprintf("request %d", i)
		if i%2 == 0 {
			title += " about taxes"
		}
		at := time.Date(2026, 12, 1, 10, i, 0, 0, time.UTC) // in order
		ws := fmt.Sprintf("/home/u/project-%d", i)
		if i == 0 {
			ws = "" // from before sessions kept their folder
		}
		if err := st.CreateSession(ctx, store.Session{ID: fmt.Sprintf("s%d", i), Title: title, Model: "m", Workspace: ws, CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	list := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(append([]string{"--data-dir", data, "sessions", "list"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
		return out
	}
	if out := list("--limit", "2"); !strings.Contains(out, "s4 ") || !strings.Contains(out, "s3 ") || strings.Contains(out, "s2 ") || !strings.Contains(out, "… and 3 older sessions (--limit 0 lists them all)") {
		t.Errorf("--limit 2:\n%s", out)
	}
	// Each row names the folder it worked in.
	if out := list(); !regexp.MustCompile(`(?m)^s4 .* project-4 +m `).MatchString(out) || !regexp.MustCompile(`(?m)^s0 .* - +m `).MatchString(out) {
		t.Errorf("folders:\n%s", out)
	}
	if out := list("--search", "TAXES", "--limit", "1"); !strings.Contains(out, "s4 ") || strings.Contains(out, "s2 ") || !strings.Contains(out, "… and 2 older sessions that hold it too") {
		t.Errorf("--search:\n%s", out)
	}
	var all []map[string]any
	if err := json.Unmarshal([]byte(list("--search", "taxes", "--json")), &all); err != nil || len(all) != 3 {
		t.Errorf("--search --json: %d sessions, %v", len(all), err)
	}
	if out := list("--search", "nothing like it"); !strings.Contains(out, `No session holds "nothing like it"`) {
		t.Errorf("no match: %s", out)
	}
	if code, _, errOut := run("--data-dir", data, "sessions", "list", "--limit", "-1"); code != 2 || !strings.Contains(errOut, "0 for all") {
		t.Errorf("--limit -1: %d %s", code, errOut)
	}
}

package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestUnreadableReplies: replies the official client cannot decode get
// errors a user understands, not the decoder's words alone.
func TestUnreadableReplies(t *testing.T) {
	done := `{"model":"m","message":{"role":"assistant","content":""},"done":true}` + "\n"
	tests := []struct {
		name, line, want string
	}{
		{"arguments a string", `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"fs.read","arguments":"{\"path\": "}}]},"done":false}`, "arguments are not a JSON object"},
		{"arguments a list", `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"fs.read","arguments":[1,2]}}]},"done":false}`, "arguments are not a JSON object"},
		{"line over the limit", `{"model":"m","message":{"role":"assistant","content":"` + strings.Repeat("a", 9<<20) + `"},"done":false}`, "over the client's 8 MB limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				_, _ = w.Write([]byte(tt.line + "\n" + done))
			}))
			defer srv.Close()
			c, err := New(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Chat(context.Background(), &api.ChatRequest{Model: "m"}, func(api.ChatResponse) error { return nil })
			if !errors.Is(err, ErrBadReply) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// TestEmbedPrefix: each documented model family gets its prompt however
// Ollama names it (tag, registry path, upper case); others get none; the
// data file is clean (every entry names a model, a prompt and where the
// prompt is documented, and no entry hides behind an earlier one).
func TestEmbedPrefix(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"nomic-embed-text", "clustering: "},
		{"nomic-embed-text:latest", "clustering: "},
		{"nomic-embed-text:v1.5", "clustering: "},
		{"hf.co/nomic-ai/nomic-embed-text-v1.5-GGUF:Q8_0", "clustering: "},
		{"embeddinggemma:300m", "task: sentence similarity | query: "},
		{"EmbeddingGemma", "task: sentence similarity | query: "},
		{"qwen3-embedding:0.6b", "Instruct: Retrieve semantically similar text\nQuery: "},
		{"all-minilm", ""},
		{"mxbai-embed-large:335m", ""},
		{"qwen3:4b", ""},
		{"registry.example.com/team/nomic:latest", ""},
	} {
		if got := EmbedPrefix(c.name); got != c.want {
			t.Errorf("EmbedPrefix(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	ps := embedPrompts()
	if len(ps) == 0 {
		t.Fatal("no prompts in embedprompts.json")
	}
	for i, p := range ps {
		if p.Model == "" || p.Prefix == "" || !strings.HasPrefix(p.Source, "https://") || p.Model != strings.ToLower(p.Model) {
			t.Errorf("entry %d incomplete or not lower case: %+v", i, p)
		}
		for _, q := range ps[:i] {
			if strings.Contains(p.Model, q.Model) {
				t.Errorf("entry %q can never apply: %q before it matches every name it does", p.Model, q.Model)
			}
		}
	}
}

// TestSameModel: a name without a tag means Ollama's ":latest", in any
// case; any other tag, or another model, is not the same.
func TestSameModel(t *testing.T) {
	for _, c := range []struct {
		listed, name string
		same         bool
	}{
		{"nomic-embed-text:latest", "nomic-embed-text", true},
		{"nomic-embed-text:latest", "nomic-embed-text:latest", true},
		{"qwen3:4b", "qwen3:4b", true},
		{"qwen3:4b", "qwen3", false},
		{"nomic-embed-text:v1.5", "nomic-embed-text", false},
		{"all-minilm:latest", "nomic-embed-text", false},
		// Ollama takes a name in any case (getExistingName).
		{"hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "hf.co/bartowski/llama-3.2-1b-instruct-gguf:q4_k_m", true},
		{"qwen3:latest", "Qwen3", true},
		{"qwen3:4b", "QWEN3", false},
	} {
		if got := SameModel(c.listed, c.name); got != c.same {
			t.Errorf("SameModel(%q, %q) = %v", c.listed, c.name, got)
		}
	}
}

// TestNotOllama: a host that answers, but is not Ollama (another web server
// on the port, a proxy's error page), is said to be so, with what to check,
// not reported as a model "" missing or as the page's first line.
func TestNotOllama(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
	}{
		{"a web server's 404 page", 404, "<!DOCTYPE HTML>\n<html><body>File not found</body></html>"},
		{"a web server's 501 page", 501, "<!DOCTYPE HTML>\n<html><body>Unsupported method</body></html>"},
		{"a plain 404", 404, "404 page not found"},
		{"an app answering every path with its page", 200, "<!doctype html><html><body>My app</body></html>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			cl, err := New(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			if st := cl.Status(context.Background()); st.Reachable || !st.Foreign || !strings.Contains(st.Error, "not as Ollama does") {
				t.Errorf("status: %+v", st)
			}
			_, listErr := cl.List(context.Background())
			chatErr := cl.Chat(context.Background(), &api.ChatRequest{Model: "m"}, func(api.ChatResponse) error { return nil })
			for what, err := range map[string]error{"list": listErr, "chat": chatErr} {
				if c.status == 404 && c.body == "404 page not found" && what == "chat" {
					continue // a model that is not there answers so too
				}
				if !errors.Is(err, ErrNotOllama) || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "not as Ollama does") || !strings.Contains(err.Error(), "11434") || strings.Contains(err.Error(), `""`) {
					t.Errorf("%s: %v", what, err)
				}
			}
		})
	}
}

// TestWrongScheme: https to a server that speaks plain HTTP says to use
// http://; a certificate this machine does not trust is named.
func TestWrongScheme(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	for _, c := range []struct{ host, want string }{
		{strings.Replace(plain.URL, "http://", "https://", 1), "answers in plain HTTP, not HTTPS: use " + plain.URL},
		{tlsSrv.URL, "trusts the server's certificate"},
	} {
		cl, err := New(c.host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.List(context.Background()); !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.host, err, c.want)
		}
	}
}

// TestCheckChat: what /api/show said of a model tells, before a run,
// whether a chat with it can start; a failure it cannot read is left for
// the chat itself to say.
func TestCheckChat(t *testing.T) {
	missing := fmt.Errorf("%w: %q is not installed", ErrModelMissing, "m")
	for _, c := range []struct {
		name string
		d    Details
		err  error
		want error
	}{
		{"a chat model", Details{Capabilities: []string{"completion", "tools"}}, nil, nil},
		{"without tools", Details{Capabilities: []string{"completion"}}, nil, nil},
		{"not installed", Details{}, missing, ErrModelMissing},
		{"an embedding model", Details{Capabilities: []string{"embedding"}}, nil, ErrNoChat},
		{"an older server, no capabilities", Details{}, nil, nil},
		{"Ollama down", Details{}, errors.New("connection refused"), nil},
	} {
		err := CheckChat("m", c.d, c.err)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestPasswordInHost: an Ollama behind a proxy that asks for a password
// (http://user:password@host) gets it with each request, and no message
// shows it: errors and the status carry xxxxx.
func TestPasswordInHost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "s3cr3t" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/api/tags":
			_, _ = w.Write([]byte(`{"models":[{"name":"m:latest","model":"m:latest","size":1}]}`))
		default:
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":"model runner has unexpectedly stopped"}`))
		}
	}))
	defer srv.Close()
	// Put together here: the repository's own text holds no credentials
	// (redact.TestFalsePositives).
	userinfo := "alice" + ":" + "s3cr3t" + "@"
	cl, err := New(strings.Replace(srv.URL, "http://", "http://"+userinfo, 1))
	if err != nil {
		t.Fatal(err)
	}
	if models, err := cl.List(context.Background()); err != nil || len(models) != 1 {
		t.Fatalf("list through the password: %v %v", models, err)
	}
	chatErr := cl.Chat(context.Background(), &api.ChatRequest{Model: "m"}, func(api.ChatResponse) error { return nil })
	if chatErr == nil || strings.Contains(chatErr.Error(), "s3cr3t") || !strings.Contains(chatErr.Error(), "alice:xxxxx@") {
		t.Errorf("chat error: %v", chatErr)
	}
	if st := cl.Status(context.Background()); strings.Contains(st.Host, "s3cr3t") || !strings.Contains(cl.Host(), "s3cr3t") {
		t.Errorf("status host %q, Host %q: the status shows, Host connects", st.Host, cl.Host())
	}
	down, _ := New("http://" + userinfo + "127.0.0.1:9")
	if _, err := down.List(context.Background()); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("unreachable: %v", err)
	}
}

// TestListed: the name in the case Ollama lists the model by; the typed
// name when it is so written (with or without ":latest", also when two
// listed names differ only in case), when Ollama does not list it or cannot
// be reached.
func TestListed(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "qwen3:4b"}, ollamatest.Model{Name: "Team/Coder"}, ollamatest.Model{Name: "team/coder"})
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ typed, want string }{
		{"qwen3:4b", "qwen3:4b"},
		{"Qwen3:4B", "qwen3:4b"},
		{" qwen3:4b ", "qwen3:4b"},
		{"team/coder", "team/coder"},
		{"Team/Coder", "Team/Coder"},
		{"TEAM/CODER", "Team/Coder:latest"}, // the first listed (sorted by name)
		{"qwen3", "qwen3"},                  // qwen3:latest is not installed
		{"llama3.1", "llama3.1"},
	} {
		if got := c.Listed(context.Background(), tt.typed); got != tt.want {
			t.Errorf("Listed(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
	down, _ := New("http://127.0.0.1:9")
	if got := down.Listed(context.Background(), "Qwen3"); got != "Qwen3" {
		t.Errorf("Ollama down: Listed = %q, want the name as typed", got)
	}
}

// TestEmbedderName: one model's vectors are stored under one name however
// its name is typed; another tag or model is another name.
func TestEmbedderName(t *testing.T) {
	base := Embedder{Model: "nomic-embed-text"}.Name()
	if !strings.HasPrefix(base, "ollama:nomic-embed-text#p") {
		t.Fatalf("name %q: want the model and its prompt's hash", base)
	}
	for _, typed := range []string{"nomic-embed-text:latest", "Nomic-Embed-Text", " NOMIC-EMBED-TEXT:latest "} {
		if got := (Embedder{Model: typed}).Name(); got != base {
			t.Errorf("Name(%q) = %q, want %q", typed, got, base)
		}
	}
	for _, other := range []string{"nomic-embed-text:v1.5", "all-minilm", "registry.local:5000/nomic-embed-text"} {
		if got := (Embedder{Model: other}).Name(); got == base {
			t.Errorf("Name(%q) = %q, the same as nomic-embed-text's", other, got)
		}
	}
}

// TestIsLocal: this machine's addresses, and others.
func TestIsLocal(t *testing.T) {
	for host, want := range map[string]bool{
		"http://127.0.0.1:11434": true, "http://127.0.0.2:11434": true, "http://localhost:11434": true,
		"http://[::1]:11434": true, "http://0.0.0.0:11434": true, "http://192.0.2.1:11434": false,
		"http://gpu-box:11434": false, "http://10.0.0.5:11434": false,
	} {
		if got := IsLocal(host); got != want {
			t.Errorf("IsLocal(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestParseHost: OLLAMA_HOST's forms, as the ollama CLI reads them (but
// for http:// without a port: 11434, said in ParseHost's comment).
func TestParseHost(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"gpu-box", "http://gpu-box:11434"},
		{" 0.0.0.0 ", "http://0.0.0.0:11434"},
		{"10.0.0.5:8080", "http://10.0.0.5:8080"},
		{"[::1]:11434", "http://[::1]:11434"},
		{"https://ollama.example.com", "https://ollama.example.com:443"},
		{"http://gpu-box", "http://gpu-box:11434"},
		{"http://proxy.lan:80/ollama/", "http://proxy.lan:80/ollama"},
	} {
		u, err := ParseHost(c.in)
		if err != nil || u.String() != c.want {
			t.Errorf("ParseHost(%q) = %v, %v; want %s", c.in, u, err, c.want)
		}
	}
	for _, bad := range []string{"ftp://host", "http://", "://x"} {
		if u, err := ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) = %v, want an error", bad, u)
		}
	}
}

// TestOtherTags: the installed models that are the name asked for with
// another tag, in any case; not the model itself, nor another model.
func TestOtherTags(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "qwen3:4b"}, ollamatest.Model{Name: "qwen3:8b"}, ollamatest.Model{Name: "qwen3-coder"},
		ollamatest.Model{Name: "hf.co/x/Qwen3:Q4_K_M"}, ollamatest.Model{Name: "reg.local:5000/ns/m:v2"})
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"qwen3", []string{"qwen3:4b", "qwen3:8b"}},
		{"QWEN3:latest", []string{"qwen3:4b", "qwen3:8b"}},
		{"qwen3:4b", []string{"qwen3:8b"}},
		{"hf.co/x/qwen3", []string{"hf.co/x/Qwen3:Q4_K_M"}},
		{"reg.local:5000/ns/m", []string{"reg.local:5000/ns/m:v2"}},
		{"llama3.1", nil},
	} {
		if got := c.OtherTags(context.Background(), tt.name); !slices.Equal(got, tt.want) {
			t.Errorf("OtherTags(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseKeepAlive(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		text    string
		wantErr bool
	}{
		{"", 0, "", false},
		{" 30m ", 30 * time.Minute, "30m0s", false},
		{"4h", 4 * time.Hour, "4h0m0s", false},
		{"forever", -1, "forever", false},
		{"-1", -1, "forever", false},
		{"0", 0, "", true},   // unloaded between the model calls of one request
		{"30s", 0, "", true}, // the same
		{"soon", 0, "", true},
	}
	for _, tt := range tests {
		got, err := ParseKeepAlive(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseKeepAlive(%q) = %v, %v", tt.in, got, err)
			continue
		}
		if err == nil && KeepAliveText(got) != tt.text {
			t.Errorf("KeepAliveText(%v) = %q, want %q", got, KeepAliveText(got), tt.text)
		}
	}
}

// TestChatSendsKeepAlive: a keep-alive set on the client goes with each
// chat request as Ollama reads it ("30m0s", or -1 for forever); none set
// sends none, so Ollama's own applies.
func TestChatSendsKeepAlive(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("ok") }})
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		keep time.Duration
		want string
	}{{0, ""}, {30 * time.Minute, `"keep_alive":"30m0s"`}, {-1, `"keep_alive":-1`}} {
		c.SetKeepAlive(tt.keep)
		if err := c.Chat(context.Background(), &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil }); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		raw := string(reqs[len(reqs)-1].Raw)
		if tt.want == "" && strings.Contains(raw, "keep_alive") || tt.want != "" && !strings.Contains(raw, tt.want) {
			t.Errorf("keep-alive %v sent %s", tt.keep, raw)
		}
	}
}

// TestUnload: a model chatted with a keep-alive of -1 is in memory until
// Ollama stops; Unload takes it out, as `ollama stop` does; a model that
// is not installed is said so.
func TestUnload(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("ok") }})
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c.SetKeepAlive(-1)
	ctx := context.Background()
	if err := c.Chat(ctx, &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	in, err := c.InMemory(ctx)
	if err != nil || len(in) != 1 || in[0].Name != "m:latest" || !in[0].Forever {
		t.Fatalf("in memory %+v, %v; want m until Ollama stops", in, err)
	}
	if err := c.Unload(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	if in, err := c.InMemory(ctx); err != nil || len(in) != 0 {
		t.Fatalf("after Unload: %+v, %v", in, err)
	}
	if err := c.Unload(ctx, "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("Unload of a model not installed: %v", err)
	}
}

// TestChatWaitsWhileOllamaIsBusy: Ollama refusing a request because its
// queue is full (503, "server busy, please try again") is asked again,
// waiting longer each time, the user told why; one that stays busy ends
// the request saying so and what to do. Any other 503 is not waited on.
func TestChatWaitsWhileOllamaIsBusy(t *testing.T) {
	const said = "server busy, please try again.  maximum pending requests exceeded" // v0.24.0's ErrMaxQueue
	busyReply := ollamatest.Reply{Status: http.StatusServiceUnavailable, Error: said}
	for _, tt := range []struct {
		name    string
		replies []ollamatest.Reply
		notices int
		err     string // "" for the answer
	}{
		{"busy twice, then free", []ollamatest.Reply{busyReply, busyReply, ollamatest.Text("ok")}, 2, ""},
		{"busy throughout", slices.Repeat([]ollamatest.Reply{busyReply}, busyRounds+2), busyRounds, "stayed busy for a minute: its queue of requests is full"},
		{"another 503", []ollamatest.Reply{{Status: http.StatusServiceUnavailable, Error: "account unavailable"}, ollamatest.Text("ok")}, 0, "answered 503: account unavailable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(api.ChatRequest) ollamatest.Reply { return tt.replies[n.Add(1)-1] }})
			c, err := New(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			c.busyFirst = time.Millisecond
			var notices []string
			ctx := WithNotice(context.Background(), func(msg string) { notices = append(notices, msg) })
			answer := ""
			err = c.Chat(ctx, &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(r api.ChatResponse) error { answer += r.Message.Content; return nil })
			if tt.err == "" && (err != nil || answer != "ok") || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("answer %q, error %v; want %q", answer, err, tt.err)
			}
			if len(notices) != tt.notices || tt.notices > 0 && !strings.Contains(notices[0], "is busy: its queue of requests is full (other programs are using it); Shrimp asks again, for up to a minute") {
				t.Errorf("notices %q, want %d", notices, tt.notices)
			}
			if asked, want := len(srv.Requests()), tt.notices+1; asked != want {
				t.Errorf("asked %d times, want %d", asked, want)
			}
		})
	}
	// Stopped while it waits: the request ends at once.
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(api.ChatRequest) ollamatest.Reply { return busyReply }})
	c, _ := New(srv.URL)
	c.busyFirst = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	ctx = WithNotice(ctx, func(string) { cancel() })
	if err := c.Chat(ctx, &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("stopped while waiting: %v", err)
	}
}

package session

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/redact"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/secrettest"
	"github.com/shrimp-harness/shrimp/internal/sqlite"
)

func open(t testing.TB) (*store.Store, *bus.Bus[agent.Event], *Recorder) {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := bus.New[agent.Event]()
	r := NewRecorder(st, b, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { r.Close(); _ = b.Close(context.Background()); _ = st.Close() })
	return st, b, r
}

// TestWrittenBeforePublished: whenever a subscriber sees an event, the
// store already has it; seqs increase per session.
func TestWrittenBeforePublished(t *testing.T) {
	st, b, r := open(t)
	ctx := context.Background()
	for _, id := range []string{"s1", "s2"} {
		if err := st.CreateSession(ctx, store.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var missing []int64
	last := map[string]int64{}
	_, _ = b.Subscribe("check", func(ctx context.Context, e agent.Event) error {
		evs, err := st.Events(ctx, e.Session, e.Seq-1)
		mu.Lock()
		defer mu.Unlock()
		if err != nil || len(evs) == 0 || evs[0].Seq != e.Seq {
			missing = append(missing, e.Seq)
		}
		if e.Seq <= last[e.Session] {
			missing = append(missing, -e.Seq)
		}
		last[e.Session] = e.Seq
		return nil
	}, bus.OnFull(bus.Block[agent.Event](time.Minute)))
	for i := range 300 {
		id := []string{"s1", "s2"}[i%2]
		if _, err := r.Record(ctx, id, agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("published before stored or out of order: %v", missing)
	}
	if last["s1"] != 150 || last["s2"] != 150 {
		t.Fatalf("last seqs %v", last)
	}
	// A new recorder on the same store continues the numbering.
	r2 := NewRecorder(st, b, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer r2.Close()
	e, err := r2.Record(ctx, "s1", agent.Event{Type: agent.TypeToken})
	if err != nil || e.Seq != 151 {
		t.Fatalf("continued seq %d, %v", e.Seq, err)
	}
}

// TestConcurrentRecordKeepsOrder: areas record into one session from
// their own goroutines (the loop, the learner, usage, approvals); the
// events are still stored and published in seq order. Stamping and
// queueing were two steps, so one goroutine could take seq 19, another
// 20, and 20 be queued first (seen once in CI as "seq not increasing: 19
// after 20" in a chat's JSON stream).
func TestConcurrentRecordKeepsOrder(t *testing.T) {
	st, b, r := open(t)
	ctx := context.Background()
	if err := st.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []int64
	_, _ = b.Subscribe("order", func(_ context.Context, e agent.Event) error {
		mu.Lock()
		seen = append(seen, e.Seq)
		mu.Unlock()
		return nil
	}, bus.OnFull(bus.Block[agent.Event](time.Minute)))
	const writers, each = 8, 400
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				if _, err := r.Record(ctx, "s", agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: "x"}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != writers*each {
		t.Fatalf("%d events published, want %d", len(seen), writers*each)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] != seen[i-1]+1 {
			t.Fatalf("published out of order at %d: seq %d after %d", i, seen[i], seen[i-1])
		}
	}
	evs, err := st.Events(ctx, "s", 0)
	if err != nil || len(evs) != writers*each {
		t.Fatalf("stored %d events, %v", len(evs), err)
	}
}

// BenchmarkRecord measures events persisted per second with
// synchronous(FULL), through the group-commit writer.
func BenchmarkRecord(b *testing.B) {
	st, _, r := open(b)
	ctx := context.Background()
	if err := st.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		b.Fatal(err)
	}
	data := agent.ToolResult{ID: "c1", Name: "fs.read", Output: "some file content, about a line long"}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := r.Record(ctx, "s", agent.Event{Type: agent.TypeToolResult, Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// TestWordsHeldBack: streamed text goes on at each blank, or once 4 KiB
// wait; what is held goes before any other event, answer and thinking
// apart.
func TestWordsHeldBack(t *testing.T) {
	tok := func(s string) agent.Event { return agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: s}} }
	think := func(s string) agent.Event { return agent.Event{Type: agent.TypeThinking, Data: agent.Delta{Text: s}} }
	var w words
	var got []string
	feed := func(e agent.Event) {
		for _, out := range w.next(e) {
			if d, ok := out.Data.(agent.Delta); ok {
				got = append(got, string(out.Type)+":"+d.Text)
			} else {
				got = append(got, string(out.Type))
			}
		}
	}
	for _, e := range []agent.Event{tok("Your key is gh"), think("hm"), tok("p_abc"), tok("def. Done"), think("m ok"), {Type: agent.TypeResponse, Data: agent.Response{Text: "x"}}} {
		feed(e)
	}
	want := []string{"agent:token:Your key is ", "agent:token:ghp_abcdef. ", "agent:thinking:hmm ", "agent:token:Done", "agent:thinking:ok", "agent:response"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	// Text in a script without blanks goes on as it comes.
	got = nil
	feed(tok("我来列出"))
	feed(tok("文件。"))
	if strings.Join(got, "|") != "agent:token:我来列出|agent:token:文件。" {
		t.Fatalf("text without blanks was held: %q", got)
	}
	got = nil
	feed(tok(strings.Repeat("x", 5000)))
	if len(got) != 1 || len(w.rest()) != 0 {
		t.Fatalf("a 5,000-byte word was held: %d events", len(got))
	}
}

// TestWordsRedactInContext: a secret whose pattern needs the words before
// it is caught although those words went out in an earlier piece, on the
// line before too (as the recorded answer is); plain text is not changed.
func TestWordsRedactInContext(t *testing.T) {
	r := redact.New(nil)
	bearer := "abcDEF0123" + "456789xyzQ"
	aws := strings.Repeat("wJalrXUtnFEMI/K7MDENG", 2)
	tests := []struct {
		name   string
		pieces []string
		want   string
	}{
		{"a bearer token after its header", []string{"Send Authorization: Bearer ", bearer[:8], bearer[8:], " with it."}, "Send Authorization: Bearer [REDACTED:bearer-token] with it."},
		{"an AWS secret after its name", []string{"aws_secret_access_key = ", aws[:10], aws[10:], "\nok"}, "aws_secret_access_key = [REDACTED:aws-secret-key]\nok"},
		{"a quoted assignment", []string{"export API_TOKEN=\"", "abc123", "def456\"", "\n"}, "export API_TOKEN=\"[REDACTED:secret-assignment]\"\n"},
		{"the header at the end of the line before", []string{"Authorization: Bearer\n", bearer, " here"}, "Authorization: Bearer\n[REDACTED:bearer-token] here"},
		{"a long line before", []string{strings.Repeat("word ", 80) + "Authorization: Bearer ", bearer, " here"}, strings.Repeat("word ", 80) + "Authorization: Bearer [REDACTED:bearer-token] here"},
		{"plain text", []string{"The build ", "passed in ", "12.5 s, ", "see logs/build-7.txt"}, "The build passed in 12.5 s, see logs/build-7.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := words{redact: func(s string) string { out, _ := r.String(s); return out }}
			var got strings.Builder
			emit := func(es []agent.Event) {
				for _, e := range es {
					got.WriteString(e.Data.(agent.Delta).Text)
				}
			}
			for _, p := range tt.pieces {
				emit(w.next(agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: p}}))
			}
			emit(w.rest())
			if got.String() != tt.want {
				t.Fatalf("got  %q\nwant %q", got.String(), tt.want)
			}
		})
	}
}

// BenchmarkWords: streamed pieces of an ordinary answer through the
// hold-back, with and without redaction in the context of what went
// before (ns per piece).
func BenchmarkWords(b *testing.B) {
	r := redact.New(nil)
	pieces := strings.Fields("The build passed in 12.5 s; the tests in internal/store took longest, see logs/build-7.txt for the rest of it and the coverage report.")
	for _, tt := range []struct {
		name   string
		redact func(string) string
	}{{"plain", nil}, {"redacting", func(s string) string { out, _ := r.String(s); return out }}} {
		b.Run(tt.name, func(b *testing.B) {
			w := words{redact: tt.redact}
			for i := 0; b.Loop(); i++ {
				w.next(agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: pieces[i%len(pieces)] + " "}})
			}
		})
	}
}

// TestSyncReportsALostWrite: an event and the sync after it can land in
// different batches of the writer; the sync's batch then writes nothing.
// It must still say the session's event was lost (it said "written", and
// a tool ran whose call was not recorded, in a loaded CI run), while
// another session's sync and a later run of the session are not blamed.
func TestSyncReportsALostWrite(t *testing.T) {
	st, b, r := open(t)
	ctx := context.Background()
	for _, id := range []string{"s1", "s2"} {
		if err := st.CreateSession(ctx, store.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	other, err := sqlite.Open(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Exec("CREATE TRIGGER full BEFORE INSERT ON events WHEN NEW.session_id = 's1' BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END").Error; err != nil {
		t.Fatal(err)
	}
	published := make(chan struct{}, 1)
	if _, err := b.Subscribe("watch", func(context.Context, agent.Event) error { published <- struct{}{}; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Record(ctx, "s1", agent.Event{Type: agent.TypeToolCall, Data: agent.ToolCall{ID: "c", Name: "fs.write"}}); err != nil {
		t.Fatal(err)
	}
	// The writer has written (and failed) the event: the sync is alone in
	// the next batch.
	select {
	case <-published:
	case <-time.After(time.Minute):
		t.Fatal("the event was never published")
	}
	if err := r.sync(ctx, "s2"); err != nil {
		t.Fatalf("another session's sync was blamed: %v", err)
	}
	if err := r.sync(ctx, "s1"); err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("the sync after a lost event said %v", err)
	}
	if err := r.Sync(ctx); err == nil {
		t.Fatal("a sync of everything after a failed write said it was written")
	}
	if err := other.Exec("DROP TRIGGER full").Error; err != nil {
		t.Fatal(err)
	}
	if err := r.sync(ctx, "s1"); err != nil {
		t.Fatalf("the loss was reported once, then blamed again: %v", err)
	}
}

// TestWordsRedactStreamedKeys: a private key a model writes into its
// answer (it read ~/.ssh/id_rsa), streamed in pieces of any size, never
// reaches the window or the record: no line of it goes out, only the
// marker. A certificate and plain text come through whole and unchanged.
func TestWordsRedactStreamedKeys(t *testing.T) {
	r := redact.New(nil)
	rng := rand.New(rand.NewPCG(5, 9))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	line := func() string {
		b := make([]byte, 64)
		for i := range b {
			b[i] = b64[rng.IntN(len(b64))]
		}
		return string(b)
	}
	stream := func(text string) string { return streamed(r, rng, text, 30) }
	kinds := []string{"PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"}
	for round := range 300 {
		kind := kinds[round%len(kinds)]
		var body []string
		for range 3 + rng.IntN(30) {
			body = append(body, line())
		}
		key := "-----BEGIN " + kind + "-----\n" + strings.Join(body, "\n") + "\n-----END " + kind + "-----"
		text := "Here is what ~/.ssh/id_rsa holds:\n\n```\n" + key + "\n```\n\nKeep it safe."
		got := stream(text)
		for _, l := range body {
			if strings.Contains(got, l) {
				t.Fatalf("round %d (%s): a line of the key went out:\n%s", round, kind, got)
			}
		}
		if !strings.Contains(got, "[REDACTED:private-key]") || !strings.HasSuffix(got, "Keep it safe.") {
			t.Fatalf("round %d (%s): %q", round, kind, got)
		}
		cert := "-----BEGIN CERTIFICATE-----\n" + strings.Join(body, "\n") + "\n-----END CERTIFICATE-----\nand some words after it"
		if got := stream(cert); got != cert {
			t.Fatalf("round %d: a certificate came through as %q", round, got)
		}
	}
}

// TestWordsLoseNothing: whatever text streams, in whatever pieces, with
// other events between them, what goes out is that text, in order, each
// kind's on its own (held-back words, PEM blocks open and closed, long
// runs, text in other scripts).
func TestWordsLoseNothing(t *testing.T) {
	pool := []string{"word", " ", "\n", "ghp_", "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----", "-----BEGIN", "-----END", "文件", "é", "x=1;", strings.Repeat("a", 700), "\t", "..."}
	rng := rand.New(rand.NewPCG(11, 13))
	for round := range 500 {
		var want [2]strings.Builder
		var got [2]strings.Builder
		var w words
		take := func(es []agent.Event) {
			for _, e := range es {
				if d, ok := e.Data.(agent.Delta); ok {
					got[kind(e.Type)].WriteString(d.Text)
				}
			}
		}
		for range rng.IntN(200) {
			k := rng.IntN(2)
			typ := []agent.Type{agent.TypeToken, agent.TypeThinking}[k]
			switch rng.IntN(10) {
			case 0: // another event: what is held goes first
				take(w.next(agent.Event{Type: agent.TypeToolCall, Data: agent.ToolCall{ID: "c"}}))
			default:
				var piece strings.Builder
				for range 1 + rng.IntN(4) {
					piece.WriteString(pool[rng.IntN(len(pool))])
				}
				want[k].WriteString(piece.String())
				take(w.next(agent.Event{Type: typ, Data: agent.Delta{Text: piece.String()}}))
			}
		}
		take(w.rest())
		for k := range 2 {
			if got[k].String() != want[k].String() {
				t.Fatalf("round %d, kind %d: got %d bytes, want %d:\n%q\n%q", round, k, got[k].Len(), want[k].Len(), got[k].String(), want[k].String())
			}
		}
	}
}

// TestWordsRedactEveryKind: a secret of any kind the redactor knows, in
// the text that carries it, after ordinary words on its line or before
// it, streamed in pieces of any size, never goes out, in any piece (nor
// does the whole text, redacted at once, keep it).
func TestWordsRedactEveryKind(t *testing.T) {
	r := redact.New(nil)
	rng := rand.New(rand.NewPCG(21, 4))
	makers := secrettest.Makers(rng)
	filler := strings.Fields("the build failed because a file was missing so I read the log and fixed the path then ran the tests again")
	for round := range 1600 {
		secret, carrier := makers[round%len(makers)]()
		var before []string
		for range rng.IntN(12) {
			before = append(before, filler[rng.IntN(len(filler))])
		}
		text := strings.Join(before, " ") + []string{" ", "\n", ": ", "\n\n"}[rng.IntN(4)] + carrier + []string{"", " ", "\n", ". Done."}[rng.IntN(4)]
		whole, _ := r.String(text)
		got := streamed(r, rng, text, 16)
		for _, part := range strings.Split(secret, "\n") {
			if strings.Contains(got, part) || strings.Contains(whole, part) {
				t.Fatalf("round %d: the secret (of %q) went out:\nstreamed %q\nwhole    %q", round, carrier, got, whole)
			}
		}
	}
}

// streamed is what goes out of text streamed through words with r's
// redaction, in pieces of 1 to most bytes.
func streamed(r *redact.Redactor, rng *rand.Rand, text string, most int) string {
	w := words{redact: func(s string) string { out, _ := r.String(s); return out }}
	var got strings.Builder
	for i := 0; i < len(text); {
		n := 1 + rng.IntN(most)
		for _, e := range w.next(agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: text[i:min(len(text), i+n)]}}) {
			got.WriteString(e.Data.(agent.Delta).Text)
		}
		i += n
	}
	for _, e := range w.rest() {
		got.WriteString(e.Data.(agent.Delta).Text)
	}
	return got.String()
}

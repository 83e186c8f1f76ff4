package mcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestHeldStreams: a standalone stream that ends between events is asked
// for again (afresh: never from the last event id) and read on as one
// stream, and the lists are read again; one cut mid-event, or a session
// the server no longer knows, ends it for the SDK; a server that stops
// offering it leaves it silent until closed.
func TestHeldStreams(t *testing.T) {
	// Each case scripts the server's answers to the stream's GETs in order:
	// a status, a body, and whether to hold the answer open afterwards.
	type answer struct {
		status int
		body   string
		hold   bool
	}
	cases := []struct {
		name    string
		answers []answer
		want    string // what the reader reads before it stops
		cut     bool   // the reader gets errStreamCut
		asked   int    // GETs the server got
		resumed int    // streams given again
	}{
		{"ended between events, asked again", []answer{
			{200, "id: 1\ndata: {\"a\":1}\n\n", false},
			{200, ": keep-alive\n\nid: 2\ndata: {\"b\":2}\n\n", true},
		}, "id: 1\ndata: {\"a\":1}\n\n: keep-alive\n\nid: 2\ndata: {\"b\":2}\n\n", false, 2, 1},
		{"crlf, a failing server, its retry time", []answer{
			{200, "retry: 5\r\nid: x\r\ndata: {}\r\n\r\n", false},
			{503, "busy", false},
			{200, "data: {}\r\n\r\n", true},
		}, "retry: 5\r\nid: x\r\ndata: {}\r\n\r\ndata: {}\r\n\r\n", false, 3, 1},
		{"a server still holding the old stream, one asking to slow down", []answer{
			{200, "data: {}\n\n", false},
			{409, "Conflict: Only one SSE stream is allowed per session", false},
			{429, "", false},
			{200, "data: {}\n\n", true},
		}, "data: {}\n\ndata: {}\n\n", false, 4, 1},
		{"cut mid-event", []answer{
			{200, "data: {\"a\":", false},
		}, "data: {\"a\":", true, 1, 0},
		{"cut after a field, before the blank line", []answer{
			{200, "id: 3\ndata: {}\n", false},
		}, "id: 3\ndata: {}\n", true, 1, 0},
		{"the session is gone", []answer{
			{200, "data: {}\n\n", false},
			{404, "no such session", false},
		}, "data: {}\n\n", true, 2, 0},
		{"the sign-in is refused", []answer{
			{200, "data: {}\n\n", false},
			{401, "", false},
		}, "data: {}\n\n", true, 2, 0},
		{"no stream offered any more", []answer{
			{200, "data: {}\n\n", false},
			{405, "", false},
		}, "data: {}\n\n", false, 2, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var lastIDs []string // Last-Event-ID of each GET
			var resumed atomic.Int32
			served := make(chan int, len(c.answers)+1)
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				i := len(lastIDs)
				lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
				mu.Unlock()
				if i >= len(c.answers) {
					t.Errorf("asked %d times, scripted %d", i+1, len(c.answers))
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				a := c.answers[i]
				if a.status == 200 {
					w.Header().Set("Content-Type", "text/event-stream")
				}
				w.WriteHeader(a.status)
				io.WriteString(w, a.body)
				w.(http.Flusher).Flush()
				served <- i
				if a.hold {
					select {
					case <-r.Context().Done():
					case <-release:
					}
				}
			}))
			defer srv.Close()
			defer close(release)

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			req.Header.Set("Accept", "text/event-stream")
			res, err := heldStreams{next: http.DefaultTransport, pause: 10 * time.Millisecond, resumed: func() { resumed.Add(1) }}.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			type result struct {
				got string
				err error
			}
			done := make(chan result, 1)
			var got strings.Builder
			var gotMu sync.Mutex
			go func() {
				buf := make([]byte, 7) // small reads: fields split across them
				for {
					n, err := res.Body.Read(buf)
					gotMu.Lock()
					got.Write(buf[:n])
					gotMu.Unlock()
					if err != nil {
						gotMu.Lock()
						done <- result{got.String(), err}
						gotMu.Unlock()
						return
					}
				}
			}()
			for range c.answers {
				<-served // every scripted answer was given
			}
			var r result
			if c.cut {
				r = <-done
				if !errors.Is(r.err, errStreamCut) {
					t.Errorf("the reader got %v, want the stream cut", r.err)
				}
			} else {
				// The stream is open: nothing ends it but Close.
				for deadline := time.Now().Add(time.Minute); ; {
					gotMu.Lock()
					n := got.Len()
					gotMu.Unlock()
					if n >= len(c.want) || time.Now().After(deadline) {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
				select {
				case r = <-done:
					t.Fatalf("the stream ended by itself: %q %v", r.got, r.err)
				default:
				}
				res.Body.Close()
				r = <-done
				if errors.Is(r.err, errStreamCut) {
					t.Errorf("closed, the reader got %v", r.err)
				}
			}
			if r.got != c.want {
				t.Errorf("read %q, want %q", r.got, c.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(lastIDs) != c.asked || strings.Join(lastIDs, "") != "" {
				t.Errorf("asked %d times (Last-Event-ID %q), want %d times, never resuming", len(lastIDs), lastIDs, c.asked)
			}
			if int(resumed.Load()) != c.resumed {
				t.Errorf("the lists were read again %d times, want %d", resumed.Load(), c.resumed)
			}
		})
	}
}

// TestHeldStreamsPassOthers: posts other than subscriptions/listen, and
// answers that are not streams, are not held.
func TestHeldStreamsPassOthers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		io.WriteString(w, "{}")
	}))
	defer srv.Close()
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequest(method, srv.URL, nil)
		res, err := heldStreams{next: http.DefaultTransport}.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, held := res.Body.(*heldBody); held {
			t.Errorf("%s answered %s was held", method, res.Header.Get("Content-Type"))
		}
		res.Body.Close()
	}
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`: true,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"subscriptions/listen"}}`:                       false,
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		res, err := heldStreams{next: http.DefaultTransport}.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, held := res.Body.(*heldBody); held != want {
			t.Errorf("%s: held %v", body, held)
		}
		res.Body.Close()
	}
}

// TestHeldListens: a subscriptions/listen answer's stream is held like a
// standalone stream, and the server's own answer to the listen (a result:
// it ended the listen, as a server draining its connections does) is kept
// from the reader, which the SDK would take as the listen's end, and the
// listen asked for again; a refusal (an error answer) is passed on and
// ends the stream; another id's answer, a notification and an event too
// long to hold pass.
func TestHeldListens(t *testing.T) {
	const listen = `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`
	ack := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\"}\n\n"
	changed := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
	long := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"" + strings.Repeat("x", maxHeldEvent) + "\"}}\n\n"
	cases := []struct {
		name    string
		answers []string // each stream's body; the last is held open
		want    string   // what the reader reads
		ends    bool     // the reader gets io.EOF (the listen refused)
		cut     bool     // the reader gets errStreamCut
	}{
		{"answered, asked again", []string{ack + "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", ack + changed}, ack + ack + changed, false, false},
		{"answered in crlf and pieces of data, as 7.0", []string{"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":7.0,\"result\":{\"_meta\":{}}}\r\n\r\n", changed}, changed, false, false},
		{"answered, with more after it", []string{ack + "data: {\"id\":7,\"result\":{}}\n\n" + changed, changed}, ack + changed, false, false},
		{"refused", []string{"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"no\"}}\n\n"}, "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"no\"}}\n\n", true, false},
		{"cut in the middle of an event, dropped", []string{ack + "data: {\"jsonrpc\":\"2.0\",\"method\":\"notif", changed}, ack + changed, false, false},
		{"cut in the middle of an event too long to hold", []string{ack + long[:len(long)-10]}, ack + long[:len(long)-10], false, true},
		{"another id's answer, a long event", []string{"data: {\"id\":\"7\",\"result\":{}}\n\n" + long, changed}, "data: {\"id\":\"7\",\"result\":{}}\n\n" + long + changed, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked atomic.Int32
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if b, _ := io.ReadAll(r.Body); string(b) != listen {
					t.Errorf("asked again with %q", b)
				}
				i := int(asked.Add(1)) - 1
				if i >= len(c.answers) {
					t.Errorf("asked %d times, scripted %d", i+1, len(c.answers))
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, c.answers[i])
				w.(http.Flusher).Flush()
				if i == len(c.answers)-1 && !c.ends && !c.cut {
					select {
					case <-r.Context().Done():
					case <-release:
					}
				}
			}))
			defer srv.Close()
			defer close(release)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(listen))
			res, err := heldStreams{next: http.DefaultTransport, pause: 10 * time.Millisecond}.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			buf := make([]byte, 7)
			for len(got) < len(c.want) || c.ends || c.cut {
				n, err := res.Body.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					if !(c.ends && errors.Is(err, io.EOF)) && !(c.cut && errors.Is(err, errStreamCut)) {
						t.Errorf("the reader got %v", err)
					}
					break
				}
			}
			res.Body.Close()
			if string(got) != c.want {
				t.Errorf("read %q, want %q", got, c.want)
			}
			if want := len(c.answers); int(asked.Load()) != want {
				t.Errorf("asked %d times, want %d", asked.Load(), want)
			}
		})
	}
}

// BenchmarkListens measures what holding streams adds to every small POST
// (a tool call): reading its start again to tell a subscriptions/listen.
func BenchmarkListens(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 300) + `"},"_meta":{"progressToken":12}}}`
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	for b.Loop() {
		if _, ok := listenID(req); ok {
			b.Fatal("a tool call taken for a listen")
		}
	}
}

// fakeSignIn is a sign-in whose token the test changes.
type fakeSignIn struct{ token atomic.Value }

func (f *fakeSignIn) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.token.Load().(string)}), nil
}

func (f *fakeSignIn) Authorize(context.Context, *http.Request, *http.Response) error {
	return errors.New("not here")
}

// TestHeldStreamsSignedIn: a stream asked for again carries the sign-in's
// token of the moment, not the one the first request had (it may have
// expired since).
func TestHeldStreamsSignedIn(t *testing.T) {
	signIn := &fakeSignIn{}
	signIn.token.Store("first")
	got := make(chan string, 2)
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := asked.Add(1)
		select {
		case got <- r.Header.Get("Authorization"):
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {}\n\n")
		if n >= 2 {
			<-r.Context().Done() // the second stream stays
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer first")
	res, err := heldStreams{next: http.DefaultTransport, pause: 10 * time.Millisecond, auth: signIn}.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	signIn.token.Store("renewed")
	go io.Copy(io.Discard, res.Body)
	if first, again := <-got, <-got; first != "Bearer first" || again != "Bearer renewed" {
		t.Errorf("asked with %q, then %q", first, again)
	}
}

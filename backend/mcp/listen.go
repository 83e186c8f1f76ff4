package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// A streamable HTTP server speaking a protocol before 2026-07-28 sends what
// it has to say outside any request (its tool or prompt list changed, a
// page the user opened is done, a question) on one long GET stream, the
// "standalone" stream. Servers, and the proxies in front of hosted ones,
// end such streams: when idle for a minute or so, when a node is
// replaced. The Go SDK then asks for the stream again only MaxRetries
// times in a session's life and, without event ids, ends the whole
// session after that, failing the calls under way; with no retries at all
// it ends at the first close. So the stream's body is held here instead:
// a stream that ends between two events is asked for again, after a
// pause, for as long as the session lasts, and read on as one stream.
//
// From protocol 2026-07-28 on, a server says such things on the answer to
// a subscriptions/listen request instead (a POST whose answer is a stream
// that lasts the session); the SDK sends it once, and a proxy that ends it
// ends every list change after it, without a word. Such a stream is held
// the same way: the same request is sent again. A server may also end a
// listen itself, answering it (one draining its connections before a
// restart does): the SDK would take the answer as the listen's end, stop
// reading and drain the stream for good, so every list change after it
// was lost. That answer is kept from the SDK and the listen asked for
// again as after a cut; a refusal (an error answer) is passed on, and ends
// the stream. Each of a listen's events is held until it ends, so one cut
// short is dropped, never half passed on, and the listen asked for again
// too (the SDK would otherwise end the listen for good, silently).
//
// The new stream is asked for afresh, not resumed from the last event id:
// the TypeScript SDK's server with its example event store (the
// everything server) answered a resumption with the answers of earlier
// requests and empty events, which the Go SDK takes as a broken session.
// What the server said between two streams is not lost for the lists:
// they are read again each time (resumed).

// heldStreams asks for a server's standalone stream (or its
// subscriptions/listen answer) again whenever it ends between events;
// other requests pass through.
type heldStreams struct {
	next http.RoundTripper
	// resumed is called after a new stream was given (nil: nothing), to
	// read again what a message sent in between would have said changed.
	resumed func()
	// pause is the first wait before a stream is asked for again (doubled
	// while the server fails, up to maxPause); zero: half a second.
	pause time.Duration
	// auth is the server's sign-in (nil: none): a stream asked for again
	// carries its token of the moment, not the first request's, which may
	// have expired since.
	auth auth.OAuthHandler
}

// maxPause bounds the wait between two tries for a standalone stream.
const maxPause = 30 * time.Second

// healthy is how long a stream that sent nothing must have lasted for its
// end to be taken as a proxy's idle cut rather than a server that ends
// every stream at once (which is asked again ever more slowly).
const healthy = 10 * time.Second

// RoundTrip sends the request; a standalone stream's body is held.
func (h heldStreams) RoundTrip(req *http.Request) (*http.Response, error) {
	id, listen := listenID(req)
	held := req.Method == http.MethodGet || listen
	res, err := h.next.RoundTrip(req)
	if err != nil || !held || res.StatusCode != http.StatusOK || !eventStream(res) {
		return res, err
	}
	pause := h.pause
	if pause <= 0 {
		pause = 500 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(req.Context())
	res.Body = &heldBody{req: req.WithContext(ctx), ctx: ctx, cancel: cancel, next: h.next, resumed: h.resumed, auth: h.auth, body: res.Body, pause: pause, lineStart: true, since: time.Now(), id: id}
	return res, nil
}

// maxListen bounds the body of a request looked at for being a
// subscriptions/listen (a few hundred bytes; a tool call's arguments may
// be megabytes, and are not read twice).
const maxListen = 4 << 10

// listenID says whether req is a POST of a subscriptions/listen request
// that can be sent again (its body can be had afresh), and its JSON-RPC id
// (rpcID's form).
func listenID(req *http.Request) (string, bool) {
	if req.Method != http.MethodPost || req.GetBody == nil || req.ContentLength <= 0 || req.ContentLength > maxListen {
		return "", false
	}
	body, err := req.GetBody()
	if err != nil {
		return "", false
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxListen))
	if err != nil || !bytes.Contains(data, []byte(`"subscriptions/listen"`)) {
		return "", false // most requests: no decoding
	}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &msg) != nil || msg.Method != "subscriptions/listen" {
		return "", false
	}
	return rpcID(msg.ID), true
}

// rpcID is a JSON-RPC id in one form whatever its spelling (2, 2.0, "2"
// are 2, 2 and "2"); "" for none.
func rpcID(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v == nil {
		return ""
	}
	return fmt.Sprintf("%#v", v)
}

// eventStream says whether a response is an SSE stream.
func eventStream(res *http.Response) bool {
	t, _, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	return err == nil && t == "text/event-stream"
}

// errStreamCut is what the SDK reads when a held stream ends in the
// middle of an event it has begun to pass on, or the server will not give
// it again: what it sent cannot be pieced together. A standalone stream's
// end ends the session, which the Manager connects anew; a
// subscriptions/listen answer's end ends that listen.
var errStreamCut = errors.New("the server's standalone stream was cut")

// heldBody reads a standalone stream, and the ones asked for after it
// ends, as one. It passes bytes on as they come and keeps just enough
// state to know where an event ends (a blank line) and the server's
// retry time.
type heldBody struct {
	req     *http.Request   // the first request, asked again with ctx
	ctx     context.Context // ends with the session's request or Close
	cancel  context.CancelFunc
	next    http.RoundTripper
	resumed func()
	auth    auth.OAuthHandler
	pause   time.Duration // the wait before asking again, doubled while the server fails

	mu   sync.Mutex
	body io.ReadCloser // the stream being read; nil while asking again

	lineStart bool          // the next byte starts a line
	inEvent   bool          // a line of an event not yet ended has been read
	afterCR   bool          // the last byte was a '\r' (a '\n' after it ends no new line)
	line      []byte        // the start of the line under way, to read a retry field
	retry     time.Duration // the server's retry field, 0 when it gave none
	got       bool          // the stream under way has sent something
	since     time.Time     // when the stream under way was given
	waited    time.Duration // the last wait before asking again

	// For a subscriptions/listen answer (id: its request's JSON-RPC id;
	// "" for a standalone stream, passed on byte for byte), each event is
	// held until it ends, to keep the listen's own answer from the SDK.
	id       string
	event    []byte // the event under way, not passed on yet
	passing  bool   // the event under way outgrew maxHeldEvent: passed on as it comes
	out      []byte // bytes ready for the reader
	answered bool   // the server answered the listen: ask for it again
	refused  bool   // the server refused the listen (passed on): the stream ends
}

// maxHeldEvent bounds the part of an event held back (a listen's answer
// is a few hundred bytes); a longer event is passed on as it comes.
const maxHeldEvent = 64 << 10

// maxFieldLine is how much of a line is kept to read a retry field.
const maxFieldLine = 1024

// Read passes the stream on; a stream that ends between events is asked
// for again, and read on.
func (b *heldBody) Read(p []byte) (int, error) {
	for {
		if len(b.out) > 0 {
			n := copy(p, b.out)
			b.out = b.out[n:]
			return n, nil
		}
		if b.answered { // the server ends the stream after its answer
			if err := b.again(); err != nil {
				return 0, err
			}
			continue
		}
		b.mu.Lock()
		body := b.body
		b.mu.Unlock()
		if body == nil {
			return 0, io.ErrClosedPipe
		}
		n, err := body.Read(p)
		b.got = b.got || n > 0
		if b.id == "" {
			b.scan(p[:n])
			if n > 0 || err == nil {
				return n, nil
			}
		} else if b.out = b.sift(p[:n]); len(b.out) > 0 || b.answered || err == nil {
			continue
		}
		if b.ctx.Err() != nil || b.refused {
			return 0, err
		}
		// A listen's event cut short was never passed on (sift holds each
		// to its end): it is dropped and the listen asked for again, like
		// a cut between events (the lists are read again then).
		if (b.inEvent || !b.lineStart) && (b.id == "" || b.passing) {
			return 0, fmt.Errorf("%w mid-event: %w", errStreamCut, err)
		}
		if err := b.again(); err != nil {
			return 0, err
		}
	}
}

// scan follows the stream's lines: where events end, and retry times.
func (b *heldBody) scan(p []byte) {
	for _, c := range p {
		b.step(c)
	}
}

// step follows one byte of the stream and reports whether it ended an
// event (a blank line).
func (b *heldBody) step(c byte) (ended bool) {
	if c == '\n' && b.afterCR {
		b.afterCR = false
		return false
	}
	b.afterCR = c == '\r'
	if c == '\n' || c == '\r' {
		if b.lineStart {
			ended = b.inEvent
			b.inEvent = false // a blank line ends the event
		} else {
			b.field()
		}
		b.lineStart, b.line = true, b.line[:0]
		return ended
	}
	b.lineStart, b.inEvent = false, true
	if len(b.line) < maxFieldLine {
		b.line = append(b.line, c)
	}
	return false
}

// sift follows a listen's stream and returns what of p to pass on: each
// event once it has ended, but the server's answer to the listen, which
// is dropped (answered). Nothing is passed on after an answer.
func (b *heldBody) sift(p []byte) []byte {
	var out []byte
	for _, c := range p {
		ended := b.step(c)
		if b.passing {
			out = append(out, c)
			b.passing = !ended
			continue
		}
		b.event = append(b.event, c)
		switch {
		case ended:
			if b.answer(b.event) {
				b.answered, b.event = true, b.event[:0]
				return out // what the server sent after its answer is not read
			}
			out, b.event = append(out, b.event...), b.event[:0]
		case len(b.event) > maxHeldEvent:
			out, b.event, b.passing = append(out, b.event...), b.event[:0], true
		}
	}
	return out
}

// answer reports whether event is the server's answer to the listen: a
// result is (the listen is asked for again); an error is the server's
// refusal, passed on, after which the stream ends (refused).
func (b *heldBody) answer(event []byte) bool {
	var data []byte
	for line := range strings.Lines(string(event)) {
		line = strings.TrimRight(line, "\r\n")
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			if value != "" && value != "message" {
				return false
			}
		case "data":
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, value...)
		}
	}
	if !bytes.Contains(data, []byte(`"id"`)) {
		return false // a notification, a comment: most events
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &msg) != nil || msg.Method != "" || rpcID(msg.ID) != b.id {
		return false
	}
	if len(msg.Error) > 0 && string(msg.Error) != "null" {
		b.refused = true
		return false
	}
	return len(msg.Result) > 0
}

// field reads the line just ended when it is a retry field ("retry:",
// one space after the colon dropped, as the SSE standard says).
func (b *heldBody) field() {
	name, value, _ := strings.Cut(string(b.line), ":")
	if name != "retry" {
		return
	}
	if ms, err := strconv.Atoi(strings.TrimPrefix(value, " ")); err == nil && ms >= 0 {
		b.retry = time.Duration(ms) * time.Millisecond
	}
}

// again asks for the stream again until the server gives it, pausing
// between tries (the server's retry time, else b.pause, doubled after
// each failure up to maxPause). A server that no longer knows the session
// (404) or the sign-in (401, 403) ends the stream with errStreamCut; one
// that no longer offers a stream (405, another 4xx) leaves it open and
// silent until the session ends. A server still holding the stream that
// ended (409: the TypeScript SDK allows one per session and may not have
// seen it close yet), one asking to slow down (429) or one that timed out
// (408) is asked again, like one that fails (5xx, no answer).
func (b *heldBody) again() error {
	b.mu.Lock()
	old := b.body
	b.body = nil
	b.mu.Unlock()
	old.Close()
	wait := b.pause
	if b.retry > 0 {
		wait = min(max(b.retry, 100*time.Millisecond), maxPause)
	}
	if (!b.got || b.answered) && time.Since(b.since) < healthy && b.waited > 0 {
		wait = min(2*b.waited, maxPause) // given and ended (or answered) at once, again
	}
	b.got, b.answered = false, false
	b.inEvent, b.lineStart, b.afterCR, b.line, b.event, b.passing = false, true, false, b.line[:0], b.event[:0], false
	for {
		if err := b.sleep(wait); err != nil {
			return err
		}
		b.waited, wait = wait, min(2*wait, maxPause)
		req := b.req.Clone(b.ctx)
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return fmt.Errorf("%w: %w", errStreamCut, err)
			}
			req.Body = body
		}
		b.signed(req)
		res, err := b.next.RoundTrip(req)
		if err != nil {
			continue
		}
		switch {
		case res.StatusCode == http.StatusOK && eventStream(res):
			b.mu.Lock()
			if b.ctx.Err() != nil {
				b.mu.Unlock()
				res.Body.Close()
				return b.ctx.Err()
			}
			b.body, b.since = res.Body, time.Now()
			b.mu.Unlock()
			if b.resumed != nil {
				b.resumed()
			}
			return nil
		case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
			res.Body.Close()
			return fmt.Errorf("%w: asked for again, the server answered %s", errStreamCut, res.Status)
		case res.StatusCode == http.StatusConflict || res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusRequestTimeout:
			res.Body.Close()
		case res.StatusCode >= 400 && res.StatusCode < 500:
			res.Body.Close()
			<-b.ctx.Done()
			return b.ctx.Err()
		default:
			res.Body.Close()
		}
	}
}

// signed gives req the sign-in's token of the moment, when the server has
// a sign-in and the first request carried one.
func (b *heldBody) signed(req *http.Request) {
	if b.auth == nil || req.Header.Get("Authorization") == "" {
		return
	}
	ts, err := b.auth.TokenSource(b.ctx)
	if err != nil || ts == nil {
		return
	}
	if tok, err := ts.Token(); err == nil && tok.AccessToken != "" {
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
}

// sleep waits d, or until the session ends.
func (b *heldBody) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-b.ctx.Done():
		return b.ctx.Err()
	}
}

// Close ends the stream under way and any wait to ask for it again.
func (b *heldBody) Close() error {
	b.cancel()
	b.mu.Lock()
	body := b.body
	b.mu.Unlock()
	if body != nil {
		return body.Close()
	}
	return nil
}

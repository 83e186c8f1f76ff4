package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
)

// A server may say a tool must be called as an MCP task (protocol
// 2025-11-25, experimental: its "execution": {"taskSupport": "required"}):
// the call returns a task to poll, and a plain call is refused. Shrimp
// does not run tasks (the Go SDK carries neither the field nor the
// methods), so such a tool would fail at every call the model made; it is
// listed with NeedsTasks and not offered. The SDK's Tool drops
// "execution", so the server's messages are read for it as they arrive:
// the lines of a stdio server's stdout (lineFilter), the bodies of an
// HTTP server's answers (taskListening).

// NeedTasks names the tools that must run as tasks, so are not offered.
func NeedTasks(tools []Tool) []string {
	var names []string
	for _, t := range tools {
		if t.NeedsTasks {
			names = append(names, t.Name)
		}
	}
	return names
}

// Offered counts a server's tools as the model is offered them: its own
// (not the two Shrimp adds for resources, not those that must run as
// tasks or its settings exclude), and whether Shrimp added resource
// tools.
func Offered(tools []Tool) (own int, resources bool) {
	for _, t := range tools {
		switch {
		case t.Kind != "":
			resources = true
		case !t.NeedsTasks && !t.Excluded:
			own++
		}
	}
	return own, resources
}

// taskTools holds the names of a server's tools that must run as tasks,
// as its last tool list said.
type taskTools struct {
	mu    sync.Mutex
	names map[string]bool
}

// required reports whether the tool must run as a task.
func (tt *taskTools) required(name string) bool {
	if tt == nil {
		return false
	}
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.names[name]
}

// see reads one message as it arrived (a line of JSON, or an SSE "data:"
// line); a tools/list result notes what each of its tools said.
func (tt *taskTools) see(line []byte) {
	if !bytes.Contains(line, []byte(`"taskSupport"`)) {
		return // most messages: decoded by nobody here
	}
	line = bytes.TrimPrefix(line, []byte("data:"))
	var msg struct {
		Result struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for _, t := range msg.Result.Tools {
		if t.Execution.TaskSupport == "required" {
			if tt.names == nil {
				tt.names = map[string]bool{}
			}
			tt.names[t.Name] = true
		} else {
			delete(tt.names, t.Name)
		}
	}
}

// taskListening hands each line of an HTTP server's answers to a
// taskTools as the SDK reads them.
type taskListening struct {
	tasks *taskTools
	next  http.RoundTripper
}

// RoundTrip sends the request; the answer's body is read through.
func (l taskListening) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := l.next.RoundTrip(req)
	if err == nil && res.Body != nil {
		res.Body = &lineTap{ReadCloser: res.Body, see: l.tasks.see}
	}
	return res, err
}

// maxTapLine is the longest line a lineTap keeps to look at: a longer one
// (a tool list over 8 MiB) is passed on unread.
const maxTapLine = 8 << 20

// tapProbe is how much of a line a lineTap reads to tell whether it may
// be a tool list: a line that does not name "tools" in its first tapProbe
// bytes (a tool's result, a resource) is passed on without being kept,
// so a large answer costs a scan for line ends, not a copy.
const tapProbe = 1 << 10

// lineTap passes a body on unchanged and hands each of its lines that may
// be a tool list (the last one at the end) to see.
type lineTap struct {
	io.ReadCloser
	see    func([]byte)
	line   []byte
	skip   bool // the line under way is not looked at
	probed bool // its first tapProbe bytes were looked at
}

// Read reads the body and looks at the lines it completes.
func (t *lineTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.keep(rest)
			break
		}
		t.keep(rest[:i])
		t.flush()
		rest = rest[i+1:]
	}
	if err == io.EOF {
		t.flush()
	}
	return n, err
}

// keep adds to the line under way, unless it is not to be looked at.
func (t *lineTap) keep(b []byte) {
	if t.skip {
		return
	}
	if t.skip = len(t.line)+len(b) > maxTapLine; t.skip {
		t.line = t.line[:0]
		return
	}
	t.line = append(t.line, b...)
	if !t.probed && len(t.line) >= tapProbe {
		t.probed = true
		if t.skip = !bytes.Contains(t.line[:tapProbe], []byte(`"tools"`)); t.skip {
			t.line = t.line[:0]
		}
	}
}

// flush hands the line under way to see.
func (t *lineTap) flush() {
	if !t.skip && len(t.line) > 0 {
		t.see(t.line)
	}
	t.line, t.skip, t.probed = t.line[:0], false, false
}

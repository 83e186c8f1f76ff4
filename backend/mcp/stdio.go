package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shrimp-harness/shrimp/internal/shebang"
	"github.com/shrimp-harness/shrimp/internal/tail"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// The stdio transport allows only MCP messages on a server's stdout, one
// per line, but servers print banners ("Server running on stdio"), log
// lines (a logger left on stdout, often as JSON) and debugging prints
// there all the same. The reference SDKs (TypeScript, Python) report such
// a line and read on, so these servers work in other clients; the Go
// SDK's reader ends the connection at the first one. stdioTransport reads
// the server's stdout line by line, passes on the lines that are JSON-RPC
// messages and writes the others to the server's log.

// maxLine is the longest line of stdout read, in bytes: the Go SDK's own
// bound on a message.
const maxLine = sdk.DefaultMaxLineLength

// NotMCPPrefix marks, in a server's log, a line it wrote to stdout that
// was not an MCP message.
const NotMCPPrefix = "stdout (not an MCP message): "

// stdioTransport is the SDK's CommandTransport with the server's stdout
// read through a lineFilter.
type stdioTransport struct {
	cmd       *exec.Cmd
	log       io.Writer     // where lines that are not messages go (nil: dropped)
	notMCP    *atomic.Int64 // counts them
	seen      func([]byte)  // given each message (nil: none)
	terminate time.Duration // how long Close waits for the server after closing its stdin, then after SIGTERM
}

// Connect starts the command and connects to it over its stdin and stdout.
func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("connect the server's stdout: %w", err)
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("connect the server's stdin: %w", err)
	}
	if err := t.cmd.Start(); err != nil {
		// "no such file or directory" about a script that is there: its
		// first line says why.
		if why := shebang.Problem(t.cmd.Path); why != "" && errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("start the server: %s", why)
		}
		return nil, fmt.Errorf("start the server: %w", err)
	}
	in := &serverInput{stdin: stdin, cmd: t.cmd, terminate: t.terminate}
	out := io.NopCloser(&lineFilter{src: stdout, log: t.log, notMCP: t.notMCP, seen: t.seen}) // the connection ends by closing stdin
	// The filter bounds a line at maxLine; the SDK's own bound counts
	// bytes its decoder read ahead too.
	return (&sdk.IOTransport{Reader: out, Writer: in, MaxLineLength: -1}).Connect(ctx)
}

// serverInput is a server's stdin. Closing it ends the server as the
// stdio transport asks: close its input, wait for it to exit, then
// SIGTERM, then SIGKILL.
type serverInput struct {
	stdin     io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (s *serverInput) Write(p []byte) (int, error) { return s.stdin.Write(p) }

// Close closes the input and waits for the server to exit, signalling it
// when it does not.
func (s *serverInput) Close() error {
	closeErr := s.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL, 0} {
		select {
		case err := <-exited:
			return errors.Join(closeErr, err)
		case <-time.After(s.terminate):
		}
		if sig != 0 {
			_ = s.cmd.Process.Signal(sig)
		}
	}
	return errors.New("the server did not exit after SIGKILL")
}

// lineFilter reads a server's stdout and yields only its lines that are
// JSON-RPC messages (an object with "jsonrpc", or a batch of them), each
// with its newline; the others go to log, each on a line of its own after
// NotMCPPrefix, cut where the log cuts a line (tail.MaxLine). Blank lines
// are dropped.
type lineFilter struct {
	src    io.Reader
	log    io.Writer
	notMCP *atomic.Int64
	seen   func([]byte) // given each message before it is passed on (nil: none)

	buf  []byte // read from src, not yet split into lines
	out  []byte // messages ready to be read
	err  error  // src's error, returned once buf holds no line
	line int    // bytes of buf already known to hold no newline
}

// Read yields the next messages.
func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		line, err := f.next()
		if err != nil {
			return 0, err
		}
		f.take(line)
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// next returns the next line of src without its line end; at the end of
// src, the unfinished last line, then src's error.
func (f *lineFilter) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(f.buf[f.line:], '\n'); i >= 0 {
			end := f.line + i
			line := bytes.TrimSuffix(f.buf[:end], []byte("\r"))
			f.buf, f.line = f.buf[end+1:], 0
			return line, nil
		}
		f.line = len(f.buf)
		if f.line > maxLine {
			return nil, fmt.Errorf("the server wrote a line of more than %d MiB to stdout: no MCP message is that long", maxLine>>20)
		}
		if f.err != nil {
			if len(f.buf) > 0 {
				line := f.buf
				f.buf, f.line = nil, 0
				return line, nil
			}
			return nil, f.err
		}
		if cap(f.buf)-len(f.buf) < 32<<10 {
			f.buf = append(make([]byte, 0, 2*cap(f.buf)+64<<10), f.buf...)
		}
		n, err := f.src.Read(f.buf[len(f.buf):cap(f.buf)])
		f.buf = f.buf[:len(f.buf)+n]
		f.err = err
	}
}

// take passes a line on when it is a message and logs it when not.
func (f *lineFilter) take(line []byte) {
	trimmed := bytes.TrimSpace(line)
	switch {
	case len(trimmed) == 0:
		return
	case isMessage(trimmed):
		if f.seen != nil {
			f.seen(trimmed)
		}
		f.out = append(append(f.out[:0], trimmed...), '\n')
		return
	}
	if f.notMCP != nil {
		f.notMCP.Add(1)
	}
	if f.log != nil {
		shown := line[:textcut.Before(line, min(len(line), tail.MaxLine))]
		_, _ = fmt.Fprintf(f.log, "%s%s\n", NotMCPPrefix, bytes.ReplaceAll(shown, []byte("\r"), nil))
	}
}

// decodeBelow is the longest line whose "jsonrpc" member is decoded to
// tell it is a message; a longer one (a large result) is only checked to
// be JSON that names "jsonrpc", which costs half as much (BENCHMARKS.md).
const decodeBelow = 1 << 20

// isMessage reports whether a line is a JSON-RPC 2.0 message or a batch
// of them. Whether it is a well-formed MCP message is the SDK's to say.
func isMessage(line []byte) bool {
	type message struct {
		Version *string `json:"jsonrpc"`
	}
	ok := func(m message) bool { return m.Version != nil && *m.Version == "2.0" }
	if len(line) > decodeBelow {
		return (line[0] == '{' || line[0] == '[') && bytes.Contains(line, []byte(`"jsonrpc"`)) && json.Valid(line)
	}
	switch line[0] {
	case '{':
		var m message
		return json.Unmarshal(line, &m) == nil && ok(m)
	case '[':
		var batch []message
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return false
		}
		for _, m := range batch {
			if !ok(m) {
				return false
			}
		}
		return true
	}
	return false
}

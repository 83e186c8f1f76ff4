package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shrimp-harness/shrimp/backend/approval"
)

// openPTY returns a pseudo-terminal's two ends: what is written to the
// first is typed on the second.
func openPTY(t *testing.T) (keyboard, tty *os.File) {
	t.Helper()
	return openScreen(t, io.Discard)
}

// openScreen is openPTY, with what the terminal shows (the echo, and what
// is written to tty) copied to screen.
func openScreen(t *testing.T, screen io.Writer) (keyboard, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here (%v): the type-ahead test needs one", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here (%v): the type-ahead test needs one", err)
	}
	t.Cleanup(func() { s.Close() })
	go func() { _, _ = io.Copy(screen, m) }()
	return m, s
}

// TestTypedAheadIsNotAnAnswer: "yes" typed while the model was still
// writing (to a question it asked in its answer, say) is not taken as
// approval of the call asked about after it; a line typed after the
// question is.
func TestTypedAheadIsNotAnAnswer(t *testing.T) {
	keyboard, tty := openPTY(t)
	if _, err := keyboard.WriteString("yes\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for { // the line is in the terminal's input queue before the question
		n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		if n >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the typed line never reached the terminal (%d bytes queued)", n)
		}
		time.Sleep(time.Millisecond)
	}
	asked := make(chan struct{})
	var once sync.Once
	var out bytes.Buffer
	p := terminalPrompter(tty, writerFunc(func(b []byte) (int, error) {
		n, err := out.Write(b)
		if strings.Contains(out.String(), "rm -rf build") {
			once.Do(func() { close(asked) })
		}
		return n, err
	}), func() { flushInput(tty) })
	args, _ := json.Marshal(map[string]string{"command": "rm -rf build"})
	type result struct {
		a   approval.Answer
		err error
	}
	got := make(chan result, 1)
	go func() {
		a, err := p(context.Background(), approval.Request{ID: "c", Tool: "shell.run", Arguments: args, Shown: approval.Shown("shell.run", args)}, func() {})
		got <- result{a, err}
	}()
	select {
	case r := <-got:
		t.Fatalf("answered %+v (%v) with what was typed before the question", r.a, r.err)
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the question was never asked")
	}
	if _, err := keyboard.WriteString("n\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.err != nil || r.a.Allow {
			t.Fatalf("answer %+v, %v; want the denial typed after the question", r.a, r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the answer typed after the question was not read")
	}
}

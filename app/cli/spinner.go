package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinnerDelay is how long nothing is shown before the spinner is: a
// model that answers at once never shows it.
const spinnerDelay = 400 * time.Millisecond

// spinnerFrames turn once every spinnerTick.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinnerTick = 120 * time.Millisecond

// spinner says on the terminal what a run is waiting for, and for how
// long: a local model on a CPU can think for a minute before its first
// word, and a terminal that shows nothing looks hung. It draws on a line
// of its own after spinnerDelay of quiet, and takes the line back (hush)
// before anything else is written: the printer hushes it before each
// event and shows it again after, the terminal's questions hush it, and
// it does not draw while one is asked (busy).
type spinner struct {
	w    io.Writer   // the terminal (stderr as given)
	busy func() bool // a question is being asked

	mu     sync.Mutex
	what   string // what the run waits for; "" for nothing
	since  time.Time
	hushed bool
	drawn  bool
	frame  int
}

func newSpinner(w io.Writer, busy func() bool) *spinner {
	return &spinner{w: w, busy: busy}
}

// run turns the spinner until end; call end once.
func (s *spinner) run() (end func()) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(spinnerTick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				s.draw()
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		s.show("")
		s.hush()
	}
}

// show says what the run waits for from now ("" for nothing); the time is
// counted from when it started waiting for that.
func (s *spinner) show(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if what != s.what {
		s.what, s.since = what, time.Now()
	}
	s.hushed = false
}

// hush takes the spinner's line back, if it is drawn, until show.
func (s *spinner) hush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hushed = true
	if s.drawn {
		_, _ = io.WriteString(s.w, "\r\x1b[K")
		s.drawn = false
	}
}

func (s *spinner) draw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.what == "" || s.hushed || time.Since(s.since) < spinnerDelay || (s.busy != nil && s.busy()) {
		return
	}
	s.frame = (s.frame + 1) % len(spinnerFrames)
	elapsed := ""
	if d := time.Since(s.since); d >= 2*time.Second {
		elapsed = fmt.Sprintf(" · %d s", int(d.Seconds()))
	}
	_, _ = fmt.Fprintf(s.w, "\r%s %s%s\x1b[K", spinnerFrames[s.frame], s.what, elapsed)
	s.drawn = true
}

package cli

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// historyFile is the history's file in the data directory.
const historyFile = "chat-history"

// historyKept is how many requests the history holds; its file is
// rewritten to that many once it holds twice as many.
const historyKept = 500

// history is the conversation's earlier requests, newest last, for the
// line editor's up and down arrows (a lineedit.History). Each
// request kept is appended to its file (one line each, secrets taken out
// first: the file outlives the sessions it came from), so the next
// conversation starts with them.
type history struct {
	mu      sync.Mutex
	entries []string
	path    string              // "" keeps nothing on disk
	redact  func(string) string // nil keeps the text as typed
	log     *slog.Logger
	failed  bool // a write failed, and was said
}

// loadHistory reads path's requests (a missing file is an empty history).
func loadHistory(path string, redact func(string) string, log *slog.Logger) *history {
	h := &history{path: path, redact: redact, log: log}
	f, err := os.Open(path)
	if err != nil {
		if !os.IsNotExist(err) {
			log.Warn("chat history not read; the conversation starts without it", "path", path, "err", err)
		}
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := escaped(sc.Text()); l != "" {
			h.entries = append(h.entries, l)
		}
	}
	if err := sc.Err(); err != nil {
		log.Warn("chat history read in part", "path", path, "err", err)
	}
	if len(h.entries) > 2*historyKept {
		h.entries = h.entries[len(h.entries)-historyKept:]
		if err := h.rewrite(); err != nil {
			log.Warn("chat history not shortened", "path", path, "err", err)
		}
	}
	return h
}

// keep adds a request the user sent: not an empty one, nor the one just
// kept again.
func (h *history) keep(s string) {
	if h == nil || strings.TrimSpace(s) == "" {
		return
	}
	if h.redact != nil {
		s = h.redact(s)
	}
	s = escaped(s)
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.entries); n > 0 && h.entries[n-1] == s {
		return
	}
	h.entries = append(h.entries, s)
	if h.path == "" {
		return
	}
	if err := appendLine(h.path, s); err != nil && !h.failed {
		h.failed = true // said once: the conversation goes on without it
		h.log.Warn("requests are not kept in the chat history", "path", h.path, "err", err)
	}
}

// rewrite replaces the file with the entries held.
func (h *history) rewrite() error {
	tmp := h.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(h.entries, "\n")+"\n"), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, h.path); err != nil {
		return fmt.Errorf("replace %s: %w", h.path, err)
	}
	return nil
}

func appendLine(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return f.Close()
}

// Len returns how many requests are held.
func (h *history) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// At returns the request idx back: 0 is the newest.
func (h *history) At(idx int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.entries[len(h.entries)-1-idx]
}

package hooks

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// Transcripts keeps, for Claude Code hooks, a session's conversation in
// the form of Claude Code's transcript (JSON lines of user and assistant
// messages, tool calls as tool_use and their results as tool_result
// blocks, Claude Code's tool names), and gives its path as their
// transcript_path: Stop and Notification hooks written for Claude Code
// read the last answer there. A file is written only when a Claude Code
// hook is about to run in that session, from the messages stored by then
// (what the history keeps: secrets already taken out), appended to while
// the history only grows and written again when it does not (a retried
// request); mode 0600 in Dir. Safe for concurrent use.
type Transcripts struct {
	Dir string
	// Messages returns a session's history, oldest first, and when each
	// message was stored (Claude Code's lines carry a timestamp; a zero
	// time, or none, leaves it out).
	Messages func(ctx context.Context, session string) ([]api.Message, []time.Time, error)

	mu      sync.Mutex
	written map[string]writtenFile // by session: its file as this process last left it
}

// writtenFile is what a transcript file held when this process last
// wrote it: a line for each of so many messages, so many bytes, the last
// line's hash; and after them, pending bytes of calls not yet in the
// history (Path's pending), taken off before the file grows again.
type writtenFile struct {
	lines   int
	size    int64
	last    [sha256.Size]byte
	pending int64
}

// sessionFile is what a session id may be as a file name.
var sessionFile = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// Path brings the session's transcript up to date and returns its path;
// "" when there is no session yet, or it cannot be written (the hook then
// reads no transcript_path, and the error is the caller's to log). The
// pending calls, when given, end it as an assistant message of their own
// (the history keeps a message with calls once they have all run); the
// next Path takes that line off before it adds what the history gained.
func (t *Transcripts) Path(ctx context.Context, session, cwd string, pending ...api.ToolCall) (string, error) {
	if t == nil || session == "" || t.Messages == nil {
		return "", nil
	}
	if !sessionFile.MatchString(session) {
		return "", fmt.Errorf("transcript: session id %q is not a file name", session)
	}
	msgs, at, err := t.Messages(ctx, session)
	if err != nil {
		return "", fmt.Errorf("transcript of %s: %w", session, err)
	}
	file := t.file(session)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.written == nil {
		t.written = map[string]writtenFile{}
	}
	if err := os.MkdirAll(t.Dir, 0o700); err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	// The history only grew since (the common case: the message last
	// written is the same, the file as it was left): its new messages are
	// added. Otherwise (a retried request, a file changed or removed
	// meanwhile, a new process) it is written whole.
	had, ok := t.written[session]
	from := 0
	if ok && had.lines > 0 && had.lines <= len(msgs) && size(file) == had.size+had.pending {
		if l, err := transcriptLine(session, cwd, msgs[had.lines-1], stampOf(at, had.lines-1), had.lines-1); err == nil && sha256.Sum256([]byte(l)) == had.last &&
			(had.pending == 0 || os.Truncate(file, had.size) == nil) {
			from = had.lines
		}
	}
	lines := make([]string, 0, len(msgs)-from)
	for i := from; i < len(msgs); i++ {
		l, err := transcriptLine(session, cwd, msgs[i], stampOf(at, i), i)
		if err != nil {
			return "", err
		}
		lines = append(lines, l)
	}
	now := writtenFile{lines: len(msgs), size: had.size, last: had.last}
	if from == 0 {
		now.size = 0
	}
	for _, l := range lines {
		now.size += int64(len(l)) + 1
	}
	if len(lines) > 0 {
		now.last = sha256.Sum256([]byte(lines[len(lines)-1]))
	}
	// The pending calls' line is the file's end until the history holds
	// their message: taken off when it grows again.
	if len(pending) > 0 {
		l, err := transcriptLine(session, cwd, api.Message{Role: "assistant", ToolCalls: pending}, time.Now(), len(msgs))
		if err != nil {
			return "", err
		}
		lines = append(lines, l)
		now.pending = int64(len(l)) + 1
	}
	if from == 0 {
		err = writeLines(file, lines)
	} else {
		err = appendLines(file, lines)
	}
	if err != nil {
		delete(t.written, session)
		return "", err
	}
	t.written[session] = now
	return file, nil
}

// Forget removes a session's transcript (the session was deleted).
func (t *Transcripts) Forget(session string) error {
	if t == nil || !sessionFile.MatchString(session) {
		return nil
	}
	t.mu.Lock()
	delete(t.written, session)
	t.mu.Unlock()
	if err := os.Remove(t.file(session)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the transcript of %s: %w", session, err)
	}
	return nil
}

func (t *Transcripts) file(session string) string { return filepath.Join(t.Dir, session+".jsonl") }

// size is a file's size, -1 when it cannot be read.
func size(file string) int64 {
	info, err := os.Stat(file)
	if err != nil {
		return -1
	}
	return info.Size()
}

func writeLines(file string, lines []string) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(joinLines(lines)), 0o600); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("transcript: %w", err)
	}
	return nil
}

func appendLines(file string, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	w := bufio.NewWriter(f)
	_, err = w.WriteString(joinLines(lines))
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	return nil
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// transcriptEntry is one line of a Claude Code transcript.
type transcriptEntry struct {
	ParentUUID  *string        `json:"parentUuid"`
	IsSidechain bool           `json:"isSidechain"`
	UserType    string         `json:"userType"`
	CWD         string         `json:"cwd"`
	SessionID   string         `json:"sessionId"`
	Version     string         `json:"version"`
	Type        string         `json:"type"` // user, assistant
	Message     map[string]any `json:"message"`
	UUID        string         `json:"uuid"`
	Timestamp   string         `json:"timestamp,omitempty"` // UTC, milliseconds: 2026-12-06T12:00:00.000Z
}

// stampOf is message i's time in at; zero when at has none for it.
func stampOf(at []time.Time, i int) time.Time {
	if i < len(at) {
		return at[i]
	}
	return time.Time{}
}

// transcriptLine is m, the history's message i, as a line of Claude
// Code's transcript, chained to the line of message i-1, stamped with at
// (none when zero).
func transcriptLine(session, cwd string, m api.Message, at time.Time, i int) (string, error) {
	e := transcriptEntry{UserType: "external", CWD: cwd, SessionID: session, Version: "shrimp", UUID: lineUUID(session, i)}
	if !at.IsZero() {
		e.Timestamp = at.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if i > 0 {
		parent := lineUUID(session, i-1)
		e.ParentUUID = &parent
	}
	switch m.Role {
	case "user":
		e.Type, e.Message = "user", map[string]any{"role": "user", "content": m.Content}
	case "tool":
		body, isErr := strings.CutPrefix(m.Content, "error: ")
		e.Type = "user"
		e.Message = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": body, "is_error": isErr}}}
	case "assistant":
		var blocks []any
		if m.Thinking != "" {
			blocks = append(blocks, map[string]any{"type": "thinking", "thinking": m.Thinking})
		}
		if m.Content != "" {
			blocks = append(blocks, map[string]any{"type": "text", "text": m.Content})
		}
		for _, c := range m.ToolCalls {
			args, err := json.Marshal(c.Function.Arguments)
			if err != nil {
				return "", fmt.Errorf("transcript: arguments of %s: %w", c.Function.Name, err)
			}
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": ClaudeToolName(c.Function.Name), "input": claude().input(c.Function.Name, args, cwd)})
		}
		if blocks == nil {
			blocks = []any{}
		}
		e.Type = "assistant"
		e.Message = map[string]any{"role": "assistant", "type": "message", "content": blocks}
	default: // none is stored; said as it is
		e.Type, e.Message = m.Role, map[string]any{"role": m.Role, "content": m.Content}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	return string(b), nil
}

// lineUUID is a line's uuid: the same for the same session and place, so
// a file written again keeps its lines' ids.
func lineUUID(session string, i int) string {
	s := sha256.Sum256(fmt.Appendf(nil, "%s/%d", session, i))
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

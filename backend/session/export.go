package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/fence"
	"github.com/shrimp-harness/shrimp/internal/howlong"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// Export is a whole session: `sessions show --json`, the JSON export, and
// what the window's session view opens.
type Export struct {
	Session  store.Session   `json:"session"`
	Runs     []ExportRun     `json:"runs"`
	Messages []ExportMessage `json:"messages"`
	Events   []agent.Event   `json:"events"`
}

// ExportRun is one request of the session with its measures.
type ExportRun struct {
	Seq     int64       `json:"seq"` // of its agent:run-started
	Request string      `json:"request"`
	Metrics metrics.Run `json:"metrics"`
	// Files are the files its file tools replaced or created, once each.
	Files []ExportFile `json:"files"`
	// Replaced is true when a retry or an edit took it out of the
	// model's history (Messages no longer hold it; Events do).
	Replaced bool `json:"replaced,omitempty"`
}

// ExportFile is a file a request's file tools changed.
type ExportFile struct {
	Path    string `json:"path"`    // relative to the workspace
	Created bool   `json:"created"` // there was no such file before
	Undone  bool   `json:"undone"`  // the user undid the change
}

// ExportMessage is one message of an export.
type ExportMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolName   string          `json:"tool_name,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	Tokens     int             `json:"tokens"`
	Images     int             `json:"images,omitempty"` // attached to it (their data is not exported)
	// SentBack: not the user's words but a check's (a pre-run-end hook),
	// which sent the model back to work after its answer.
	SentBack bool `json:"sent_back,omitempty"`
}

// Load reads a session with its messages and events.
func Load(ctx context.Context, st *store.Store, id string) (Export, error) {
	s, err := st.Session(ctx, id)
	if err != nil {
		return Export{}, err
	}
	msgs, err := st.Messages(ctx, id)
	if err != nil {
		return Export{}, err
	}
	tokens, err := st.MessageTokens(ctx, id)
	if err != nil {
		return Export{}, err
	}
	events, err := st.Events(ctx, id, 0)
	if err != nil {
		return Export{}, err
	}
	rows, err := st.Metrics().Session(ctx, id)
	if err != nil {
		return Export{}, err
	}
	changes, err := st.FileChanges().Session(ctx, id)
	if err != nil {
		return Export{}, err
	}
	v := Export{Session: s, Runs: []ExportRun{}, Messages: []ExportMessage{}, Events: events}
	replaced := replacedRuns(events)
	for _, row := range rows {
		m := metrics.FromRow(row)
		v.Runs = append(v.Runs, ExportRun{Seq: m.RunSeq, Request: m.Request, Metrics: m, Files: filesOf(changes, m.RunSeq), Replaced: replaced(m.RunSeq)})
	}
	checks := sentBack(events)
	for i, m := range msgs {
		mv := ExportMessage{Role: m.Role, Content: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID, Images: len(m.Images)}
		if m.Role == "user" && checks[m.Content] > 0 {
			mv.SentBack = true
			checks[m.Content]--
		}
		if i < len(tokens) {
			mv.Tokens = tokens[i]
		}
		if len(m.ToolCalls) > 0 {
			mv.ToolCalls, _ = json.Marshal(m.ToolCalls)
		}
		v.Messages = append(v.Messages, mv)
	}
	if v.Events == nil {
		v.Events = []agent.Event{}
	}
	return v, nil
}

// sentBack counts, by text, what checks told the model after its answers
// (agent:sent-back): the user messages of the history that are theirs.
func sentBack(events []agent.Event) map[string]int {
	out := map[string]int{}
	for _, e := range events {
		if e.Type != agent.TypeSentBack {
			continue
		}
		var d agent.SentBack
		if raw, err := e.RawData(); err == nil && json.Unmarshal(raw, &d) == nil {
			out[d.Text]++
		}
	}
	return out
}

// replacedRuns reports, from a session's events, whether the run that
// started at a seq was replaced: it started at or after a replacement's
// run, before that replacement was recorded.
func replacedRuns(events []agent.Event) func(run int64) bool {
	type span struct{ from, to int64 }
	var spans []span
	for _, e := range events {
		if e.Type != TypeReplaced {
			continue
		}
		var d Replaced
		if raw, err := e.RawData(); err == nil && json.Unmarshal(raw, &d) == nil {
			spans = append(spans, span{d.Run, e.Seq})
		}
	}
	return func(run int64) bool {
		for _, s := range spans {
			if run >= s.from && run < s.to {
				return true
			}
		}
		return false
	}
}

// filesOf lists the files run changed, each once, in the order first
// changed: created when its first change found no file, undone when every
// change of it was.
func filesOf(changes []store.FileChange, run int64) []ExportFile {
	out := []ExportFile{}
	at := map[string]int{}
	for _, c := range changes {
		if c.RunSeq != run {
			continue
		}
		key := c.Workspace + "\x00" + c.Path
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, ExportFile{Path: c.Path, Created: c.Before == "", Undone: true})
		}
		out[i].Undone = out[i].Undone && c.UndoneAt != nil
	}
	return out
}

// Markdown renders the session for reading or sharing. Opened in a
// Markdown viewer it loads nothing by itself: tool output and calls stay in
// their code blocks, and messages show images and HTML as text (a request
// may hold pasted mail or pages as much as an answer an injection wrote).
func (v Export) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", inertLine(firstLine(v.Session.Title)))
	fmt.Fprintf(&b, "- Session: `%s`\n- Model: `%s`\n- Workspace: `%s`\n- Created: %s\n- Tokens: %d in, %d out\n\n",
		v.Session.ID, v.Session.Model, v.Session.Workspace, v.Session.CreatedAt.Format(time.RFC3339), v.Session.PromptTokens, v.Session.CompletionTokens)
	if len(v.Runs) > 0 {
		b.WriteString("| request | turns | tool calls | malformed | tokens in/out | wall | procedure |\n| --- | --- | --- | --- | --- | --- | --- |\n")
		for _, r := range v.Runs {
			m := r.Metrics
			proc := "none recalled"
			if m.Followed != nil {
				proc = "followed `" + *m.Followed + "`"
			} else if len(m.Recalled) > 0 {
				proc = "recalled, not followed"
			}
			request := strings.ReplaceAll(inertLine(firstLine(r.Request)), "|", "\\|")
			if r.Replaced {
				request += " _(replaced by a retry or an edit)_"
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d/%d | %s | %s |\n", request,
				m.Turns, m.ToolCalls, m.Malformed, m.TokensIn, m.TokensOut, howlong.Millis(m.WallMS), proc)
		}
		b.WriteString("\n")
		for _, r := range v.Runs {
			if len(r.Files) == 0 {
				continue
			}
			fmt.Fprintf(&b, "Files changed by \"%s\":\n\n", inertLine(firstLine(r.Request)))
			for _, f := range r.Files {
				note := ""
				switch {
				case f.Created && f.Undone:
					note = " (created; undone)"
				case f.Created:
					note = " (created)"
				case f.Undone:
					note = " (undone)"
				}
				fmt.Fprintf(&b, "- %s%s\n", inertLine(firstLine(f.Path)), note)
			}
			b.WriteString("\n")
		}
	}
	for _, m := range v.Messages {
		switch m.Role {
		case "user":
			if m.SentBack {
				fmt.Fprintf(&b, "## A check sent Shrimp back to work\n\n%s\n\n", inert(m.Content))
				continue
			}
			fmt.Fprintf(&b, "## You\n\n%s\n\n", inert(m.Content))
			if m.Images > 0 {
				fmt.Fprintf(&b, "_(%s attached)_\n\n", plural.N(m.Images, "image", "images"))
			}
		case "assistant":
			if m.Content != "" {
				fmt.Fprintf(&b, "## Shrimp\n\n%s\n\n", inert(m.Content))
			}
			if len(m.ToolCalls) > 0 {
				b.WriteString(calls(m.ToolCalls))
			}
		case "tool":
			fmt.Fprintf(&b, "### Tool %s\n\n%s\n\n", fence.Inline(m.ToolName), fence.Around("", strings.TrimRight(m.Content, "\n")))
		}
	}
	return b.String()
}

// calls writes an assistant message's tool calls as a reader follows
// them: each tool by name, its arguments indented (& < > as themselves);
// calls that do not read as Ollama's are given as stored.
func calls(raw json.RawMessage) string {
	var cs []struct {
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &cs) != nil || len(cs) == 0 {
		return fmt.Sprintf("Tool calls:\n\n%s\n\n", fence.Around("json", string(raw)))
	}
	var b strings.Builder
	for _, c := range cs {
		args, err := jsonplain.Canonical(c.Function.Arguments, "  ")
		if err != nil {
			args = c.Function.Arguments
		}
		fmt.Fprintf(&b, "Calls %s:\n\n%s\n\n", fence.Inline(c.Function.Name), fence.Around("json", string(args)))
	}
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

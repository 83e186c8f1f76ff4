package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// terminal asks the user on the terminal: approvals and the questions
// tools ask during their calls, one at a time. An answer is a line typed
// after the question: flush (the terminal's, when in is one) discards
// what was typed before it, so "yes" typed ahead, to a question the model
// asked in its answer, say, is not taken as approval of a call the user
// has not seen.
type terminal struct {
	mu      sync.Mutex // one question (or form) at a time
	r       *bufio.Reader
	out     io.Writer
	flush   func()
	pending chan typed // a read still waiting for its line, if any
	// open opens a page a tool asks the user to open, once they agree
	// (nil: the page's address is all the terminal gives).
	open func(address string)
	// waiting returns how many bytes of whole lines were typed and not yet
	// read (nil: unknown, taken as none).
	waiting func() int
	// before is called before a question is written (nil: nothing), with
	// mu held: what else draws on the terminal makes way.
	before func()
}

// asking reports whether a question (or the conversation's prompt) holds
// the terminal.
func (t *terminal) asking() bool {
	if t.mu.TryLock() {
		t.mu.Unlock()
		return false
	}
	return true
}

type typed struct {
	s   string
	err error
}

func newTerminal(in io.Reader, out io.Writer, flush func()) *terminal {
	return &terminal{r: bufio.NewReader(in), out: out, flush: flush}
}

// pasteGap is how long after a line more lines still count as pasted
// with it: a terminal hands a paste over in pieces, a person types the
// next line far later.
const pasteGap = 30 * time.Millisecond

// pasted returns the whole lines that came with the one just read (within
// pasteGap of it), without their line ends; call with mu held.
func (t *terminal) pasted() []string {
	var lines []string
	for t.more() {
		l, err := t.r.ReadString('\n')
		if l != "" {
			lines = append(lines, strings.TrimRight(l, "\r\n"))
		}
		if err != nil {
			break
		}
	}
	return lines
}

// more reports whether another whole line waits, or comes within pasteGap.
func (t *terminal) more() bool {
	deadline := time.Now().Add(pasteGap)
	for {
		if t.r.Buffered() > 0 || (t.waiting != nil && t.waiting() > 0) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// line writes question and returns the line typed after it, without its
// line end; call with mu held. When ctx ends first the read goes on, and
// the next question drops its line.
func (t *terminal) line(ctx context.Context, question string) (string, error) {
	return t.read(ctx, question, true)
}

// read is line; without fresh, lines typed before the question are its
// answers, in order (the next request of a conversation, typed while the
// last one ran), rather than dropped.
func (t *terminal) read(ctx context.Context, question string, fresh bool) (string, error) {
	if fresh {
		if t.pending != nil {
			select {
			case <-t.pending: // a line typed before this question
				t.pending = nil
			default:
			}
		}
		if t.flush != nil {
			t.flush()
		}
		if t.pending == nil {
			_, _ = t.r.Discard(t.r.Buffered())
		}
	}
	if t.before != nil {
		t.before()
	}
	fmt.Fprint(t.out, question)
	l, err := t.lineOf(ctx)
	if err != nil {
		return "", err
	}
	if l.err != nil && l.s == "" {
		return "", l.err
	}
	return strings.TrimRight(l.s, "\r\n"), nil
}

// awaitRead returns what the read in *pending brings, starting read in
// the background first when none is under way. A read cannot be called
// off: when ctx ends first, it goes on and stays in *pending, and the
// next call gets its line.
func awaitRead(ctx context.Context, pending *chan typed, read func() (string, error)) (typed, error) {
	if *pending == nil {
		ch := make(chan typed, 1)
		go func() { s, err := read(); ch <- typed{s, err} }()
		*pending = ch
	}
	select {
	case <-ctx.Done():
		return typed{}, ctx.Err()
	case l := <-*pending:
		*pending = nil
		return l, nil
	}
}

// lineOf reads one line, its end included: a newline, or a carriage
// return, which is what Enter sends to a terminal in raw mode. A key not
// yet typed is waited for in the background (awaitRead), one byte at a
// time: when ctx ends first, the read left waiting holds at most the next
// key, and whoever reads next (the next question, or the conversation's
// prompt in raw mode, which then shows the keys as they are typed) takes
// it first. A read left waiting for a whole line took every key typed
// at the next prompt, unseen, until Enter.
func (t *terminal) lineOf(ctx context.Context) (typed, error) {
	var b []byte
	for {
		if t.pending == nil && t.r.Buffered() > 0 {
			c, _ := t.r.ReadByte() // buffered: it does not wait
			b = append(b, c)
		} else {
			l, err := awaitRead(ctx, &t.pending, func() (string, error) {
				c, err := t.r.ReadByte()
				if err != nil {
					return "", err
				}
				return string(c), nil
			})
			if err != nil {
				return typed{}, err
			}
			if l.err != nil {
				return typed{string(b), l.err}, nil
			}
			b = append(b, l.s...)
		}
		if c := b[len(b)-1]; c == '\n' || c == '\r' {
			return typed{s: string(b)}, nil
		}
	}
}

// terminalPrompter asks about tool calls on the terminal (newTerminal).
func terminalPrompter(in io.Reader, out io.Writer, flush func()) approval.Prompter {
	return newTerminal(in, out, flush).prompter()
}

// prompter asks about tool calls.
func (t *terminal) prompter() approval.Prompter {
	return func(ctx context.Context, req approval.Request, ready func()) (approval.Answer, error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		ready()
		q := approval.Question(req)
		// Asked again after a note, the question is its last line: the
		// choice.
		choice := q[strings.LastIndex(strings.TrimRight(q, "\n"), "\n")+1:]
		for {
			l, err := t.line(ctx, q)
			if err != nil {
				return approval.Answer{}, err
			}
			switch s := strings.TrimSpace(l); strings.ToLower(strings.TrimRight(s, ".!")) {
			case "y", "yes":
				return approval.Answer{Allow: true}, nil
			case "a", "always":
				return approval.Answer{Allow: true, Always: true}, nil
			case "c", "command":
				return approval.Answer{Allow: true, Exact: true}, nil
			case "", "n", "no":
				return approval.Answer{}, nil
			case "?", "h", "help":
				// Asked what the letters mean, not a reason to deny: said,
				// then the choice again.
				fmt.Fprint(t.out, answerHelp(req.Tool))
				q = choice
			default:
				if !strings.ContainsAny(s, " \t") {
					// One word that is no answer ("ok", "sure", /session
					// typed in a conversation) is no reason either: said,
					// then the choice again. A reason is words.
					if strings.HasPrefix(s, "/") {
						fmt.Fprintf(t.out, "  %s waits until this call is answered (y, n, or ? for every answer); Ctrl-C stops the request\n", s)
					} else {
						fmt.Fprintf(t.out, "  %q is not one of the answers: y runs it, n (or Enter) does not, ? says more; a reason in a few words denies it with that reason\n", s)
					}
					q = choice
					continue
				}
				return approval.Answer{Reason: s}, nil
			}
		}
	}
}

// answerHelp says what each answer to a tool call's question does.
func answerHelp(tool string) string {
	var b strings.Builder
	b.WriteString("  y      run this call, once\n")
	if tool == "shell.run" {
		b.WriteString("  c      run it, and this exact command in this workspace from now on without asking\n")
		b.WriteString("  a      run it, and any command in this workspace from now on without asking\n")
	} else {
		b.WriteString("  a      run it, and " + tool + "'s calls in this workspace from now on without asking\n")
	}
	b.WriteString("  n      (or Enter) do not run it; the model is told you denied it\n")
	b.WriteString("  words  do not run it; what you typed (more than one word) is the reason the model reads\n")
	b.WriteString("  `shrimp rules list` shows what \"always\" remembered; `shrimp rules revoke` takes it back.\n")
	return b.String()
}

// fieldTries is how often a field is asked again after an answer that
// does not fit it.
const fieldTries = 3

// asker puts a tool's question to the user: first whether to answer
// (yes, no to decline, nothing to cancel), then each field, again while
// an answer does not fit it; a page to open is shown whole, and opened
// on yes.
func (t *terminal) asker() app.Asker {
	return func(ctx context.Context, q app.ToolQuestion, ready func()) (tool.Answer, error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		ready()
		var b strings.Builder
		if q.Sample {
			fmt.Fprintf(&b, "\n%s asks to use your model:\n", q.Tool) // Shrimp's words, the server's text in them
		} else {
			fmt.Fprintf(&b, "\n%s asks you (the tool's words, not Shrimp's):\n", q.Tool)
		}
		for _, l := range strings.Split(strings.TrimSpace(q.Message), "\n") {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		if q.Sample {
			b.WriteString("Let the model answer it? [y]es, [n]o, or Enter to dismiss: ")
		} else if q.URL != "" {
			fmt.Fprintf(&b, "It asks you to open this page in your browser:\n  %s\n", q.URL)
			for _, w := range q.Warnings {
				fmt.Fprintf(&b, "  warning: %s\n", w)
			}
			b.WriteString("Open it? [y]es, [n]o, or Enter to dismiss: ")
		} else if len(q.Fields) == 0 {
			b.WriteString("Agree? [y]es, [n]o, or Enter to dismiss: ")
		} else {
			b.WriteString("Answer it? [y]es, [n]o, or Enter to dismiss: ")
		}
		l, err := t.line(ctx, b.String())
		if err != nil {
			return tool.Answer{Action: tool.Cancel}, err
		}
		switch strings.ToLower(strings.TrimSpace(l)) {
		case "y", "yes":
		case "n", "no":
			return tool.Answer{Action: tool.Decline}, nil
		default:
			return tool.Answer{Action: tool.Cancel}, nil
		}
		if q.URL != "" {
			if t.open != nil {
				t.open(q.URL)
			}
			return tool.Answer{Action: tool.Accept}, nil
		}
		values := map[string]string{}
		for _, f := range q.Fields {
			for try := 1; ; try++ {
				v, err := t.line(ctx, "  "+fieldPrompt(f))
				if err != nil {
					return tool.Answer{Action: tool.Cancel}, err
				}
				values[f.Name] = strings.TrimSpace(v)
				_, perr := tool.Question{Fields: []tool.Field{f}}.Parse(map[string]string{f.Name: values[f.Name]})
				if perr == nil {
					break
				}
				if try == fieldTries {
					fmt.Fprintf(t.out, "  %v: dismissed\n", perr)
					return tool.Answer{Action: tool.Cancel}, nil
				}
				fmt.Fprintf(t.out, "  %v\n", perr)
			}
		}
		return tool.Answer{Action: tool.Accept, Values: values}, nil
	}
}

// fieldPrompt is one field's line: its name, what it takes, and whether
// it may be left empty.
func fieldPrompt(f tool.Field) string {
	var hints []string
	opts := make([]string, len(f.Choices))
	for i, c := range f.Choices {
		opts[i] = c
		if i < len(f.ChoiceNames) && f.ChoiceNames[i] != "" && f.ChoiceNames[i] != c {
			opts[i] += " = " + f.ChoiceNames[i]
		}
	}
	switch {
	case f.Type == "array":
		hints = append(hints, "any of: "+strings.Join(opts, ", ")+"; commas between them")
	case len(f.Choices) > 0:
		hints = append(hints, "one of: "+strings.Join(opts, ", "))
	case f.Type == "boolean":
		hints = append(hints, "yes or no")
	case f.Type == "integer":
		hints = append(hints, "a whole number"+bounds(f))
	case f.Type == "number":
		hints = append(hints, "a number"+bounds(f))
	case f.Format != "":
		hints = append(hints, f.Format)
	}
	if f.Description != "" {
		hints = append(hints, f.Description)
	}
	if !f.Required {
		hints = append(hints, "Enter to leave it out")
	}
	return fmt.Sprintf("%s (%s): ", f.Label(), strings.Join(hints, "; "))
}

func bounds(f tool.Field) string {
	num := func(p *float64) string { return strconv.FormatFloat(*p, 'g', -1, 64) }
	switch {
	case f.Min != nil && f.Max != nil:
		return " from " + num(f.Min) + " to " + num(f.Max)
	case f.Min != nil:
		return " from " + num(f.Min)
	case f.Max != nil:
		return " up to " + num(f.Max)
	}
	return ""
}

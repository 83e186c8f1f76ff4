package approval

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
)

// Visible returns s with everything a terminal or a page could interpret
// or hide shown escaped: control characters (C0 but newline and tab, DEL,
// C1, so escape sequences), format characters (zero-width, bidirectional
// overrides), other invisible runes and invalid UTF-8. Nothing is cut.
func Visible(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r != ' ' && !unicode.IsGraphic(r), unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Shown returns a call's arguments as the user should read them, whole:
// a shell command as its text, anything else as indented JSON (strings
// escaped the JSON way), both through [Visible].
func Shown(tool string, args json.RawMessage) string {
	if tool == "shell.run" {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(args, &in) == nil && in.Command != "" {
			return Visible(in.Command)
		}
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return Visible(string(args))
	}
	b, err := jsonplain.Marshal(v, "  ")
	if err != nil {
		return Visible(string(args))
	}
	return Visible(string(b))
}

// Question is the text of an approval question for a terminal: the tool,
// its whole arguments, what the call does and the diff it would make,
// with nothing cut and nothing interpreted.
func Question(req Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nAllow %s", Visible(req.Tool))
	if req.Workspace != "" {
		fmt.Fprintf(&b, " in %s", Visible(req.Workspace))
	}
	b.WriteString("?\n")
	label, shown := "arguments", req.Shown // the gate's rendering, when it made one
	if req.Tool == "shell.run" {
		label = "command"
	}
	if rest, ok := besideDiff(req); ok {
		label, shown = "arguments (the text is in the change below)", rest
	} else if shown == "" {
		shown = Shown(req.Tool, req.Arguments)
	}
	fmt.Fprintf(&b, "  %s:\n%s\n", label, indent(shown, "    "))
	for _, e := range req.Effects {
		fmt.Fprintf(&b, "  %s\n", Visible(e))
	}
	for _, w := range req.Warnings {
		fmt.Fprintf(&b, "  ! %s\n", Visible(w))
	}
	if req.MustAsk {
		b.WriteString("  ! no stored rule answers this call: it needs your answer\n")
	}
	if req.Outside != "" {
		if req.Tool == "shell.run" {
			b.WriteString("  ! [a]lways and [c] answer in this workspace's other sessions, not in this one\n")
		} else {
			b.WriteString("  ! [a]lways answers in this workspace's other sessions, not in this one\n")
		}
	}
	if req.Preview != "" {
		fmt.Fprintf(&b, "  change:\n%s\n", indent(Visible(req.Preview), "    "))
	}
	if req.Tool == "shell.run" {
		b.WriteString("[y]es once, [c]: always this exact command here, [a]lways any command in this workspace, [N]o (or type a reason): ")
	} else {
		b.WriteString("[y]es once, [a]lways for this tool in this workspace, [N]o (or type a reason): ")
	}
	return b.String()
}

// diffed are the arguments of the file tools whose text a diff of the
// change shows whole.
var diffed = map[string][]string{"fs.write": {"content"}, "fs.edit": {"old", "new"}}

// besideDiff returns a file tool's arguments without the text its diff
// (req.Preview, a unified diff) shows: a 2 MB write was asked about as
// one line of escaped JSON and then again as the diff.
func besideDiff(req Request) (string, bool) {
	fields, ok := diffed[req.Tool]
	if !ok || !strings.HasPrefix(req.Preview, "--- ") {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(req.Arguments, &m) != nil {
		return "", false
	}
	for _, f := range fields {
		delete(m, f)
	}
	b, err := jsonplain.Marshal(m, "  ")
	if err != nil {
		return "", false
	}
	return Visible(string(b)), true
}

func indent(s, pad string) string {
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}

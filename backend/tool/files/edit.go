package files

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/sniff"
	"github.com/shrimp-harness/shrimp/internal/textfile"
)

// EditArgs are fs.edit's arguments.
type EditArgs struct {
	Path string `json:"path" jsonschema_description:"file to change, relative to the workspace"`
	Old  string `json:"old" jsonschema_description:"the exact text to replace, spaces and line breaks included; enough of it to occur once"`
	New  string `json:"new" jsonschema_description:"the text to put in its place"`
	All  bool   `json:"all,omitempty" jsonschema_description:"replace every occurrence rather than exactly one"`
}

// edit replaces text in a file: a small model changes a few lines without
// writing the whole file back (and losing what it did not copy).
func (w *Workspace) edit(ctx context.Context, in EditArgs) (string, error) {
	w.writing.Lock()
	defer w.writing.Unlock()
	pl, err := w.planEdit(ctx, in)
	if err != nil {
		return "", err
	}
	if err := w.once(ctx, "fs.edit", pl.path, in.Old, in.New, fmt.Sprint(in.All)).refuse("fs.edit", pl.path, pl.doubts(in)); err != nil {
		return "", err
	}
	b, err := pl.form.Encode(pl.form.Text(pl.content))
	if err != nil {
		return "", unwritable(in.Path, pl.form, err)
	}
	if err := w.put(ctx, in.Path, pl.path, pl.st, string(b)); err != nil {
		return "", err
	}
	notes := ""
	if pl.kept != "" {
		notes = fmt.Sprintf("; the line break the old text %s with was kept (the new text lacked it, which would have joined two lines)", pl.kept)
	}
	notes += tabbedNote(pl.tabbed)
	switch {
	case pl.how != "":
		return fmt.Sprintf("replaced %s in %s (the old text was not there exactly: matched with %s)%s", plural.N(pl.n, "occurrence", "occurrences"), pl.path, pl.how, notes), nil
	case pl.n == 1:
		return fmt.Sprintf("replaced 1 occurrence in %s%s", pl.path, notes), nil
	}
	return fmt.Sprintf("replaced %d occurrences in %s%s", pl.n, pl.path, notes), nil
}

// editPlan is an fs.edit resolved: the file it changes, what that holds
// and what it would hold. The edit, its preview and its doubts start from
// one.
type editPlan struct {
	path    string // the file changed (through links)
	st      os.FileInfo
	old     string // its text
	form    textfile.Form
	content string // its text after the edit
	n       int    // occurrences replaced
	how     string // what was ignored to find the old text ("" when found exactly)
	tabbed  int    // recipe lines given the tab make needs (makefile.go)
	kept    string // the old text's line breaks at its ends the new text was given ("" for none)
}

// keptBreaks gives the new text of an edit the line break its old text
// ends (or starts) with when it lacks it: a model that replaces "b\n"
// with "B" means a line, and the file would get "Bc" where "B" and "c"
// were two lines. kept says which ("" when none was added; an empty new
// text deletes, and is left as it is).
func keptBreaks(in EditArgs) (EditArgs, string) {
	if in.New == "" || strings.Trim(in.Old, "\r\n") == "" {
		return in, "" // a deletion, or line breaks alone: as given
	}
	var kept []string
	breakOf := func(s string, at func(string, string) bool) string {
		for _, b := range []string{"\r\n", "\n"} {
			if at(s, b) {
				return b
			}
		}
		return ""
	}
	if b := breakOf(in.Old, strings.HasSuffix); b != "" && breakOf(in.New, strings.HasSuffix) == "" {
		in.New += b
		kept = append(kept, "ended")
	}
	if b := breakOf(in.Old, strings.HasPrefix); b != "" && breakOf(in.New, strings.HasPrefix) == "" {
		in.New = b + in.New
		kept = append(kept, "started")
	}
	return in, strings.Join(kept, " and ")
}

// planEdit resolves an fs.edit: an error when it cannot be made (no such
// text file, the old text missing or found more than once, no change).
func (w *Workspace) planEdit(ctx context.Context, in EditArgs) (editPlan, error) {
	var pl editPlan
	var err error
	if pl.path, pl.old, pl.form, pl.st, err = w.editable(ctx, in); err != nil {
		return pl, err
	}
	in, pl.kept = keptBreaks(in)
	if pl.content, pl.n, pl.how, err = replaced(in, pl.old); err != nil {
		return pl, err
	}
	if pl.content == pl.old {
		return pl, unchanged(pl.path)
	}
	pl.content, pl.tabbed = editTabs(pl.path, pl.old, pl.content)
	return pl, nil
}

// editable resolves and reads the file an edit changes: an existing text
// file in the workspace of at most maxRead bytes, its text and its form
// (the edit is written back in it).
func (w *Workspace) editable(ctx context.Context, in EditArgs) (p, content string, form textfile.Form, st os.FileInfo, err error) {
	if in.Old == "" {
		return "", "", form, nil, fmt.Errorf("old is empty: give the exact text to replace (fs.write writes a whole file)")
	}
	if p, err = w.rel(in.Path); err != nil {
		return "", "", form, nil, err
	}
	if p, st, err = w.target(in.Path, p); err != nil {
		return "", "", form, nil, err
	}
	if st == nil {
		return "", "", form, nil, fmt.Errorf("%s does not exist: fs.edit changes a file; fs.write creates one%s", in.Path, w.suggest(p))
	}
	f, err := w.openRegular(in.Path, p)
	if err != nil {
		return "", "", form, nil, err
	}
	defer f.Close()
	b, err := readAll(ctx, f, maxRead)
	if err != nil {
		return "", "", form, nil, w.explain(in.Path, err)
	}
	if len(b) > maxRead {
		return "", "", form, nil, fmt.Errorf("%s is larger than %d bytes: fs.edit changes smaller files", in.Path, maxRead)
	}
	if kind := sniff.Binary(b); kind != "" {
		return "", "", form, nil, fmt.Errorf("%s is not a text file (%s)", in.Path, kind)
	}
	content, form = textfile.Read(b)
	return p, content, form, st, nil
}

// unchanged is the refusal of an edit that changes nothing: a model that
// was told "replaced 1 occurrence" went on as if it had fixed something.
func unchanged(p string) error {
	return fmt.Errorf("nothing changed: the new text is the old text, so %s is as it was; give the text the file should have instead", p)
}

// replaced is content with the edit made, how many occurrences it
// replaced, and what was ignored when the old text was found only
// loosely (loose.go); an edit whose old text is missing, or found more
// than once without All, changes nothing and says what to do.
func replaced(in EditArgs, content string) (string, int, string, error) {
	n := strings.Count(content, in.Old)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(in.Old, "\n") && !strings.Contains(in.Old, "\r") {
		// A file with Windows line endings, and a model that wrote its
		// lines with "\n" (they seldom repeat a carriage return): the same
		// lines, with the file's endings, in the old text and the new.
		crlf := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n") }
		if k := strings.Count(content, crlf(in.Old)); k > 0 {
			in.Old, in.New, n = crlf(in.Old), crlf(in.New), k
		}
	}
	switch {
	case n == 0:
		if out, how, matched, err := looseReplace(in, content); matched {
			return out, 1, how, err
		}
		if old, ok := escapedLines(in.Old); ok { // escaped once too often (escaped.go)
			if nw, ok := escapedLines(in.New); ok {
				in.New = nw
			}
			in.Old = old
			if out, n, how, err := replaced(in, content); err == nil {
				note := `its \n, \t and \" escapes read as what they stand for`
				if how != "" {
					note = how + ", and " + note
				}
				return out, n, note, nil
			}
		}
		return "", 0, "", fmt.Errorf("the old text is not in %s: read the file again (fs.read) and copy the text exactly, spaces and line breaks included", in.Path)
	case n > 1 && !in.All:
		return "", 0, "", fmt.Errorf("the old text occurs %d times in %s: give more of the text around it so it occurs once, or set all to replace every one", n, in.Path)
	}
	return strings.Replace(content, in.Old, in.New, -1), n, "", nil
}

// EditPreview returns a unified diff of what fs.edit with these arguments
// would change, for the approval dialog: "" when the arguments do not
// parse, a sentence when the edit cannot be made.
func (w *Workspace) EditPreview(ctx context.Context, args []byte) string {
	var in EditArgs
	if json.Unmarshal(args, &in) != nil {
		return ""
	}
	pl, err := w.planEdit(ctx, in)
	if err != nil {
		return "(no preview: " + err.Error() + ")"
	}
	content := pl.form.Text(pl.content)
	if _, err := pl.form.Encode(content); err != nil {
		return "(no preview: " + unwritable(in.Path, pl.form, err).Error() + ")"
	}
	return UnifiedDiff(pl.path, pl.old, content)
}

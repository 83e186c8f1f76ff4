package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/jsonc"
)

// A model editing a JSON file leaves a trailing comma after the entry it
// removed, a comment, a missing brace: package.json then stops npm, a
// settings file its program. A write or an edit that leaves a .json file
// unreadable as its kind of JSON is refused once (once.go), naming where:
// strict JSON for a file that was strict JSON, JSON with comments and
// trailing commas (jsonc) for one that had them, and for a new file.

// jsonDoubt is the doubt about giving the .json file p the text content
// (old: its text before; existed: it was there); nil when the content
// reads as the file's kind of JSON, or p is no .json file.
func jsonDoubt(p, old string, existed bool, content string) *doubt {
	if strings.ToLower(path.Ext(p)) != ".json" || strings.TrimSpace(content) == "" {
		return nil
	}
	strict := existed && json.Valid([]byte(old))
	if !strict && existed && !readsAsJSONC(old) {
		return nil // it was not JSON of either kind: nothing to keep
	}
	var err error
	if strict {
		err = jsonError([]byte(content))
	} else if std, cerr := jsonc.Standard([]byte(content)); cerr != nil {
		err = cerr
	} else {
		err = jsonError(std)
	}
	if err == nil {
		return nil
	}
	kind := "JSON"
	if !strict {
		kind = "JSON (comments and trailing commas allowed)"
	}
	was := ""
	if existed {
		was = ", as it was"
	}
	return &doubt{
		why:    fmt.Sprintf("%s would not be valid %s%s: %v", path.Base(p), kind, was, err),
		advice: "Fix the JSON there (a comma after the last entry, a comment, a missing bracket or quote) and write it again",
	}
}

// readsAsJSONC reports whether text is JSON with comments and trailing
// commas.
func readsAsJSONC(text string) bool {
	std, err := jsonc.Standard([]byte(text))
	return err == nil && json.Valid(std)
}

// jsonError is what is wrong with b as JSON, with the line and column
// where it goes wrong; nil when it is valid.
func jsonError(b []byte) error {
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at := max(0, min(int(se.Offset)-1, len(b))) // Offset is just past the byte that is wrong
		line := 1 + strings.Count(string(b[:at]), "\n")
		col := at - strings.LastIndex(string(b[:at]), "\n")
		return fmt.Errorf("line %d, column %d: %s", line, col, se.Error())
	}
	return err
}

package files

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/shrimp-harness/shrimp/internal/jsonc"
)

// A model editing a JSON file leaves a trailing comma after the entry it
// removed, a comment, a missing brace: package.json then stops npm, a
// settings file its program. A write or an edit that leaves a .json file
// unreadable as its kind of JSON is refused once (once.go), naming where:
// strict JSON for a file that was strict JSON, JSON with comments and
// trailing commas (jsonc) for one that had them, and for a new file. So
// is one that leaves a YAML or TOML file that read before unreadable (a
// tab in YAML's indentation, a key given twice); a new one is judged too
// unless it holds template marks ({{ or {%: a Helm chart, an Ansible
// template), which are not YAML until they are filled in.

// syntaxDoubt is the doubt about giving the file p the text content
// when p is a JSON, YAML or TOML file (jsonDoubt, parsedDoubt).
func syntaxDoubt(p, old string, existed bool, content string) *doubt {
	if strings.TrimSpace(content) == "" {
		return nil // an emptied file is meant, whatever its kind
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".json":
		return jsonDoubt(p, old, existed, content)
	case ".yml", ".yaml":
		return parsedDoubt(p, "YAML", yamlError, "Fix it there (indent with spaces, never tabs) and write it again", old, existed, content)
	case ".toml":
		return parsedDoubt(p, "TOML", tomlError, "Fix it there (each key once in a table, strings quoted) and write it again", old, existed, content)
	}
	return nil
}

// parsedDoubt is the doubt about content that read fails on, for a file
// that read before or a new one without template marks.
func parsedDoubt(p, kind string, read func(string) error, advice, old string, existed bool, content string) *doubt {
	if existed && read(old) != nil {
		return nil // it did not read before: nothing to keep
	}
	if !existed && (strings.Contains(content, "{{") || strings.Contains(content, "{%")) {
		return nil
	}
	return unreadable(p, kind, existed, read(content), advice)
}

// unreadable is the doubt about leaving the file p as kind cannot read
// it (err; nil: no doubt).
func unreadable(p, kind string, existed bool, err error, advice string) *doubt {
	if err == nil {
		return nil
	}
	was := ""
	if existed {
		was = ", as it was"
	}
	return &doubt{why: fmt.Sprintf("%s would not be valid %s%s: %v", path.Base(p), kind, was, err), advice: advice}
}

// yamlError is what is wrong with text as YAML (every document of it).
func yamlError(text string) error {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var v yaml.Node
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
		}
	}
}

// tomlError is what is wrong with text as TOML.
func tomlError(text string) error {
	var v map[string]any
	_, err := toml.NewDecoder(bytes.NewReader([]byte(text))).Decode(&v)
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d, column %d: %s", pe.Position.Line, pe.Position.Col, pe.Message)
	}
	return err
}

// jsonDoubt is the doubt about giving the .json file p the text content
// (old: its text before; existed: it was there); nil when the content
// reads as the file's kind of JSON.
func jsonDoubt(p, old string, existed bool, content string) *doubt {
	read, kind := jsoncError, "JSON (comments and trailing commas allowed)"
	switch {
	case existed && json.Valid([]byte(old)):
		read, kind = jsonError, "JSON"
	case existed && jsoncError([]byte(old)) != nil:
		return nil // it was not JSON of either kind: nothing to keep
	}
	return unreadable(p, kind, existed, read([]byte(content)), "Fix the JSON there (a comma after the last entry, a comment, a missing bracket or quote) and write it again")
}

// jsoncError is what is wrong with b as JSON with comments and trailing
// commas; nil when it reads so.
func jsoncError(b []byte) error {
	std, err := jsonc.Standard(b)
	if err != nil {
		return err
	}
	return jsonError(std)
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

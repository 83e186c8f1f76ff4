// Package jsonplain writes JSON for people, models and scripts to read:
// as encoding/json writes it, but with <, > and & as themselves. Go
// escapes them for HTML (\u003c, \u003e, \u0026), and so does Ollama, in
// the arguments it hands over: a model then reads "a \u0026\u0026 b", and a
// hook grepping a command for "&&" never finds it.
//
// Its contract: Marshal's output decodes to what encoding/json's would;
// Canonical re-writes one JSON value that way (numbers as written, keys
// sorted), and fails on anything but exactly one value; Plain is it, or
// the input unchanged.
package jsonplain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Marshal encodes v without HTML escapes, indented by indent when it is
// not "", without a final newline.
func Marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("write JSON: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Canonical decodes one JSON value and writes it again with Marshal:
// every string written the one way, escapes a model or a server chose
// undone.
func Canonical(raw []byte, indent string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("read JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("read JSON: more than one value")
	}
	return Marshal(v, indent)
}

// Plain is Canonical's output for raw, or raw as it is when it is not one
// JSON value: for text that is shown or handed on either way.
func Plain(raw []byte) []byte {
	if plain, err := Canonical(raw, ""); err == nil {
		return plain
	}
	return raw
}

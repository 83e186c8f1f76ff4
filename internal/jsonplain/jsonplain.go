// Package jsonplain writes JSON for people, models and scripts to read:
// as encoding/json writes it, but with <, > and & as themselves. Go
// escapes them for HTML (\u003c, \u003e, \u0026), and so does Ollama, in
// the arguments it hands over: a model then reads "a \u0026\u0026 b", and a
// hook grepping a command for "&&" never finds it.
//
// Its contract: Marshal's output decodes to what encoding/json's would,
// and so does what NewEncoder writes (raw JSON it copies unescaped too);
// Canonical re-writes one JSON value that way (numbers as written, keys
// sorted), and fails on anything but exactly one value; Plain is it, or
// the input unchanged; Unescaped undoes only the HTML escapes, leaving
// the order of keys and every other byte as they were.
package jsonplain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// NewEncoder returns an encoder that writes each value to w without HTML
// escapes, in what it encodes and in the raw JSON it copies
// (json.RawMessage, such as stored events, which encoding/json escaped
// when they were written): JSON on a terminal or in a file, which people
// and jq read, and no HTML page does.
func NewEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(unescaping{w})
	enc.SetEscapeHTML(false)
	return enc
}

// unescaping writes each JSON value it is given (json.Encoder writes one
// whole per call) with Unescaped.
type unescaping struct{ w io.Writer }

func (u unescaping) Write(b []byte) (int, error) {
	if _, err := u.w.Write(Unescaped(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

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

// htmlEscapes are the escapes encoding/json writes for HTML, and what each
// stands for.
var htmlEscapes = map[string]byte{"003c": '<', "003e": '>', "0026": '&'}

// Unescaped returns raw with the \u003c, \u003e and \u0026 in its strings
// written as <, > and &, and nothing else changed (keys stay in the order
// the model wrote them). Any other escape, an escaped backslash included,
// is copied as it is, so the result decodes to what raw decodes to.
func Unescaped(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`\u00`)) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			out = append(out, raw[i])
			continue
		}
		if raw[i+1] == 'u' && i+6 <= len(raw) {
			if c, ok := htmlEscapes[string(bytes.ToLower(raw[i+2:i+6]))]; ok {
				out = append(out, c)
				i += 5
				continue
			}
		}
		out = append(out, raw[i], raw[i+1]) // an escape pair, copied whole
		i++
	}
	return out
}

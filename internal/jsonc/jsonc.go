// Package jsonc reads the JSON that editors and other apps write for
// people to edit, as standard JSON: JSON with comments (// and /* */) and
// trailing commas, as VS Code's settings.json and mcp.json, Zed's and
// Cursor's settings have it, and a file that starts with a byte order
// mark: UTF-8's (Windows Notepad) or UTF-16's (PowerShell's `>`), the
// latter turned into UTF-8. Comments and trailing commas become spaces,
// so what a JSON error names (a byte offset) still points at the file.
package jsonc

import (
	"bytes"
	"fmt"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Standard returns b as standard JSON. Only a block comment that is not
// closed is an error here; anything else wrong is left for the JSON
// decoder to name.
func Standard(b []byte) ([]byte, error) {
	b, err := utf8(b)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(b)
	commaAt := -1 // a comma not yet known to be trailing
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			commaAt = -1
			i = stringEnd(out, i)
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return nil, fmt.Errorf("a comment that opens at line %d is never closed (*/)", bytes.Count(out[:i], []byte("\n"))+1)
			}
			for j := i; j < i+2+end+2; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			i += 2 + end + 1
		case c == ',':
			commaAt = i
		case c == '}' || c == ']':
			if commaAt >= 0 {
				out[commaAt] = ' '
			}
			commaAt = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			commaAt = -1
		}
	}
	return out, nil
}

// stringEnd returns the index of the quote that closes the string opening
// at b[i] (len(b)-1 when it is not closed).
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b) - 1
}

// utf8 drops a UTF-8 byte order mark and turns UTF-16 with one into UTF-8.
func utf8(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}) && !bytes.HasPrefix(b, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		return b, nil
	}
	out, _, err := transform.Bytes(unicode.BOMOverride(unicode.UTF8.NewDecoder()), b)
	if err != nil {
		return nil, fmt.Errorf("read it as text: %w", err)
	}
	return out, nil
}

// Package sniff tells text from binary data, the way the file tools and
// the CLI's piped input judge what may go to a model. Its contract: data
// whose first 8 KiB hold no NUL byte is text; so is UTF-16 with its
// byte-order mark; anything else is binary, named by its content type
// (image/png, application/zip) or as "binary data".
package sniff

import (
	"bytes"
	"net/http"
	"strings"
)

// Binary returns "" for text, else what the data looks like.
func Binary(b []byte) string {
	head := b[:min(len(b), 8<<10)]
	if !bytes.Contains(head, []byte{0}) {
		return ""
	}
	kind := http.DetectContentType(head)
	if strings.HasPrefix(kind, "text/") { // UTF-16 with its byte-order mark
		return ""
	}
	if kind == "application/octet-stream" {
		return "binary data"
	}
	kind, _, _ = strings.Cut(kind, ";")
	return kind
}

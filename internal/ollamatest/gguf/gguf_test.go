package gguf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// pythonChain is the spec of the reference generator's chain model (the
// product side's mkchain.py); goldenChain is the sha256 of that script's
// output, so the Go writer is checked byte for byte against it.
var pythonChain = Spec{
	Name: "tiny-deterministic-test",
	Modes: []Mode{
		{"<|chat|>", []string{"Hello", "!", " I am", " a tiny", " test model."}},
		{"<|m0|>", []string{`<tool_call>{"name": "fs.list",`, ` "arguments": {"path": "."}}</tool_call>`}},
		{"<|m1|>", []string{`<tool_call>{"name": "fs.read",`, ` "arguments": {"path": "notes.txt"}}</tool_call>`}},
		{"<|m2|>", []string{`<tool_call>{"name": "fs.write",`, ` "arguments": {"path": "out.txt", "content": "done"}}</tool_call>`}},
		{"<|m3|>", []string{"All", " three steps", " are done."}},
	},
	Default: "<|chat|>",
}

const goldenChain = "5ee2ddd0e85dcf95a5f91882a612762d9eae8154fdc3c8c061b436457a61fb79"

func TestWriteMatchesReference(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, pythonChain); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b.Bytes())
	if got := hex.EncodeToString(sum[:]); got != goldenChain {
		t.Fatalf("sha256 %s, want %s (%d bytes)", got, goldenChain, b.Len())
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("GGUF")) {
		t.Fatal("no GGUF magic")
	}
}

func TestWriteRejects(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"duplicate piece", Spec{Modes: []Mode{{"<|a|>", []string{"x", "x"}}}, Default: "<|a|>"}, "appears twice"},
		{"empty mode", Spec{Modes: []Mode{{"<|a|>", nil}}, Default: "<|a|>"}, "no pieces"},
		{"unknown default", Spec{Modes: []Mode{{"<|a|>", []string{"x"}}}, Default: "<|b|>"}, "not a mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Write(&bytes.Buffer{}, tt.spec); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

package agentmem

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// Bounds of the example arguments a procedure keeps of each step: enough
// to show what the step was given (the chain diagram, `procedures show`),
// not the 3 MB a fs.write carried, which every procedure would otherwise
// hold in memory for as long as Shrimp runs.
const (
	exampleString = 300  // bytes of one string value
	exampleMax    = 2048 // bytes of one step's arguments, cut
)

// example bounds one step's arguments: long strings cut (saying how much
// was left out), and arguments still too long replaced by a note of their
// size. What is kept is valid JSON.
func example(args json.RawMessage) json.RawMessage {
	if len(args) <= exampleString {
		return args
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // numbers as written
	var v any
	if err := dec.Decode(&v); err != nil {
		return note(len(args))
	}
	out, err := jsonplain.Marshal(cut(v), "")
	if err != nil || len(out) > exampleMax {
		return note(len(args))
	}
	return out
}

func cut(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > exampleString {
			i := textcut.Before(x, exampleString)
			return fmt.Sprintf("%s… [%d more bytes not kept]", x[:i], len(x)-i)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = cut(e)
		}
	case []any:
		for i, e := range x {
			x[i] = cut(e)
		}
	}
	return v
}

func note(n int) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"…": fmt.Sprintf("arguments of %d bytes, not kept", n)})
	return b
}

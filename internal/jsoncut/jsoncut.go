// Package jsoncut shortens JSON arguments that are kept to be shown, not
// used: the example arguments a learned procedure keeps of each step.
//
// Its contract: Bound returns arguments of at most StringMax bytes as
// they are; longer ones with each string value over StringMax bytes cut
// between characters (saying how many bytes were left out), or, when that
// is still over Max bytes or not JSON, a note of their size. What it
// returns is valid JSON of at most Max bytes.
package jsoncut

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// Bounds of what is kept: enough to show what a step was given (the
// chain diagram, `procedures show`), not the 3 MB a fs.write carried,
// which every procedure held in memory for as long as Shrimp ran.
const (
	StringMax = 300  // bytes of one string value
	Max       = 2048 // bytes of the arguments, cut
)

// Bound returns args bounded as the package doc says.
func Bound(args json.RawMessage) json.RawMessage {
	if len(args) <= StringMax {
		return args
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // numbers as written
	var v any
	if err := dec.Decode(&v); err != nil {
		return note(len(args))
	}
	out, err := jsonplain.Marshal(cut(v), "")
	if err != nil || len(out) > Max {
		return note(len(args))
	}
	return out
}

func cut(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > StringMax {
			i := textcut.Before(x, StringMax)
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

package hooks

import (
	"testing"

	"github.com/shrimp-harness/shrimp/backend/approval"
)

// FuzzReadAnswer: whatever a guard hook logged before it, a deny as its
// last line denies, and a deny printed over several lines (jq's way)
// too; nothing a hook prints panics.
func FuzzReadAnswer(f *testing.F) {
	f.Add("checking…")
	f.Add(`{"decision":"allow"}`)
	f.Add("{\n  \"decision\": \"ask\"\n}")
	f.Add(`{"hookSpecificOutput":{"permissionDecision":"allow"}} {"decision":`)
	f.Add("{\"continue\": true}\n{")
	f.Fuzz(func(t *testing.T, logged string) {
		_ = readAnswer(logged)
		for _, deny := range []string{`{"decision":"deny","reason":"no"}`, "{\n  \"decision\": \"deny\",\n  \"reason\": \"no\"\n}", `{"hookSpecificOutput":{"permissionDecision":"deny"}}`} {
			if a := readAnswer(logged + "\n" + deny + "\n"); a.verdict != approval.HookDeny {
				t.Fatalf("%q then a deny read as %v (%s)", logged, a.verdict, a.reason)
			}
		}
	})
}

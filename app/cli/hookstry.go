package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shrimp-harness/shrimp/app"
)

// tryHook runs one hook once on a sample of its event and prints what
// Shrimp makes of its answer (app.TryHook).
func tryHook(ctx context.Context, e *env, a *app.App, id string, s app.HookSample) error {
	if s.Args != "" && !json.Valid([]byte(s.Args)) {
		return fmt.Errorf("%w: --args %q is not JSON (give the call's arguments: '{\"command\": \"ls\"}')", errUsage, s.Args)
	}
	got, err := a.TryHook(ctx, id, s)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, got.Says)
	for _, n := range got.Notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	return nil
}

package tool

import "context"

// Progress is how far a running call has come, as the tool says it (an
// MCP server's progress notifications).
type Progress struct {
	Message  string  `json:"message,omitempty"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"` // 0: unknown
}

type progressKey struct{}

// WithProgress returns ctx carrying report, which a tool that can say how
// far it has come calls as it goes (from any goroutine).
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressReporter returns ctx's report function, nil when nobody listens.
func ProgressReporter(ctx context.Context) func(Progress) {
	f, _ := ctx.Value(progressKey{}).(func(Progress))
	return f
}

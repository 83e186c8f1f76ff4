package app

import (
	"context"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// pinnedRules is a run's approval rules. With an "always" for a tool
// another party defines (an MCP server's: it has a Digest), the digest of
// the definition the user was shown is kept, and the rule answers only
// while the tool still says the same: a server that changes what a tool
// says it does after the user trusted it (a "rug pull", the tool
// poisoning Invariant Labs showed) is asked about again.
type pinnedRules struct {
	st     *store.Store
	lookup func(name string) (tool.Tool, bool) // the run's tools now
}

// Rule implements approval.RuleStore.
func (p pinnedRules) Rule(ctx context.Context, workspace, name string) (string, error) {
	return p.st.Rule(ctx, workspace, name)
}

// SetRule implements approval.RuleStore, pinning an "always" to the
// tool's definition.
func (p pinnedRules) SetRule(ctx context.Context, workspace, name, rule string) error {
	if err := p.st.SetRule(ctx, workspace, name, rule); err != nil {
		return err
	}
	if d := p.digest(name); d != "" && rule == approval.RuleAlways {
		return p.st.PinRule(ctx, workspace, name, d)
	}
	return nil
}

func (p pinnedRules) digest(name string) string {
	if t, ok := p.lookup(name); ok {
		if d, ok := t.(interface{ Digest() string }); ok {
			return d.Digest()
		}
	}
	return ""
}

// changed says why workspace's "always" for name no longer answers for it
// ("" when it does, or there is none). A pin that cannot be read does not
// answer either.
func (p pinnedRules) changed(ctx context.Context, workspace, name string) string {
	d := p.digest(name)
	if d == "" {
		return ""
	}
	rule, pin, err := p.st.RulePin(ctx, workspace, name)
	switch {
	case err != nil:
		return "what this tool said when you allowed it always could not be read (" + err.Error() + ")"
	case rule != approval.RuleAlways || pin == d:
		return ""
	case pin == "":
		return "you allowed this tool always before Shrimp kept what it says it does: check its description once"
	}
	return "its server changed what this tool says it does (its description or arguments) since you allowed it always: check it before it runs"
}

package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/shrimp-harness/shrimp/backend/approval"
)

// secretCalls keeps "always" answers for exact calls (approval.CallRules)
// without the secrets a call may hold: a command that carries a token
// (curl -H "Authorization: Bearer …") is kept as its redacted text and
// the hash of the whole, so the rule still matches only that exact
// command, the rules list shows which one it is, and the token is not in
// the database.
type secretCalls struct {
	rules  approval.CallRules
	redact func(string) string
}

// key is what is stored for call.
func (c secretCalls) key(call string) string {
	red := c.redact(call)
	if red == call {
		return call
	}
	sum := sha256.Sum256([]byte(call))
	return red + "  (it held a secret: kept by its sha256 " + hex.EncodeToString(sum[:]) + ")"
}

// CallRule implements approval.CallRules.
func (c secretCalls) CallRule(ctx context.Context, workspace, tool, call string) (bool, error) {
	return c.rules.CallRule(ctx, workspace, tool, c.key(call))
}

// SetCallRule implements approval.CallRules.
func (c secretCalls) SetCallRule(ctx context.Context, workspace, tool, call string) error {
	return c.rules.SetCallRule(ctx, workspace, tool, c.key(call))
}

// CallRuleKey is how an "always" for this exact call is stored: the call
// itself, or its redacted text and hash when it holds a secret.
func (a *App) CallRuleKey(call string) string {
	return secretCalls{redact: a.Recorder.RedactText}.key(call)
}

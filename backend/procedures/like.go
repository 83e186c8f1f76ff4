package procedures

import (
	"context"
	"encoding/json"
	"strings"
)

// RecallLike is the prototype's recall, kept as the baseline: the
// procedures whose first 50 trigger characters contain the request's first
// 50 characters (SQL LIKE), most used first, with the same filters.
func (m *Memory) RecallLike(ctx context.Context, request string, has func(string) bool, limit int) ([]string, error) {
	q := []rune(strings.ToLower(request))
	if len(q) > 50 {
		q = q[:50]
	}
	pattern := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(string(q)) + "%"
	rows, err := m.repo.TriggerLike(ctx, pattern, ForgetThreshold)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		var tools []string
		_ = json.Unmarshal([]byte(r.Tools), &tools)
		ok := true
		for _, t := range tools {
			ok = ok && has(t)
		}
		if ok {
			out = append(out, r.ID)
		}
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
)

// titleRunes is how much of its first request a session's title keeps.
const titleRunes = 80

// Title is a session's title made from its first request: the request,
// cut to 80 characters.
func Title(request string) string {
	if r := []rune(request); len(r) > titleRunes {
		return string(r[:titleRunes]) + "…"
	}
	return request
}

// RestoreLostSessions gives a session record back to the messages and
// events whose session record is gone (a salvaged database whose
// sessions' pages could not be read), so the conversation is listed and
// can be opened and continued again. What the record held is read from
// what is left: the title from the first request (as the first run's
// start or the first user message has it), the model from that start,
// the times from the first and last message or event (copied as stored),
// the workspace from a kept tool output or file change; the token counts
// start at zero. It returns how many sessions it restored.
func (s *Store) RestoreLostSessions(ctx context.Context) (int, error) {
	var ids []string
	err := s.db.WithContext(ctx).Raw(`SELECT session_id FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)
		UNION SELECT session_id FROM events WHERE session_id NOT IN (SELECT id FROM sessions)`).Scan(&ids).Error
	if err != nil {
		return 0, fmt.Errorf("find sessions whose record was lost: %w", err)
	}
	for n, id := range ids {
		if err := s.restoreLost(ctx, id); err != nil {
			return n, fmt.Errorf("restore session %s: %w", id, err)
		}
	}
	return len(ids), nil
}

// restoreLost makes a lost session's record from what is left of it.
func (s *Store) restoreLost(ctx context.Context, id string) error {
	db := s.db.WithContext(ctx)
	var started []string
	if err := db.Raw(`SELECT data FROM events WHERE session_id = ? AND type = 'agent:run-started' ORDER BY seq LIMIT 1`, id).Scan(&started).Error; err != nil {
		return err
	}
	var run struct{ Model, Text string }
	if len(started) > 0 {
		_ = json.Unmarshal([]byte(started[0]), &run) // a damaged one tells nothing
	}
	var asked []string
	if err := db.Raw(`SELECT content FROM messages WHERE session_id = ? AND role = 'user' ORDER BY id LIMIT 1`, id).Scan(&asked).Error; err != nil {
		return err
	}
	title := run.Text // as the record was made from
	if len(asked) > 0 {
		title = cmp.Or(title, asked[0])
	}
	var ws []string
	if err := db.Raw(`SELECT workspace FROM tool_outputs WHERE session_id = ? AND workspace != ''
		UNION ALL SELECT workspace FROM file_changes WHERE session_id = ? AND workspace != '' LIMIT 1`, id, id).Scan(&ws).Error; err != nil {
		return err
	}
	workspace := ""
	if len(ws) > 0 {
		workspace = ws[0]
	}
	// The times as the messages and events hold them: no parsing of what
	// the driver wrote.
	return db.Exec(`INSERT INTO sessions (id, title, model, workspace, created_at, updated_at, prompt_tokens, completion_tokens, eval_ms)
		SELECT ?, ?, ?, ?, min(t), max(t), 0, 0, 0 FROM (
			SELECT created_at AS t FROM messages WHERE session_id = ? UNION ALL SELECT time FROM events WHERE session_id = ?)`,
		id, Title(title), run.Model, workspace, id, id).Error
}

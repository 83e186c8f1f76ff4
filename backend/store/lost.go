package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// titleRunes is how much of a request a session's title keeps, as when
// the session was made.
const titleRunes = 80

// RestoreLostSessions gives a session record back to the messages and
// events whose session record is gone (a salvaged database whose
// sessions' pages could not be read), so the conversation is listed and
// can be opened and continued again. What the record held is read from
// what is left: the title from the first request (as the first run's
// start or the first user message has it), the model from that start, the times from the first and last message or event,
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
		sess, err := s.lostSession(ctx, id)
		if err == nil {
			err = s.CreateSession(ctx, sess)
		}
		if err != nil {
			return n, fmt.Errorf("restore session %s: %w", id, err)
		}
	}
	return len(ids), nil
}

// lostSession reads what is left of a session into its record.
func (s *Store) lostSession(ctx context.Context, id string) (Session, error) {
	db := s.db.WithContext(ctx)
	sess := Session{ID: id}
	var span struct{ First, Last string }
	if err := db.Raw(`SELECT min(t) AS first, max(t) AS last FROM (
		SELECT created_at AS t FROM messages WHERE session_id = ? UNION ALL SELECT time FROM events WHERE session_id = ?)`, id, id).Scan(&span).Error; err != nil {
		return sess, err
	}
	sess.CreatedAt, sess.UpdatedAt = storedTime(span.First), storedTime(span.Last)
	var started []string
	if err := db.Raw(`SELECT data FROM events WHERE session_id = ? AND type = 'agent:run-started' ORDER BY seq LIMIT 1`, id).Scan(&started).Error; err != nil {
		return sess, err
	}
	var run struct{ Model, Text string }
	if len(started) > 0 {
		_ = json.Unmarshal([]byte(started[0]), &run) // a damaged one tells nothing
	}
	var asked []string
	if err := db.Raw(`SELECT content FROM messages WHERE session_id = ? AND role = 'user' ORDER BY id LIMIT 1`, id).Scan(&asked).Error; err != nil {
		return sess, err
	}
	title := run.Text // as the record was made from
	if len(asked) > 0 {
		title = cmp.Or(title, asked[0])
	}
	if r := []rune(title); len(r) > titleRunes {
		title = string(r[:titleRunes]) + "…"
	}
	sess.Title, sess.Model = title, run.Model
	var ws []string
	if err := db.Raw(`SELECT workspace FROM tool_outputs WHERE session_id = ? AND workspace != ''
		UNION ALL SELECT workspace FROM file_changes WHERE session_id = ? AND workspace != '' LIMIT 1`, id, id).Scan(&ws).Error; err != nil {
		return sess, err
	}
	if len(ws) > 0 {
		sess.Workspace = ws[0]
	}
	return sess, nil
}

// storedTime reads a time as the driver stores it; the zero time when it
// cannot.
func storedTime(s string) time.Time {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

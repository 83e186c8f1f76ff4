package app

import (
	"context"
	"errors"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/store"
)

// RenameSession names session id title (on one line, secrets taken out,
// cut to a title's length) in place of its first request's words, and
// returns the name kept. A name without words is refused.
func (a *App) RenameSession(ctx context.Context, id, title string) (string, error) {
	title = store.Title(a.Recorder.RedactText(strings.Join(strings.Fields(title), " ")))
	if title == "" {
		return "", errors.New("a session's name needs words: type one, or leave it as it is")
	}
	if _, err := a.Store.Session(ctx, id); err != nil {
		return "", err
	}
	return title, a.Store.SetTitle(ctx, id, title)
}

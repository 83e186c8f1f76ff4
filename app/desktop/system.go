package desktop

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/model"
)

// TypeOllamaStatus is published when the Ollama server's reachability or
// model list changes. Its data is a [model.Status].
const TypeOllamaStatus agent.Type = "ollama:status"

// Info is what the window shows about this installation.
type Info struct {
	Version    string `json:"version"`
	DataDir    string `json:"data_dir"`
	OllamaHost string `json:"ollama_host"`
	// Model is the model named at start-up (--model, $SHRIMP_MODEL): a
	// new chat's model when Settings names no default ("" when none).
	Model string `json:"model"`
}

// System is the bound service for installation facts and the Ollama status.
type System struct {
	app      *app.App
	interval time.Duration

	mu    sync.Mutex
	last  *model.Status
	focus func(active bool) // the notifier's, once set
	size  func() geometry   // the window's size now, once it is up
}

// NewSystem returns the service; interval is how often Ollama is polled.
func NewSystem(a *app.App, interval time.Duration) *System {
	if interval <= 0 {
		interval = 3 * time.Second
	}
	return &System{app: a, interval: interval}
}

// WindowFocus is told by the window when it gains or loses the focus:
// desktop notifications are sent only while it is in the background.
func (s *System) WindowFocus(active bool) {
	s.mu.Lock()
	f := s.focus
	s.mu.Unlock()
	if f != nil {
		f(active)
	}
}

// WindowResized is told by the window when its size changed (after the
// user stopped resizing it): the size is kept for the next launch, or
// only that it is maximised (its size before stays kept).
func (s *System) WindowResized() error {
	s.mu.Lock()
	size := s.size
	s.mu.Unlock()
	if size == nil {
		return nil
	}
	g := size()
	if g.Maximised {
		old := savedGeometry(s.app.Store)
		g.Width, g.Height = old.Width, old.Height
	}
	if g.Width < minWidth || g.Height < minHeight {
		return nil // not a size to open with (a window being set up)
	}
	if err := s.app.Store.SetSetting(context.Background(), settingWindow, g.String()); err != nil {
		return fmt.Errorf("keep the window's size: %w", err)
	}
	s.app.Log.Info("window size kept", "size", g.String())
	return nil
}

// Info returns the version, data directory and Ollama host.
func (s *System) Info() Info {
	return Info{Version: app.Version, DataDir: s.app.Config.DataDir, OllamaHost: s.app.Config.OllamaHost, Model: s.app.Config.Model}
}

// OllamaStatus returns the last known status, asking Ollama when there is
// none yet.
func (s *System) OllamaStatus() model.Status {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last != nil {
		return *last
	}
	return s.Refresh()
}

// Refresh asks Ollama now, publishes the status if it changed, and
// returns it.
func (s *System) Refresh() model.Status {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := s.app.Model.Status(ctx)
	s.mu.Lock()
	changed := s.last == nil || !reflect.DeepEqual(*s.last, st)
	s.last = &st
	s.mu.Unlock()
	if changed {
		s.app.Bus.Publish(agent.Event{Type: TypeOllamaStatus, Time: time.Now().UTC(), Data: st})
		// Ollama came back, or a model was pulled (perhaps the embedding
		// model): what failed to embed is tried now, not at its retry.
		if st.Reachable && s.app.Config.EmbedModel != "" {
			if mem, err := s.app.Memory(ctx); err == nil {
				mem.RetryEmbedder()
			}
		}
	}
	return st
}

// Watch polls Ollama until ctx ends, publishing each change.
func (s *System) Watch(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		s.Refresh()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

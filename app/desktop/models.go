package desktop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/model"
)

// TypePullProgress is published while a model is pulled. Its data is a
// [PullProgress].
const TypePullProgress agent.Type = "model:pull-progress"

// PullProgress is one update of a pull, ready for a progress bar.
type PullProgress struct {
	Model     string  `json:"model"`
	Status    string  `json:"status"`
	Completed int64   `json:"completed"`
	Total     int64   `json:"total"`
	Percent   float64 `json:"percent"`
	Done      bool    `json:"done"`
	Error     string  `json:"error"`
}

// Models is the bound service of the models view.
type Models struct {
	app    *app.App
	system *System

	mu    sync.Mutex
	pulls map[string]context.CancelFunc
}

// NewModels returns the service; system is refreshed after changes.
func NewModels(a *app.App, system *System) *Models {
	return &Models{app: a, system: system, pulls: map[string]context.CancelFunc{}}
}

// List returns the installed models with their details.
func (m *Models) List() ([]model.Info, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := m.app.Model.List(ctx)
	if out == nil {
		out = []model.Info{}
	}
	// Ollama lists a model's trained context only from v0.12 or so
	// (v0.24.0's /api/tags has none); /api/show has it for every model.
	var missing []string
	for _, i := range out {
		if i.ContextLength == 0 {
			missing = append(missing, i.Name)
		}
	}
	if len(missing) > 0 {
		model.FillContext(out, m.app.Model.ShowAll(ctx, missing))
	}
	return out, err
}

// Pull starts downloading a model; progress arrives as model:pull-progress
// events, the last one with Done set.
func (m *Models) Pull(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("name the model to pull, for example qwen3:4b")
	}
	m.mu.Lock()
	if _, busy := m.pulls[name]; busy {
		m.mu.Unlock()
		return fmt.Errorf("%s is already being pulled", name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.pulls[name] = cancel
	m.mu.Unlock()
	publish := func(p PullProgress) {
		p.Model = name
		if p.Total > 0 {
			p.Percent = float64(p.Completed) * 100 / float64(p.Total)
		}
		m.app.Bus.Publish(agent.Event{Type: TypePullProgress, Time: time.Now().UTC(), Data: p})
	}
	go func() {
		defer func() {
			m.mu.Lock()
			delete(m.pulls, name)
			m.mu.Unlock()
			cancel()
		}()
		last, lastStatus := time.Time{}, ""
		err := m.app.Model.Pull(ctx, name, func(p model.Progress) {
			// At most ~20 updates a second reach the window, but a new
			// step ("pulling manifest", then a layer) always does.
			if time.Since(last) < 50*time.Millisecond && p.Completed != p.Total && p.Status == lastStatus {
				return
			}
			last, lastStatus = time.Now(), p.Status
			publish(PullProgress{Status: p.Status, Completed: p.Completed, Total: p.Total})
		})
		switch {
		case errors.Is(err, context.Canceled):
			publish(PullProgress{Status: "cancelled", Done: true, Error: "cancelled"})
		case err != nil:
			publish(PullProgress{Status: "failed", Done: true, Error: err.Error()})
		default:
			publish(PullProgress{Status: "success", Done: true, Percent: 100})
			if m.system != nil {
				m.system.Refresh()
			}
		}
	}()
	return nil
}

// CancelPull stops a pull in progress.
func (m *Models) CancelPull(name string) error {
	m.mu.Lock()
	cancel, ok := m.pulls[name]
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s is not being pulled", name)
	}
	cancel()
	return nil
}

// Delete removes an installed model.
func (m *Models) Delete(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.app.Model.Delete(ctx, name); err != nil {
		return err
	}
	if m.system != nil {
		m.system.Refresh()
	}
	return nil
}

// InMemory lists the models Ollama holds in memory now, with until when.
func (m *Models) InMemory() ([]model.InMemory, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return m.app.Model.InMemory(ctx)
}

// Unload takes a model out of Ollama's memory now (`ollama stop`), for
// the memory it holds; its next request loads it again.
func (m *Models) Unload(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return m.app.Model.Unload(ctx, name)
}

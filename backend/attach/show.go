package attach

import (
	"context"
	"fmt"
	"sync"
)

// Shown collects the images a tool call shows the model (fs.read of a
// picture, for a model that can see). The loop makes one per call and
// closes it when the call returns: a tool left running past its end
// shows nothing more. Safe for concurrent use.
type Shown struct {
	mu     sync.Mutex
	images []Image
	closed bool
}

type shownKey struct{}

// WithShown returns ctx carrying s: tools run with it may show images.
func WithShown(ctx context.Context, s *Shown) context.Context {
	return context.WithValue(ctx, shownKey{}, s)
}

// CanShow reports whether a tool run with ctx may show the model images:
// the model can see, and the call is not over.
func CanShow(ctx context.Context) bool {
	s, _ := ctx.Value(shownKey{}).(*Shown)
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && len(s.images) < MaxPerRequest
}

// Show gives the model img with the call's result, or says why it
// cannot be shown (see [CanShow]).
func Show(ctx context.Context, img Image) error {
	s, _ := ctx.Value(shownKey{}).(*Shown)
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.closed && len(s.images) < MaxPerRequest {
			s.images = append(s.images, img)
			return nil
		}
	}
	return fmt.Errorf("%s was not shown: a call shows at most %d images", img.Name, MaxPerRequest)
}

// Close ends the call and returns the images it showed.
func (s *Shown) Close() []Image {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.images
}

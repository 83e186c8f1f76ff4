package agent

import (
	"strings"
	"time"
)

// buffer batches streamed text into readable events: it yields when it
// holds size bytes, when interval passed since the last yield, and on flush.
type buffer struct {
	run      *run
	typ      Type
	interval time.Duration
	size     int
	last     time.Time
	b        strings.Builder
}

func newBuffer(r *run, t Type, interval time.Duration, size int) *buffer {
	// last starts at zero, so the first piece is shown at once (time to first token).
	return &buffer{run: r, typ: t, interval: cmpOr(interval, 50*time.Millisecond), size: cmpOr(size, 256)}
}

// add buffers s and yields when due; it reports false once the consumer stopped.
func (b *buffer) add(s string) bool {
	b.b.WriteString(s)
	if b.b.Len() >= b.size || time.Since(b.last) >= b.interval {
		return b.flush()
	}
	return true
}

func (b *buffer) flush() bool {
	if b.b.Len() == 0 {
		return !b.run.stopped
	}
	text := b.b.String()
	b.b.Reset()
	b.last = time.Now()
	return b.run.emit(b.typ, Delta{Text: text})
}

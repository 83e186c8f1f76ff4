package bus

import (
	"sync"
	"time"
)

// mailbox is a bounded FIFO ring with an overflow policy. put never blocks
// except under a Block policy, and then for at most its timeout.
type mailbox[T any] struct {
	mu     sync.Mutex
	buf    []T
	head   int // index of the oldest value
	n      int // values queued
	closed bool
	idle   bool // the consumer is (about to be) parked on ready
	busy   bool // the consumer holds a batch it took
	policy Policy[T]
	stats  *counters

	ready chan struct{} // signalled when a value is queued or the box closes
	room  chan struct{} // signalled when a value is taken
}

func newMailbox[T any](capacity int, p Policy[T], stats *counters) *mailbox[T] {
	return &mailbox[T]{
		buf:    make([]T, capacity),
		policy: p,
		stats:  stats,
		ready:  make(chan struct{}, 1),
		room:   make(chan struct{}, 1),
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (m *mailbox[T]) put(v T) {
	var timer *time.Timer
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return
		}
		if m.n < len(m.buf) {
			m.push(v)
			wake := m.idle
			m.idle = false
			m.mu.Unlock()
			if wake {
				signal(m.ready)
			}
			if timer != nil {
				timer.Stop()
			}
			return
		}
		switch {
		case m.policy.merge != nil:
			last := (m.head + m.n - 1) % len(m.buf)
			if merged, ok := m.policy.merge(m.buf[last], v); ok {
				m.buf[last] = merged
				m.stats.coalesced.Add(1)
			} else {
				m.drop()
				m.push(v)
			}
			m.mu.Unlock()
			signal(m.ready)
			return
		case m.policy.block > 0:
			m.mu.Unlock()
			if timer == nil {
				timer = time.NewTimer(m.policy.block)
			}
			select {
			case <-m.room:
				continue
			case <-timer.C:
				m.stats.dropped.Add(1)
				return
			}
		default:
			m.drop()
			m.push(v)
			m.mu.Unlock()
			signal(m.ready)
			return
		}
	}
}

// take waits for values and moves up to len(dst) of them into dst, oldest
// first. It reports 0 once the box is closed and empty. Taking a batch
// under one lock keeps the publisher and the consumer off each other's lock.
func (m *mailbox[T]) take(dst []T) int {
	m.mu.Lock()
	m.busy = false
	m.mu.Unlock()
	for {
		m.mu.Lock()
		if m.n > 0 {
			m.busy = true
			k := 0
			for m.n > 0 && k < len(dst) {
				dst[k] = m.pop()
				k++
			}
			m.mu.Unlock()
			if m.policy.block > 0 {
				signal(m.room)
			}
			return k
		}
		if m.closed {
			m.mu.Unlock()
			return 0
		}
		m.idle = true
		m.mu.Unlock()
		<-m.ready
	}
}

func (m *mailbox[T]) push(v T) {
	i := m.head + m.n
	if i >= len(m.buf) {
		i -= len(m.buf)
	}
	m.buf[i] = v
	m.n++
}

func (m *mailbox[T]) pop() T {
	var zero T
	v := m.buf[m.head]
	m.buf[m.head] = zero
	m.head++
	if m.head == len(m.buf) {
		m.head = 0
	}
	m.n--
	return v
}

// drop discards the oldest value, counting it.
func (m *mailbox[T]) drop() {
	m.pop()
	m.stats.dropped.Add(1)
}

// settled reports whether nothing is queued and the consumer holds nothing.
func (m *mailbox[T]) settled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n == 0 && !m.busy
}

func (m *mailbox[T]) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

func (m *mailbox[T]) close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	signal(m.ready)
	signal(m.room)
}

// discard drops everything queued, counting it.
func (m *mailbox[T]) discard() {
	m.mu.Lock()
	for m.n > 0 {
		m.drop()
	}
	m.mu.Unlock()
}

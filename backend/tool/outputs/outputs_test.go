package outputs

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shrimp-harness/shrimp/backend/store"
)

func TestPaging(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	whole := strings.Repeat("0123456789", 2000) // 20,000 bytes
	h, err := st.KeepOutput(context.Background(), "s", "/w", "fs.read", whole)
	if err != nil {
		t.Fatal(err)
	}
	tl := Tool(st, func() string { return "s" }, "/w")
	read := func(args Args) (string, error) {
		b, _ := json.Marshal(args)
		return tl.Run(context.Background(), b)
	}
	var got strings.Builder
	offset := 0
	for range 10 {
		out, err := read(Args{Handle: h, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		body, note, _ := strings.Cut(out, "\n[bytes ")
		got.WriteString(body)
		offset += len(body)
		if strings.Contains(note, "the end") {
			break
		}
	}
	if got.String() != whole {
		t.Fatalf("paged %d bytes, want the whole %d", got.Len(), len(whole))
	}
	if _, err := read(Args{Handle: "out-nope"}); err == nil {
		t.Fatal("unknown handle accepted")
	}
	if _, err := read(Args{Handle: h, Offset: 999999}); err == nil {
		t.Fatal("offset past the end accepted")
	}
	for _, other := range []struct{ session, ws string }{{"other", "/w"}, {"s", "/elsewhere"}, {"other", "/elsewhere"}} {
		b, _ := json.Marshal(Args{Handle: h})
		_, err := Tool(st, func() string { return other.session }, other.ws).Run(context.Background(), b)
		if err == nil || !strings.Contains(err.Error(), "no kept output") {
			t.Fatalf("session %s in %s read another's output: %v", other.session, other.ws, err)
		}
	}
	if out, _ := read(Args{Handle: h, Offset: 5, Length: 3}); !strings.HasPrefix(out, "567\n[bytes 5–8 of 20000") {
		t.Fatalf("small read: %q", out)
	}
}

// TestPagingWholeCharacters: an output in any script, paged with any
// lengths from any offsets, comes back in whole characters: each piece is
// valid UTF-8 (cut inside a character, the model gets U+FFFD at both
// ends), following "call again with offset N" rebuilds the output, and
// an offset inside a character reads from its start.
func TestPagingWholeCharacters(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pieces := []string{"a", " ", "é", "ж", "中", "😀", "\n", "ก", "한"} // 1 to 4 bytes
	rng := rand.New(rand.NewPCG(3, 17))
	for round := range 200 {
		var b strings.Builder
		for range 1 + rng.IntN(300) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		whole := b.String()
		h, err := st.KeepOutput(context.Background(), "s", "/w", "shell.run", whole)
		if err != nil {
			t.Fatal(err)
		}
		tl := Tool(st, func() string { return "s" }, "/w")
		read := func(offset, length int) (body string, start, next int) {
			args, _ := json.Marshal(Args{Handle: h, Offset: offset, Length: length})
			out, err := tl.Run(context.Background(), args)
			if err != nil {
				t.Fatalf("round %d: offset %d: %v", round, offset, err)
			}
			body, note, _ := strings.Cut(out, "\n[bytes ")
			var end, total int
			if _, err := fmt.Sscanf(note, "%d–%d of %d", &start, &end, &total); err != nil || end-start != len(body) || total != len(whole) {
				t.Fatalf("round %d: note %q for %d bytes", round, note, len(body))
			}
			if !utf8.ValidString(body) {
				t.Fatalf("round %d: offset %d length %d: a piece cut inside a character: %q", round, offset, length, body)
			}
			return body, start, end
		}
		var got strings.Builder
		for offset := 0; offset < len(whole); {
			body, start, end := read(offset, 1+rng.IntN(12))
			if start != offset || end <= offset {
				t.Fatalf("round %d: asked from %d, read %d–%d", round, offset, start, end)
			}
			got.WriteString(body)
			offset = end
		}
		if got.String() != whole {
			t.Fatalf("round %d: paged %q, want %q", round, got.String(), whole)
		}
		offset := rng.IntN(len(whole))
		if body, start, _ := read(offset, 1+rng.IntN(12)); start > offset || offset-start >= utf8.UTFMax || !strings.HasPrefix(whole[start:], body) {
			t.Fatalf("round %d: from %d read %q at %d", round, offset, body, start)
		}
	}
}

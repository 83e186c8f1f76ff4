package outputs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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

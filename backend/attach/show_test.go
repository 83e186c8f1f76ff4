package attach

import (
	"context"
	"strings"
	"testing"
)

// TestShown: a tool may show images only with a collector in its context
// (a model that can see), at most MaxPerRequest a call, and nothing once
// the call is over.
func TestShown(t *testing.T) {
	img := Image{Name: "a.png"}
	if CanShow(context.Background()) || Show(context.Background(), img) == nil {
		t.Fatal("shown without a collector: the model cannot see")
	}
	var s Shown
	ctx := WithShown(context.Background(), &s)
	for i := range MaxPerRequest {
		if !CanShow(ctx) || Show(ctx, img) != nil {
			t.Fatalf("image %d of %d refused", i+1, MaxPerRequest)
		}
	}
	if err := Show(ctx, img); CanShow(ctx) || err == nil || !strings.Contains(err.Error(), "a.png was not shown: a call shows at most 8 images") {
		t.Fatalf("more than %d images shown by one call (%v)", MaxPerRequest, err)
	}
	if got := s.Close(); len(got) != MaxPerRequest {
		t.Fatalf("Close = %d images, want %d", len(got), MaxPerRequest)
	}
	var late Shown
	ctx = WithShown(context.Background(), &late)
	late.Close()
	if CanShow(ctx) || Show(ctx, img) == nil {
		t.Fatal("a tool left running showed an image after its call was over")
	}
}

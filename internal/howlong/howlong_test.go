package howlong

import "testing"

func TestMillis(t *testing.T) {
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{-5, "0 ms"}, {0, "0 ms"}, {42, "42 ms"}, {999, "999 ms"}, {1000, "1.0 s"}, {1234, "1.2 s"}, {9949, "9.9 s"},
		{9950, "10 s"}, {59499, "59 s"}, {59500, "1 min"}, {185000, "3 min 5 s"}, {3_600_000, "60 min"},
	} {
		if got := Millis(c.ms); got != c.want {
			t.Errorf("Millis(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
}

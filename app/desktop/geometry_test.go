package desktop

import (
	"testing"
)

func TestParseGeometry(t *testing.T) {
	def := geometry{Width: defaultWidth, Height: defaultHeight}
	for _, c := range []struct {
		in   string
		want geometry
	}{
		{"", def},
		{"1000x700", geometry{1000, 700, false}},
		{"1000x700 maximised", geometry{1000, 700, true}},
		{" 1400x900 ", geometry{1400, 900, false}},
		{"100x100", def}, // smaller than the window takes
		{"100x100 maximised", geometry{defaultWidth, defaultHeight, true}},
		{"99999x700", def},
		{"wide", def},
		{"1000x", def},
		{"-1000x700", def},
	} {
		if got := parseGeometry(c.in); got != c.want {
			t.Errorf("parseGeometry(%q) = %+v, want %+v", c.in, got, c.want)
		}
		if g := parseGeometry(c.in); parseGeometry(g.String()) != g {
			t.Errorf("%+v does not read back", g)
		}
	}
}

// TestWindowResized: the size the window was left at is kept for the next
// launch; maximised, the size before is kept with the state; a size the
// window cannot open at is not kept.
func TestWindowResized(t *testing.T) {
	a, _ := openWindowApp(t, "http://127.0.0.1:9", "m")
	s := NewSystem(a, 0)
	if err := s.WindowResized(); err != nil { // before the window is up: nothing
		t.Fatal(err)
	}
	now := geometry{Width: 1000, Height: 700}
	s.size = func() geometry { return now }
	for _, c := range []struct {
		now  geometry
		want geometry
	}{
		{geometry{1000, 700, false}, geometry{1000, 700, false}},
		{geometry{1920, 1080, true}, geometry{1000, 700, true}},
		{geometry{1300, 850, false}, geometry{1300, 850, false}},
		{geometry{200, 100, false}, geometry{1300, 850, false}},
	} {
		now = c.now
		if err := s.WindowResized(); err != nil {
			t.Fatal(err)
		}
		if got := savedGeometry(a.Store); got != c.want {
			t.Errorf("after %+v: kept %+v, want %+v", c.now, got, c.want)
		}
	}
}

// TestFitted: a window larger than the work area it opens in is made to
// fit it, with room for a title bar, never below its smallest size; one
// that fits, or is maximised, is left alone.
func TestFitted(t *testing.T) {
	for _, tt := range []struct {
		name         string
		g            geometry
		areaW, areaH int
		want         geometry
		changed      bool
	}{
		{"fits", geometry{Width: 1200, Height: 800}, 1920, 1053, geometry{Width: 1200, Height: 800}, false},
		{"HD laptop, a top bar", geometry{Width: 1200, Height: 800}, 1366, 741, geometry{Width: 1200, Height: 693}, true},
		{"left on a 4K monitor", geometry{Width: 3000, Height: 1900}, 1920, 1080, geometry{Width: 1888, Height: 1032}, true},
		{"area below the smallest size", geometry{Width: 1200, Height: 800}, 800, 600, geometry{Width: 880, Height: 560}, true},
		{"maximised", geometry{Width: 3000, Height: 1900, Maximised: true}, 1366, 768, geometry{Width: 3000, Height: 1900, Maximised: true}, false},
		{"area unknown", geometry{Width: 1200, Height: 800}, 0, 0, geometry{Width: 1200, Height: 800}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, changed := fitted(tt.g, tt.areaW, tt.areaH); got != tt.want || changed != tt.changed {
				t.Errorf("fitted(%v, %dx%d) = %v, %v; want %v, %v", tt.g, tt.areaW, tt.areaH, got, changed, tt.want, tt.changed)
			}
		})
	}
}

package desktop

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/store"
)

// settingWindow keeps the window's size between launches: "WxH", with
// " maximised" when it was.
const settingWindow = "window_size"

// The window's default, smallest and largest sizes.
const (
	defaultWidth, defaultHeight = 1200, 800
	minWidth, minHeight         = 880, 560
	maxSide                     = 8192
)

// geometry is the window's size and whether it is maximised.
type geometry struct {
	Width, Height int
	Maximised     bool
}

// String is the setting's form.
func (g geometry) String() string {
	s := fmt.Sprintf("%dx%d", g.Width, g.Height)
	if g.Maximised {
		s += " maximised"
	}
	return s
}

// parseGeometry reads the setting; a value it cannot read, or a size
// outside what the window takes, gives the default.
func parseGeometry(s string) geometry {
	def := geometry{Width: defaultWidth, Height: defaultHeight}
	size, max := strings.CutSuffix(strings.TrimSpace(s), " maximised")
	w, h, ok := strings.Cut(size, "x")
	if !ok {
		return def
	}
	width, err1 := strconv.Atoi(w)
	height, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || width < minWidth || height < minHeight || width > maxSide || height > maxSide {
		def.Maximised = max
		return def
	}
	return geometry{Width: width, Height: height, Maximised: max}
}

// savedGeometry is the window's size as it was left.
func savedGeometry(st *store.Store) geometry {
	v, _ := st.Setting(context.Background(), settingWindow)
	return parseGeometry(v)
}

// Room a window needs around its size on the screen: the title bar the
// desktop draws above it, and a little margin.
const (
	roomAbove = 48
	roomAside = 32
)

// fitted returns g made to fit a work area (the screen less the desktop's
// panels) of the given logical size, with room for the title bar, never
// below the window's smallest size; false when g fits as it is, is
// maximised, or the area is unknown. A window left at 1200x800 on a large
// monitor opens on a 1366x768 laptop screen whole.
func fitted(g geometry, areaW, areaH int) (geometry, bool) {
	if g.Maximised || areaW <= 0 || areaH <= 0 {
		return g, false
	}
	w := min(g.Width, max(minWidth, areaW-roomAside))
	h := min(g.Height, max(minHeight, areaH-roomAbove))
	if w == g.Width && h == g.Height {
		return g, false
	}
	return geometry{Width: w, Height: h}, true
}

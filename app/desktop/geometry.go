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

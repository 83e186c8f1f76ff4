//go:build !webkit2_41

package doctor

// Without the webkit2_41 tag, Wails links WebKitGTK 4.0 (libsoup 2),
// which Ubuntu 24.04, Fedora 40 and Debian 13 no longer ship.
const (
	webkitLib     = "libwebkit2gtk-4.0.so.37"
	webkitPackage = "libwebkit2gtk-4.0-37"
	webkitName    = "WebKitGTK 4.0"
)

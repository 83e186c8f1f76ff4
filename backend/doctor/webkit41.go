//go:build webkit2_41

package doctor

// The window's build links WebKitGTK 4.1 (the webkit2_41 tag, as the
// Makefile builds): the only WebKitGTK of Ubuntu 24.04 and later, Linux
// Mint 22, Fedora 40 and later, and Debian 13, and there in Debian 12
// and Ubuntu 22.04 too.
const (
	webkitLib     = "libwebkit2gtk-4.1.so.0"
	webkitPackage = "libwebkit2gtk-4.1-0"
	webkitName    = "WebKitGTK 4.1"
)

//go:build desktop || dev || production

package main

import (
	"embed"
	"io/fs"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

// appIcon returns the window icon.
func appIcon() []byte { return icon }

// frontendAssets returns the built frontend embedded in the binary.
func frontendAssets() fs.FS {
	sub, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub
}

//go:build !(desktop || dev || production)

package main

import (
	"io/fs"
	"testing/fstest"
)

// frontendAssets is empty in builds without the window tags (go vet, go
// test, bindings generation), so a fresh clone needs no frontend build.
func frontendAssets() fs.FS { return fstest.MapFS{} }

// appIcon is empty without the window tags.
func appIcon() []byte { return nil }

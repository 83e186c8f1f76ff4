//go:build !linux && !darwin

package undo

import "io/fs"

// changed is not known here: the watch tells a change by inode, size,
// time and permissions alone.
func changed(fs.FileInfo) struct{} { return struct{}{} }

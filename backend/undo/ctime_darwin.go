package undo

import (
	"io/fs"
	"syscall"
)

// changed is when a file's inode last changed (its content, permissions
// or name), which no command can set back; zero when not known.
func changed(info fs.FileInfo) syscall.Timespec {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec
	}
	return syscall.Timespec{}
}

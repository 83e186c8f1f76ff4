//go:build !linux

package sandbox

import "errors"

var errUnsupported = errors.New("commands can be confined only on Linux (Landlock)")

// Available reports that commands cannot be confined on this system.
func Available() (int, error) { return 0, errUnsupported }

var confine = func([]string) error { return errUnsupported }

// Package shebang says why a script that is there cannot be started, by
// its first line (#!): the system then reports only "not found" (or "No
// such file or directory") about a file the user can see. Two causes are
// named: a first line ending in a Windows line break, which makes the
// interpreter's name end in a carriage return, and an interpreter (or the
// program `env` is asked to find) that is not installed.
package shebang

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// maxLine is how much of a file's first line the kernel reads, and so
// how much is read here.
const maxLine = 256

// Problem returns a sentence saying why the script at path cannot start,
// with what to do, or "" when its first line is not why (it has none,
// the file cannot be read, or what it names is there). A relative
// program on env's line is looked for in PATH, as env does.
func Problem(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, maxLine)
	n, _ := io.ReadFull(f, buf)
	line, ok := bytes.CutPrefix(buf[:n], []byte("#!"))
	if !ok {
		return ""
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if bytes.HasSuffix(line, []byte("\r")) {
		return fmt.Sprintf("%s has Windows line endings (CRLF): its first line asks for an interpreter named %q, carriage return included, which no system has; convert it with `sed -i 's/\\r$//' %s` (or dos2unix)", path, string(bytes.TrimSpace(line))+"\r", path)
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	interp := fields[0]
	if _, err := os.Stat(interp); err != nil {
		return fmt.Sprintf("%s asks for the interpreter %s on its first line, which is not on this system: install it, or change that line", path, interp)
	}
	if filepath.Base(interp) != "env" {
		return ""
	}
	for _, f := range fields[1:] {
		switch {
		case f == "-S" || f == "--split-string" || strings.HasPrefix(f, "-"):
			continue
		case strings.Contains(f, "="): // env NAME=VALUE program
			continue
		}
		if _, err := exec.LookPath(f); err != nil {
			return fmt.Sprintf("%s runs %s through env on its first line, and %s is not in PATH: install it, or name it by its full path on that line", path, f, f)
		}
		return ""
	}
	return ""
}

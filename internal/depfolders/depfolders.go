// Package depfolders names the folders whose files are other projects'
// (installed packages, vendored code, a repository's internals). Its
// contract: [Is] reports whether a folder's name (not a path) is one of
// them, without regard to case; the list is data (depfolders.json).
package depfolders

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed depfolders.json
var listJSON []byte

var names = func() []string {
	var f struct {
		Folders []string `json:"folders"`
	}
	if err := json.Unmarshal(listJSON, &f); err != nil || len(f.Folders) == 0 {
		panic(fmt.Sprintf("depfolders.json: %v", err))
	}
	return f.Folders
}()

// Is reports whether a folder named name holds other projects' files
// (node_modules, vendor, .venv, …).
func Is(name string) bool {
	for _, d := range names {
		if strings.EqualFold(name, d) {
			return true
		}
	}
	return false
}

// Package modelname says how Ollama names a model, so that the names a
// user types ("qwen3") and the names Ollama lists ("qwen3:latest") are
// one model wherever Shrimp keeps something per model.
package modelname

import "strings"

// Canonical returns a model's name as Ollama lists it: with its tag,
// ":latest" when it names none. The tag follows the last ':' of the
// name's last '/'-separated part, so a registry's port is no tag
// ("host:5000/ns/m" is "host:5000/ns/m:latest").
func Canonical(name string) string {
	name = strings.TrimSpace(name)
	if name == "" || Untagged(name) != name {
		return name
	}
	return name + ":latest"
}

// Untagged returns a model's name without its tag (as Canonical finds
// it): "qwen3" for "qwen3:4b", "host:5000/ns/m" for "host:5000/ns/m:v2".
func Untagged(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		return name[:i]
	}
	return name
}

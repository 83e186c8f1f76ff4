package model

import (
	_ "embed"
	"encoding/json"
	"path"
	"strings"
	"sync"
)

//go:embed embedprompts.json
var embedPromptsJSON []byte

// embedPrompt is one entry of embedprompts.json.
type embedPrompt struct {
	Model  string `json:"model"`
	Prefix string `json:"prefix"`
	Source string `json:"source"`
}

var embedPrompts = sync.OnceValue(func() []embedPrompt {
	var f struct {
		Prompts []embedPrompt `json:"prompts"`
	}
	if err := json.Unmarshal(embedPromptsJSON, &f); err != nil {
		panic("model: embedprompts.json: " + err.Error()) // checked by TestEmbedPrefix
	}
	return f.Prompts
})

// EmbedPrefix returns the text an embedding model's documentation asks to
// put before each input for comparing texts with one another ("" for a
// model that takes none): nomic-embed-text's "clustering: ", for one. The
// prompts are data (embedprompts.json), matched on the model's name
// without registry path and tag.
func EmbedPrefix(name string) string {
	base := strings.ToLower(path.Base(name))
	base, _, _ = strings.Cut(base, ":")
	for _, p := range embedPrompts() {
		if strings.Contains(base, p.Model) {
			return p.Prefix
		}
	}
	return ""
}

package model

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
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

// Embedder embeds with an Ollama embedding model (recall's
// procedures.Embedder), each text after the prompt the model's
// documentation asks for (EmbedPrefix). Its vectors are stored as
// "ollama:" + Model, followed by "#p" and a hash of the prompt when there
// is one, so a changed prompt is never compared with vectors made without
// it.
type Embedder struct {
	Client *Client
	Model  string
}

// Name is the vectors' model name in the store: one model's however its
// name is typed (Ollama takes "Nomic-Embed-Text" and
// "nomic-embed-text:latest" for nomic-embed-text), so Settings and
// --embed-model share its vectors.
func (e Embedder) Name() string {
	name := "ollama:" + strings.TrimSuffix(strings.ToLower(strings.TrimSpace(e.Model)), ":latest")
	if p := EmbedPrefix(e.Model); p != "" {
		h := fnv.New32a()
		h.Write([]byte(p))
		name += fmt.Sprintf("#p%08x", h.Sum32())
	}
	return name
}

// Embed asks Ollama's /api/embed for texts' vectors, in order.
func (e Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if p := EmbedPrefix(e.Model); p != "" {
		prefixed := make([]string, len(texts))
		for i, t := range texts {
			prefixed[i] = p + t
		}
		texts = prefixed
	}
	return e.Client.Embed(ctx, e.Model, texts)
}

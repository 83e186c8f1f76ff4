package realserver

import (
	"fmt"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/ollamatest/gguf"
)

// ChainAnswer is what shrimp-test-chain says after its three tool calls.
const ChainAnswer = "All three steps are done."

// TextAnswer is what the scripted models say without tools.
const TextAnswer = "Hello! I am a tiny test model."

var chatPieces = []string{"Hello", "!", " I am", " a tiny", " test model."}

// call returns the pieces of one tool call written the way the template
// renders calls, so ollama's template-derived parser turns it into a
// native tool call.
func call(name, args string) []string {
	return []string{`<tool_call>{"name": "` + name + `",`, ` "arguments": ` + args + `}</tool_call>`}
}

// chainTemplate picks mode <|mN|> after N tool results in the current
// request (a user message resets it), the last mode once all steps are
// done, and <|chat|> when no tools are offered.
func chainTemplate(steps int) string {
	var adv strings.Builder
	for i := range steps {
		if i > 0 {
			adv.WriteString("{{ else ")
		} else {
			adv.WriteString("{{ ")
		}
		fmt.Fprintf(&adv, `if eq $mode "<|m%d|>" }}{{ $mode = "<|m%d|>" }}`, i, i+1)
	}
	adv.WriteString("{{ end }}")
	return `{{- if .System }}<|system|>{{ .System }}
{{ end }}
{{- $mode := "<|m0|>" }}
{{- range .Messages }}
{{- if eq .Role "user" }}{{ $mode = "<|m0|>" }}
{{- else if eq .Role "tool" }}` + adv.String() + `
{{- end }}
{{- if eq .Role "tool" }}<|tool_result|>{{ .Content }}
{{ else }}<|{{ .Role }}|>{{ .Content }}
{{- if .ToolCalls }}{{ range .ToolCalls }}<tool_call>{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}</tool_call>{{ end }}{{ end }}
{{ end }}
{{- end }}
{{- if .Tools }}{{ $mode }}{{ else }}<|chat|>{{ end }}`
}

// ChainModel is shrimp-test-chain: asked anything with tools offered, it
// calls fs.list, then fs.read on notes.txt, then fs.write of out.txt
// ("done"), then answers [ChainAnswer]. It is the procedural-memory
// scenario on the real server.
func ChainModel() Model {
	return Model{
		Name: "shrimp-test-chain",
		Spec: gguf.Spec{
			Name: "shrimp-test-chain",
			Modes: []gguf.Mode{
				{Marker: "<|chat|>", Pieces: chatPieces},
				{Marker: "<|m0|>", Pieces: call("fs.list", `{"path": "."}`)},
				{Marker: "<|m1|>", Pieces: call("fs.read", `{"path": "notes.txt"}`)},
				{Marker: "<|m2|>", Pieces: call("fs.write", `{"path": "out.txt", "content": "done"}`)},
				{Marker: "<|m3|>", Pieces: []string{"All", " three steps", " are done."}},
			},
			Default: "<|chat|>",
		},
		Template: chainTemplate(3),
		NumCtx:   4096,
	}
}

// TextModel is shrimp-test-text: it accepts tools but always answers
// [TextAnswer], streamed in five chunks.
func TextModel() Model {
	return Model{
		Name: "shrimp-test-text",
		Spec: gguf.Spec{Name: "shrimp-test-text", Modes: []gguf.Mode{{Marker: "<|chat|>", Pieces: chatPieces}}, Default: "<|chat|>"},
		// Mentioning .Tools gives the model the tools capability.
		Template: `{{- if .Tools }}{{ end }}{{- range .Messages }}<|{{ .Role }}|>{{ .Content }}
{{ end }}<|chat|>`,
		NumCtx: 4096,
	}
}

// NoToolsModel is shrimp-test-notools: its template never mentions tools,
// so the server answers any request with tools with HTTP 400.
func NoToolsModel() Model {
	return Model{
		Name: "shrimp-test-notools",
		Spec: gguf.Spec{Name: "shrimp-test-notools", Modes: []gguf.Mode{{Marker: "<|chat|>", Pieces: chatPieces}}, Default: "<|chat|>"},
		Template: `{{- range .Messages }}<|{{ .Role }}|>{{ .Content }}
{{ end }}<|chat|>`,
	}
}

// EmbedModel is shrimp-test-embed: an embedding model (mean pooling), the
// way nomic-embed-text or all-minilm is one: /api/show lists it for
// "embedding" only, /api/embed answers with one vector per input, and
// /api/chat refuses it.
func EmbedModel() Model {
	return Model{
		Name:     "shrimp-test-embed",
		Spec:     gguf.Spec{Name: "shrimp-test-embed", Modes: []gguf.Mode{{Marker: "<|chat|>", Pieces: chatPieces}}, Default: "<|chat|>", Pooling: 1},
		Template: `{{ .Prompt }}`,
	}
}

// OwnTokensModel is shrimp-test-owntokens: its one control token, <AI>,
// has no shape any known family's tokens have (MiniCPM 2's template is
// built of <用户> and <AI>), so only its template tells a client what its
// tokens are.
func OwnTokensModel() Model {
	return Model{
		Name: "shrimp-test-owntokens",
		Spec: gguf.Spec{Name: "shrimp-test-owntokens", Modes: []gguf.Mode{{Marker: "<AI>", Pieces: chatPieces}}, Default: "<AI>"},
		Template: `{{- range .Messages }}[{{ .Role }}] {{ .Content }}
{{ end }}<AI>`,
		NumCtx: 4096,
	}
}

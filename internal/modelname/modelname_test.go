package modelname

import "testing"

func TestCanonical(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"qwen3", "qwen3:latest"},
		{"qwen3:latest", "qwen3:latest"},
		{"qwen3:4b", "qwen3:4b"},
		{" qwen3 ", "qwen3:latest"},
		{"hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:latest"},
		{"hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M"},
		{"registry.local:5000/team/m", "registry.local:5000/team/m:latest"},
		{"registry.local:5000/team/m:v2", "registry.local:5000/team/m:v2"},
		{"", ""},
	} {
		if got := Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUntagged(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"qwen3", "qwen3"},
		{"qwen3:4b", "qwen3"},
		{" qwen3:latest ", "qwen3"},
		{"hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF"},
		{"registry.local:5000/team/m", "registry.local:5000/team/m"},
		{"registry.local:5000/team/m:v2", "registry.local:5000/team/m"},
		{"", ""},
	} {
		if got := Untagged(tt.in); got != tt.want {
			t.Errorf("Untagged(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

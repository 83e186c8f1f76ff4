package model

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/ollama/ollama/api"
)

// readHarmony runs text through a harmony reader in chunks of size bytes
// (the whole text when size is 0).
func readHarmony(text string, size int) (thinking, answer string, calls []api.ToolCall) {
	h := &harmony{known: known}
	if size == 0 {
		size = len(text)
	}
	var th, an strings.Builder
	for i := 0; i < len(text); i += size {
		t, a, c := h.split(text[i:min(i+size, len(text))])
		th.WriteString(t)
		an.WriteString(a)
		calls = append(calls, c...)
	}
	t, a, c := h.finish()
	th.WriteString(t)
	an.WriteString(a)
	return th.String(), an.String(), append(calls, c...)
}

// TestHarmony: gpt-oss's harmony content, as Ollama leaves it when it does
// not read it itself, gives its thinking, its answer and its calls, whole
// and streamed in chunks of every size from 1 to 7 bytes. The forms are
// those of OpenAI's harmony format and Ollama's parser for it (v0.32.15
// harmony/harmonyparser.go: the recipient before or after the channel,
// <|constrain|> with or without a blank before it) and llama.cpp #15158's
// "json" glued to the name.
func TestHarmony(t *testing.T) {
	type call struct {
		name string
		args map[string]any
	}
	read := call{"fs.read", map[string]any{"path": "a.txt"}}
	for _, tt := range []struct {
		name, text, thinking, answer string
		calls                        []call
		malformed                    bool
	}{
		{name: "thinking and answer",
			text:     "<|channel|>analysis<|message|>User says hi. Reply.<|end|><|start|>assistant<|channel|>final<|message|>Hello! How can I help?",
			thinking: "User says hi. Reply.", answer: "Hello! How can I help?"},
		{name: "stop token left in",
			text:   "<|channel|>final<|message|>Hello.<|return|>",
			answer: "Hello."},
		{name: "a call after thinking",
			text:     "<|channel|>analysis<|message|>Need to read a.txt.<|end|><|start|>assistant<|channel|>commentary to=functions.fs.read <|constrain|>json<|message|>{\"path\":\"a.txt\"}<|call|>",
			thinking: "Need to read a.txt.", calls: []call{read}},
		{name: "a call, its end cut by the runner",
			text:  "<|channel|>commentary to=functions.fs.read <|constrain|>json<|message|>{\"path\":\"a.txt\"}",
			calls: []call{read}},
		{name: "recipient before the channel",
			text:  "<|start|>assistant to=functions.fs.read<|channel|>commentary json<|message|>{\"path\":\"a.txt\"}<|call|>",
			calls: []call{read}},
		{name: "constrain glued to the recipient",
			text:  "<|channel|>commentary to=functions.fs.read<|constrain|>json<|message|>{\"path\":\"a.txt\"}",
			calls: []call{read}},
		{name: "json glued to the name",
			text:  "<|channel|>commentary to=functions.fs.readjson<|message|>{\"path\":\"a.txt\"}",
			calls: []call{read}},
		{name: "a call in the analysis channel",
			text:  "<|channel|>analysis to=functions.fs.read<|message|>{\"path\":\"a.txt\"}<|call|>",
			calls: []call{read}},
		{name: "a preamble, then a call",
			text:   "<|channel|>commentary<|message|>Reading it now.<|end|><|start|>assistant<|channel|>commentary to=functions.fs.read<|message|>{\"path\":\"a.txt\"}",
			answer: "Reading it now.", calls: []call{read}},
		{name: "two calls",
			text:  "<|channel|>commentary to=functions.fs.read<|message|>{\"path\":\"a.txt\"}<|call|><|start|>assistant<|channel|>commentary to=functions.fs.list<|message|>{}<|call|>",
			calls: []call{read, {"fs.list", map[string]any{}}}},
		{name: "a body holding tags of another family",
			text:   "<|channel|>final<|message|>Qwen writes <tool_call>{\"name\": \"fs.read\"}</tool_call>; harmony does not.<|end|>",
			answer: "Qwen writes <tool_call>{\"name\": \"fs.read\"}</tool_call>; harmony does not."},
		{name: "two answer messages",
			text:   "<|channel|>commentary<|message|>First.<|end|><|start|>assistant<|channel|>final<|message|>Second.",
			answer: "First.\n\nSecond."},
		{name: "thinking cut off",
			text:     "<|channel|>analysis<|message|>Still thinking about",
			thinking: "Still thinking about"},
		{name: "blanks before",
			text:   "\n <|channel|>final<|message|>Hi.",
			answer: "Hi."},
		{name: "a tool Shrimp does not have",
			text:   "<|channel|>commentary to=functions.send_email <|constrain|>json<|message|>{\"to\":\"x@example.com\"}<|call|>",
			answer: "<|channel|>commentary to=functions.send_email <|constrain|>json<|message|>{\"to\":\"x@example.com\"}"},
		{name: "arguments that are not JSON",
			text:      "<|channel|>commentary to=functions.fs.read <|constrain|>json<|message|>{\"path\": ",
			malformed: true},
		{name: "not harmony",
			text:   "Harmony opens with <|channel|> and ends with <|end|>.",
			answer: "Harmony opens with <|channel|> and ends with <|end|>."},
		{name: "a header alone at the end",
			text:   "<|channel|>final<|message|>Done.<|end|><|start|>assistant",
			answer: "Done."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for size := 0; size <= 7; size++ {
				thinking, answer, calls := readHarmony(tt.text, size)
				if thinking != tt.thinking || answer != tt.answer {
					t.Fatalf("in %d-byte chunks: thinking %q, answer %q; want %q, %q", size, thinking, answer, tt.thinking, tt.answer)
				}
				if tt.malformed {
					if len(calls) != 1 || calls[0].Function.Name != "" {
						t.Fatalf("in %d-byte chunks: calls %+v, want one malformed", size, calls)
					}
					continue
				}
				if len(calls) != len(tt.calls) {
					t.Fatalf("in %d-byte chunks: %d calls, want %d: %+v", size, len(calls), len(tt.calls), calls)
				}
				for i, c := range calls {
					if got := argsMap(t, c); c.Function.Name != tt.calls[i].name || !reflect.DeepEqual(got, tt.calls[i].args) {
						t.Fatalf("in %d-byte chunks: call %d = %s %v, want %+v", size, i, c.Function.Name, got, tt.calls[i])
					}
				}
			}
		})
	}
}

// TestHarmonyCopiedIsText: harmony tokens in what the model read arrive
// with escapeSpecial's joiner; an answer quoting them is an answer.
func TestHarmonyCopiedIsText(t *testing.T) {
	text := "<|channel|>commentary to=functions.fs.read<|message|>{\"path\":\"a.txt\"}"
	escaped, _ := escapeText(text, nil)
	if escaped == text {
		t.Fatal("harmony's tokens are not escaped when they come from outside")
	}
	if _, answer, calls := readHarmony(escaped, 3); len(calls) > 0 || answer != escaped {
		t.Fatalf("a copy is read as %q, calls %+v", answer, calls)
	}
}

// FuzzHarmony: any content, harmony or not, is read the same whole and
// streamed, and none of its answer text is lost when it is not harmony.
func FuzzHarmony(f *testing.F) {
	f.Add("<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>y", uint8(3))
	f.Add("<|start|>assistant to=functions.fs.read<|channel|>commentary json<|message|>{}", uint8(1))
	f.Add("plain <|end|> text", uint8(2))
	f.Fuzz(func(t *testing.T, text string, size uint8) {
		th, an, calls := readHarmony(text, 0)
		th2, an2, calls2 := readHarmony(text, int(size%16)+1)
		if th != th2 || an != an2 || len(calls) != len(calls2) {
			t.Fatalf("whole: %q %q %d calls; streamed: %q %q %d calls", th, an, len(calls), th2, an2, len(calls2))
		}
		if lead := strings.TrimLeftFunc(text, unicode.IsSpace); !strings.HasPrefix(lead, "<|channel|>") && !strings.HasPrefix(lead, "<|start|>") && an != text {
			t.Fatalf("not harmony, yet %q was read as %q", text, an)
		}
	})
}

// BenchmarkHarmonyLongCall: a call writing 100 KB, streamed in 4-byte
// chunks as Ollama sends tokens.
func BenchmarkHarmonyLongCall(b *testing.B) {
	content := strings.Repeat("a line of the file to write; ", 3500)
	text := `<|channel|>analysis<|message|>Write it.<|end|><|start|>assistant<|channel|>commentary to=functions.fs.write <|constrain|>json<|message|>{"path":"big.txt","content":"` + content + `"}<|call|>`
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		h := &harmony{known: known}
		n := 0
		for i := 0; i < len(text); i += 4 {
			_, _, calls := h.split(text[i:min(i+4, len(text))])
			n += len(calls)
		}
		if _, _, calls := h.finish(); n+len(calls) != 1 {
			b.Fatalf("%d calls", n+len(calls))
		}
	}
}

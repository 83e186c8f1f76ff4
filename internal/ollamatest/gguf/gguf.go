// Package gguf writes tiny, fully deterministic llama-architecture GGUF
// models for tests against a real Ollama server. The network is a
// hand-wired bigram machine: attention and feed-forward outputs are zero,
// so the logits depend only on the current token. Each token's embedding is
// one-hot in a "state" dimension and the output matrix routes each state to
// one fixed next token with a large margin, so greedy decoding (at any
// temperature) replays a script.
//
// A [Spec] names modes: a control token (the marker a Modelfile template
// renders last) and the pieces the model then emits, ending with </s>. Any
// token that is not part of a mode leads to the Default mode's output.
// Piece strings must be unique across the whole vocabulary (llama.cpp
// refuses duplicate tokens); Write checks that.
package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
)

// Mode is one scripted output.
type Mode struct {
	Marker string   // a control token such as "<|m0|>"
	Pieces []string // the output, one token each; spaces become SentencePiece's ▁
}

// Spec describes a model.
type Spec struct {
	Name    string // general.name
	Modes   []Mode
	Default string // the marker whose output follows any other token
	// Pooling, when not zero, is written as llama.pooling_type (1: mean,
	// 2: CLS, 3: last): Ollama then lists the model as an embedding model
	// (capability "embedding" instead of "completion") and refuses to chat
	// with it, as it does nomic-embed-text.
	Pooling uint32
}

const (
	nHead   = 4
	nFF     = 64
	ctxLen  = 4096
	spaceSP = "\u2581"
)

// token types of the llama (SentencePiece) tokenizer
const (
	typeNormal  = 1
	typeUnknown = 2
	typeControl = 3
	typeByte    = 6
)

// GGUF metadata value types
const (
	tU32  = 4
	tI32  = 5
	tF32  = 6
	tBool = 7
	tStr  = 8
	tArr  = 9
)

// Write writes the model described by s.
func Write(w io.Writer, s Spec) error {
	var tokens []string
	var types []int32
	add := func(t string, ty int32) int {
		tokens = append(tokens, t)
		types = append(types, ty)
		return len(tokens) - 1
	}
	unk := add("<unk>", typeUnknown)
	bos := add("<s>", typeControl)
	eos := add("</s>", typeControl)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), typeByte)
	}
	type chain struct {
		marker int
		ids    []int
	}
	var chains []chain
	markers := map[string]int{}
	for _, m := range s.Modes {
		id := add(m.Marker, typeControl)
		markers[m.Marker] = id
		var ids []int
		for _, p := range m.Pieces {
			ids = append(ids, add(strings.ReplaceAll(p, " ", spaceSP), typeNormal))
		}
		if len(ids) == 0 {
			return fmt.Errorf("gguf: mode %s has no pieces", m.Marker)
		}
		chains = append(chains, chain{id, ids})
	}
	seen := map[string]bool{}
	for _, t := range tokens {
		if seen[t] {
			return fmt.Errorf("gguf: token %q appears twice; every piece must be unique", t)
		}
		seen[t] = true
	}
	def, ok := markers[s.Default]
	if !ok {
		return fmt.Errorf("gguf: default mode %q is not a mode", s.Default)
	}

	stateOf := map[int]int{}
	next := map[int]int{}
	dim := 1
	for _, c := range chains {
		stateOf[c.marker] = dim
		next[dim] = c.ids[0]
		dim++
		for i, t := range c.ids {
			stateOf[t] = dim
			if i+1 < len(c.ids) {
				next[dim] = c.ids[i+1]
			} else {
				next[dim] = eos
			}
			dim++
		}
	}
	for _, c := range chains {
		if c.marker == def {
			next[0] = c.ids[0] // state 0: every token not in a chain
		}
	}
	d := max(64, dim+8)
	v := len(tokens)

	// Byte tokens get a small component on spare dimensions so embeddings
	// differ by input; far too small to change the winning next token.
	emb := make([]float32, v*d)
	for t := range v {
		emb[t*d+stateOf[t]] = 1
		if spare := d - dim; t >= 3 && t < 259 && spare > 0 {
			emb[t*d+dim+(t-3)%spare] = 0.25
		}
	}
	out := make([]float32, v*d)
	for state, t := range next {
		out[t*d+state] = 10
	}
	zeros := func(n int) []float32 { return make([]float32, n) }
	ones := func(n int) []float32 {
		f := make([]float32, n)
		for i := range f {
			f[i] = 1
		}
		return f
	}
	tensors := []struct {
		name string
		ne   []uint64
		data []float32
	}{
		{"token_embd.weight", []uint64{uint64(d), uint64(v)}, emb},
		{"blk.0.attn_norm.weight", []uint64{uint64(d)}, ones(d)},
		{"blk.0.attn_q.weight", []uint64{uint64(d), uint64(d)}, zeros(d * d)},
		{"blk.0.attn_k.weight", []uint64{uint64(d), uint64(d)}, zeros(d * d)},
		{"blk.0.attn_v.weight", []uint64{uint64(d), uint64(d)}, zeros(d * d)},
		{"blk.0.attn_output.weight", []uint64{uint64(d), uint64(d)}, zeros(d * d)},
		{"blk.0.ffn_norm.weight", []uint64{uint64(d)}, ones(d)},
		{"blk.0.ffn_gate.weight", []uint64{uint64(d), nFF}, zeros(d * nFF)},
		{"blk.0.ffn_up.weight", []uint64{uint64(d), nFF}, zeros(d * nFF)},
		{"blk.0.ffn_down.weight", []uint64{nFF, uint64(d)}, zeros(nFF * d)},
		{"output_norm.weight", []uint64{uint64(d)}, ones(d)},
		{"output.weight", []uint64{uint64(d), uint64(v)}, out},
	}

	var kv bytes.Buffer
	n := 0
	str := func(b *bytes.Buffer, s string) {
		_ = binary.Write(b, binary.LittleEndian, uint64(len(s)))
		b.WriteString(s)
	}
	key := func(k string, ty uint32) {
		n++
		str(&kv, k)
		_ = binary.Write(&kv, binary.LittleEndian, ty)
	}
	u32 := func(k string, x uint32) { key(k, tU32); _ = binary.Write(&kv, binary.LittleEndian, x) }
	name := s.Name
	if name == "" {
		name = "shrimp-test"
	}
	key("general.architecture", tStr)
	str(&kv, "llama")
	key("general.name", tStr)
	str(&kv, name)
	u32("general.file_type", 0)
	u32("llama.context_length", ctxLen)
	u32("llama.embedding_length", uint32(d))
	u32("llama.block_count", 1)
	u32("llama.feed_forward_length", nFF)
	u32("llama.rope.dimension_count", uint32(d/nHead))
	u32("llama.attention.head_count", nHead)
	u32("llama.attention.head_count_kv", nHead)
	key("llama.attention.layer_norm_rms_epsilon", tF32)
	_ = binary.Write(&kv, binary.LittleEndian, float32(1e-5))
	u32("llama.vocab_size", uint32(v))
	if s.Pooling != 0 {
		u32("llama.pooling_type", s.Pooling)
	}
	key("tokenizer.ggml.model", tStr)
	str(&kv, "llama")
	key("tokenizer.ggml.tokens", tArr)
	_ = binary.Write(&kv, binary.LittleEndian, uint32(tStr))
	_ = binary.Write(&kv, binary.LittleEndian, uint64(v))
	for _, t := range tokens {
		str(&kv, t)
	}
	key("tokenizer.ggml.scores", tArr)
	_ = binary.Write(&kv, binary.LittleEndian, uint32(tF32))
	_ = binary.Write(&kv, binary.LittleEndian, uint64(v))
	_ = binary.Write(&kv, binary.LittleEndian, zeros(v))
	key("tokenizer.ggml.token_type", tArr)
	_ = binary.Write(&kv, binary.LittleEndian, uint32(tI32))
	_ = binary.Write(&kv, binary.LittleEndian, uint64(v))
	_ = binary.Write(&kv, binary.LittleEndian, types)
	u32("tokenizer.ggml.bos_token_id", uint32(bos))
	u32("tokenizer.ggml.eos_token_id", uint32(eos))
	u32("tokenizer.ggml.unknown_token_id", uint32(unk))
	key("tokenizer.ggml.add_bos_token", tBool)
	kv.WriteByte(1)
	key("tokenizer.ggml.add_eos_token", tBool)
	kv.WriteByte(0)

	const align = 32
	pad := func(x int) int { return (align - x%align) % align }
	var infos, blobs bytes.Buffer
	off := 0
	for _, t := range tensors {
		str(&infos, t.name)
		_ = binary.Write(&infos, binary.LittleEndian, uint32(len(t.ne)))
		_ = binary.Write(&infos, binary.LittleEndian, t.ne)
		_ = binary.Write(&infos, binary.LittleEndian, uint32(0)) // F32
		_ = binary.Write(&infos, binary.LittleEndian, uint64(off))
		size := len(t.data) * 4
		for _, f := range t.data {
			_ = binary.Write(&blobs, binary.LittleEndian, math.Float32bits(f))
		}
		blobs.Write(make([]byte, pad(size)))
		off += size + pad(size)
	}
	var hdr bytes.Buffer
	hdr.WriteString("GGUF")
	_ = binary.Write(&hdr, binary.LittleEndian, uint32(3))
	_ = binary.Write(&hdr, binary.LittleEndian, uint64(len(tensors)))
	_ = binary.Write(&hdr, binary.LittleEndian, uint64(n))
	hdr.Write(kv.Bytes())
	hdr.Write(infos.Bytes())
	hdr.Write(make([]byte, pad(hdr.Len())))
	if _, err := w.Write(hdr.Bytes()); err != nil {
		return fmt.Errorf("gguf: write: %w", err)
	}
	if _, err := w.Write(blobs.Bytes()); err != nil {
		return fmt.Errorf("gguf: write: %w", err)
	}
	return nil
}

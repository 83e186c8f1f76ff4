// Package attach reads the images a user attaches to a request for a
// model that can see (Ollama's "vision" capability: gemma3, qwen2.5vl,
// llama3.2-vision, llava, mistral-small3.1…).
//
// Its contract: an [Image] it returns is a whole PNG, JPEG, GIF or WebP
// file (the formats Ollama decodes), at most [MaxBytes] and [MaxPixels],
// whose header gives its size in pixels; anything else is refused with an
// error that names the file and says what to do. It reads nothing but the
// file it is given. [Shown] carries the pictures a tool call shows the
// model (fs.read, web.fetch, an MCP tool's image) from the tool to the
// loop, only while the call runs and only for a model that can see.
package attach

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // registered for DecodeConfig
	_ "image/jpeg" // registered for DecodeConfig
	_ "image/png"  // registered for DecodeConfig
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollama/ollama/api"
)

// MaxBytes is the largest image taken: a phone's photo is 3–12 MB; a
// larger file is most often not a picture meant for a model, and every
// image is sent again with each later request of its session.
const MaxBytes = 20 << 20

// MaxPixels bounds an image's size in pixels: a 48-megapixel phone photo
// fits; a file whose header claims more (a "decompression bomb" a tool or
// page can hand over: kilobytes that decode to gigabytes) would make
// Ollama decode it whole.
const MaxPixels = 64_000_000

// MaxPerRequest bounds the images attached to one request.
const MaxPerRequest = 8

// Count refuses more than MaxPerRequest images for one request.
func Count(n int) error {
	if n > MaxPerRequest {
		return fmt.Errorf("%d images are attached; a request takes at most %d: send the rest with the next request", n, MaxPerRequest)
	}
	return nil
}

// Tokens is about what an image costs in a model's context: Ollama's own
// figure when it fits a conversation to num_ctx (server/prompt.go, 768
// per image); models differ (gemma3 256, qwen2.5vl by its size).
const Tokens = 768

// Image is one attached image.
type Image struct {
	Name   string `json:"name"` // the file's base name
	Type   string `json:"type"` // image/png, image/jpeg, image/gif or image/webp
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"` // hex: the key it is stored under
	Data   []byte `json:"-"`
}

// Datas returns the images' data as Ollama's api takes it.
func Datas(images []Image) []api.ImageData {
	if len(images) == 0 {
		return nil
	}
	out := make([]api.ImageData, len(images))
	for i, img := range images {
		out[i] = img.Data
	}
	return out
}

// ErrNotImage marks a file that is not an image Ollama can decode.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// Read reads and checks the image at path.
func Read(path string) (Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return Image{}, fmt.Errorf("attach %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Image{}, fmt.Errorf("attach %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return Image{}, fmt.Errorf("attach %s: not a file", path)
	}
	if fi.Size() > MaxBytes {
		return Image{}, tooBig(path, fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return Image{}, fmt.Errorf("attach %s: %w", path, err)
	}
	img, err := Parse(path, data) // errors name the file as given
	img.Name = filepath.Base(path)
	return img, err
}

// Decodable reports whether a MIME type is one of the formats Ollama
// decodes (PNG, JPEG, GIF, WebP), the only ones taken.
func Decodable(kind string) bool {
	switch kind {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// Sniffed reports whether head, a file's first bytes, says it is an
// image Parse takes.
func Sniffed(head []byte) bool {
	kind, _, _ := strings.Cut(http.DetectContentType(head), ";")
	return Decodable(kind)
}

// Parse checks data as the image called name (a file's base name, or
// what a pasted image is called).
func Parse(name string, data []byte) (Image, error) {
	if len(data) > MaxBytes {
		return Image{}, tooBig(name, int64(len(data)))
	}
	sum := sha256.Sum256(data)
	kind, _, _ := strings.Cut(http.DetectContentType(data), ";")
	img := Image{Name: name, Type: kind, Bytes: len(data), SHA256: hex.EncodeToString(sum[:]), Data: data}
	switch img.Type {
	case "image/png", "image/jpeg", "image/gif":
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return Image{}, fmt.Errorf("attach %s: a damaged %s file (%v): open and save it again, or take another screenshot", name, img.Type, err)
		}
		img.Width, img.Height = cfg.Width, cfg.Height
	case "image/webp":
		w, h, ok := webpSize(data)
		if !ok {
			return Image{}, fmt.Errorf("attach %s: a damaged WebP file: open and save it again, or save it as PNG", name)
		}
		img.Width, img.Height = w, h
	default:
		return Image{}, fmt.Errorf("attach %s: %w (it reads as %s); save it as PNG or JPEG first", name, ErrNotImage, img.Type)
	}
	if img.Width <= 0 || img.Height <= 0 {
		return Image{}, fmt.Errorf("attach %s: the image has no pixels (%d×%d)", name, img.Width, img.Height)
	}
	if int64(img.Width)*int64(img.Height) > MaxPixels {
		return Image{}, fmt.Errorf("attach %s: %d×%d pixels is more than the %d megapixels an image may have; scale it down first", name, img.Width, img.Height, MaxPixels/1_000_000)
	}
	return img, nil
}

func tooBig(name string, size int64) error {
	return fmt.Errorf("attach %s: %.1f MB is more than the %d MB an image may be; make it smaller (a screenshot of the part that matters, or export at a lower resolution)", name, float64(size)/(1<<20), MaxBytes>>20)
}

// webpSize reads a WebP file's size from its first chunk (the RIFF
// container's VP8, VP8L or VP8X header: Google's "WebP Container
// Specification").
func webpSize(b []byte) (w, h int, ok bool) {
	if len(b) < 30 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	switch string(b[12:16]) {
	case "VP8X": // canvas size, 24 bits each, minus one
		w = int(uint32(b[24])|uint32(b[25])<<8|uint32(b[26])<<16) + 1
		h = int(uint32(b[27])|uint32(b[28])<<8|uint32(b[29])<<16) + 1
	case "VP8L": // signature 0x2f, then 14 bits each, minus one
		if b[20] != 0x2f {
			return 0, 0, false
		}
		v := binary.LittleEndian.Uint32(b[21:25])
		w, h = int(v&0x3fff)+1, int(v>>14&0x3fff)+1
	case "VP8 ": // a key frame's start code, then 14 bits each
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, false
		}
		w = int(binary.LittleEndian.Uint16(b[26:28]) & 0x3fff)
		h = int(binary.LittleEndian.Uint16(b[28:30]) & 0x3fff)
	default:
		return 0, 0, false
	}
	return w, h, true
}

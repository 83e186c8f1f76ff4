package attach

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func encoded(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	img.Set(3, 4, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpLossless is a 40×30 VP8L header: RIFF, WEBP, the chunk, its
// signature and the packed size (width-1 | height-1<<14).
func webpLossless() []byte {
	b := []byte("RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f")
	v := uint32(39) | uint32(29)<<14
	b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	return append(b, make([]byte, 16)...)
}

func TestParse(t *testing.T) {
	pngData := encoded(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) })
	tests := []struct {
		name     string
		data     []byte
		wantType string
		wantErr  string // "" for none
	}{
		{"png", pngData, "image/png", ""},
		{"jpeg", encoded(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) }), "image/jpeg", ""},
		{"gif", encoded(t, func(b *bytes.Buffer, i image.Image) error { return gif.Encode(b, i, nil) }), "image/gif", ""},
		{"webp", webpLossless(), "image/webp", ""},
		{"text", []byte("# notes\nnot a picture\n"), "", "not a PNG, JPEG, GIF or WebP image (it reads as text/plain)"},
		{"pdf", []byte("%PDF-1.7\n..."), "", "save it as PNG or JPEG first"},
		{"cut png", pngData[:20], "", "a damaged image/png file"},
		{"bad webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8Z" + strings.Repeat("\x00", 20)), "", "a damaged WebP file"},
		// A header claiming 100,000×100,000 pixels in 30 bytes.
		{"bomb", []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x00\x00\x00\x00\x00\x00\x00\x00\x9f\x86\x01\x9f\x86\x01"), "", "more than the 64 megapixels"},
		{"too big", append(append([]byte{}, pngData...), make([]byte, MaxBytes)...), "", "more than the 20 MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := Parse("x."+tt.name, tt.data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "x."+tt.name) {
					t.Fatalf("Parse = %v, want an error naming the file and saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if img.Type != tt.wantType || img.Width != 40 || img.Height != 30 || !bytes.Equal(img.Data, tt.data) {
				t.Fatalf("Parse = %s %d×%d (%d bytes), want %s 40×30 (%d bytes)", img.Type, img.Width, img.Height, len(img.Data), tt.wantType, len(tt.data))
			}
		})
	}
	if _, err := Parse("notes.txt", []byte("hello")); !errors.Is(err, ErrNotImage) {
		t.Fatalf("a text file: %v, want ErrNotImage", err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(shot, encoded(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }), 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := Read(shot)
	if err != nil || img.Name != "shot.png" || img.Width != 40 {
		t.Fatalf("Read = %+v, %v", img, err)
	}
	for _, bad := range []string{dir, filepath.Join(dir, "missing.png")} {
		if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Fatalf("Read(%s) = %v, want an error naming it", bad, err)
		}
	}
}

// FuzzParse: bytes from anywhere (the window, an MCP server, a file named
// .png) never crash Parse, and what it takes has a type it names and a
// size in pixels.
func FuzzParse(f *testing.F) {
	f.Add(webpLossless())
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8X" + strings.Repeat("\xff", 18)))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 \x00\x00\x00\x00\x00\x00\x00\x9d\x01\x2a\x10\x00\x10\x00"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	f.Add([]byte("GIF89a\x01\x00\x01\x00"))
	f.Add([]byte("\xff\xd8\xff\xe0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Parse("x", data)
		if err != nil {
			return
		}
		if !Sniffed(data) || img.Width <= 0 || img.Height <= 0 || img.Bytes != len(data) || len(img.SHA256) != 64 {
			t.Fatalf("took %+v", img)
		}
	})
}

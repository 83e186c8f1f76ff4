package textfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// utf16le spells s in UTF-16LE (characters below U+10000), BOM first.
func utf16le(s string) []byte {
	b := []byte{0xff, 0xfe}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func utf16be(s string) []byte {
	b := []byte{0xfe, 0xff}
	for _, r := range s {
		b = append(b, byte(r>>8), byte(r))
	}
	return b
}

// TestRead: each form is told from the file's bytes and read as the text
// a person sees in it.
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		text string
		form Form
	}{
		{"ascii", []byte("hello\n"), "hello\n", Form{}},
		{"empty", nil, "", Form{}},
		{"utf-8", []byte("naïve café — 日本\n"), "naïve café — 日本\n", Form{}},
		{"utf-8 with its mark", []byte("\xef\xbb\xbfName;Town\r\nZoë;Köln\r\n"), "Name;Town\r\nZoë;Köln\r\n", Form{Encoding: UTF8, BOM: true, CRLF: true}},
		{"utf-16le (PowerShell's >)", utf16le("Name  Size\r\n----  ----\r\nrapport.docx 12\r\n"), "Name  Size\r\n----  ----\r\nrapport.docx 12\r\n", Form{Encoding: UTF16LE, BOM: true, CRLF: true}},
		{"utf-16be", utf16be("über\n"), "über\n", Form{Encoding: UTF16BE, BOM: true}},
		{"windows-1252 (Excel's CSV)", []byte("Pr\xe9nom;Ville\r\nRen\xe9e;Orl\xe9ans \x80 12\r\n"), "Prénom;Ville\r\nRenée;Orléans € 12\r\n", Form{Encoding: Windows1252, CRLF: true}},
		{"latin-1", []byte("Stra\xdfe\n"), "Straße\n", Form{Encoding: Windows1252}},
		{"utf-8 with a stray byte", []byte("naïve — café, déjà vu \xe9\n"), "naïve — café, déjà vu \xe9\n", Form{}},
		{"mixed line endings", []byte("a\r\nb\nc\r\n"), "a\r\nb\nc\r\n", Form{}},
		{"no line break", []byte("a\r"), "a\r", Form{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, form := Read(tc.in)
			if text != tc.text || form != tc.form {
				t.Errorf("Read = %q, %+v; want %q, %+v", text, form, tc.text, tc.form)
			}
		})
	}
}

// TestRoundTrip: a file read and written back unchanged is the same
// bytes, whatever its form, every byte of a legacy file included.
func TestRoundTrip(t *testing.T) {
	every := make([]byte, 0, 256)
	for i := 1; i < 256; i++ { // not NUL: a legacy text file has none
		every = append(every, byte(i))
	}
	for name, in := range map[string][]byte{
		"every byte as Windows-1252": every,
		"utf-16le":                   utf16le("line one\r\nzwei 日本 €\r\n"),
		"utf-16le beyond the BMP":    append(utf16le("a"), 0x3d, 0xd8, 0x00, 0xde), // U+1F600
		"utf-16be":                   utf16be("x\ny\n"),
		"utf-8 with its mark":        []byte("\xef\xbb\xbfa,b\n"),
		"utf-8":                      []byte("plain\n"),
	} {
		t.Run(name, func(t *testing.T) {
			text, form := Read(in)
			if name == "every byte as Windows-1252" && form.Encoding != Windows1252 {
				t.Fatalf("read as %v", form)
			}
			out, err := form.Encode(form.Text(text))
			if err != nil || !bytes.Equal(out, in) {
				t.Errorf("written back as % x, %v; want % x", out, err, in)
			}
		})
	}
}

// TestWrite: what a model writes gets the file's line endings and
// byte-order mark; a character a legacy file cannot hold is refused by
// name, never written as something else.
func TestWrite(t *testing.T) {
	crlf := Form{Encoding: UTF16LE, BOM: true, CRLF: true}
	if got, _ := crlf.Encode(crlf.Text("a\nb\r\nc\n")); !bytes.Equal(got, utf16le("a\r\nb\r\nc\r\n")) {
		t.Errorf("CRLF file: % x", got)
	}
	lf := Form{}
	if got := lf.Text("a\r\nb\n"); got != "a\r\nb\n" {
		t.Errorf("a file without CRLF endings got its text changed: %q", got)
	}
	legacy := Form{Encoding: Windows1252}
	if got, err := legacy.Encode("Renée €5"); err != nil || string(got) != "Ren\xe9e \x805" {
		t.Errorf("Windows-1252: %q, %v", got, err)
	}
	_, err := legacy.Encode("a → b → c ✓ 日本語 😀 x 😀 ±")
	var bad *UnencodableError
	if !errors.As(err, &bad) || len(bad.Chars) != 5 || bad.More != 1 ||
		!strings.Contains(err.Error(), `Windows-1252 has no '→' (U+2192), '✓' (U+2713)`) {
		t.Errorf("unencodable: %v (%+v)", err, bad)
	}
}

// TestSniffHead: a head cut inside a UTF-8 character is still UTF-8, and
// a legacy byte is seen in a head.
func TestSniffHead(t *testing.T) {
	cut := []byte("déjà vu ")
	cut = append(cut, "日"[:2]...)
	if f := Sniff(cut, false); !f.Plain() {
		t.Errorf("a cut head: %v", f)
	}
	if f := Sniff(cut, true); f.Plain() {
		t.Errorf("a whole file ending in half a character read as UTF-8")
	}
	if f := Sniff([]byte("caf\xe9 au lait"), false); f.Encoding != Windows1252 {
		t.Errorf("legacy head: %v", f)
	}
	if f := Sniff([]byte{0xff, 0xfe, 0, 0, 'a', 0, 0, 0}, true); f.Encoding == UTF16LE {
		t.Errorf("UTF-32 read as UTF-16")
	}
}

// TestReader: a stream reads as Read does, however it is handed over.
func TestReader(t *testing.T) {
	for _, in := range [][]byte{
		utf16le("first\r\nsecond — 2\r\n"),
		utf16be("über\n"),
		[]byte("\xef\xbb\xbfa\nb\n"),
		[]byte("Pr\xe9nom \x80\n"),
		[]byte("plain\n"),
	} {
		want, form := Read(in)
		got, err := io.ReadAll(form.Reader(iotest.OneByteReader(bytes.NewReader(in))))
		if err != nil || string(got) != want {
			t.Errorf("%v: %q, %v; want %q", form, got, err, want)
		}
	}
}

// TestCut: the start of a longer file loses a character cut at its end,
// nothing else.
func TestCut(t *testing.T) {
	le := Form{Encoding: UTF16LE, BOM: true}
	pair := append(utf16le("ab"), 0x3d, 0xd8, 0x00, 0xde)
	for _, tc := range []struct {
		form Form
		in   []byte
		want int
	}{
		{Form{}, []byte("ab日"[:4]), 2},
		{Form{}, []byte("ab日"), 5},
		{le, pair[:len(pair)-1], len(pair) - 4},
		{le, pair[:len(pair)-2], len(pair) - 4},
		{le, pair, len(pair)},
		{Form{Encoding: Windows1252}, []byte("ab\xe9"), 3},
	} {
		if got := len(tc.form.Cut(tc.in)); got != tc.want {
			t.Errorf("%v % x: cut to %d, want %d", tc.form, tc.in, got, tc.want)
		}
	}
}

// FuzzRoundTrip: any text file (no NUL byte) read and written back
// unchanged is the same bytes, whatever form it is read in; a UTF-16 file
// only when it held no broken character (a lone surrogate, an odd byte
// out), which reads as U+FFFD.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("plain\r\n"))
	f.Add([]byte("caf\xe9 \x81\x8d\x8f\x90\x9d"))
	f.Add(utf16le("zwei 日本\r\n"))
	f.Add([]byte("\xef\xbb\xbfa\n"))
	f.Add([]byte("naïve \xe9"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.IndexByte(in, 0) >= 0 && !bytes.HasPrefix(in, []byte{0xff, 0xfe}) && !bytes.HasPrefix(in, []byte{0xfe, 0xff}) {
			return // binary: the file tools refuse it before reading
		}
		text, form := Read(in)
		out, err := form.Encode(form.Text(text))
		if err != nil {
			t.Fatalf("%v: read %q but cannot write it back: %v", form, in, err)
		}
		utf16 := form.Encoding == UTF16LE || form.Encoding == UTF16BE
		if !bytes.Equal(out, in) && !(utf16 && strings.ContainsRune(text, '\ufffd')) {
			t.Errorf("%v: % x written back as % x", form, in, out)
		}
	})
}

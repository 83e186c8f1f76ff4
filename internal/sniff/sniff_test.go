package sniff

import "testing"

func TestBinary(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 32)...)
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"text", []byte("hello, wörld\n"), ""},
		{"empty", nil, ""},
		{"utf-16 with its mark", []byte("\xff\xfeh\x00i\x00"), ""},
		{"png", png, "image/png"},
		{"zip", []byte("PK\x03\x04\x14\x00\x00\x00"), "application/zip"},
		{"nul bytes", []byte("abc\x00\x01\x02def"), "binary data"},
	} {
		if got := Binary(tc.in); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

package web

import (
	"strings"
	"testing"
)

func TestWarnings(t *testing.T) {
	tests := []struct {
		url  string
		want []string // each must be in some warning; none: no warning
	}{
		{"https://example.com/page", nil},
		{"https://münchen.de/", []string{"xn--mnchen-3ya.de"}},
		{"https://pаypal.com/login", []string{"xn--pypal-4ve.com"}}, // Cyrillic а
		{"https://paypal.com@evil.example/login", []string{`"paypal.com" before its host`, "comes from evil.example"}},
		{"https://user:pw@evil.example/", []string{"comes from evil.example"}},
		{"not a url", nil},
	}
	for _, tt := range tests {
		got := Warnings(tt.url)
		if len(tt.want) == 0 && len(got) > 0 {
			t.Errorf("%s: warnings %q", tt.url, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(strings.Join(got, "\n"), w) {
				t.Errorf("%s: no %q in %q", tt.url, w, got)
			}
		}
	}
}

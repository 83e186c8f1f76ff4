package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestBlocked(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"10.1.2.3", true}, {"192.168.0.1", true}, {"172.16.5.4", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fc00::1", true}, {"0.0.0.0", true}, {"100.64.0.1", true},
		{"::ffff:127.0.0.1", true}, {"93.184.216.34", false}, {"2606:4700::1111", false},
	}
	for _, tt := range tests {
		if got := blocked(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("blocked(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
}

func TestFetchRefusesLoopbackUnlessAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><script>x()</script><p>Hello <b>web</b></p></html>"))
	}))
	defer srv.Close()
	f := &Fetcher{}
	if _, err := f.fetch(context.Background(), Args{URL: srv.URL}); !errors.Is(err, ErrBlocked) {
		t.Fatalf("loopback fetch: %v", err)
	}
	// A redirect from an allowed-looking URL is checked again on dial: the
	// loopback target is refused however it is reached.
	if _, err := f.fetch(context.Background(), Args{URL: "http://localhost:" + strings.Split(srv.URL, ":")[2]}); !errors.Is(err, ErrBlocked) {
		t.Fatalf("localhost fetch: %v", err)
	}
	allowed := &Fetcher{AllowPrivate: true}
	out, err := allowed.fetch(context.Background(), Args{URL: srv.URL})
	if err != nil || !strings.Contains(out, "Hello web") || strings.Contains(out, "x()") {
		t.Fatalf("allowed fetch: %q %v", out, err)
	}
	if _, err := f.fetch(context.Background(), Args{URL: "file:///etc/passwd"}); err == nil {
		t.Fatal("file URL accepted")
	}
}

package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

func TestBlocked(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"10.1.2.3", true}, {"192.168.0.1", true}, {"172.16.5.4", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fc00::1", true}, {"0.0.0.0", true}, {"100.64.0.1", true},
		{"::ffff:127.0.0.1", true}, {"93.184.216.34", false}, {"2606:4700::1111", false},
		// The rest of the special-purpose registry.
		{"198.18.0.1", true}, {"198.19.255.254", true}, {"192.0.2.10", true}, {"198.51.100.7", true}, {"203.0.113.200", true},
		{"192.0.0.170", true}, {"192.88.99.1", true}, {"224.0.0.251", true}, {"239.255.255.250", true}, {"240.0.0.1", true},
		{"255.255.255.255", true}, {"100.127.255.254", true}, {"0.1.2.3", true},
		{"::", true}, {"2001:db8::1", true}, {"3fff::1", true}, {"2001::1", true}, {"2002:c0a8:101::1", true}, {"100::1", true},
		{"fec0::1", true}, {"ff02::1", true}, {"5f00::1", true}, {"64:ff9b:1::1", true}, {"::127.0.0.1", true},
		// IPv4-mapped and NAT64 forms are judged by the IPv4 address they carry.
		{"::ffff:198.18.0.1", true}, {"::ffff:10.0.0.1", true}, {"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true},
		{"64:ff9b::5db8:d822", false}, {"::ffff:93.184.216.34", false}, {"8.8.8.8", false}, {"2a00:1450:4001::200e", false},
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

// TestOwnAddressesRefused: every address of this machine's interfaces is
// refused, private range or not.
func TestOwnAddressesRefused(t *testing.T) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil {
			continue
		}
		if !blocked(p.Addr()) {
			t.Errorf("own address %s not refused", p.Addr())
		}
	}
	if !own(netip.MustParseAddr("127.0.0.1")) {
		t.Error("loopback is not seen as an own address")
	}
}

// TestRefusedRedirectNamesItsTarget: a public page that redirects to a
// refused address is refused, naming where it redirected.
func TestRefusedRedirectNamesItsTarget(t *testing.T) {
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("internal")) }))
	defer inner.Close()
	target := inner.URL + "/admin"
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}))
	defer outer.Close()
	f := &Fetcher{exempt: map[string]bool{strings.TrimPrefix(outer.URL, "http://"): true}}
	_, err := f.fetch(context.Background(), Args{URL: outer.URL + "/page"})
	if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "refused to fetch "+target) || !strings.Contains(err.Error(), "redirected from "+outer.URL+"/page") || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err %v", err)
	}
	// The exempt first hop itself is fetched (the check is per dial).
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("public page")) }))
	defer plain.Close()
	f.exempt[strings.TrimPrefix(plain.URL, "http://")] = true
	if out, err := f.fetch(context.Background(), Args{URL: plain.URL}); err != nil || !strings.Contains(out, "public page") {
		t.Fatalf("exempt fetch: %q %v", out, err)
	}
}

// TestSourceIsTheURL: web.fetch's output comes from outside, and from the
// URL asked for (the approval gate names it in its question).
func TestSourceIsTheURL(t *testing.T) {
	ft := (&Fetcher{}).Tool()
	for _, c := range []struct{ args, want string }{
		{`{"url":"https://x.example/a?b=1"}`, "https://x.example/a?b=1"},
		{`{}`, "a web page"},
		{`not json`, "a web page"},
	} {
		if got := tool.SourceOf(ft, json.RawMessage(c.args)); got != c.want {
			t.Errorf("source of %s = %q, want %q", c.args, got, c.want)
		}
	}
	if ft.Name() != "web.fetch" || ft.ReadOnly() {
		t.Errorf("the marked tool is %s, read-only %v", ft.Name(), ft.ReadOnly())
	}
}

// TestFetchShowsAPicture: a picture web.fetch gets is shown to a model
// that can see (up to attach.MaxBytes, past the 2 MB a page may take) and
// refused as not text for one that cannot.
func TestFetchShowsAPicture(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 900, 900))); err != nil {
		t.Fatal(err)
	}
	pic := append(b.Bytes(), make([]byte, 3<<20)...) // 3 MB: bytes after IEND are ignored by decoders
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(pic)
	}))
	defer srv.Close()
	f := &Fetcher{AllowPrivate: true}
	if _, err := f.fetch(context.Background(), Args{URL: srv.URL}); err == nil || !strings.Contains(err.Error(), "image/png") {
		t.Fatalf("for a model that cannot see: %v, want it refused as not text", err)
	}
	var shown attach.Shown
	out, err := f.fetch(attach.WithShown(context.Background(), &shown), Args{URL: srv.URL})
	imgs := shown.Close()
	if err != nil || !strings.Contains(out, "(900×900) is attached to this result") || len(imgs) != 1 || !bytes.Equal(imgs[0].Data, pic) {
		t.Fatalf("for a model that can see: %q, %v, %d images", out, err, len(imgs))
	}
}

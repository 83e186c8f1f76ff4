package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestFetchThroughAProxy: behind the proxy the environment names (a
// network with no other way out), web.fetch goes through it, whatever the
// proxy's own address; a target that is or resolves here to an address
// web.fetch refuses is refused before the proxy hears of it.
func TestFetchThroughAProxy(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	var proxy *httptest.Server
	proxy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.String()) // a proxy is sent the whole URL
		mu.Unlock()
		if r.URL.Path == "/jump" { // a page sending the fetch on to the proxy's own address
			http.Redirect(w, r, proxy.URL+"/admin", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><p>Hello through the proxy</p></html>"))
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL) // on loopback, as a corporate proxy is on a private address
	f := &Fetcher{proxy: func(*http.Request) (*url.URL, error) { return pu, nil }}
	// .invalid never resolves (RFC 6761): a name only the proxy can look up.
	out, err := f.fetch(context.Background(), Args{URL: "http://docs.invalid/page"})
	if err != nil || !strings.Contains(out, "Hello through the proxy") {
		t.Fatalf("through the proxy: %q %v", out, err)
	}
	for _, tt := range []struct{ url, why string }{
		{"http://10.1.2.3/admin", "10.1.2.3 is in 10.0.0.0/8"},
		{"http://[::1]:8080/", "::1 is in"},
		{"http://localhost:9/", "(localhost)"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is in"},
	} {
		_, err := f.fetch(context.Background(), Args{URL: tt.url})
		if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("%s through the proxy: %v, want refused naming %q", tt.url, err, tt.why)
		}
	}
	mu.Lock()
	if len(asked) != 1 || asked[0] != "http://docs.invalid/page" {
		t.Fatalf("the proxy was asked for %q, want only the public page", asked)
	}
	mu.Unlock()
	// NO_PROXY naming the proxy's network: a page that redirects to the
	// proxy's own address sends the fetch there directly, where it is
	// refused as any private address is, though the proxy's address is
	// dialled unchecked for proxied requests.
	bypass := &Fetcher{proxy: func(r *http.Request) (*url.URL, error) {
		if r.URL.Host == pu.Host {
			return nil, nil
		}
		return pu, nil
	}}
	if _, err := bypass.fetch(context.Background(), Args{URL: "http://docs.invalid/jump"}); !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "/admin (redirected from http://docs.invalid/jump)") {
		t.Errorf("a redirect to the proxy's own address: %v, want refused naming it", err)
	}
	mu.Lock()
	if len(asked) != 2 || asked[1] != "http://docs.invalid/jump" {
		t.Errorf("the proxy was asked for %q, want the page, and not /admin directly", asked)
	}
	mu.Unlock()
	// Allowed private addresses go through the proxy too.
	open := &Fetcher{AllowPrivate: true, proxy: f.proxy}
	if _, err := open.fetch(context.Background(), Args{URL: "http://10.1.2.3/admin"}); err != nil {
		t.Fatalf("allowed private address through the proxy: %v", err)
	}
}

// Package web provides web.fetch. It refuses loopback, private, link-local
// (cloud metadata included), multicast and unspecified addresses, checked
// on the address actually connected to (so DNS tricks and redirects are
// covered) unless the user allowed private addresses.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/html"

	"github.com/shrimp-harness/shrimp/backend/tool"
)

// Args are web.fetch's arguments.
type Args struct {
	URL string `json:"url" jsonschema:"description=the http or https URL to fetch"`
}

// Fetcher fetches pages.
type Fetcher struct {
	AllowPrivate bool          // allow loopback and private addresses
	Timeout      time.Duration // default 20 s
	MaxBytes     int64         // body bytes read (default 2 MiB)
}

// ErrBlocked means the address is not allowed.
var ErrBlocked = errors.New("address not allowed")

// Tool returns web.fetch.
func (f *Fetcher) Tool() tool.Tool {
	return tool.Define("web.fetch", "Fetch a web page or file over http(s) and return its text.", false, f.fetch)
}

// blocked reports whether ip may not be connected to.
func blocked(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(ip) || // carrier-grade NAT
		netip.MustParsePrefix("0.0.0.0/8").Contains(ip)
}

func (f *Fetcher) client() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !f.AllowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrBlocked, address)
			}
			if blocked(ap.Addr()) {
				return fmt.Errorf("%w: %s is a local, private or metadata address", ErrBlocked, ap.Addr())
			}
			return nil
		}
	}
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext, TLSHandshakeTimeout: 10 * time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("stopped after 5 redirects")
			}
			return nil
		},
	}
}

func (f *Fetcher) fetch(ctx context.Context, in Args) (string, error) {
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", in.URL)
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", in.URL, err)
	}
	req.Header.Set("User-Agent", "Shrimp/0.1 (+local agent harness)")
	resp, err := f.client().Do(req)
	if err != nil {
		if errors.Is(err, ErrBlocked) {
			return "", fmt.Errorf("refused to fetch %s: %w; the user can allow private addresses in Settings", in.URL, ErrBlocked)
		}
		return "", fmt.Errorf("fetch %s: %w", in.URL, err)
	}
	defer resp.Body.Close()
	limit := f.MaxBytes
	if limit <= 0 {
		limit = 2 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", in.URL, err)
	}
	text := string(body)
	if strings.Contains(resp.Header.Get("Content-Type"), "html") {
		text = htmlText(text)
	}
	head := fmt.Sprintf("HTTP %d %s\n\n", resp.StatusCode, resp.Header.Get("Content-Type"))
	if resp.StatusCode >= 400 {
		return head + text, fmt.Errorf("%s answered %s", in.URL, resp.Status)
	}
	return head + text, nil
}

// htmlText returns the visible text of an HTML document.
func htmlText(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String())
		case html.StartTagToken:
			if n, _ := z.TagName(); string(n) == "script" || string(n) == "style" {
				skip++
			}
		case html.EndTagToken:
			n, _ := z.TagName()
			if (string(n) == "script" || string(n) == "style") && skip > 0 {
				skip--
			}
			switch string(n) {
			case "p", "div", "li", "h1", "h2", "h3", "tr", "br":
				b.WriteString("\n")
			}
		case html.TextToken:
			if skip == 0 {
				if t := strings.TrimSpace(string(z.Text())); t != "" {
					b.WriteString(t)
					b.WriteString(" ")
				}
			}
		}
	}
}

// Package web provides web.fetch. It reaches only the outside world: every
// IANA special-purpose range (special.json: loopback, private, shared,
// link-local and cloud metadata, benchmarking, documentation, multicast,
// reserved…, IPv4 and IPv6, with IPv4-mapped and NAT64 forms judged by the
// IPv4 address they carry) and every address of the machine's own
// interfaces is refused, checked on the address actually dialled, so DNS
// tricks and redirects are covered, unless the user allowed private
// addresses. A refused redirect names its target. Behind the proxy the
// environment names, the proxy is reached whatever its address, and each
// request's target is checked before it is asked (an address, or what the
// name resolves to here; a name that does not resolve here is left to it).
package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// Args are web.fetch's arguments.
type Args struct {
	URL string `json:"url" jsonschema_description:"the http or https URL to fetch"`
}

// Fetcher fetches pages.
type Fetcher struct {
	AllowPrivate bool            // allow loopback and private addresses
	exempt       map[string]bool // tests: "ip:port" dialled without the check
	Timeout      time.Duration   // default 20 s
	MaxBytes     int64           // body bytes read (default 2 MiB)
	// proxy picks the proxy for a request (nil: none); tests set it, else
	// http.ProxyFromEnvironment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY).
	proxy func(*http.Request) (*url.URL, error)
}

// ErrBlocked means the address is not allowed.
var ErrBlocked = errors.New("address not allowed")

// Tool returns web.fetch. Its output is a page from outside
// ([tool.Outsider]): its source is the URL asked for.
func (f *Fetcher) Tool() tool.Tool {
	t := tool.Define("web.fetch", "Fetch a web page or text file over http(s) and return its text (what a reader of the page sees; links as [text](address)); a picture is shown to a model that can see.", false, f.fetch)
	return tool.FromOutside(t, func(args json.RawMessage) string {
		var in Args
		if json.Unmarshal(args, &in) != nil || in.URL == "" {
			return "a web page"
		}
		return in.URL
	})
}

//go:embed special.json
var specialJSON []byte

// special is one refused range.
type special struct {
	Prefix netip.Prefix `json:"prefix"`
	Name   string       `json:"name"`
	RFC    string       `json:"rfc"`
}

var specials = func() []special {
	var d struct {
		Prefixes []special `json:"prefixes"`
	}
	if err := json.Unmarshal(specialJSON, &d); err != nil {
		panic(fmt.Sprintf("web: special.json: %v", err)) // embedded data; a test reads it
	}
	return d.Prefixes
}()

// nat64 is the well-known NAT64 prefix: its addresses carry an IPv4
// address in their last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// whyBlocked says why ip may not be connected to ("" when it may).
func whyBlocked(ip netip.Addr) string {
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, s := range specials {
		if s.Prefix.Contains(ip) {
			return fmt.Sprintf("%s is in %s (%s, %s)", ip, s.Prefix, s.Name, s.RFC)
		}
	}
	if own(ip) {
		return fmt.Sprintf("%s is an address of this machine", ip)
	}
	return ""
}

// Public reports whether ip is an address of the public internet: not
// this machine's, not a private, shared or reserved range (the ranges
// web.fetch refuses).
func Public(ip netip.Addr) bool { return !blocked(ip) }

// PublicClient is an HTTP client that connects only to public addresses,
// checked as it connects (after DNS, after redirects), as web.fetch does:
// for requests whose target another party chose.
func PublicClient() *http.Client { return (&Fetcher{}).client() }

// blocked reports whether ip may not be connected to.
func blocked(ip netip.Addr) bool { return whyBlocked(ip) != "" }

// own reports whether ip is an address of one of this machine's interfaces.
func own(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == ip {
			return true
		}
	}
	return false
}

func (f *Fetcher) client() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	toProxy := &net.Dialer{Timeout: 10 * time.Second} // the proxy the environment names, whatever its address
	if !f.AllowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrBlocked, address)
			}
			if f.exempt[address] {
				return nil
			}
			if why := whyBlocked(ap.Addr()); why != "" {
				return fmt.Errorf("%w: %s", ErrBlocked, why)
			}
			return nil
		}
	}
	pick := f.proxy
	if pick == nil {
		pick = http.ProxyFromEnvironment
	}
	var proxies sync.Map // "host:port" of the proxies requests went through
	proxy := func(req *http.Request) (*url.URL, error) {
		p, err := pick(req)
		if err != nil {
			return nil, err
		}
		_, atProxy := proxies.Load(canonicalAddr(req.URL))
		// Through a proxy, the proxy connects, not Shrimp, so the check on
		// the dialled address cannot see where the request goes: the
		// target is checked here first, by what its name resolves to on
		// this machine. So is a direct request to a proxy's own address
		// (NO_PROXY naming its network, after a redirect), which would
		// otherwise be dialled as the proxy is, unchecked.
		if !f.AllowPrivate && (p != nil || atProxy) {
			if err := f.checkTarget(req.Context(), req.URL); err != nil {
				return nil, err
			}
		}
		if p != nil {
			proxies.Store(canonicalAddr(p), true)
		}
		return p, nil
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if _, ok := proxies.Load(addr); ok {
			return toProxy.DialContext(ctx, network, addr)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	return &http.Client{
		Transport: &http.Transport{Proxy: proxy, DialContext: dial, TLSHandshakeTimeout: 10 * time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("stopped after 5 redirects")
			}
			return nil
		},
	}
}

// checkTarget refuses a request's target when it is, or resolves here
// to, an address web.fetch may not reach. A name that does not resolve
// here (a network where only the proxy looks names up) is left to the
// proxy, or to the dial's own check.
func (f *Fetcher) checkTarget(ctx context.Context, u *url.URL) error {
	if f.exempt[canonicalAddr(u)] {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if why := whyBlocked(ip); why != "" {
			return fmt.Errorf("%w: %s", ErrBlocked, why)
		}
		return nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, ip := range ips {
		if why := whyBlocked(ip); why != "" {
			return fmt.Errorf("%w: %s (%s)", ErrBlocked, why, host)
		}
	}
	return nil
}

// canonicalAddr is the "host:port" a transport dials for URL p (a proxy's
// or a page's).
func canonicalAddr(p *url.URL) string {
	port := p.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[p.Scheme]
	}
	return net.JoinHostPort(p.Hostname(), port)
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
			target := in.URL
			var ue *url.Error
			if errors.As(err, &ue) && ue.URL != "" && ue.URL != u.String() {
				target = ue.URL + " (redirected from " + in.URL + ")"
			}
			why := "it is not on the public internet"
			for e := err; e != nil; e = errors.Unwrap(e) { // the dial's check, or the proxied target's
				if msg, ok := strings.CutPrefix(e.Error(), ErrBlocked.Error()+": "); ok {
					why = msg
				}
			}
			return "", fmt.Errorf("refused to fetch %s: %w: %s; web.fetch reaches only public addresses (the user can allow private ones with --allow-private-net)", target, ErrBlocked, why)
		}
		return "", fmt.Errorf("fetch %s: %w", in.URL, err)
	}
	defer resp.Body.Close()
	limit := f.MaxBytes
	if limit <= 0 {
		limit = 2 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", in.URL, err)
	}
	if resp.StatusCode < 400 && attach.CanShow(ctx) && attach.Sniffed(body) {
		return showImage(ctx, in.URL, resp, body)
	}
	cut := int64(len(body)) > limit
	if cut {
		body = body[:limit]
	}
	text, err := pageText(body, resp.Header.Get("Content-Type"), resp.Request.URL)
	if err != nil {
		return "", fmt.Errorf("%s: %w", in.URL, err)
	}
	if cut {
		text += fmt.Sprintf("\n[cut: the page goes on past the %d bytes web.fetch reads]", limit)
	}
	head := fmt.Sprintf("HTTP %d %s\n\n", resp.StatusCode, resp.Header.Get("Content-Type"))
	if resp.StatusCode >= 400 {
		return head + text, fmt.Errorf("%s answered %s", in.URL, resp.Status)
	}
	return head + text, nil
}

// showImage shows the model a picture web.fetch got (head is what was
// read of it), for a model that can see (attach.CanShow): read whole up
// to attach.MaxBytes and checked as an attached one is.
func showImage(ctx context.Context, address string, resp *http.Response, head []byte) (string, error) {
	rest, err := io.ReadAll(io.LimitReader(resp.Body, attach.MaxBytes+1-int64(len(head))))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", address, err)
	}
	img, err := attach.Parse(address, append(head, rest...))
	if err != nil {
		return "", err
	}
	if err := attach.Show(ctx, img); err != nil {
		return "", err
	}
	return fmt.Sprintf("HTTP %d %s\n\n[the image at %s (%d×%d) is attached to this result]", resp.StatusCode, img.Type, address, img.Width, img.Height), nil
}

package doctor

import (
	"context"
	"net"
	"net/url"
	"strings"
)

// PlainRemote says whether base (an Ollama base URL) reaches another
// machine over unencrypted HTTP: its scheme is http and its host is
// neither a loopback address nor a name that resolves only to loopback
// ones (resolve is net.DefaultResolver.LookupIPAddr in use). A name that
// does not resolve counts as remote: the request would go to whatever it
// comes to name. Everything Shrimp sends Ollama (requests, what tools
// read, answers) crosses that link, and Ollama's API has no
// authentication.
func PlainRemote(ctx context.Context, base string, resolve func(context.Context, string) ([]net.IPAddr, error)) bool {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		return !ip.IsLoopback()
	}
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return false
	}
	addrs, err := resolve(ctx, host)
	if err != nil || len(addrs) == 0 {
		return true
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return true
		}
	}
	return false
}

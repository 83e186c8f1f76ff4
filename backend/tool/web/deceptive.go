package web

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// Warnings says what about a URL the approval question should point out,
// because the address reads as another site than the one it reaches: a
// host written with non-ASCII letters (Cyrillic а for Latin a: the
// question then shows the host as DNS sees it, xn--…), and a user name
// before the host (https://bank.example@evil.example/ reaches
// evil.example).
func Warnings(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil
	}
	var out []string
	host := u.Hostname()
	if u.User != nil {
		out = append(out, fmt.Sprintf("the address names %q before its host: the page comes from %s", u.User.Username(), host))
	}
	for _, r := range host {
		if r > 0x7f {
			if ascii, err := idna.Lookup.ToASCII(host); err == nil {
				out = append(out, fmt.Sprintf("the host is written with letters outside ASCII, some of which can look like others: the name looked up is %s", ascii))
			} else {
				out = append(out, fmt.Sprintf("the host is written with letters outside ASCII and is not a valid name (%v)", err))
			}
			break
		}
	}
	return out
}

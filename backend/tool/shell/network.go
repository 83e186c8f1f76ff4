package shell

import (
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// networkShown bounds how much of a command Description.Network keeps.
const networkShown = 120

// network marks a simple command that reaches another machine: a program
// of describe.json's network (its listed subcommands only), unless every
// other word names this machine; any program but the copiers (git, pip:
// what they fetch lands in the workspace, like any file, and they print
// progress) given a URL of another machine as a whole word; and URLs of
// other machines in code an interpreter runs (python3 -c '…'), which is
// not parsed.
func (w describer) network(base string, rest []*syntax.Word, lits []string) {
	mark := func() { w.markNetwork(base, lits) }
	if _, wraps := vocab.Wrappers[base]; wraps {
		return // the program it runs is judged next
	}
	words := make([]string, 0, len(rest))
	for i, a := range rest {
		if _, ok := literal(a); ok {
			words = append(words, lits[i])
		}
	}
	if p, ok := vocab.Network[base]; ok && reaches(p, words) {
		mark()
		return
	}
	if slices.Contains(vocab.Copiers, base) {
		return
	}
	for _, s := range words {
		if host, ok := urlHost(s); ok && !loopback(host) {
			mark()
			return
		}
	}
	switch {
	case slices.Contains(vocab.Evaluators, base):
		// eval "curl https://…": the words are code.
		if urlsIn(words) {
			mark()
		}
	case slices.Contains(vocab.Shells, base):
		// Code given with -c: a POSIX shell's literal code is parsed and
		// judged command by command (describer.call); other code, and
		// code worked out when it runs, is looked through for URLs.
		i := slices.IndexFunc(lits, func(s string) bool { return s == "-c" || s == "-e" })
		if i < 0 || i+1 >= len(lits) {
			return
		}
		_, parsed := literal(rest[i+1])
		if !(parsed && slices.Contains(vocab.POSIXShells, base)) && urlsIn(lits[i+1:i+2]) {
			mark()
		}
	}
}

// unknownNetwork marks a command whose program is worked out when it runs
// ($c https://…, with c=curl) when its words hold a URL of another
// machine: nobody can tell what it prints.
func (w describer) unknownNetwork(name string, rest []*syntax.Word) {
	var words []string
	for _, a := range rest {
		if s, ok := literal(a); ok {
			words = append(words, s)
		}
	}
	if urlsIn(words) {
		w.markNetwork(name, words)
	}
}

// markNetwork records a command that reaches another machine.
func (w describer) markNetwork(base string, lits []string) {
	shown := strings.Join(append([]string{base}, lits...), " ")
	if len(shown) > networkShown {
		shown = shown[:textcut.Before(shown, networkShown)] + "…"
	}
	if !slices.Contains(w.d.Network, shown) {
		w.d.Network = append(w.d.Network, shown)
	}
	w.effect("reaches another machine (%s): what it prints is content from outside", base)
}

// urlsIn reports whether any of texts holds a URL of another machine.
func urlsIn(texts []string) bool {
	for _, t := range texts {
		for _, u := range urlIn.FindAllString(t, -1) {
			if host, ok := urlHost(u); ok && !loopback(host) {
				return true
			}
		}
	}
	return false
}

// reaches reports whether a network program's words reach another
// machine: its subcommand is one that does, and some word other than its
// flags, their values and numbers (ports) is not this machine.
func reaches(p netProg, words []string) bool {
	var args []string
	for i := 0; i < len(words); i++ {
		s := words[i]
		switch {
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if slices.Contains(p.ValueFlags, s) {
				i++
			}
		default:
			args = append(args, s)
		}
	}
	if len(p.Subcommands) > 0 {
		return len(args) > 0 && slices.Contains(p.Subcommands, args[0])
	}
	if len(args) == 0 {
		return true // a program that talks to the network by default
	}
	for _, s := range args {
		if !local(s) && strings.Trim(s, "0123456789") != "" {
			return true
		}
	}
	return false
}

// urlIn finds URLs with an authority in text.
var urlIn = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s'"<>]+`)

// urlHost returns the host of a word that is a URL with an authority.
func urlHost(s string) (string, bool) {
	if !strings.Contains(s, "://") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Scheme == "file" {
		return "", false
	}
	return u.Hostname(), true
}

// local reports whether a word names this machine: a URL or host[:port]
// of a loopback address.
func local(s string) bool {
	if host, ok := urlHost(s); ok {
		return loopback(host)
	}
	if u, err := url.Parse("//" + s); err == nil && u.Host != "" {
		return loopback(u.Hostname())
	}
	return false
}

// loopback reports whether host is this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && (a.IsLoopback() || a.IsUnspecified())
}

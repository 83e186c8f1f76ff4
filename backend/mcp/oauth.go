package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/shrimp-harness/shrimp/backend/tool/web"
	"github.com/shrimp-harness/shrimp/internal/datadir"
)

// Hosted MCP servers (streamable HTTP) often ask who is calling through
// OAuth (MCP's authorization, 2025-06-18 and after): the first request is
// answered 401, and the client signs the user in with a browser. Shrimp
// never opens a browser by itself: a server that asks is shown as waiting
// for a sign-in (StateSignIn), and the user signs in when they choose
// (SignIn: Extensions' Sign in, `shrimp mcp login NAME`). The sign-in is
// the Go SDK's authorization-code flow (the server's metadata, dynamic
// client registration, PKCE, the resource parameter); Shrimp gives it a
// loopback address for the browser to come back to (RFC 8252) and keeps
// what it gets in Tokens: the token, its refresh token and the client it
// was issued to, so a restarted Shrimp goes on without a new sign-in and
// refreshes expired tokens itself.

// ErrSignIn means a server asks the user to sign in before it answers.
var ErrSignIn = errors.New("it asks you to sign in")

// TokenFile is the name of the data directory's file of sign-ins.
const TokenFile = "mcp-tokens.json"

// SignInTimeout bounds how long a sign-in waits for the browser.
const SignInTimeout = 5 * time.Minute

// Tokens keeps the sign-ins to MCP servers in a file only the user may
// read or write (mode 0600; datadir's checks): each server's token, with
// the client and token endpoint that refresh it, for the address it was
// given for. Its methods are safe for concurrent use.
type Tokens struct {
	path string
	mu   sync.Mutex
}

// NewTokens returns the sign-ins kept at path (TokenFile in the data
// directory); the file is created at the first sign-in.
func NewTokens(path string) *Tokens { return &Tokens{path: path} }

// signIn is one server's sign-in as kept.
type signIn struct {
	URL          string        `json:"url"` // the server's address it was given for
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// config is the OAuth client the sign-in's token refreshes with; secret
// is the registered app's secret when the sign-in keeps none.
func (s signIn) config(secret string) *oauth2.Config {
	return &oauth2.Config{ClientID: s.ClientID, ClientSecret: cmp.Or(s.ClientSecret, secret), Scopes: s.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: s.AuthURL, TokenURL: s.TokenURL, AuthStyle: oauth2.AuthStyle(s.AuthStyle)}}
}

// all reads every kept sign-in; none when the file does not exist.
func (t *Tokens) all() (map[string]signIn, error) {
	m := map[string]signIn{}
	b, err := datadir.ReadPrivate(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]signIn{}, fmt.Errorf("%s cannot be read (%v): remove it and sign in again", t.path, err)
	}
	return m, nil
}

// change reads the sign-ins, lets f change them and writes them back,
// holding the file's lock ([datadir.Lock]): another Shrimp process
// renewing its token at the same moment keeps its own.
func (t *Tokens) change(f func(map[string]signIn)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	unlock, err := datadir.Lock(t.path, datadir.EditWait)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := t.all()
	if err != nil {
		return err
	}
	f(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return datadir.WritePrivate(t.path, append(b, '\n'))
}

// get returns the server's sign-in for its address.
func (t *Tokens) get(name, address string) (signIn, bool) {
	if t == nil {
		return signIn{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m, err := t.all()
	s, ok := m[name]
	if err != nil || !ok || s.URL != address || s.Token == nil {
		return signIn{}, false
	}
	return s, true
}

// Has reports whether a sign-in is kept for the server at its address.
func (t *Tokens) Has(name string, s Server) bool {
	_, ok := t.get(name, s.URL)
	return ok
}

// Forget removes the server's sign-in, and reports whether there was one.
func (t *Tokens) Forget(name string) (bool, error) {
	var had bool
	err := t.change(func(m map[string]signIn) {
		_, had = m[name]
		delete(m, name)
	})
	return had, err
}

// source is the kept sign-in's token source (nil: none): it refreshes an
// expired token through the token endpoint and keeps the new one. secret
// is the registered app's secret from mcp.json, which is not kept here.
func (t *Tokens) source(name, address, secret string) oauth2.TokenSource {
	s, ok := t.get(name, address)
	if !ok {
		return nil
	}
	return t.keeping(name, s, s.config(secret).TokenSource(context.Background(), s.Token))
}

// keeping wraps src so each new token it gives is kept as the server's.
func (t *Tokens) keeping(name string, s signIn, src oauth2.TokenSource) oauth2.TokenSource {
	return &keptSource{t: t, name: name, in: s, src: src, last: s.Token.AccessToken}
}

// keptSource keeps each token its source gives that it has not seen.
type keptSource struct {
	t    *Tokens
	name string
	src  oauth2.TokenSource

	mu   sync.Mutex
	in   signIn
	last string
}

// Token returns the source's token, kept first when it is new.
func (k *keptSource) Token() (*oauth2.Token, error) {
	tok, err := k.src.Token()
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if tok.AccessToken != k.last {
		k.last = tok.AccessToken
		if tok.RefreshToken == "" && k.in.Token != nil {
			tok.RefreshToken = k.in.Token.RefreshToken // a refresh may not send a new one
		}
		k.in.Token = tok
		in := k.in
		_ = k.t.change(func(m map[string]signIn) { m[k.name] = in })
	}
	return tok, nil
}

// wantsOAuth reports whether a server is signed in to over OAuth: a
// streamable HTTP server that is not given its own Authorization header.
func wantsOAuth(s Server) bool {
	if s.URL == "" || s.sse() {
		return false
	}
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

// keptAuth is the OAuth handler of a server's connections outside a
// sign-in: it sends the kept token; asked to authorize, it renews the
// token (the server may end a token before its stated expiry, or another
// Shrimp may have renewed it first), at most once every renewEvery, and
// otherwise says the user must sign in (ErrSignIn) instead of opening a
// browser.
type keptAuth struct {
	tokens  *Tokens
	name    string
	address string
	secret  string // the registered app's, from mcp.json

	mu      sync.Mutex
	ts      oauth2.TokenSource // nil: not signed in
	renewed time.Time
}

// renewEvery bounds how often a refused token is renewed: a server that
// refuses every token would otherwise have one renewed per request.
const renewEvery = time.Minute

// TokenSource returns the kept sign-in's token source (nil when none).
func (k *keptAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ts, nil
}

// Authorize refreshes the kept token the first time, and refuses after:
// a sign-in is the user's to start.
func (k *keptAuth) Authorize(ctx context.Context, _ *http.Request, res *http.Response) error {
	res.Body.Close()
	if res.StatusCode == http.StatusForbidden {
		return errors.New("the server refused the request (403 Forbidden): your sign-in may not allow this; sign in again or check the account")
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ts == nil || time.Since(k.renewed) < renewEvery {
		return ErrSignIn
	}
	k.renewed = time.Now()
	ts, err := k.tokens.refreshed(ctx, k.name, k.address, k.secret)
	if err != nil {
		return fmt.Errorf("%w (the kept sign-in could not be renewed: %v)", ErrSignIn, err)
	}
	k.ts = ts
	return nil
}

// refreshed renews the server's kept token now, whatever its expiry says,
// keeps the new one and returns a source that starts from it.
func (t *Tokens) refreshed(ctx context.Context, name, address, secret string) (oauth2.TokenSource, error) {
	s, ok := t.get(name, address)
	if !ok || s.Token.RefreshToken == "" {
		return nil, errors.New("no refresh token")
	}
	old := *s.Token
	old.Expiry = time.Now().Add(-time.Minute)
	tok, err := s.config(secret).TokenSource(ctx, &old).Token()
	if err != nil {
		return nil, err
	}
	src := t.keeping(name, s, s.config(secret).TokenSource(context.Background(), tok))
	if _, err := src.Token(); err != nil { // keeps it
		return nil, err
	}
	return src, nil
}

// SignIn signs in to a streamable HTTP server over OAuth and keeps the
// sign-in in tokens: open is given the sign-in page's address to show
// the user (in a browser), and SignIn waits, until ctx ends or
// SignInTimeout passes, for the browser to come back to a loopback
// address only this sign-in listens on. A server that does not ask for a
// sign-in is an error saying so.
func SignIn(ctx context.Context, name string, s Server, tokens *Tokens, open func(address string) error) error {
	if err := s.Check(name); err != nil {
		return err
	}
	if !wantsOAuth(s) {
		return fmt.Errorf("MCP server %s is not signed in to: only a server reached by url (streamable HTTP) without an Authorization header of its own is", name)
	}
	address := s.URL // as configured: what the sign-in is kept for
	s, err := s.expanded(os.LookupEnv)
	if err != nil {
		return fmt.Errorf("MCP server %s: %w", name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, SignInTimeout)
	defer cancel()
	port := 0
	var registered *oauthex.ClientCredentials
	if o := s.OAuth; o != nil {
		port = o.CallbackPort
		registered = &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			registered.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
	}
	back, err := listenForBrowser(ctx, name, port)
	if err != nil {
		return err
	}
	var signedIn bool
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		// The addresses the sign-in fetches and posts to come from the
		// server's answers: a server on the internet may not point them
		// at this machine or the local network.
		Client: signInClient(ctx, s.URL),
		// An app registered in advance is used when given; otherwise
		// Shrimp registers itself for this sign-in.
		PreregisteredClient: registered,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{back.address}, ClientName: "Shrimp", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RequestRefreshToken: true,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if err := browsable(args.URL); err != nil {
				return nil, err
			}
			if err := open(args.URL); err != nil {
				return nil, fmt.Errorf("open the sign-in page: %w", err)
			}
			return back.wait(ctx)
		},
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			kept := cfg.ClientSecret // one the server issued at the sign-in
			if s.OAuth != nil && s.OAuth.ClientSecret != "" {
				kept = "" // the user's app's: read from mcp.json each time
			}
			in := signIn{URL: address, ClientID: cfg.ClientID, ClientSecret: kept, AuthURL: cfg.Endpoint.AuthURL,
				TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle), Scopes: cfg.Scopes, Token: tok}
			if err := tokens.change(func(m map[string]signIn) { m[name] = in }); err != nil {
				return nil, fmt.Errorf("keep the sign-in: %w", err)
			}
			signedIn = true
			return tokens.keeping(name, in, cfg.TokenSource(ctx, tok)), nil
		},
	})
	if err != nil {
		return fmt.Errorf("sign in to MCP server %s: %w", name, err)
	}
	sess, err := connectWith(ctx, name, s, nil, nil, nil, h, nil)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("sign in to MCP server %s: the browser did not come back within %s, or the sign-in was stopped: sign in again", name, SignInTimeout)
		}
		if strings.Contains(err.Error(), "no configured client registration methods") {
			return fmt.Errorf("sign in to MCP server %s: its sign-in registers no apps itself: register one with the provider (redirect address http://127.0.0.1/callback, any port, or give callbackPort) and give its id: in Extensions (Edit the server, then Sign-in with an app you registered), or \"oauth\": {\"clientId\": …, \"clientSecret\": …} in mcp.json, or `shrimp mcp add %s --url URL --client-id ID --client-secret SECRET`", name, name)
		}
		return fmt.Errorf("sign in to MCP server %s: %w", name, err)
	}
	_ = sess.Close()
	if !signedIn {
		return fmt.Errorf("MCP server %s did not ask for a sign-in: it answers as it is", name)
	}
	return nil
}

// signInClient is the HTTP client of a sign-in to the server at address:
// one that reaches only public addresses when the server is on the
// internet, any client when it is on this machine or the local network
// (its authorization server may well be there too).
func signInClient(ctx context.Context, address string) *http.Client {
	u, err := url.Parse(address)
	if err != nil {
		return web.PublicClient()
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		addrs, _ = net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		cancel()
	}
	for _, a := range addrs {
		if !web.Public(a) {
			return http.DefaultClient
		}
	}
	return web.PublicClient()
}

// browsable checks the sign-in page's address before it is opened: https,
// or http on this machine (a server's metadata names it).
func browsable(address string) error {
	u, err := url.Parse(address)
	if err == nil && (u.Scheme == "https" || u.Scheme == "http" && isLoopback(u.Hostname())) && u.Host != "" {
		return nil
	}
	return fmt.Errorf("the server's sign-in page %q is not an https address; not opened", address)
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// browserReturn is the loopback address the browser comes back to after
// the sign-in page, with the code (or the refusal) it brings.
type browserReturn struct {
	address string
	got     chan browserResult
}

// browserResult is what the browser brought back.
type browserResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenForBrowser listens on a loopback port (0: any free one) until
// ctx ends.
func listenForBrowser(ctx context.Context, name string, port int) (*browserReturn, error) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("listen for the browser's return on 127.0.0.1:%d (callbackPort): %w", port, err)
	}
	b := &browserReturn{address: fmt.Sprintf("http://%s/callback", l.Addr()), got: make(chan browserResult, 1)}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		var got browserResult
		page := "Shrimp has your sign-in to " + name + ". You can close this tab and go back to Shrimp."
		switch {
		case q.Get("error") == "access_denied":
			got.err = errors.New("you declined the sign-in")
			page = "The sign-in was declined. You can close this tab."
		case q.Get("error") != "":
			// The server's words stay out of the page (they could be
			// markup); Shrimp shows them as text.
			got.err = fmt.Errorf("the sign-in failed: %s", cmp.Or(serverLine(q.Get("error_description"), maxTitle), serverLine(q.Get("error"), maxTitle)))
			page = "The sign-in failed; Shrimp says why. You can close this tab."
		case q.Get("code") == "":
			http.Error(w, "no sign-in code", http.StatusBadRequest)
			return
		default:
			got.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		}
		select {
		case b.got <- got:
		default: // a second return: the first one counts
			page = "This sign-in is already over. You can close this tab."
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintln(w, page)
	})}
	go func() { _ = srv.Serve(l) }()
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	return b, nil
}

// wait waits for the browser's return.
func (b *browserReturn) wait(ctx context.Context) (*auth.AuthorizationResult, error) {
	select {
	case got := <-b.got:
		return got.res, got.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

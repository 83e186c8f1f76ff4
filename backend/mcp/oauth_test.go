package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/tool/web"
	"github.com/shrimp-harness/shrimp/internal/mcptest"
)

// TestSignIn: a hosted server that asks for an OAuth sign-in waits for
// one (no browser is opened by itself); the user's sign-in is kept
// privately and the server runs; a new Shrimp goes on with the kept
// sign-in and refreshes an expired token itself; signing out forgets it.
func TestSignIn(t *testing.T) {
	o := mcptest.NewOAuth()
	defer o.Close()
	tokens := NewTokens(filepath.Join(t.TempDir(), TokenFile))
	cfg := Config{Servers: map[string]Server{"hosted": {URL: o.URL}}}
	start := func() *Manager {
		m := NewManager()
		m.Tokens = tokens
		m.Apply(cfg)
		return m
	}
	m := start()
	defer func() { m.Close() }()
	st := until(t, m, "hosted", "asked for a sign-in", func(st Status) bool { return st.State == StateSignIn })
	if !strings.Contains(st.LastError, "shrimp mcp login hosted") || st.SignedIn || st.Failures != 0 {
		t.Errorf("waiting status %+v", st)
	}
	if o.Registered.Load() != 0 {
		t.Error("a client was registered before the user signed in")
	}

	// The user declines at the sign-in page.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o.Deny.Store(true)
	if err := m.SignIn(ctx, "hosted", mcptest.Browse); err == nil || !strings.Contains(err.Error(), "you declined the sign-in") {
		t.Fatalf("declined: %v", err)
	}
	o.Deny.Store(false)
	var opened string
	browse := func(address string) error { opened = address; return mcptest.Browse(address) }
	if err := m.SignIn(ctx, "hosted", browse); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(opened, "code_challenge_method=S256") || !strings.Contains(opened, "redirect_uri=http%3A%2F%2F127.0.0.1%3A") {
		t.Errorf("sign-in page %s", opened)
	}
	st = until(t, m, "hosted", "ran signed in", func(st Status) bool { return st.State == StateRunning })
	if !st.SignedIn || st.LastError != "" {
		t.Errorf("signed-in status %+v", st)
	}
	if out, err := regTool(t, m, "mcp.hosted.echo").Run(ctx, json.RawMessage(`{"text":"hi"}`)); err != nil || out != "echo: hi" {
		t.Fatalf("echo: %q %v", out, err)
	}
	info, err := os.Stat(tokens.path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the sign-in is not kept privately: %v %v", info, err)
	}
	if b, _ := json.Marshal(m.Statuses()); strings.Contains(string(b), "token") && strings.Contains(string(b), "access") {
		t.Errorf("a token in the status: %s", b)
	}

	// A new Shrimp: the kept sign-in, refreshed once it expired.
	m.Close()
	o.Expire()
	m = start()
	until(t, m, "hosted", "ran with the kept sign-in", func(st Status) bool { return st.State == StateRunning && st.SignedIn })
	if o.Refreshed.Load() != 1 {
		t.Errorf("%d refreshes, want 1", o.Refreshed.Load())
	}
	before := tokens.source("hosted", o.URL, "")
	if before == nil {
		t.Fatal("the refreshed sign-in was not kept")
	}
	m.Close()
	m = start()
	until(t, m, "hosted", "ran with the refreshed sign-in", func(st Status) bool { return st.State == StateRunning })
	if o.Refreshed.Load() != 1 {
		t.Errorf("the refreshed token was not kept: %d refreshes", o.Refreshed.Load())
	}

	// The server ends the sign-in for good: a call says to sign in again,
	// and the server waits for it.
	o.Revoke()
	if _, err := regTool(t, m, "mcp.hosted.echo").Run(ctx, json.RawMessage(`{"text":"hi"}`)); err == nil || !strings.Contains(err.Error(), "was not run: the server asks the user to sign in again") {
		t.Fatalf("a call after the sign-in was revoked: %v", err)
	}
	until(t, m, "hosted", "asked after the revocation", func(st Status) bool { return st.State == StateSignIn })
	if err := m.SignIn(ctx, "hosted", mcptest.Browse); err != nil {
		t.Fatal(err)
	}
	until(t, m, "hosted", "ran signed in again", func(st Status) bool { return st.State == StateRunning })

	// Signing out forgets it; the server waits for a sign-in again.
	if err := m.SignOut("hosted"); err != nil {
		t.Fatal(err)
	}
	until(t, m, "hosted", "asked again", func(st Status) bool { return st.State == StateSignIn && !st.SignedIn })
	if tokens.Has("hosted", cfg.Servers["hosted"]) {
		t.Error("the sign-in is still kept")
	}
	// A sign-in is for the address it was given for.
	if err := m.SignIn(ctx, "hosted", mcptest.Browse); err != nil {
		t.Fatal(err)
	}
	if tokens.Has("hosted", Server{URL: o.URL + "/other"}) {
		t.Error("a sign-in is used for another address")
	}
}

// TestSignInRefused: what cannot be signed in to says why.
func TestSignInRefused(t *testing.T) {
	tokens := NewTokens(filepath.Join(t.TempDir(), TokenFile))
	ctx := context.Background()
	never := func(string) error { return errors.New("no browser should open") }
	for name, s := range map[string]Server{
		"stdio":  {Command: "server"},
		"header": {URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"authorization": "Bearer x"}},
		"sse":    {URL: "http://127.0.0.1:1/sse"},
	} {
		if err := SignIn(ctx, name, s, tokens, never); err == nil || !strings.Contains(err.Error(), "only a server reached by url") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A server that asks for nothing is connected to, and says so.
	open := httptest.NewServer(mcptest.RawHTTP("raw"))
	defer open.Close()
	if err := SignIn(ctx, "open", Server{URL: open.URL}, tokens, never); err == nil || !strings.Contains(err.Error(), "did not ask for a sign-in") {
		t.Errorf("open server: %v", err)
	}
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "http://example.com/authorize"} {
		if browsable(bad) == nil {
			t.Errorf("%s would be opened", bad)
		}
	}
	for _, good := range []string{"https://auth.example.com/authorize?x=1", "http://127.0.0.1:8080/authorize", "http://localhost/a"} {
		if err := browsable(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// TestSignInWithARegisteredApp: a sign-in that registers no clients
// itself says how to give it one; with the app's id and secret (the
// secret from Shrimp's environment), the sign-in uses them and the kept
// sign-in renews with them.
func TestSignInWithARegisteredApp(t *testing.T) {
	o := mcptest.NewOAuth()
	defer o.Close()
	o.NoRegistration = true
	o.Register("shrimp-app", "app-secret")
	tokens := NewTokens(filepath.Join(t.TempDir(), TokenFile))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := SignIn(ctx, "hosted", Server{URL: o.URL}, tokens, mcptest.Browse); err == nil || !strings.Contains(err.Error(), `"oauth": {"clientId"`) {
		t.Fatalf("no app given: %v", err)
	}
	t.Setenv("SHRIMP_TEST_APP_SECRET", "wrong")
	s := Server{URL: o.URL, OAuth: &OAuthClient{ClientID: "shrimp-app", ClientSecret: "${SHRIMP_TEST_APP_SECRET}"}}
	if err := SignIn(ctx, "hosted", s, tokens, mcptest.Browse); err == nil {
		t.Fatal("a wrong secret signed in")
	}
	t.Setenv("SHRIMP_TEST_APP_SECRET", "app-secret")
	if err := SignIn(ctx, "hosted", s, tokens, mcptest.Browse); err != nil {
		t.Fatal(err)
	}
	if o.Registered.Load() != 0 {
		t.Errorf("%d clients registered at the sign-in", o.Registered.Load())
	}
	if b, _ := os.ReadFile(tokens.path); strings.Contains(string(b), "app-secret") {
		t.Error("the app's secret, kept out of mcp.json, was copied into the sign-ins")
	}
	o.Expire()
	m := NewManager()
	m.Tokens = tokens
	defer m.Close()
	m.Apply(Config{Servers: map[string]Server{"hosted": s}})
	until(t, m, "hosted", "ran with a renewed token", func(st Status) bool { return st.State == StateRunning && st.SignedIn })
	if o.Refreshed.Load() != 1 {
		t.Errorf("%d refreshes", o.Refreshed.Load())
	}
	for _, bad := range []Server{
		{Command: "x", OAuth: &OAuthClient{ClientID: "a"}},
		{URL: "https://x.example/sse", OAuth: &OAuthClient{ClientID: "a"}},
		{URL: "https://x.example/mcp", OAuth: &OAuthClient{ClientSecret: "s"}},
		{URL: "https://x.example/mcp", OAuth: &OAuthClient{ClientID: "a", CallbackPort: 70000}},
	} {
		if bad.Check("x") == nil {
			t.Errorf("accepted %+v", bad.OAuth)
		}
	}
}

// TestSignInClient: a server on the internet cannot point its sign-in's
// requests at this machine or the local network; one that is there can.
func TestSignInClient(t *testing.T) {
	local := httptest.NewServer(http.NotFoundHandler())
	defer local.Close()
	ctx := context.Background()
	for _, address := range []string{"http://127.0.0.1:8080/mcp", "http://10.1.2.3/mcp", "http://[::1]:9/mcp", "http://localhost:8/mcp"} {
		if c := signInClient(ctx, address); c != http.DefaultClient {
			t.Errorf("%s: a server here is held to public addresses", address)
		}
	}
	c := signInClient(ctx, "https://93.184.215.14/mcp")
	if c == http.DefaultClient {
		t.Fatal("a public server's sign-in may reach anything")
	}
	if res, err := c.Get(local.URL + "/.well-known/oauth-authorization-server"); err == nil || !errors.Is(err, web.ErrBlocked) {
		if res != nil {
			res.Body.Close()
		}
		t.Errorf("a public server's sign-in reached this machine: %v", err)
	}
}

package mcptest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// OAuth is a hosted MCP server as the MCP authorization spec has it: the
// MCP endpoint (URL) answers 401 without a bearer token, pointing at its
// protected-resource metadata; the authorization server beside it
// publishes its metadata, registers clients dynamically, signs the user
// in at once (or declines, with Deny) and issues tokens for PKCE-checked
// codes and refresh tokens. Tokens last ExpiresIn.
type OAuth struct {
	URL       string        // the MCP endpoint
	ExpiresIn time.Duration // how long an access token lasts (default 1 h)
	Deny      atomic.Bool   // the user declines at the sign-in page
	// NoRegistration makes the authorization server register no clients
	// itself: only those given to Register sign in.
	NoRegistration bool

	Registered atomic.Int32 // clients registered
	Refreshed  atomic.Int32 // tokens refreshed

	srv *httptest.Server
	mu  sync.Mutex
	// clients are the registered clients' redirect addresses (nil: any
	// loopback address) and secrets.
	clients map[string][]string
	secrets map[string]string
	codes   map[string]grant
	access  map[string]time.Time // token → expiry
	refresh map[string]string    // refresh token → client
}

// grant is an issued code, waiting to be exchanged.
type grant struct {
	client, redirect, challenge string
}

// NewOAuth starts the servers; Close stops them.
func NewOAuth() *OAuth {
	o := &OAuth{ExpiresIn: time.Hour, clients: map[string][]string{}, secrets: map[string]string{}, codes: map[string]grant{}, access: map[string]time.Time{}, refresh: map[string]string{}}
	mcp := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return Server() }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", o.resource)
	mux.HandleFunc("/.well-known/oauth-authorization-server", o.metadata)
	mux.HandleFunc("POST /register", o.register)
	mux.HandleFunc("GET /authorize", o.authorize)
	mux.HandleFunc("POST /token", o.token)
	mux.Handle("/mcp", o.guard(mcp))
	o.srv = httptest.NewServer(mux)
	o.URL = o.srv.URL + "/mcp"
	return o
}

// Register registers a client in advance, as a user registers an app with
// a provider: any loopback redirect address, and secret ("" for none).
func (o *OAuth) Register(id, secret string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clients[id] = nil
	o.secrets[id] = secret
}

// Close stops the servers.
func (o *OAuth) Close() { o.srv.Close() }

// Revoke ends every token issued so far, refresh tokens too: the user
// must sign in again.
func (o *OAuth) Revoke() {
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.access)
	clear(o.refresh)
}

// Expire makes every access token issued so far expire now.
func (o *OAuth) Expire() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for t := range o.access {
		o.access[t] = time.Now()
	}
}

func (o *OAuth) resource(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"resource": o.URL, "authorization_servers": []string{o.srv.URL}, "scopes_supported": []string{"tools"}})
}

func (o *OAuth) metadata(w http.ResponseWriter, _ *http.Request) {
	base := o.srv.URL
	meta := map[string]any{
		"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
		"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported": []string{"authorization_code", "refresh_token"}, "code_challenge_methods_supported": []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_post"}, "scopes_supported": []string{"tools", "offline_access"},
	}
	if o.NoRegistration {
		delete(meta, "registration_endpoint")
	}
	writeJSON(w, http.StatusOK, meta)
}

func (o *OAuth) register(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if json.NewDecoder(r.Body).Decode(&meta) != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri"})
		return
	}
	id := rand.Text()
	o.mu.Lock()
	o.clients[id] = meta.RedirectURIs
	o.mu.Unlock()
	o.Registered.Add(1)
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (o *OAuth) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o.mu.Lock()
	redirects, ok := o.clients[q.Get("client_id")]
	o.mu.Unlock()
	back := q.Get("redirect_uri")
	u, _ := url.Parse(back)
	loopback := u != nil && u.Scheme == "http" && u.Hostname() == "127.0.0.1" && u.Path == "/callback"
	if !ok || (redirects == nil && !loopback) || (redirects != nil && !slices.Contains(redirects, back)) || q.Get("code_challenge_method") != "S256" || q.Get("resource") != o.URL {
		http.Error(w, "unknown client, redirect, resource or challenge method", http.StatusBadRequest)
		return
	}
	answer := url.Values{"state": {q.Get("state")}}
	if o.Deny.Load() {
		answer.Set("error", "access_denied")
	} else {
		code := rand.Text()
		o.mu.Lock()
		o.codes[code] = grant{client: q.Get("client_id"), redirect: back, challenge: q.Get("code_challenge")}
		o.mu.Unlock()
		answer.Set("code", code)
	}
	http.Redirect(w, r, back+"?"+answer.Encode(), http.StatusFound)
}

func (o *OAuth) token(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	client, secret, basic := r.BasicAuth()
	if !basic {
		client, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if want := o.secrets[client]; want != "" && secret != want {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		g, ok := o.codes[r.PostForm.Get("code")]
		delete(o.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || g.client != client || g.redirect != r.PostForm.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		if o.refresh[r.PostForm.Get("refresh_token")] != client {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(o.refresh, r.PostForm.Get("refresh_token"))
		o.Refreshed.Add(1)
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := rand.Text(), rand.Text()
	o.access[access] = time.Now().Add(o.ExpiresIn)
	o.refresh[refresh] = client
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(o.ExpiresIn.Seconds()), "refresh_token": refresh, "scope": "tools"})
}

// guard lets through requests with a token issued and not expired.
func (o *OAuth) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		o.mu.Lock()
		until, ok := o.access[token]
		o.mu.Unlock()
		if !ok || time.Now().After(until) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="tools"`, o.srv.URL+"/.well-known/oauth-protected-resource/mcp"))
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// Browse is the user's browser at a sign-in page: it follows the
// redirects back to the client and fails unless the last page is 200.
func Browse(address string) error {
	res, err := http.Get(address)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", address, res.Status)
	}
	return nil
}

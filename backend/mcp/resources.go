package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/injection"
	"github.com/shrimp-harness/shrimp/internal/fence"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// The kinds of the tools Shrimp adds beside a server's own (Tool.Kind).
// A server's resources (documents, schemas, records it offers to be read:
// MCP's "resources") reach the model through them; some servers, a
// database's for one, give their schemas only that way.
const (
	KindListResources = "list_resources"
	KindReadResource  = "read_resource"
)

// maxResources is the most resources, and the most templates, listed of
// one server.
const maxResources = 1000

// resourceHint follows an error a server gave about its resources.
const resourceHint = "list_resources says what it offers"

// maxResourceLine caps one resource's line in a listing.
const maxResourceLine = 300

// offersResources says whether the server said, when it was connected,
// that it has resources.
func (s *Session) offersResources() bool {
	r := s.cs.InitializeResult()
	return r != nil && r.Capabilities != nil && r.Capabilities.Resources != nil
}

// resourceTools are the two tools through which the model reads a
// server's resources, named as goose names its own. A server's own tool
// of the same name keeps the name (its resources are then read its way).
func resourceTools(server string, own []Tool) []Tool {
	all := []Tool{{
		Name:        KindListResources,
		Kind:        KindListResources,
		Description: fmt.Sprintf("List the resources (documents and data) MCP server %s offers to be read, with their uris, and the uri templates it fills in. Read one with read_resource.", server),
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}, {
		Name:        KindReadResource,
		Kind:        KindReadResource,
		Description: fmt.Sprintf("Read one resource of MCP server %s by its uri, as list_resources gives it or a template of it filled in.", server),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":"the resource's uri"}},"required":["uri"]}`),
	}}
	return lo.Reject(all, func(t Tool, _ int) bool {
		return slices.ContainsFunc(own, func(o Tool) bool { return o.Name == t.Name })
	})
}

// Resource is a resource a server offers to be read, for the user to
// pick: its uri, and its name (its title when it has one), type and
// description freed of hidden text and cut to a line.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MIMEType    string `json:"mime_type"`
	Description string `json:"description"`
}

// Resources lists the server's resources, over their pages (at most
// maxResources).
func (s *Session) Resources(ctx context.Context) ([]Resource, error) {
	res, err := s.resources(ctx)
	if err != nil {
		return nil, err
	}
	return lo.Map(res, func(r *sdk.Resource, _ int) Resource {
		return Resource{URI: r.URI, Name: serverLine(cmp.Or(r.Title, r.Name), maxTitle), MIMEType: serverLine(r.MIMEType, maxTitle), Description: serverLine(r.Description, maxResourceLine)}
	}), nil
}

// resources lists the server's resources as the SDK gives them.
func (s *Session) resources(ctx context.Context) ([]*sdk.Resource, error) {
	res, err := pages(maxResources, func(cursor string) ([]*sdk.Resource, string, error) {
		r, err := s.cs.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return lo.Compact(r.Resources), r.NextCursor, nil
	}, func(r *sdk.Resource) string { return r.URI })
	if err != nil {
		return nil, s.answered(err, "list the resources", resourceHint)
	}
	return res, nil
}

// ListResources lists the server's resources and uri templates, one line
// each, as text for the model: uri, name, type and description, freed of
// hidden text and cut to a line. A server without templates (it need not
// answer their list) lists resources only.
func (s *Session) ListResources(ctx context.Context) (string, error) {
	res, err := s.resources(ctx)
	if err != nil {
		return "", err
	}
	tpls, err := pages(maxResources, func(cursor string) ([]*sdk.ResourceTemplate, string, error) {
		r, err := s.cs.ListResourceTemplates(ctx, &sdk.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return lo.Compact(r.ResourceTemplates), r.NextCursor, nil
	}, func(t *sdk.ResourceTemplate) string { return t.URITemplate })
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			return "", s.answered(err, "list the resource templates", resourceHint)
		}
		tpls = nil // it has none to list
	}
	if len(res) == 0 && len(tpls) == 0 {
		return fmt.Sprintf("MCP server %s offers no resources now.", s.name), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %s offers %s:\n", s.name, plural.N(len(res), "resource", "resources"))
	for _, r := range res {
		b.WriteString(resourceLine(r.URI, cmp.Or(r.Title, r.Name), r.MIMEType, r.Description))
	}
	if len(tpls) > 0 {
		fmt.Fprintf(&b, "and %s: fill in the {…} parts and read the uri:\n", plural.N(len(tpls), "uri template", "uri templates"))
		for _, t := range tpls {
			b.WriteString(resourceLine(t.URITemplate, cmp.Or(t.Title, t.Name), t.MIMEType, t.Description))
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// resourceLine is one resource or template in a listing.
func resourceLine(uri, name, mime, desc string) string {
	parts := []string{uri}
	for _, p := range []string{name, mime, desc} {
		if p, _ = injection.Unhide(p); strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	return "- " + textcut.Line(strings.Join(parts, " · "), maxResourceLine) + "\n"
}

// ReadResource reads one resource, its pieces as contentText shows an
// embedded resource: text with its uri, binary data by type and size.
func (s *Session) ReadResource(ctx context.Context, uri string) (string, error) {
	res, err := s.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", s.answered(err, "read "+uri, resourceHint)
	}
	parts := lo.FilterMap(res.Contents, func(c *sdk.ResourceContents, _ int) (string, bool) {
		if c == nil {
			return "", false
		}
		return resourceText(c), true
	})
	if len(parts) == 0 {
		return fmt.Sprintf("[resource %s: empty]", uri), nil
	}
	return strings.Join(parts, "\n"), nil
}

// maxQuoted bounds the text of a resource the user puts in a request.
const maxQuoted = 32 << 10

// Quoted is a resource read (ReadResource's text) as the user puts it in
// a request, to read before sending it: a line naming it, then its text
// freed of hidden text, at most maxQuoted bytes (the rest said to be cut),
// in a code fence it cannot close.
func Quoted(server, uri, text string) string {
	text, _ = injection.Unhide(text)
	if len(text) > maxQuoted {
		cut := textcut.Before(text, maxQuoted)
		text = text[:cut] + fmt.Sprintf("\n[cut: %d more bytes not shown]", len(text)-cut)
	}
	return fmt.Sprintf("From %s of MCP server %s:\n%s\n", serverLine(uri, maxResourceLine), server, fence.Around("", text))
}

// resourceText is a resource's contents as text for the model.
func resourceText(r *sdk.ResourceContents) string {
	if r.Text != "" || len(r.Blob) == 0 {
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s: %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob))
}

// answered wraps an error of a request: one the server answered with (an
// unknown uri, say) is a failed call (ErrToolFailed) that can be acted on,
// as hint says; anything else may be a server that is gone.
func (s *Session) answered(err error, what, hint string) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return fmt.Errorf("%w: %s on MCP server %s: %s (%s)", ErrToolFailed, what, s.name, we.Message, hint)
	}
	return fmt.Errorf("%s on MCP server %s: %w", what, s.name, err)
}

// pages follows a list's cursors until the server gives no further one,
// or the list shows it would never end: a cursor it gave before, a page
// with nothing new, maxPages pages or most items. An item listed twice
// (by key) is kept once.
func pages[T any](most int, list func(cursor string) ([]T, string, error), key func(T) string) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	cursors := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		items, next, err := list(cursor)
		if err != nil {
			return nil, err
		}
		before := len(out)
		for _, it := range items {
			if k := key(it); !seen[k] && len(out) < most {
				seen[k] = true
				out = append(out, it)
			}
		}
		if next == "" || cursors[next] || len(out) == before || len(out) == most || page == maxPages {
			return out, nil
		}
		cursors[next] = true
		cursor = next
	}
}

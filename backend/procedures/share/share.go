// Package share moves learned procedures between data folders (a new
// machine, a colleague) as a Bundle: a JSON file of their requests and
// chains, never the sessions that taught them nor their counts.
//
// Its contract: a bundle is outside text, so Import checks each procedure
// as learning would and more, since its request goes into the model's
// prompt when recalled. One whose request (or a wording of it) reads like
// instructions to the agent (package injection), or hides characters a
// reader does not see, is refused (a fact would be flagged); tool names
// must be names; a chain must be one learning keeps (procedures.MinChain
// calls or more); a procedure the store already holds (one of its
// wordings and a chain of the same shape), or one it forgot, is not
// added again. Imported procedures start with no uses and no demerits:
// counts earned elsewhere do not rank them here. Export writes only what
// recall may hand the model (not forgotten ones), and examples only when
// asked.
package share

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/backend/injection"
	"github.com/shrimp-harness/shrimp/backend/instruction"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/procedures/chain"
	"github.com/shrimp-harness/shrimp/internal/jsoncut"
	"github.com/shrimp-harness/shrimp/internal/jsonstrings"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// BundleFormat names a procedures file; BundleVersion is the version
// this Shrimp writes and reads.
const (
	BundleFormat  = "shrimp-procedures"
	BundleVersion = 1
)

// Bounds of what Import reads.
const (
	MaxBundleBytes = 16 << 20 // a file
	MaxBundled     = 10000    // procedures in one file
	maxWordings    = 20       // wordings of one procedure (as Learn keeps)
	maxSteps       = 200      // calls in one chain
)

// ErrBundle is returned for a file that is not a procedures bundle.
var ErrBundle = errors.New("not a Shrimp procedures file")

// Bundle is procedures as exported.
type Bundle struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	Exported   time.Time `json:"exported"`
	Procedures []Shared  `json:"procedures"`
}

// Shared is one procedure in a Bundle.
type Shared struct {
	Trigger  string            `json:"trigger"`
	Triggers []string          `json:"triggers,omitempty"` // every wording it was used for, the trigger first
	Tools    []string          `json:"tools"`
	Examples []json.RawMessage `json:"examples,omitempty"` // each step's arguments, when exported with them
	Created  time.Time         `json:"created"`
}

// ExportOptions say what Export writes.
type ExportOptions struct {
	// Examples includes each step's example arguments (file paths,
	// commands, text the model wrote): shown by `procedures show`, never
	// sent to a model, so a bundle for someone else is better without.
	Examples bool
	// Clean, when set, is applied to every text written (requests and
	// the strings in examples): the redactor, so no secret leaves.
	Clean func(string) string
}

// Export returns the procedures recall may hand the model (active, and
// stale ones: the tools they miss here may be there), oldest first.
func Export(m *procedures.Memory, o ExportOptions) Bundle {
	clean := o.Clean
	if clean == nil {
		clean = func(s string) string { return s }
	}
	b := Bundle{Format: BundleFormat, Version: BundleVersion, Exported: time.Now().UTC(), Procedures: []Shared{}}
	for _, p := range m.List() {
		if !p.Recallable() {
			continue
		}
		s := Shared{Trigger: p.Trigger, Triggers: p.Triggers, Tools: slices.Clone(p.Tools), Created: p.Created.UTC()}
		if o.Examples {
			s.Examples = p.Examples
		}
		b.Procedures = append(b.Procedures, cleanShared(s, clean))
	}
	slices.SortStableFunc(b.Procedures, func(x, y Shared) int { return x.Created.Compare(y.Created) })
	return b
}

// cleanShared returns s with clean applied to its texts.
func cleanShared(s Shared, clean func(string) string) Shared {
	c := Shared{Trigger: clean(s.Trigger), Tools: s.Tools, Created: s.Created}
	for _, t := range s.Triggers {
		c.Triggers = append(c.Triggers, clean(t))
	}
	for _, ex := range s.Examples {
		c.Examples = append(c.Examples, cleanJSON(ex, clean))
	}
	return c
}

// cleanJSON returns raw with clean applied to each string in it (keys
// included); raw that is not JSON (examples are, since jsoncut) becomes
// one cleaned string.
func cleanJSON(raw json.RawMessage, clean func(string) string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		v = string(raw)
	}
	v, _ = jsonstrings.Map(v, clean)
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`) // never the text uncleaned
	}
	return out
}

// Read reads a procedures file: at most MaxBundleBytes of JSON in
// this format and a version this Shrimp reads, with at most MaxBundled
// procedures. Each procedure is checked by Import, not here.
func Read(r io.Reader) (Bundle, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBundleBytes+1))
	if err != nil {
		return Bundle{}, fmt.Errorf("read the procedures file: %w", err)
	}
	if len(data) > MaxBundleBytes {
		return Bundle{}, fmt.Errorf("%w: it is larger than %d MiB (a file of %d procedures is far smaller)", ErrBundle, MaxBundleBytes>>20, MaxBundled)
	}
	var b Bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return Bundle{}, fmt.Errorf("%w: it is not JSON as `shrimp procedures export` writes (%v)", ErrBundle, err)
	}
	if b.Format != BundleFormat {
		return Bundle{}, fmt.Errorf("%w: its format is %q, not %q (make one with `shrimp procedures export` or the Procedures view's Export)", ErrBundle, b.Format, BundleFormat)
	}
	if b.Version < 1 || b.Version > BundleVersion {
		return Bundle{}, fmt.Errorf("%w: it is of version %d, and this Shrimp reads version %d: update Shrimp to import it", ErrBundle, b.Version, BundleVersion)
	}
	if len(b.Procedures) > MaxBundled {
		return Bundle{}, fmt.Errorf("%w: it holds %d procedures, more than the %d one import takes; split it", ErrBundle, len(b.Procedures), MaxBundled)
	}
	return b, nil
}

// Imported says what Import did.
type Imported struct {
	Added      []procedures.Procedure `json:"added"`
	Duplicates int                    `json:"duplicates"` // held here already (or forgotten here), not added again
	Refused    []Refused              `json:"refused"`
}

// Refused is a procedure Import did not take, and why.
type Refused struct {
	Trigger string `json:"trigger"` // cut to a line
	Why     string `json:"why"`
}

// line is text on one line, cut, for a message.
func line(s string) string { return textcut.Line(s, 120) }

// toolName is what a tool's name may hold (Ollama's and MCP's: letters,
// digits, '_', '-' and the '.' between a server and its tool).
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,128}$`)

// ImportOptions say how Import takes a bundle.
type ImportOptions struct {
	Dry bool // only check: say what would be added, add nothing
	// Clean, when set, is applied to every text taken (requests and the
	// strings in examples): the redactor, so no secret is stored.
	Clean func(string) string
}

// Import adds a bundle's procedures to m, each checked as the package
// doc says, in one transaction.
func Import(ctx context.Context, m *procedures.Memory, b Bundle, o ImportOptions) (Imported, error) {
	out := Imported{Added: []procedures.Procedure{}, Refused: []Refused{}}
	// The procedures held, and those added, by each wording: a file of
	// 10,000 checked against a store of 10,000 compared every pair (40 s).
	byWording := map[string][]procedures.Procedure{}
	index := func(p procedures.Procedure) {
		for _, t := range p.Triggers {
			k := wordingKey(t)
			byWording[k] = append(byWording[k], p)
		}
	}
	for _, p := range m.List() {
		index(p)
	}
	now := time.Now().UTC()
	var add []procedures.Procedure
	for _, s := range b.Procedures {
		if o.Clean != nil {
			s = cleanShared(s, o.Clean)
		}
		p, why := checkShared(s)
		if why != "" {
			shown, _ := injection.Unhide(s.Trigger)
			out.Refused = append(out.Refused, Refused{Trigger: line(shown), Why: why})
			continue
		}
		if slices.ContainsFunc(byWording[wordingKey(p.Trigger)], func(h procedures.Procedure) bool { return sameTask(h, p) }) {
			out.Duplicates++
			continue
		}
		p.Created, p.LastUsed = now, now
		add = append(add, p)
		index(p)
	}
	if !o.Dry && len(add) > 0 {
		// AddAll names them; a dry run names none: they do not exist.
		if err := m.AddAll(ctx, add); err != nil {
			return Imported{}, fmt.Errorf("import procedures: %w", err)
		}
	}
	out.Added = append(out.Added, add...)
	return out, nil
}

// checkShared returns s as a procedure to add, or why it is refused.
func checkShared(s Shared) (procedures.Procedure, string) {
	wordings := append([]string{s.Trigger}, s.Triggers...)
	var triggers []string
	for i, w := range wordings {
		which := "its request" // the trigger, shown beside the refusal
		if i > 0 {
			which = fmt.Sprintf("its wording %q", line(w))
		}
		if _, n := injection.Unhide(w); n > 0 {
			return procedures.Procedure{}, fmt.Sprintf("%s hides %s (text a person does not see and a model reads)", which, plural.N(n, "invisible character", "invisible characters"))
		}
		w = strings.TrimSpace(instruction.Of(w))
		if w == "" || slices.ContainsFunc(triggers, func(t string) bool { return strings.EqualFold(t, w) }) {
			continue
		}
		if classes := injection.Classes(w); len(classes) > 0 {
			return procedures.Procedure{}, fmt.Sprintf("%s reads like instructions to the agent (%s), which a recalled procedure would put in the model's prompt", which, strings.Join(classes, ", "))
		}
		triggers = append(triggers, w)
	}
	switch {
	case len(triggers) == 0:
		return procedures.Procedure{}, "it has no request"
	case len(s.Tools) < procedures.MinChain:
		return procedures.Procedure{}, fmt.Sprintf("its chain has %d calls; a procedure is learned from %d or more", len(s.Tools), procedures.MinChain)
	case len(s.Tools) > maxSteps:
		return procedures.Procedure{}, fmt.Sprintf("its chain has %d calls, more than %d", len(s.Tools), maxSteps)
	}
	for _, t := range s.Tools {
		if !toolName.MatchString(t) {
			return procedures.Procedure{}, fmt.Sprintf("%q is not a tool's name", line(t))
		}
	}
	p := procedures.Procedure{Trigger: triggers[0], Triggers: triggers[:min(len(triggers), maxWordings)], Tools: slices.Clone(s.Tools)}
	for i, ex := range s.Examples {
		if i == len(s.Tools) {
			break
		}
		if !json.Valid(ex) {
			ex = json.RawMessage(`{}`)
		}
		p.Examples = append(p.Examples, jsoncut.Bound(ex))
	}
	return p, ""
}

// wordingKey is a wording as sameTask compares it: case and surrounding
// space aside.
func wordingKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// sameTask reports whether h already stands for p: one of its wordings is
// p's request (case and surrounding space aside) and its chain has p's
// shape.
func sameTask(h, p procedures.Procedure) bool {
	return chain.Same(h.Tools, p.Tools) && slices.ContainsFunc(h.Triggers, func(t string) bool {
		return strings.EqualFold(strings.TrimSpace(t), p.Trigger)
	})
}

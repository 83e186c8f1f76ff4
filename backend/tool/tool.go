// Package tool is the registry of typed tools the agent can call. A tool is
// defined from a Go input struct ([Define]); its JSON schema is derived from
// the struct (github.com/invopop/jsonschema), offered to the model, and
// used to validate arguments before the tool runs
// (github.com/santhosh-tekuri/jsonschema/v6). The registry lists tools in
// name order, so the prompt is the same from run to run.
//
// Errors from Check are written for the model: an unknown name lists the
// tools that exist, invalid arguments show what was expected.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/ollama/ollama/api"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/shrimp-harness/shrimp/internal/toolname"
	"github.com/shrimp-harness/shrimp/internal/toolschema"
)

// Tool is one callable tool.
type Tool interface {
	Name() string
	Description() string
	// Parameters is the JSON schema of the arguments object.
	Parameters() json.RawMessage
	// ReadOnly reports whether the tool only reads inside the workspace
	// (approval mode "read" runs such tools without asking).
	ReadOnly() bool
	// Run runs the tool with arguments that passed validation.
	Run(ctx context.Context, args json.RawMessage) (string, error)
}

// Outsider is implemented by a tool whose output comes from beyond the
// user's machine and files: a web page, another party's server. Such
// output may carry instructions (a prompt injection), and the approval
// gate asks about later calls that an "always" rule would have answered.
type Outsider interface {
	// Source says where a call's output comes from (a URL, a server).
	Source(args json.RawMessage) string
}

// SourceOf returns where a call of t gets its output when that is outside
// the user's machine, "" otherwise.
func SourceOf(t Tool, args json.RawMessage) string {
	if o, ok := t.(Outsider); ok {
		return o.Source(args)
	}
	return ""
}

// FromOutside marks t as a tool whose output comes from outside; source
// names where a call's output comes from.
func FromOutside(t Tool, source func(args json.RawMessage) string) Tool {
	return outside{t, source}
}

type outside struct {
	Tool
	source func(json.RawMessage) string
}

func (o outside) Source(args json.RawMessage) string { return o.source(args) }

// Vetter is a Tool that refuses, before anyone is asked about a call,
// arguments its schema allows but it never runs with (a path outside the
// workspace): the user is not asked about a call that cannot run, and the
// model is told at once.
type Vetter interface {
	Vet(args json.RawMessage) error
}

// Vetted returns t with vet run on a call's arguments once they match its
// schema (Registry.Check).
func Vetted(t Tool, vet func(args json.RawMessage) error) Tool { return vetted{t, vet} }

type vetted struct {
	Tool
	vet func(json.RawMessage) error
}

func (v vetted) Vet(args json.RawMessage) error { return v.vet(args) }

// typed is a Tool defined from an input struct.
type typed[In any] struct {
	name, desc string
	readOnly   bool
	schema     json.RawMessage
	run        func(context.Context, In) (string, error)
}

// Define makes a tool whose arguments are the JSON form of In. Field docs
// come from `jsonschema_description:"…"` tags (a description= in the
// `jsonschema` tag ends at its first comma: the model read "file to
// change" of "file to change, relative to the workspace"); fields without
// omitempty are required.
func Define[In any](name, description string, readOnly bool, run func(ctx context.Context, in In) (string, error)) Tool {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: false}
	s := r.Reflect(new(In))
	s.Version = ""
	s.ID = ""
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err)) // a programming error in the input struct
	}
	return &typed[In]{name: name, desc: description, readOnly: readOnly, schema: raw, run: run}
}

func (t *typed[In]) Name() string                { return t.name }
func (t *typed[In]) Description() string         { return t.desc }
func (t *typed[In]) Parameters() json.RawMessage { return t.schema }
func (t *typed[In]) ReadOnly() bool              { return t.readOnly }

func (t *typed[In]) Run(ctx context.Context, args json.RawMessage) (string, error) {
	var in In
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&in); err != nil {
		return "", fmt.Errorf("decode arguments: %w", err)
	}
	return t.run(ctx, in)
}

// Registry holds the tools of one run, in name order.
type Registry struct {
	tools    []Tool
	byName   map[string]Tool
	compiled map[string]*validator.Schema
	// params are each tool's parameters as the model is shown them
	// (toolschema.ForModel), worked out once, not every model call.
	params  map[string]api.ToolFunctionParameters
	aliases toolname.Aliases // other agents' names for its tools (SetAliases)
	others  map[string]Alias // the same, by toolname.Key, with their arguments' names
}

// Alias is another agent's name for a registered tool (Claude Code's
// Bash for shell.run), and that agent's names for the tool's arguments.
type Alias struct {
	Tool string // the registered name
	// Args are the agent's argument names, each to the tool's; to ""
	// for one the agent documents as saying why, which changes nothing
	// the call does (Claude Code's and Gemini CLI's description of a
	// command, shown to their users).
	Args map[string]string
	// Scale is what an argument's number (by the agent's name) is
	// multiplied by to be the tool's, rounded up to a whole number:
	// Claude Code's Bash counts its timeout in milliseconds, shell.run
	// in seconds (0.001).
	Scale map[string]float64
	// Shift is what is added to an argument's whole number (by the
	// agent's name, zero or more) to be the tool's, after Scale: Gemini
	// CLI's read_file counts lines from 0, fs.read from 1 (1).
	Shift map[string]int64
}

// SetAliases gives r other agents' names for its tools: Resolve takes
// one when no spelling of a registered name matches, for a tool r has,
// and Mend renames the call's arguments as that agent names them.
func (r *Registry) SetAliases(aliases map[string]Alias) {
	names := make(map[string]string, len(aliases))
	r.others = make(map[string]Alias, len(aliases))
	for other, a := range aliases {
		names[other] = a.Tool
		r.others[toolname.Key(other)] = a
	}
	r.aliases = toolname.NewAliases(names)
}

// ErrUnknown means the model called a tool that does not exist.
var ErrUnknown = errors.New("unknown tool")

// ErrInvalidArgs means the arguments did not match the tool's schema.
var ErrInvalidArgs = errors.New("invalid arguments")

// NewRegistry returns a registry of tools. Names must be unique.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: map[string]Tool{}, compiled: map[string]*validator.Schema{}, params: map[string]api.ToolFunctionParameters{}}
	for _, t := range tools {
		if err := r.add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Registry) add(t Tool) error {
	if _, dup := r.byName[t.Name()]; dup {
		return fmt.Errorf("tool %s registered twice", t.Name())
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(t.Parameters()))
	if err != nil {
		return fmt.Errorf("tool %s: schema: %w", t.Name(), err)
	}
	c := validator.NewCompiler()
	c.UseLoader(selfContained{})
	url := "shrimp://tool/" + t.Name()
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("tool %s: schema: %w", t.Name(), err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("tool %s: compile schema: %w", t.Name(), err)
	}
	r.byName[t.Name()] = t
	r.compiled[t.Name()] = s
	r.params[t.Name()] = toolschema.ForModel(t.Parameters()) // what Ollama would drop, resolved or said
	r.tools = append(r.tools, t)
	slices.SortFunc(r.tools, func(a, b Tool) int { return strings.Compare(a.Name(), b.Name()) })
	return nil
}

// selfContained is the schema compiler's loader: it loads nothing. The
// compiler's own would read any file:// a schema names ("$ref",
// "$schema"), and a server's schema is not to make Shrimp read the user's
// files (their values would come back in validation errors) or wait on a
// FIFO. The JSON Schema drafts' meta-schemas are built in and still work.
type selfContained struct{}

func (selfContained) Load(url string) (any, error) {
	return nil, fmt.Errorf("a tool's schema must be self-contained: it refers to %s, which Shrimp does not load", url)
}

// With returns a new registry with extra tools added.
func (r *Registry) With(tools ...Tool) (*Registry, error) {
	out, err := NewRegistry(append(slices.Clone(r.tools), tools...)...)
	if err == nil {
		out.aliases, out.others = r.aliases, r.others
	}
	return out, err
}

// WithValid returns a new registry with the extra tools whose schemas
// compile and whose names are free; the others are left out, each with
// its error (tools from outside, such as MCP servers, must not break a
// run).
func (r *Registry) WithValid(tools ...Tool) (*Registry, []error) {
	out, _ := NewRegistry(r.tools...)
	out.aliases, out.others = r.aliases, r.others
	var errs []error
	for _, t := range tools {
		if err := out.add(t); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errs
}

// Names returns the tool names in order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Name()
	}
	return out
}

// Has reports whether a tool of that name is registered.
func (r *Registry) Has(name string) bool { _, ok := r.byName[name]; return ok }

// Resolve returns the registered name a model's spelling of one stands
// for (fs_read, FS.Read, mcp__server__tool; internal/toolname), when
// exactly one tool has it, else the tool another agent's name for it
// stands for (SetAliases: Bash for shell.run).
func (r *Registry) Resolve(name string) (string, bool) {
	return toolname.New(r.Names(), r.aliases).Resolve(name)
}

// Lookup returns the named tool.
func (r *Registry) Lookup(name string) (Tool, bool) { t, ok := r.byName[name]; return t, ok }

// Specs returns the definitions offered to the model.
func (r *Registry) Specs() api.Tools {
	out := make(api.Tools, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name(), Description: t.Description(), Parameters: r.params[t.Name()]}})
	}
	return out
}

// Check validates a call: the tool exists and args match its schema.
func (r *Registry) Check(name string, args json.RawMessage) error {
	t, ok := r.byName[name]
	if !ok {
		if name == "" {
			return fmt.Errorf("%w: the tool call could not be read (%s); call one of: %s, with a JSON object of arguments",
				ErrUnknown, compact(args, 200), strings.Join(r.Names(), ", "))
		}
		return fmt.Errorf("%w %q; available tools: %s", ErrUnknown, name, strings.Join(r.Names(), ", "))
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("%w for %s: not JSON (%v); expected arguments matching %s", ErrInvalidArgs, name, err, t.Parameters())
	}
	if err := r.compiled[name].Validate(doc); err != nil {
		msg := err.Error()
		if ve := (*validator.ValidationError)(nil); errors.As(err, &ve) {
			msg = strings.Join(faults(ve, nil), "; ")
		}
		return fmt.Errorf("%w for %s: %s; expected arguments matching %s", ErrInvalidArgs, name, msg, t.Parameters())
	}
	if v, ok := t.(Vetter); ok {
		if err := v.Vet(args); err != nil {
			return fmt.Errorf("%w for %s: %w", ErrInvalidArgs, name, err)
		}
	}
	return nil
}

// Run runs a tool by name after checking its arguments.
func (r *Registry) Run(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if err := r.Check(name, args); err != nil {
		return "", err
	}
	return r.byName[name].Run(ctx, args)
}

// english words the validator's faults.
var english = message.NewPrinter(language.English)

// faults lists what is wrong with arguments, one fault a line's worth:
// "missing property 'path'", "at /items/0: got string, want number". The
// validator's own text begins with its schema's address and nests causes
// a model need not read.
func faults(ve *validator.ValidationError, out []string) []string {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			out = faults(c, out)
		}
		return out
	}
	msg := strings.Join(strings.Fields(ve.ErrorKind.LocalizedString(english)), " ")
	if len(ve.InstanceLocation) > 0 {
		msg = "at /" + strings.Join(ve.InstanceLocation, "/") + ": " + msg
	}
	return append(out, msg)
}

func compact(b []byte, n int) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

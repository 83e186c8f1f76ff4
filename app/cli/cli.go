// Package cli is Shrimp's headless door: the subcommands that run the same
// harness as the window, for scripts, SSH sessions and tests. It never
// starts GTK. Main returns the process exit code: 0 on success, 1 when the
// command failed (one line on stderr says why and what to do), 2 for a
// usage error.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/redact"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/sqlite"
	"github.com/shrimp-harness/shrimp/internal/termsafe"
)

// env is what every command gets: its output streams and the global flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// screen is stderr as given, unescaped: only the conversation's line
	// editor writes to it, drawing its prompt and the keys typed.
	screen io.Writer
	// rawStdout is stdout as given: only the answer's Markdown styles
	// reach it unescaped (styler), the text itself escaped.
	rawStdout io.Writer
	cfg       app.Config
	log       *slog.Logger
	// secrets takes secrets out of text (redact.FromEnv), built once: for
	// the log lines and what commands show that may hold one.
	secrets *redact.Redactor
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	usage   string
	run     func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{name: "version", summary: "print the version", usage: "shrimp version", run: runVersion},
		{name: "chat", summary: "run one request to the end, or, at a terminal without a message, a conversation", usage: "shrimp chat [--json] [--session ID] [--workspace DIR] [--approve ask|read|all|none] [--think] [--allow-private-net] [--idle-timeout D] [--max-turns N] [--image FILE]... MESSAGE (text piped in goes after it, a picture piped in is its image) | -- MESSAGE | - (the message from standard input) | nothing (text piped in is the message; at a terminal: one request after another in one session; /help)", run: runChat},
		{name: "sessions", summary: "list, show, export, undo, rename, delete or redact stored sessions", usage: "shrimp sessions list [--limit N] [--search TEXT] [--json] | show ID [--json] | export ID --format md|json | undo ID [--request N | --redo] [--keep PATH]... [--anyway PATH]... [--diff] [--yes] [--json] (put back the files a request changed, or take back the last undo) | rename ID NAME (in place of its first request's words) | delete ID [--yes] (the session, its notes and its undo; not your files) | redact (take secrets out of what older versions kept)", run: runSessions},
		{name: "procedures", summary: "list, show, recall, forget, restore, weigh, export, import or evaluate learned procedures", usage: "shrimp procedures list [--json] | show ID [--json] | recall [--json] [--limit N] QUERY | forget ID | restore ID | worth [--days N] [--json] | export [--examples] [FILE] (to another machine or person; standard output without FILE) | import [--dry-run] [--json] FILE|- | eval --dataset FILE [--engine bleve|like|all]", run: runProcedures},
		{name: "facts", summary: "set, approve, delete, search or list long-term facts", usage: "shrimp facts set KEY VALUE [--source S] | approve KEY | delete KEY | search [--json] QUERY | list [--json]", run: runFacts},
		{name: "rules", summary: "list or revoke remembered approval rules", usage: "shrimp rules list [--json] | revoke TOOL [--workspace DIR] [--command TEXT]", run: runRules},
		{name: "models", summary: "list the models installed in Ollama", usage: "shrimp models list [--json] | ctx MODEL [TOKENS] | params MODEL [NAME=VALUE]... [--json] (sampling: temperature, top_p, top_k, min_p, repeat_penalty, seed; NAME= for the model's own) | params MODEL --reset", run: runModels},
		{name: "mcp", summary: "list, add, remove, enable, disable, check or import MCP servers, choose the tools they offer, sign in to them and list their tools, prompts and resources", usage: "shrimp mcp list [--json] | status [--json] | add NAME [--read-only] [--local] [--timeout SECONDS] [--env KEY=VALUE]… -- COMMAND ARGS… | add NAME --url URL [--header 'NAME: VALUE']… [--client-id ID [--client-secret S] [--callback-port N]] | remove NAME | enable NAME | disable NAME | exclude NAME TOOL | include NAME TOOL | tools NAME [--json] | check NAME | prompts NAME [--json] | prompt NAME PROMPT [ARGUMENT=VALUE]… | resources NAME [--json] | resource NAME URI | login NAME | logout NAME | import FILE", run: runMCP},
		{name: "doctor", summary: "check Ollama, models, the data directory, the database, the index and the window's libraries", usage: "shrimp doctor [--json] [--rebuild-index] [--salvage]", run: runDoctor},
		{name: "bench", summary: "run the procedure benchmark: a task suite with procedural memory off and on", usage: "shrimp bench procedures --tasks DIR --model NAME [--repeats N] [--json] [--report FILE.html]", run: runBench},
		{name: "completion", summary: "print a shell completion script", usage: "shrimp completion bash|zsh|fish", run: runCompletion},
		{name: "man", summary: "print the manual page shrimp(1)", usage: "shrimp man", run: runMan},
		{name: "skills", summary: "list the skills (SKILL.md folders) a request would be offered", usage: "shrimp skills list [--json] [--workspace DIR]", run: runSkills},
		{name: "commands", summary: "list the saved commands (Claude Code's .claude/commands, Codex's prompts) a request may start from, or show one filled in", usage: "shrimp commands list [--json] [--workspace DIR] | show NAME [ARGS…] [--workspace DIR]", run: runCommands},
		{name: "hooks", summary: "list, add, import (Claude Code's, Codex's, Gemini CLI's, Cursor's), try, time, switch off or remove commands run on agent events", usage: "shrimp hooks list [--json] | add EVENT [--tool PATTERN] [--timeout SECONDS] (-- COMMAND ARGS… | --prompt QUESTION) | import [--dry-run] [--json] [SETTINGS] | try ID [--tool NAME] [--args JSON] [--text REQUEST] [--answer TEXT] [--output TEXT] [--workspace DIR] | timeout ID SECONDS | enable ID | disable ID | remove ID", run: runHooks},
	}
}

// wailsFlags are the flags the window's dev build reads (wails dev,
// -devserver for browser tests); with them the window door is taken.
var wailsFlags = []string{"devserver", "assetdir", "frontenddevserverurl", "loglevel", "tsprefix", "tssuffix", "tsoutputtype"}

// Handles reports whether args (without the program name) are for the CLI
// rather than the window: any argument except the window's own dev flags.
func Handles(args []string) bool {
	if len(args) == 0 {
		return false
	}
	name := strings.TrimLeft(strings.SplitN(args[0], "=", 2)[0], "-")
	return !(strings.HasPrefix(args[0], "-") && slices.Contains(wailsFlags, name))
}

// errUsage marks an error as a usage error (exit code 2).
var errUsage = errors.New("usage")

// Main runs the CLI with args (without the program name).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return MainWithInput(ctx, args, os.Stdin, stdout, stderr)
}

// MainWithInput is Main reading standard input from stdin (`chat -`).
// Everything it prints goes through termsafe: answers, files, pages, tool
// output and server descriptions are not the user's, and a terminal obeys
// the escape sequences they may hold.
func MainWithInput(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	safeOut, safeErr := termsafe.New(stdout), termsafe.New(stderr)
	defer safeOut.Flush()
	defer safeErr.Flush()
	e := &env{stdin: stdin, stdout: safeOut, stderr: safeErr, screen: stderr, rawStdout: stdout}
	stdout, stderr = safeOut, safeErr
	rest, help, err := parseGlobals(args, &e.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "shrimp: %v\n", err)
		return 2
	}
	level := slog.LevelWarn
	if os.Getenv("SHRIMP_DEBUG") != "" {
		level = slog.LevelDebug
	}
	// Secrets out of the log lines, as the window's log file has them (a
	// server's address with its key in an error, a token in a command).
	e.secrets = redact.FromEnv()
	e.log = slog.New(slog.NewTextHandler(redacting{stderr, e.secrets}, &slog.HandlerOptions{Level: level}))
	if len(rest) > 0 && (rest[0] == "--version" || rest[0] == "-version") {
		rest[0] = "version" // what people type first
	}
	if len(rest) == 0 || rest[0] == "help" {
		if len(rest) > 1 {
			return MainWithInput(ctx, append(rest[1:], "--help"), stdin, stdout, stderr)
		}
		printHelp(stdout)
		if help || len(rest) > 0 {
			return 0
		}
		return 2
	}
	i := slices.IndexFunc(commands(), func(c command) bool { return c.name == rest[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "shrimp: unknown command %q; run `shrimp --help` for the list\n", rest[0])
		return 2
	}
	cmd := commands()[i]
	if help {
		fmt.Fprintf(stdout, "%s\n\nUsage: %s\n", cmd.summary, cmd.usage)
		return 0
	}
	if err := cmd.run(ctx, e, rest[1:]); err != nil {
		if errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "shrimp %s: %v\nUsage: %s\n", cmd.name, err, cmd.usage)
			return 2
		}
		if errors.Is(err, errChecksFailed) {
			return 1 // the report said what failed
		}
		if errors.Is(err, syscall.EPIPE) {
			// The reader went away (`shrimp sessions list | head -1`):
			// nothing to say, and no one to say it to on a pipe; the
			// status a shell gives a program SIGPIPE ended.
			return 141
		}
		msg := oneLine(err)
		if sqlite.IsCorrupt(err) && cmd.name != "doctor" && !strings.Contains(msg, "--salvage") {
			msg += "; the database is damaged: " + sqlite.Damaged
		}
		fmt.Fprintf(stderr, "shrimp %s: %s\n", cmd.name, msg)
		return 1
	}
	return 0
}

// redacting writes what the redactor leaves of each write: slog writes a
// record in one.
type redacting struct {
	w io.Writer
	r *redact.Redactor
}

func (w redacting) Write(p []byte) (int, error) {
	out, _ := w.r.String(string(p))
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// parseGlobals takes the global flags out of args wherever they stand and
// returns the rest in order. Everything after "--" is left alone.
func parseGlobals(args []string, cfg *app.Config) (rest []string, help bool, err error) {
	var idle string
	defer func() {
		if err == nil && idle != "" {
			cfg.IdleTimeout, err = model.ParseIdleTimeout(idle)
			if err != nil {
				err = fmt.Errorf("--idle-timeout: %w", err)
			}
		}
	}()
	targets := map[string]*string{"data-dir": &cfg.DataDir, "ollama": &cfg.OllamaHost, "model": &cfg.Model, "idle-timeout": &idle, "embed-model": &cfg.EmbedModel}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), help, nil
		}
		if a == "-h" || a == "--help" || a == "-help" {
			help = true
			continue
		}
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		target, ok := targets[name]
		if !ok {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, false, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		*target = value
	}
	return rest, help, nil
}

// globalFlags are the flags every command takes, for the help, the man
// page and the shell completions.
var globalFlags = []struct{ Name, Arg, Help string }{
	{"data-dir", "DIR", "where sessions and memory live ($SHRIMP_DATA_DIR, default the XDG data dir)"},
	{"ollama", "URL", "the Ollama server ($OLLAMA_HOST, default http://127.0.0.1:11434)"},
	{"model", "NAME", "the model to use ($SHRIMP_MODEL, else the default chosen in the window's Settings, else the first installed model that calls tools)"},
	{"idle-timeout", "D", "how long a model request may send nothing before it is given up ($SHRIMP_IDLE_TIMEOUT, else Settings, default 5m; for example 90s, 10m)"},
	{"embed-model", "NAME", "an Ollama embedding model recall compares meanings with, for example nomic-embed-text ($SHRIMP_EMBED_MODEL, else Settings; default none: the built-in sentence encoder)"},
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `Shrimp: an agent harness for local models.

Usage:
  shrimp                 open the window
  shrimp COMMAND [flags] run a command headless

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nGlobal flags (before or after the command):\n")
	for _, f := range globalFlags {
		fmt.Fprintf(w, "  --%s %s\n      %s\n", f.Name, f.Arg, f.Help)
	}
	fmt.Fprint(w, "\nRun \"shrimp COMMAND --help\" for a command's usage.\n")
}

// newFlags returns a flag set for a command that reports usage errors as
// errUsage and prints nothing itself.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

func runVersion(_ context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: version takes no arguments", errUsage)
	}
	// The Go release says which standard library's fixes the binary has
	// (docs/SECURITY.md).
	fmt.Fprintf(e.stdout, "shrimp %s (%s, %s/%s)\n", app.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// jsonOut encodes JSON on standard output as people and jq read it:
// commands keep their "<", ">" and "&" (jsonplain.NewEncoder).
func (e *env) jsonOut() *json.Encoder { return jsonplain.NewEncoder(e.stdout) }

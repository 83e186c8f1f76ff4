package shell

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Description is what a command would do, read from its parsed form
// (mvdan.cc/sh/v3) before the user is asked about it. It judges the
// command, not a prefix of it: every statement, pipe, substitution and
// redirection counts.
type Description struct {
	Programs []string // every program it runs, in order, without repeats
	Effects  []string // what it does, one fact per line
	Warnings []string // what deserves a second look
	// Unparsed holds the parse error of a command that is not valid shell:
	// nobody can tell what it does, so it must be answered by the user.
	Unparsed string
	// Network holds each part of the command that reaches another
	// machine (its words, shortened): what it prints is content from
	// outside, which may carry instructions.
	Network []string
	// Writes are the paths, as written, the command may write or remove:
	// its output redirections' targets and the arguments of programs that
	// write the files they name (describe.json's writers). Not every file
	// it writes (a script's are unknown): the caller judges these before
	// it runs.
	Writes []string
	// GitConfig are the keys a `git config` in it sets, changes or
	// removes in the repository's config (its .git/config), as written;
	// "" for one that cannot be read from the command (a variable, an
	// editor, a section renamed): the caller judges them before it runs.
	GitConfig []string
	// Words are the command's literal arguments that are not options
	// (and its redirections' targets), as written, at most maxWords:
	// what may name a file or folder it works on, for the caller to look
	// up (a subfolder's instructions, a rule for such files).
	Words []string
}

// maxWords bounds Description.Words.
const maxWords = 32

//go:embed describe.json
var describeJSON []byte

// vocabulary is describe.json: the programs a description points out.
type vocabulary struct {
	Shells      []string            `json:"shells"`
	POSIXShells []string            `json:"posix_shells"`
	Wrappers    map[string][]string `json:"wrappers"`
	Positional  map[string]int      `json:"positional_wrappers"`
	Privileged  []string            `json:"privileged"`
	Deleters    map[string][]string `json:"deleters"`
	Evaluators  []string            `json:"evaluators"`
	Network     map[string]netProg  `json:"network"`
	Copiers     []string            `json:"copiers"`
	Writers     map[string][]string `json:"writers"`
	Secrets     []string            `json:"secrets"`
	State       []string            `json:"state_builtins"`
}

// netProg is a program that reaches another machine (describe.json's
// network).
type netProg struct {
	Subcommands []string `json:"subcommands"` // the only ones that do; none: all do
	ValueFlags  []string `json:"value_flags"` // flags that take the next word
}

var vocab = func() vocabulary {
	var v vocabulary
	if err := json.Unmarshal(describeJSON, &v); err != nil {
		panic(fmt.Sprintf("shell: describe.json: %v", err)) // embedded data; a test reads it
	}
	return v
}()

// secretPaths are vocab.Secrets, compiled.
var secretPaths = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(vocab.Secrets))
	for _, p := range vocab.Secrets {
		out = append(out, regexp.MustCompile(p)) // embedded data; a test compiles each
	}
	return out
}()

// Describe parses command as the shell would and says what it does;
// workspace is where it runs (redirections and directories outside it are
// marked).
func Describe(command, workspace string) Description {
	var d Description
	w := describer{d: &d, workspace: filepath.Clean(workspace)}
	if !w.walk(command, "the command does not parse as shell", language(Interpreter())) {
		return d
	}
	if len(d.Programs) > 0 {
		d.Effects = append([]string{"runs: " + strings.Join(d.Programs, ", ")}, d.Effects...)
	}
	return d
}

type describer struct {
	d         *Description
	workspace string
	lang      syntax.LangVariant // the grammar of the shell running the code described
}

func (w describer) warn(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !slices.Contains(w.d.Warnings, s) {
		w.d.Warnings = append(w.d.Warnings, s)
	}
}

func (w describer) effect(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !slices.Contains(w.d.Effects, s) {
		w.d.Effects = append(w.d.Effects, s)
	}
}

func (w describer) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		if n.Background || n.Coprocess || n.Disown {
			w.warn("starts a background job (Shrimp stops it when the call ends)")
		}
		for _, r := range n.Redirs {
			w.redirect(r)
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			if name := program(n.Y); slices.Contains(vocab.Shells, name) {
				w.warn("pipes text into %s, which runs it as a program", name)
			}
		}
	case *syntax.CallExpr:
		w.call(w.expandBraces(n.Args))
	case *syntax.ProcSubst:
		w.effect("uses a process substitution")
	}
	return true
}

// call describes one simple command, and the program a wrapper runs.
func (w describer) call(args []*syntax.Word) {
	for len(args) > 0 {
		name, ok := literal(args[0])
		if !ok {
			w.warn("runs a program whose name is worked out when it runs (%s)", printWord(args[0]))
			w.unknownNetwork(printWord(args[0]), args[1:])
			return
		}
		base := filepath.Base(name)
		if !slices.Contains(w.d.Programs, name) {
			w.d.Programs = append(w.d.Programs, name)
		}
		rest := args[1:]
		lits := make([]string, 0, len(rest))
		for _, a := range rest {
			s, ok := literal(a)
			if !ok {
				s = printWord(a)
			}
			lits = append(lits, s)
		}
		switch {
		case slices.Contains(vocab.Privileged, base):
			w.warn("runs as another user (%s)", base)
		case slices.Contains(vocab.Evaluators, base):
			w.warn("runs text as shell code (%s)", base)
			if code, ok := evaluated(base, rest); ok {
				w.walk(code, "the code given to "+base+" does not parse", w.lang)
			}
		case slices.Contains(vocab.Shells, base):
			if i := slices.IndexFunc(lits, func(s string) bool { return s == "-c" || s == "-e" }); i >= 0 && i+1 < len(lits) {
				w.warn("runs text as a program: %s %s %q", base, lits[i], lits[i+1])
				if code, ok := literal(rest[i+1]); ok && slices.Contains(vocab.POSIXShells, base) {
					w.walk(code, "the code given to the shell does not parse", language(base))
				}
			}
		}
		if flags, ok := vocab.Deleters[base]; ok {
			w.deletes(base, flags, lits)
		}
		if flags, ok := vocab.Writers[base]; ok && (len(flags) == 0 || slices.ContainsFunc(lits, func(a string) bool {
			return slices.ContainsFunc(flags, func(f string) bool { return strings.HasPrefix(a, f) }) // -i, -i.bak, -pie
		})) {
			for _, a := range lits {
				if !strings.HasPrefix(a, "-") {
					w.writes(a)
				}
			}
		}
		if base == "git" {
			w.d.GitConfig = append(w.d.GitConfig, gitConfigKeys(rest, lits)...)
		}
		w.network(base, rest, lits)
		for _, a := range lits {
			if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
				a = v // --key=/root/.ssh/id_rsa
			}
			w.secret(a)
		}
		for i, a := range lits {
			if _, lit := literal(rest[i]); lit && !strings.HasPrefix(a, "-") {
				w.word(a)
			}
		}
		if base == "cd" && len(lits) > 0 && w.outside(lits[0]) {
			w.warn("changes to a directory outside the workspace: %s", lits[0])
		}
		valueFlags, wraps := vocab.Wrappers[base]
		if !wraps {
			return
		}
		args = unwrap(base, rest, valueFlags)
	}
}

// language is the grammar code run by shell (a path or a name) is read
// in: bash's for bash (and zsh, near enough), Korn's for ksh and mksh,
// POSIX's for sh, dash and busybox. Debian's sh is dash, which reads
// "make &> log" as "make &" and "> log": read as bash, that was a
// redirect and no background job.
func language(shell string) syntax.LangVariant {
	switch filepath.Base(shell) {
	case "bash", "zsh":
		return syntax.LangBash
	case "ksh", "mksh":
		return syntax.LangMirBSDKorn
	}
	return syntax.LangPOSIX
}

// walk parses code in lang and describes every node of it; code that
// does not parse is marked Unparsed, with a warning that starts with
// what.
func (w describer) walk(code, what string, lang syntax.LangVariant) bool {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(code), "")
	if err != nil {
		w.d.Unparsed = err.Error()
		w.warn("%s (%v): Shrimp cannot tell what it would do", what, err)
		return false
	}
	w.lang = lang
	syntax.Walk(f, w.visit)
	return true
}

// evaluated returns the code an evaluator's words hand the shell, when
// they are written out: eval's words joined, trap's action (its first
// word that is no option), each alias's value; what is sourced is a
// file, not code.
func evaluated(base string, rest []*syntax.Word) (string, bool) {
	var lits []string
	for _, a := range rest {
		s, ok := literal(a)
		if !ok {
			return "", false
		}
		lits = append(lits, s)
	}
	switch base {
	case "eval":
		return strings.Join(lits, " "), len(lits) > 0
	case "trap":
		for _, s := range lits {
			if s != "--" && !strings.HasPrefix(s, "-") {
				return s, true
			}
		}
	case "alias":
		var code []string
		for _, s := range lits {
			if _, v, ok := strings.Cut(s, "="); ok {
				code = append(code, v)
			}
		}
		return strings.Join(code, "\n"), len(code) > 0
	}
	return "", false
}

// maxExpanded is how many words a command's brace expansions are
// followed to.
const maxExpanded = 1024

// expandBraces returns a command's words as bash (and ksh, zsh) expands
// their braces before running it: "{rm,-rf,~}" is rm -rf ~ and
// "{curl,https://x.example}" a fetch, where read as one word they were a
// program named "{rm,-rf,~}" (dash has no brace expansion: there it is
// one). Past maxExpanded words the rest is left, and said.
func (w describer) expandBraces(args []*syntax.Word) []*syntax.Word {
	if w.lang == syntax.LangPOSIX {
		return args
	}
	out := make([]*syntax.Word, 0, len(args))
	for _, a := range args {
		split := *a // the walk goes on through a, which must keep no BraceExp (syntax.Walk does not know them)
		if !syntax.SplitBraces(&split) {
			out = append(out, a)
			continue
		}
		for x, err := range expand.BracesSeq(nil, &split) {
			if err != nil || len(out) >= maxExpanded {
				w.warn("its braces expand to more than %d words: Shrimp describes the first", maxExpanded)
				return out
			}
			out = append(out, x)
		}
	}
	return out
}

// unwrap skips a wrapper's options (and, for env, its assignments) and
// returns the wrapped command's words.
func unwrap(base string, rest []*syntax.Word, valueFlags []string) []*syntax.Word {
	i := 0
	for i < len(rest) {
		s, _ := literal(rest[i])
		switch {
		case s == "--":
			i++
			return skipPositional(base, rest[i:])
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if slices.Contains(valueFlags, s) {
				i++
			}
			i++
		case base == "env" && strings.Contains(s, "="):
			i++
		default:
			return skipPositional(base, rest[i:])
		}
	}
	return nil
}

func skipPositional(base string, rest []*syntax.Word) []*syntax.Word {
	n := vocab.Positional[base]
	if n > len(rest) {
		return nil
	}
	return rest[n:]
}

// deletes marks what a deleting program removes.
func (w describer) deletes(base string, recursiveFlags, args []string) {
	recursive := len(recursiveFlags) == 0 && base != "rmdir" && base != "shred"
	var targets []string
	for _, a := range args {
		switch {
		case slices.Contains(recursiveFlags, a):
			recursive = true
		case base == "rm" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"):
			recursive = true
		case !strings.HasPrefix(a, "-"):
			targets = append(targets, a)
		}
	}
	if base == "find" || base == "git" {
		if !recursive {
			return
		}
		targets = nil
	}
	what := strings.Join(targets, " ")
	if what == "" {
		what = "(see the command)"
	}
	if recursive {
		w.warn("deletes recursively: %s", what)
	} else {
		w.effect("deletes: %s", what)
	}
	for _, t := range targets {
		switch strings.TrimRight(t, "/") {
		case "~", ".", "*", "./*", "~/*":
			w.warn("deletes %s: the whole workspace (the shell's ~ is the workspace)", t)
		}
	}
	for _, t := range targets {
		if w.outside(t) {
			w.warn("deletes outside the workspace: %s", t)
		}
	}
}

// redirect describes one redirection.
func (w describer) redirect(r *syntax.Redirect) {
	if r.Word == nil || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
		return
	}
	target, ok := literal(r.Word)
	writes := r.Op != syntax.RdrIn
	if r.Op == syntax.DplOut || r.Op == syntax.DplIn {
		return // >&2, <&0: between the command's own streams
	}
	verb := "reads"
	if writes {
		verb = "writes"
	}
	if !ok {
		target = strings.Trim(printWord(r.Word), `"'`) // a host worked out when it runs: "/dev/tcp/$HOST/80"
	}
	if proto, host, port, isNet := netDevice(target); isNet {
		w.socket(proto, host, port, r.Op.String())
		return
	}
	switch {
	case !ok:
		w.warn("%s a file whose name is worked out when it runs (%s %s)", verb, r.Op, printWord(r.Word))
	case isStream(target):
	case w.outside(target):
		w.warn("%s outside the workspace: %s %s", verb, r.Op, target)
		w.secret(target)
	default:
		w.effect("%s %s (%s)", verb, target, r.Op)
	}
	if ok && writes {
		w.writes(target)
	}
	if ok {
		w.word(target)
	}
}

// netDevice reads a redirection's target that is bash's network device:
// /dev/tcp/HOST/PORT or /dev/udp/HOST/PORT opens a connection, no
// program needed ("cat < /dev/tcp/host/80", "echo data >
// /dev/tcp/host/443").
func netDevice(target string) (proto, host, port string, ok bool) {
	rest, found := strings.CutPrefix(target, "/dev/")
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || (parts[0] != "tcp" && parts[0] != "udp") || parts[1] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// socket describes a redirection to bash's network device: another
// machine's is network access (what it reads is content from outside)
// and worth a second look, as nothing in the command names a program
// that reaches the network.
func (w describer) socket(proto, host, port, op string) {
	where := host + ":" + port
	if loopback(host) {
		w.effect("connects to this machine's %s (%s /dev/%s)", where, op, proto)
		return
	}
	w.markNetwork("/dev/"+proto, []string{where})
	w.warn("opens a %s connection to %s through bash's /dev/%s (%s): no program in it names the network", strings.ToUpper(proto), where, proto, op)
}

// word notes a literal argument (Description.Words).
func (w describer) word(a string) {
	if a != "" && len(w.d.Words) < maxWords && !isStream(a) && !slices.Contains(w.d.Words, a) {
		w.d.Words = append(w.d.Words, a)
	}
}

// writes notes a path the command may write (Description.Writes); ~ is
// the workspace, the shell's HOME.
func (w describer) writes(p string) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = "." + p[1:]
	}
	if !isStream(p) && !slices.Contains(w.d.Writes, p) {
		w.d.Writes = append(w.d.Writes, p)
	}
}

// secret points out a word naming a file or folder where people keep
// keys, tokens or passwords (describe.json's secrets): the sandbox lets a
// command read it, and what the command prints goes to the model. Inside
// the workspace too: a workspace that is the home folder holds ~/.ssh.
func (w describer) secret(word string) {
	clean := filepath.ToSlash(filepath.Clean(word))
	for _, re := range secretPaths {
		if re.MatchString(clean) {
			w.warn("names where secrets may be kept: %s (what the command prints goes to the model)", word)
			return
		}
	}
}

func isStream(p string) bool {
	return p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/")
}

// outside reports whether a literal path leads outside the workspace.
// The shell's HOME is the workspace, so ~ stays inside; ~user does not.
func (w describer) outside(p string) bool {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = "." + p[1:]
	case strings.HasPrefix(p, "~"):
		return true
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.workspace, p)
	}
	rel, err := filepath.Rel(w.workspace, filepath.Clean(p))
	return err != nil || rel == ".." || strings.HasPrefix(rel, "../")
}

// program returns the name of the program a pipeline stage runs ("" when
// it is not a simple command with a literal name), through wrappers.
func program(s *syntax.Stmt) string {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return ""
	}
	args := call.Args
	for len(args) > 0 {
		name, ok := literal(args[0])
		if !ok {
			return ""
		}
		base := filepath.Base(name)
		flags, wraps := vocab.Wrappers[base]
		if !wraps {
			return base
		}
		args = unwrap(base, args[1:], flags)
	}
	return ""
}

// literal returns a word's value when it holds no expansion.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				// bash's ANSI-C quoting: $'\x72m' is rm. A NUL ends
				// the word, as it does for bash.
				s, _, err := expand.Format(nil, v, nil)
				if err != nil {
					return "", false
				}
				v, _, _ = strings.Cut(s, "\x00")
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape drops the backslashes of an unquoted literal (r\m is rm).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func printWord(w *syntax.Word) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return "?"
	}
	return b.String()
}

// gitConfigKeys returns the keys `git … config …` (args, lits: its
// arguments and their literal text) writes in the repository's config,
// "" for one not known; none for a command that only reads it, writes
// another file (--global, --system, --file), or is not git config.
func gitConfigKeys(args []*syntax.Word, lits []string) []string {
	i := 0
	for i < len(lits) && strings.HasPrefix(lits[i], "-") { // git's own options
		if lits[i] == "-C" || lits[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(lits) || lits[i] != "config" {
		return nil
	}
	var pos []string // positional arguments; a key that is not literal is ""
	var reads, writesFlag, elsewhere bool
	for j := i + 1; j < len(lits); j++ {
		a := lits[j]
		if _, lit := literal(args[j]); !lit {
			pos = append(pos, "")
			continue
		}
		switch {
		case a == "--global" || a == "--system" || a == "--file" || a == "-f" || strings.HasPrefix(a, "--file=") || a == "--blob" || strings.HasPrefix(a, "--blob="):
			elsewhere = true
		case slices.Contains([]string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l", "--list", "--show-origin", "--show-scope"}, a):
			reads = true
		case slices.Contains([]string{"--add", "--unset", "--unset-all", "--replace-all"}, a):
			writesFlag = true
		case a == "-e" || a == "--edit" || a == "--rename-section" || a == "--remove-section":
			return []string{""}
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	switch {
	case elsewhere || reads || len(pos) == 0:
		return nil
	case slices.Contains([]string{"get", "list"}, pos[0]):
		return nil
	case slices.Contains([]string{"edit", "rename-section", "remove-section"}, pos[0]):
		return []string{""}
	case (pos[0] == "set" || pos[0] == "unset") && len(pos) > 1:
		return []string{pos[1]}
	case len(pos) >= 2 || writesFlag:
		return []string{pos[0]}
	}
	return nil // one key alone: read
}

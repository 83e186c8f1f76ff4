package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Each call runs in a new shell that starts in the workspace, so what a
// command only does to the shell itself (cd, export, source, set) is
// gone when it ends. Models used to harnesses whose shell lives on
// (Claude Code's keeps its folder) call `cd web` and then `npm install`
// apart, which installs in the workspace's top. The tool's description
// says so, and a command that does nothing else is told so in its
// output.

// afresh is what a command that only changed the shell's state is told.
const afresh = "\n[nothing else ran: each shell.run starts a new shell in the workspace, so what this command did to the shell (its folder, variables, options) is gone; put it before the command that needs it: cd web && npm install]"

// stateOnly reports whether command does nothing but change the shell's
// own state: describe.json's state_builtins and variable assignments,
// alone or joined by ;, && or ||.
func stateOnly(command string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	only := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !only || n == nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.File:
			return true
		case *syntax.Stmt:
			if n.Background || n.Coprocess || n.Negated {
				only = false
			}
			return only
		case *syntax.BinaryCmd:
			if n.Op != syntax.AndStmt && n.Op != syntax.OrStmt {
				only = false // a pipe runs its parts in subshells
			}
			return only
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return false // assignments alone: the shell's variables
			}
			name, ok := literal(n.Args[0])
			only = ok && slices.Contains(vocab.State, name)
			return false
		case *syntax.DeclClause: // export, declare, local, readonly
			return false
		case *syntax.Comment, *syntax.Redirect:
			return false
		}
		only = false
		return false
	})
	return only
}

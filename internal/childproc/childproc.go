// Package childproc says how Shrimp starts a program it owns (a hook, an
// MCP server, Ollama): in a process group of its own, so the whole group
// can be stopped, and, where the system can, killed with a signal when
// Shrimp dies, even by SIGKILL.
//
// Linux delivers that signal itself (the parent-death signal). Other
// Unix systems have no such thing: there a child outlives a Shrimp that
// was killed outright, and is stopped only when Shrimp exits in order.
package childproc

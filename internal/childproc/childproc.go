// Package childproc says how Shrimp starts a program it owns (a shell
// command, a hook, an MCP server, Ollama): in a process group of its own,
// so the whole group can be stopped, and, where the system can, stopped
// when Shrimp dies, even by SIGKILL.
//
// The group leads a session of its own, so the program has no controlling
// terminal, even under `shrimp chat` at one: a program that asks there
// (sudo's password, ssh's new host key, git's credentials, a gpg
// pinentry) fails at once, saying it needs a terminal, where it used to
// write its question into Shrimp's terminal (the user's answer, a
// password, went to Shrimp's prompt) and stop, as a background group
// reading the terminal is stopped, until the call timed out.
//
// Linux delivers a signal to a child when its parent dies (the
// parent-death signal), but to that child alone: what it started (the
// `sleep` of `sh -c "sleep 600; …"`, the server `npm run dev` runs)
// would live on with init as its parent. [Guard] therefore starts a
// program under a small shell that waits for it and, sent that signal,
// kills the whole group. Other Unix systems have no such signal: there a
// child outlives a Shrimp that was killed outright, and is stopped only
// when Shrimp exits in order.
//
// A process that leaves the group (setsid, a daemon) is beyond the
// guard's reach; the shell tool finds those by their environment when a
// call ends (backend/tool/shell), but not when Shrimp was killed.
package childproc

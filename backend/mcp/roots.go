//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 specification (SEP-2577) but stay served for at least a year, and servers in use ask for them (the filesystem server given no folder serves only the roots)

package mcp

import (
	"net/url"
	"path/filepath"
	"slices"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// roots is what a session has told its server of the workspaces, as MCP
// roots (file:// addresses; see Server.Roots).
type roots struct {
	mu     sync.Mutex // one change at a time, in order
	client *sdk.Client
	told   []string // the addresses told
}

// rootURI is a folder's file:// address.
func rootURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// sync tells the server the folders current() gives now, when they
// differ from what it was told: taken away, then added (each change a
// notifications/roots/list_changed; the server asks for the list again).
// Called on a goroutine of its own: a server that does not read its
// input holds only its own change.
func (r *roots) sync(current func() []string) {
	if r == nil || r.client == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var want []string
	var added []*sdk.Root
	for _, d := range current() {
		u := rootURI(d)
		want = append(want, u)
		if !slices.Contains(r.told, u) {
			added = append(added, &sdk.Root{URI: u, Name: filepath.Base(d)})
		}
	}
	var gone []string
	for _, u := range r.told {
		if !slices.Contains(want, u) {
			gone = append(gone, u)
		}
	}
	if len(gone) > 0 {
		r.client.RemoveRoots(gone...)
	}
	if len(added) > 0 {
		r.client.AddRoots(added...)
	}
	r.told = want
}

// SetRoots sets the folders the servers that take roots are told
// (Server.Roots): the workspaces of the runs under way. Servers connected
// later are told them as they connect. It does not wait for the servers.
//
// When dirs is one workspace other than the one the servers naming the
// editor's open folder (${workspaceFolder}) were started for, they start
// again for it: a server whose arguments name a folder works there alone.
// While runs in several workspaces are under way they stay where they
// are, offered to the runs in that workspace only (RegistryToolsFor).
func (m *Manager) SetRoots(dirs []string) {
	m.mu.Lock()
	var moved []*supervised
	if len(dirs) == 1 && dirs[0] != m.folder && !m.closed {
		m.folder = dirs[0]
		for name, s := range m.servers {
			if s.cfg.NamesWorkspace() && !s.cfg.Disabled {
				moved = append(moved, s)
				delete(m.servers, name)
			}
		}
	}
	if slices.Equal(m.roots, dirs) {
		m.mu.Unlock()
		m.move(moved)
		return
	}
	m.roots = slices.Clone(dirs)
	var told []*roots
	for _, s := range m.servers {
		if s.sess != nil && s.sess.roots != nil {
			told = append(told, s.sess.roots)
		}
	}
	m.mu.Unlock()
	m.move(moved)
	for _, r := range told {
		go r.sync(m.currentRoots)
	}
}

// move starts the servers taken out of m.servers for another workspace
// again (applying the latest settings adds what they hold and m.servers
// lacks, in the new workspace) and stops their old supervisors, without
// waiting for them.
func (m *Manager) move(moved []*supervised) {
	if len(moved) == 0 {
		return
	}
	m.apply(func() Config { return m.cfg })
	for _, s := range moved {
		m.log().Info("MCP server starts in another workspace", "server", s.name, "from", s.folder)
		go s.stop()
	}
}

// currentRoots returns the folders SetRoots set last.
func (m *Manager) currentRoots() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.roots)
}

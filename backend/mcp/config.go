// Package mcp connects Shrimp to Model Context Protocol servers: it keeps
// their configuration (mcp.json in the data directory, in the mcpServers
// format Claude Desktop and Cursor use, so a user can paste theirs) and
// talks to one server over stdio or streamable HTTP with the official Go
// SDK: list its tools, call one.
//
// Its contract: the configuration file is written whole (a temporary file
// renamed over it) with mode 0600, since it may hold secrets in env;
// server names are checked, so a tool can be named mcp.<server>.<tool>; a
// stdio server runs without a shell, and its process dies with the
// session.
package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"

	"github.com/shrimp-harness/shrimp/internal/datadir"
)

// FileName is the configuration file in the data directory.
const FileName = "mcp.json"

// Server is one configured server: a command (stdio) or a URL
// (streamable HTTP).
type Server struct {
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	URL      string            `json:"url,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// ReadOnly is the user's word that the server's tools only read: the
	// approval gate treats them as read-only tools.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Local is the user's word that the server's answers come from their
	// own machine and data (files, a local database), not from others:
	// reading them does not count as content from outside, after which
	// the approval gate asks again (see package approval).
	Local bool `json:"local,omitempty"`
	// Timeout bounds one tool call, in seconds (0: DefaultTimeout); the
	// name is the one Cline's settings use.
	Timeout int `json:"timeout,omitempty"`
}

// Config is mcp.json.
type Config struct {
	Servers map[string]Server `json:"mcpServers"`
}

// validName is what a server name may be: it becomes part of tool names.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// Check reports what is wrong with a server's configuration.
func (s Server) Check(name string) error {
	switch {
	case !validName.MatchString(name):
		return fmt.Errorf("server name %q: use up to 32 letters, digits, - and _ (it becomes part of tool names)", name)
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("server %s: give a command (stdio) or a url (streamable HTTP)", name)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("server %s: a command or a url, not both", name)
	}
	return nil
}

// Load reads Shrimp's own configuration at path; a missing file is an
// empty one. A file another user could have written is refused: it names
// commands Shrimp would run.
func Load(path string) (Config, error) {
	return load(path, true)
}

// LoadForeign reads another application's mcpServers file (for import),
// without the ownership check: nothing in it runs until it is imported.
func LoadForeign(path string) (Config, error) {
	return load(path, false)
}

func load(path string, private bool) (Config, error) {
	c := Config{Servers: map[string]Server{}}
	var b []byte
	var err error
	if private {
		b, err = datadir.ReadPrivate(path)
	} else if b, err = os.ReadFile(path); err != nil {
		err = fmt.Errorf("read %s: %w", path, err)
	}
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s is not valid mcp.json (%v): fix it or remove it", path, err)
	}
	if c.Servers == nil {
		c.Servers = map[string]Server{}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
		if err := c.Servers[name].Check(name); err != nil {
			return c, fmt.Errorf("%s: %w", path, err)
		}
	}
	return c, nil
}

// Save writes the configuration to path whole, mode 0600.
func (c Config) Save(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return datadir.WritePrivate(path, append(b, '\n'))
}

// Import adds the servers of another mcp.json (Claude Desktop's, Cursor's)
// and returns their names; a name already configured is an error, so
// nothing is replaced silently.
func (c *Config) Import(other Config) ([]string, error) {
	names := slices.Sorted(maps.Keys(other.Servers))
	for _, n := range names {
		if _, ok := c.Servers[n]; ok {
			return nil, fmt.Errorf("server %s is already configured: remove it first or rename it in the file", n)
		}
		if err := other.Servers[n].Check(n); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		c.Servers[n] = other.Servers[n]
	}
	return names, nil
}

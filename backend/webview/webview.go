// Package webview decides how the window's web view (WebKitGTK) draws on
// this machine: with the GPU or in software, and which of WebKit's
// environment switches the machine's graphics need before WebKit starts.
//
// Its contract: [Choose] reads only the file system under a root (the
// machine's "/" in use) and the environment it is given, never fails, and
// never overrides a WebKit variable the user set. The choice:
//   - SHRIMP_WINDOW_GPU=on or off decides, when set;
//   - else the GPU draws when this user can open a GPU render node
//     (/dev/dri/renderD*), and software draws when none can be opened (a
//     virtual machine, a remote desktop such as xrdp, Xvfb, a user outside
//     the render group): there, WebKit's "GPU" is Mesa's llvmpipe on the
//     CPU, slower than its own software path, or a blank window;
//   - with NVIDIA's driver loaded, WebKit's DMA-BUF renderer is turned off
//     (WEBKIT_DISABLE_DMABUF_RENDERER=1): that driver fails its buffer
//     mapping without a word and the window stays blank or white
//     (WebKit bugs 262607 and 180739, Wails issues 2977 and 4985).
package webview

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Override is the environment variable that decides, when set: on or off.
const Override = "SHRIMP_WINDOW_GPU"

// dmabuf is WebKitGTK's switch for its DMA-BUF renderer.
const dmabuf = "WEBKIT_DISABLE_DMABUF_RENDERER"

// Choice is how the window draws.
type Choice struct {
	// GPU is true to draw with the GPU (WebKit's hardware acceleration
	// "always"), false to draw in software ("never").
	GPU bool
	// Set holds the environment variables to set before WebKit starts;
	// never one the user has set.
	Set map[string]string
	// Why says in one line what was chosen and why (the log, shrimp
	// doctor).
	Why string
	// Problem says what is wrong with the override's value, else "".
	Problem string
	// Blocked names a GPU render node this user cannot open (a remote
	// session, a user outside the render group), else "".
	Blocked string
}

// Choose decides how the window draws on the machine whose file system is
// under root ("/" in use), with the environment lookup gives
// (os.LookupEnv in use).
func Choose(root string, lookup func(string) (string, bool)) Choice {
	c := Choice{Set: map[string]string{}}
	node, blocked := renderNode(root)
	c.Blocked = blocked
	switch want, set := lookup(Override); {
	case set && onOff(want) == "on":
		c.GPU, c.Why = true, "with the GPU, as "+Override+"="+want+" asks"
	case set && onOff(want) == "off":
		c.Why = "in software, as " + Override + "=" + want + " asks"
	default:
		if set && strings.TrimSpace(want) != "" {
			c.Problem = fmt.Sprintf("%s=%q is neither on nor off: chosen as if it were not set", Override, want)
		}
		switch {
		case node != "":
			c.GPU, c.Why = true, "with the GPU (render node "+node+")"
		case blocked != "":
			c.Why = "in software: this user cannot open the GPU's render node " + blocked
		default:
			c.Why = "in software: no GPU render node (/dev/dri/renderD*) here"
		}
	}
	if _, err := os.Stat(filepath.Join(root, "sys", "module", "nvidia")); err == nil {
		if v, set := lookup(dmabuf); set {
			c.Why += "; NVIDIA's driver, " + dmabuf + "=" + v + " as set"
		} else {
			c.Set[dmabuf] = "1"
			c.Why += "; NVIDIA's driver: WebKit's DMA-BUF renderer off (" + dmabuf + "=1)"
		}
	}
	return c
}

// onOff reads an override's value: "on", "off" or "" when it is neither.
func onOff(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "1", "true", "yes", "gpu":
		return "on"
	case "off", "0", "false", "no", "software":
		return "off"
	}
	return ""
}

// renderNode returns the first GPU render node under root that opens for
// reading and writing (as WebKit's GPU process opens it), else "" and the
// first one that is there but does not open (blocked), named as on the
// machine (/dev/dri/…).
func renderNode(root string) (node, blocked string) {
	matches, _ := filepath.Glob(filepath.Join(root, "dev", "dri", "renderD*"))
	sort.Strings(matches)
	for _, m := range matches {
		name := "/dev/dri/" + filepath.Base(m)
		f, err := os.OpenFile(m, os.O_RDWR, 0)
		if err != nil {
			if blocked == "" {
				blocked = name
			}
			continue
		}
		f.Close()
		return name, ""
	}
	return "", blocked
}

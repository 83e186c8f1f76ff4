// Package desktop is the window's door into the harness: the Wails-bound
// services the frontend calls, and the UI bridge that forwards bus events
// to the window in batches. It adapts app.App and holds no behaviour of its
// own. Nothing here calls the Wails runtime directly except through the
// injected [Emitter], so tests run without a window.
package desktop

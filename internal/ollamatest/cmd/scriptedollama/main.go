// Command scriptedollama serves the scripted Ollama of package ollamatest
// on an address, for the GUI smoke test and for trying the window without
// a real model. Its model shrimp-test-chain answers any request with tools
// by calling fs.list, fs.read on notes.txt and fs.write of summary.txt, then
// a short answer; without tools it says hello. Its nomic-embed-text is an
// embedding model (vectors by words).
//
// Usage: scriptedollama [-addr 127.0.0.1:11435] [-delay 0s] [-script FILE]
//
// -script adds the models of a JSON file, for playing a model by hand
// (a careless or hostile one) against the real binary:
//
//	[{"name": "m", "trained_ctx": 8192, "no_tools": false, "steps": [
//	  {"calls": [{"name": "fs.read", "args": {"path": "notes.txt"}}]},
//	  {"text": "done", "thinking": "…"}, {"status": 500, "error": "…"}]}]
//
// A model answers a request's first model call with the first step, the
// next with the second, and so on; past the last it says "done". A
// "judge" list of steps answers the requests that carry a format (a
// prompt hook's question) in order, then {"ok": true}.
//
// -delay pauses before each piece of every chat answer (a slow model: the
// GUI smoke test moves the focus away while a run is under way).
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:11435", "address to listen on")
	delay := flag.Duration("delay", 0, "pause before each piece of a chat answer")
	script := flag.String("script", "", "a JSON file of more models and the steps they answer with")
	flag.Parse()
	slow := func(r ollamatest.Reply) ollamatest.Reply {
		r.Delay = *delay
		return r
	}
	models := []ollamatest.Model{
		{Name: "shrimp-test-chain", Respond: func(req api.ChatRequest) ollamatest.Reply { return slow(chain(req)) }},
		{Name: "nomic-embed-text", Embedding: true},
	}
	if *script != "" {
		more, err := loadScript(*script, slow)
		if err != nil {
			fmt.Fprintf(os.Stderr, "scriptedollama: %v\n", err)
			os.Exit(2)
		}
		models = append(models, more...)
	}
	srv := ollamatest.Start(models...)
	srv.Close() // it started on a random port; serve its handler on addr instead
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scriptedollama: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("scriptedollama: serving on http://%s\n", l.Addr())
	go func() { _ = http.Serve(l, srv.Config.Handler) }()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}

func chain(req api.ChatRequest) ollamatest.Reply {
	if len(req.Tools) == 0 {
		return ollamatest.Text("Hello! I am a scripted test model.")
	}
	results := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
		if req.Messages[i].Role == "tool" {
			results++
		}
	}
	switch results {
	case 0:
		return ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}})
	case 1:
		return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}})
	case 2:
		return ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "summary.txt", "content": "1 note: buy shrimp\n"}})
	}
	return ollamatest.Text("I read **notes.txt** and wrote `summary.txt` with a one-line summary.")
}

package app

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/internal/mcptest"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// shot is a w×h PNG attached as name.
func shot(t *testing.T, name string, w, h int) attach.Image {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	img, err := attach.Parse(name, b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestImages: an image attached to a request reaches a model that can see
// in the request's message, is said in the run's start, is kept with the
// session and sent again with its next request; a model that cannot see
// is refused it before anything runs (naming the installed models that
// can) and, going on with the session, is told an image was there instead
// of being sent it.
func TestImages(t *testing.T) {
	srv := ollamatest.New(t,
		ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("a summary")}}, // cannot see: what openApp chooses
		// As Ollama's gemma3: it sees, and its template has no tool calling
		// (the tools go in its prompt, backend/model's prompted path).
		ollamatest.Model{Name: "gemma3:4b", Vision: true, NoTools: true, Replies: []ollamatest.Reply{ollamatest.Text("a grey square"), ollamatest.Text("grey")}},
	)
	a := openApp(t, t.TempDir(), srv.Host())
	ws := t.TempDir()
	img := shot(t, "shot.png", 64, 48)

	_, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "what is in this picture?", Images: []attach.Image{img}})
	if !errors.Is(err, ErrCannotSee) || !strings.Contains(err.Error(), "m cannot see images") || !strings.Contains(err.Error(), "choose one that can: gemma3:4b,") {
		t.Fatalf("images for a model that cannot see: %v, want ErrCannotSee naming gemma3:4b", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached Ollama for a refused request", n)
	}

	id, events, err := ask(t, a, ChatOptions{Workspace: ws, Model: "gemma3:4b", Text: "what is in this picture?", Images: []attach.Image{img}})
	if err != nil {
		t.Fatal(err)
	}
	started, ok := events[0].Data.(agent.RunStarted)
	if !ok || len(started.Images) != 1 || started.Images[0].Name != "shot.png" || started.Images[0].SHA256 != img.SHA256 || started.Images[0].Width != 64 {
		t.Fatalf("run start %+v, want shot.png 64×48 with its SHA-256", events[0].Data)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Chat.Messages
	user := last[len(last)-1]
	if user.Role != "user" || len(user.Images) != 1 || !bytes.Equal(user.Images[0], img.Data) {
		t.Fatalf("the request's message to Ollama: role %s with %d images, want the user's with shot.png", user.Role, len(user.Images))
	}
	if !strings.Contains(string(reqs[len(reqs)-1].Raw), `"images":["iVBOR`) {
		t.Fatalf("the image did not go as base64 in the message's images, as Ollama's api takes it: %.300s", reqs[len(reqs)-1].Raw)
	}
	if stored, err := a.Store.StoredImage(context.Background(), img.SHA256); err != nil || !bytes.Equal(stored.Data, img.Data) || stored.Type != "image/png" {
		t.Fatalf("stored image: %s, %v", stored.Type, err)
	}

	// Its next request sends the image again, as the history it is.
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Model: "gemma3:4b", Text: "and its colour?"}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	msgs := reqs[len(reqs)-1].Chat.Messages
	if images := countImages(msgs); images != 1 {
		t.Fatalf("the next request sent %d images, want the first request's one", images)
	}

	// Gone on with by a model that cannot see: a note, not the image.
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Model: "m", Text: "summarise"}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	msgs = reqs[len(reqs)-1].Chat.Messages
	if images := countImages(msgs); images != 0 {
		t.Fatalf("a model that cannot see was sent %d images", images)
	}
	if !strings.Contains(string(reqs[len(reqs)-1].Raw), "[1 image attached here, which this model cannot see]") {
		t.Fatalf("the blind model was not told where the image was: %.400s", reqs[len(reqs)-1].Raw)
	}

	// Deleting the session deletes its image.
	if err := a.Store.DeleteSession(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.StoredImage(context.Background(), img.SHA256); err == nil {
		t.Fatal("the image outlived the only session that held it")
	}
}

// TestTooManyImages: more images than a request takes are refused before
// the run, saying how many it takes.
func TestTooManyImages(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Vision: true})
	a := openApp(t, t.TempDir(), srv.Host())
	var imgs []attach.Image
	for range attach.MaxPerRequest + 1 {
		imgs = append(imgs, shot(t, "a.png", 8, 8))
	}
	_, _, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Text: "compare these", Images: imgs})
	if err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Fatalf("%d images: %v, want a refusal saying at most 8", len(imgs), err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached Ollama", n)
	}
}

func countImages(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Images)
	}
	return n
}

// TestReadImage: fs.read of a picture in the workspace shows it to a
// model that can see: the result says so, its event names the image, and
// the model's next request carries it (as gemma3's prompted tool result,
// a user message); kept with the session, it goes with its history. For
// a model that cannot see, the picture is not text, as before.
func TestReadImage(t *testing.T) {
	read := ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "shot.png"}})
	srv := ollamatest.New(t,
		ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{read, ollamatest.Text("cannot")}},
		ollamatest.Model{Name: "gemma3:4b", Vision: true, NoTools: true, Replies: []ollamatest.Reply{
			{Text: []string{`<tool_call>{"name": "fs.read", "arguments": {"path": "shot.png"}}</tool_call>`}},
			ollamatest.Text("a grey square"),
			ollamatest.Text("still grey"),
		}},
	)
	a := openApp(t, t.TempDir(), srv.Host())
	ws := t.TempDir()
	img := shot(t, "shot.png", 20, 10)
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), img.Data, 0o600); err != nil {
		t.Fatal(err)
	}

	id, events, err := ask(t, a, ChatOptions{Workspace: ws, Model: "gemma3:4b", Approve: approval.ModeAll, Text: "what does shot.png show?"})
	if err != nil {
		t.Fatal(err)
	}
	res := toolResults(events)
	if len(res) != 1 || res[0].Error != "" || len(res[0].Images) != 1 || res[0].Images[0].SHA256 != img.SHA256 || !strings.Contains(res[0].Output, "shot.png (image/png, 20×10) is attached") {
		t.Fatalf("fs.read of the picture: %+v", res)
	}
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Chat.Messages
	last := msgs[len(msgs)-1]
	if last.Role != "user" || !strings.Contains(last.Content, "<tool_response") || len(last.Images) != 1 || !bytes.Equal(last.Images[0], img.Data) {
		t.Fatalf("the result went to the model as %s with %d images: %.200s", last.Role, len(last.Images), last.Content)
	}
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Model: "gemma3:4b", Text: "and now?"}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	if n := countImages(reqs[len(reqs)-1].Chat.Messages); n != 1 {
		t.Fatalf("the next request of the session carried %d images, want the one fs.read showed", n)
	}

	_, events, err = ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "what does shot.png show?"})
	if err != nil {
		t.Fatal(err)
	}
	if res := toolResults(events); len(res) != 1 || !strings.Contains(res[0].Error, "is not a text file") || len(res[0].Images) != 0 {
		t.Fatalf("fs.read of the picture for a model that cannot see: %+v", res)
	}
}

// TestMCPImage: an image an MCP tool returns (a browser server's
// screenshot) goes to a model that can see with the call's result.
func TestMCPImage(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Vision: true, TrainedCtx: 40960, Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "mcp.t.picture", Args: map[string]any{}}), ollamatest.Text("a grey strip"),
	}})
	data := t.TempDir()
	if err := (mcp.Config{Servers: map[string]mcp.Server{"t": {Command: exe, Env: map[string]string{mcptest.Env: "1"}}}}).Save(filepath.Join(data, mcp.FileName)); err != nil {
		t.Fatal(err)
	}
	a := openApp(t, data, srv.URL)
	_, events, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Text: "show me the picture", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	res := toolResults(events)
	if len(res) != 1 || len(res[0].Images) != 1 || !strings.Contains(res[0].Output, "[image: image/png, 3×2, attached to this result]") {
		t.Fatalf("the picture's result: %+v", res)
	}
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Chat.Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || len(last.Images) != 1 || !bytes.Equal(last.Images[0], mcptest.Picture()) {
		t.Fatalf("the result went to the model as %s with %d images", last.Role, len(last.Images))
	}
}

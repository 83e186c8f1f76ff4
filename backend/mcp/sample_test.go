//lint:file-ignore SA1019 sampling is deprecated (SEP-2577) but served while servers ask for it

package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shrimp-harness/shrimp/backend/tool"
)

// samplingServer has a tool that asks the client's model, within its
// call (multi round-trip requests, as the Go SDK's servers do on protocol
// 2026-07-28), for each message of its "asks" argument, and returns the
// replies, or the error the asks met.
func samplingServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "sampler", Version: "1"}, nil)
	type in struct {
		Asks  []string `json:"asks"`
		Image bool     `json:"image,omitempty"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "summarize"}, func(_ context.Context, req *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
		if len(req.Params.InputResponses) == 0 {
			asks := sdk.InputRequestMap{}
			for i, text := range a.Asks {
				var content sdk.Content = &sdk.TextContent{Text: text}
				if a.Image {
					content = &sdk.ImageContent{MIMEType: "image/png", Data: []byte{1}}
				}
				asks[fmt.Sprint(i)] = &sdk.CreateMessageParams{
					SystemPrompt: "Summarise.\U000E0041\U000E0042", MaxTokens: 100000, Temperature: 0.3, StopSequences: []string{"\n\n"},
					Messages: []*sdk.SamplingMessage{{Role: "user", Content: content}},
				}
			}
			return &sdk.CallToolResult{InputRequests: asks, RequestState: "asked"}, nil, nil
		}
		var replies []string
		for i := range a.Asks {
			switch r := req.Params.InputResponses[fmt.Sprint(i)].(type) {
			case *sdk.CreateMessageWithToolsResult:
				for _, c := range r.Content {
					if tc, ok := c.(*sdk.TextContent); ok {
						replies = append(replies, r.Model+": "+tc.Text)
					}
				}
			case *sdk.CreateMessageResult:
				if tc, ok := r.Content.(*sdk.TextContent); ok {
					replies = append(replies, r.Model+": "+tc.Text)
				}
			default:
				replies = append(replies, fmt.Sprintf("%T", r))
			}
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(replies, "\n")}}}, nil, nil
	})
	return srv
}

// TestSampling: a server's request for the model, made within a call of
// its tool, reaches the call's Sampler bounded and freed of hidden text,
// and its reply reaches the server; without a Sampler (a listing, a
// check), with images, past maxSamples a call, or when the Sampler says
// no, it is refused and the call says why.
func TestSampling(t *testing.T) {
	s := serveHTTP(t, samplingServer)
	var mu sync.Mutex
	var got []tool.SampleRequest
	lend := func(answer error) context.Context {
		return tool.WithSampler(context.Background(), func(_ context.Context, r tool.SampleRequest) (tool.SampleResult, error) {
			mu.Lock()
			got = append(got, r)
			mu.Unlock()
			if answer != nil {
				return tool.SampleResult{}, answer
			}
			return tool.SampleResult{Model: "qwen3:4b", Text: "a short summary", StopReason: "endTurn"}, nil
		})
	}

	out, err := s.Call(lend(nil), "summarize", []byte(`{"asks":["the meeting notes"]}`))
	if err != nil || out != "qwen3:4b: a short summary" {
		t.Fatalf("a lent model: %q %v", out, err)
	}
	r := got[0]
	if r.Server != "web" || !strings.HasPrefix(r.System, "Summarise.") || strings.ContainsRune(r.System, 0xE0041) ||
		r.MaxTokens != maxSampleTokens || r.Temperature == nil || *r.Temperature != 0.3 || len(r.Stop) != 1 ||
		len(r.Messages) != 1 || r.Messages[0] != (tool.SampleMessage{Role: "user", Text: "the meeting notes"}) {
		t.Errorf("what the Sampler got: %+v", r)
	}

	for _, tc := range []struct {
		name string
		ctx  context.Context
		args string
		want string
	}{
		{"no model lent", context.Background(), `{"asks":["x"]}`, "only during a call of one of its tools in a chat"},
		{"an image", lend(nil), `{"asks":["x"],"image":true}`, "message 1 is not text but an image"},
		{"declined", lend(errors.New("the user did not let the server use the model")), `{"asks":["x"]}`, "did not let the server use the model"},
		{"too many", lend(nil), `{"asks":["1","2","3","4","5","6","7","8","9","10","11"]}`, "no more are answered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := s.Call(tc.ctx, "summarize", []byte(tc.args))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q %v, want an error saying %q", out, err, tc.want)
			}
		})
	}
}

// TestSampleRequest: what a server's request may hold.
func TestSampleRequest(t *testing.T) {
	text := func(role, s string) *sdk.SamplingMessage {
		return &sdk.SamplingMessage{Role: sdk.Role(role), Content: &sdk.TextContent{Text: s}}
	}
	for _, tc := range []struct {
		name string
		p    sdk.CreateMessageParams
		want string // in the error; "" if taken
	}{
		{"plain", sdk.CreateMessageParams{Messages: []*sdk.SamplingMessage{text("user", "hi"), text("assistant", "hello"), text("user", "sum up")}, MaxTokens: 50}, ""},
		{"a system role", sdk.CreateMessageParams{Messages: []*sdk.SamplingMessage{text("system", "obey")}}, `has the role "system"`},
		{"too much text", sdk.CreateMessageParams{Messages: []*sdk.SamplingMessage{text("user", strings.Repeat("a", maxSampleText+1))}}, "more than the 64 KiB"},
		{"audio", sdk.CreateMessageParams{Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.AudioContent{MIMEType: "audio/wav", Data: []byte{1}}}}}, "not text but audio"},
		{"an empty message", sdk.CreateMessageParams{Messages: []*sdk.SamplingMessage{nil}}, "message 1 is empty"},
	} {
		r, err := sampleRequest("srv", &tc.p)
		switch {
		case tc.want == "" && (err != nil || len(r.Messages) != 3 || r.MaxTokens != 50 || r.Temperature != nil):
			t.Errorf("%s: %+v %v", tc.name, r, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if r, _ := sampleRequest("srv", &sdk.CreateMessageParams{Messages: []*sdk.SamplingMessage{text("user", "x")}, MaxTokens: 0, Temperature: 7, StopSequences: []string{"a", "", "b", "c", "d", "e", strings.Repeat("x", 65)}}); r.MaxTokens != 1 || *r.Temperature != 2 || len(r.Stop) != 4 {
		t.Errorf("bounds: %+v", r)
	}
}

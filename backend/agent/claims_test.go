package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// TestUnbackedClaim: an answer saying a file or an address was acted on,
// when no call or result of the conversation names it, is found; one the
// calls back, one that says it was not done, would be, or how to do it,
// and text in code, are not.
func TestUnbackedClaim(t *testing.T) {
	call := func(name, args string) api.Message {
		var a api.ToolCallFunctionArguments
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			t.Fatal(err)
		}
		return api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: name, Arguments: a}}}}
	}
	none := []api.Message{{Role: "user", Content: "save a summary of the meeting to notes.md"}}
	wrote := append(append([]api.Message{}, none...), call("fs.write", `{"path":"notes.md","content":"x"}`), api.Message{Role: "tool", Content: "wrote notes.md (1 byte)"})
	gitLog := append(append([]api.Message{}, none...), call("shell.run", `{"command":"git log --stat -3"}`), api.Message{Role: "tool", Content: " src/utils.go | 4 ++--"})
	for _, tt := range []struct {
		reply      string
		msgs       []api.Message
		name, verb string
	}{
		// QwenLM/Qwen3 #1817: answered as if the planned call had run.
		{"I've saved the summary to notes.md.", none, "notes.md", "saved"},
		{"Done! The summary has been written to `notes.md` for you.", none, "notes.md", "written"},
		{"I created ~/Projects/site/index.html with a starter page.", none, "~/Projects/site/index.html", "created"},
		{"Summary:\n- three decisions\nI have successfully emailed it to bob@example.com", none, "bob@example.com", "emailed"},
		// Backed: a call wrote it; a result names it (git's history).
		{"I've saved the summary to notes.md.", wrote, "", ""},
		{"The parser was moved to src/utils.go in the last commit.", gitLog, "", ""},
		// Not a claim: negated, a condition or instructions, a future, a
		// question, no name, a plan, code.
		{"I couldn't save notes.md: the folder is read-only.", none, "", ""},
		{"I have not created notes.md yet.", none, "", ""},
		{"Once the file has been saved as config.yaml, run make.", none, "", ""},
		{"I will save it to notes.md.", none, "", ""},
		{"Should it be saved as notes.md?", none, "", ""},
		{"I've written a short poem for you.", none, "", ""},
		{"Here is the script:\n```sh\n# the log was rotated to old.log\nmv app.log old.log\n```", none, "", ""},
		{"notes.md holds the summary of last week.", none, "", ""},
		// Another's act is not the model's claim, up to the clause's end.
		{"You have saved notes.md, and it looks fine.", none, "", ""},
		{"You asked for notes.md, so it has been saved there.", none, "notes.md", "saved"},
		{"I've saved notes.md as you asked.", none, "notes.md", "saved"},
		// In the passive, only a name the request holds: news is not a
		// claim of work.
		{"Node.js 22 was updated with a new test runner.", none, "", ""},
	} {
		name, verb := unbackedClaim(tt.reply, "save a summary of the meeting to notes.md", tt.msgs)
		if name != tt.name || verb != tt.verb {
			t.Errorf("%q: %q %q, want %q %q", tt.reply, name, verb, tt.name, tt.verb)
		}
	}
}

// TestClaimListsAreClean: claims.json's words are lower case, trimmed, and
// each in one list (a word in two would both mark and unmark a claim).
func TestClaimListsAreClean(t *testing.T) {
	in := map[string]string{}
	for list, words := range map[string]map[string]bool{"verbs": claimSets.verbs, "actors": claimSets.actors, "passive": claimSets.passive, "others": claimSets.others, "unless": claimSets.unless} {
		if len(words) == 0 {
			t.Errorf("%s is empty", list)
		}
		for w := range words {
			if w != strings.ToLower(strings.TrimSpace(w)) || w == "" {
				t.Errorf("%s: %q is not lower case and trimmed", list, w)
			}
			if other, ok := in[w]; ok {
				t.Errorf("%q is in %s and %s", w, other, list)
			}
			in[w] = list
		}
	}
}

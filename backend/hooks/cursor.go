package hooks

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/instructions"
)

// cursorForm is v, a hook's input in Claude Code's form made with
// cursor.json's names (its event's among them), as Cursor gives the
// hook of that event: conversation_id and workspace_roots for every
// event, then the event's own fields (beforeShellExecution's command and
// cwd, beforeReadFile's file_path and content, afterFileEdit's edits,
// stop's status and loop_count, …); loops is how often the run was sent
// back already. Numbers keep their digits.
func cursorForm(v any, loops int) (map[string]any, error) {
	c, err := asMap(v)
	if err != nil {
		return nil, err
	}
	cwd, _ := c["cwd"].(string)
	m := map[string]any{
		"hook_event_name": c["hook_event_name"],
		"conversation_id": c["session_id"],
		"workspace_roots": []string{cwd},
	}
	if t, ok := c["transcript_path"]; ok {
		m["transcript_path"] = t
	}
	input, _ := c["tool_input"].(map[string]any)
	output := ""
	if r, ok := c["tool_response"].(map[string]any); ok {
		output, _ = r["output"].(string)
	}
	failure, _ := c["error"].(string)
	switch m["hook_event_name"] {
	case "beforeShellExecution", "afterShellExecution":
		m["command"], m["cwd"] = input["command"], cwd
		if m["hook_event_name"] == "afterShellExecution" {
			m["output"] = output + failure
		}
	case "beforeMCPExecution", "afterMCPExecution":
		name, _ := c["tool_name"].(string)
		m["tool_name"] = strings.TrimPrefix(name, "MCP:")
		args, err := json.Marshal(input) // Cursor gives them as a JSON text
		if err != nil {
			return nil, err
		}
		m["tool_input"] = string(args)
		if m["hook_event_name"] == "afterMCPExecution" {
			result, err := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": output + failure}}, "isError": failure != ""})
			if err != nil {
				return nil, err
			}
			m["result_json"] = string(result)
		}
	case "beforeReadFile":
		file, _ := input["path"].(string)
		m["file_path"], m["content"], m["attachments"] = file, readable(file, cwd), []any{}
	case "afterFileEdit":
		file, _ := input["path"].(string)
		old, _ := input["old_string"].(string)
		text, written := input["contents"].(string)
		if !written {
			text, _ = input["new_string"].(string)
		}
		m["file_path"], m["edits"] = file, []map[string]string{{"old_string": old, "new_string": text}}
	case "preToolUse", "postToolUse", "postToolUseFailure":
		m["tool_name"], m["tool_input"], m["tool_use_id"], m["cwd"] = c["tool_name"], c["tool_input"], c["tool_use_id"], cwd
		switch m["hook_event_name"] {
		case "postToolUse":
			m["tool_output"] = output
		case "postToolUseFailure":
			m["error_message"], m["failure_type"] = failure, "error"
		}
	case "beforeSubmitPrompt":
		m["prompt"], m["attachments"] = c["prompt"], []any{}
	case "stop":
		m["status"], m["loop_count"] = "completed", loops
	case "afterAgentResponse":
		m["text"] = c["last_assistant_message"]
	case "sessionStart":
		m["session_id"], m["is_background_agent"], m["composer_mode"] = c["session_id"], false, "agent"
	}
	return m, nil
}

// maxReadFile is the most of a file a beforeReadFile hook is given.
const maxReadFile = 256 << 10

// readable is what a Cursor beforeReadFile hook is given of the file the
// call would read (its content, so a hook can look for secrets in it):
// the file's first maxReadFile bytes as text, when it is a regular file
// inside workspace, links resolved; "" otherwise (the call itself is
// refused then, or reads no text).
func readable(file, workspace string) string {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return ""
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return ""
	}
	if !instructions.Within(real, root) {
		return ""
	}
	f, err := os.Open(real)
	if err != nil {
		return ""
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(f, maxReadFile))
	if err != nil {
		return ""
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// RunFrom makes the imported Cursor hooks whose command lines name a
// file in dir by a relative path (./hooks/audit.sh, python3
// hooks/audit.py) start there (`cd DIR && …`): Cursor runs the user's own
// hooks from ~/.cursor, while Shrimp runs a hook in the request's
// workspace.
func (in *Imported) RunFrom(dir string) {
	quoted := "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	moved := 0
	for i, h := range in.Hooks {
		if !h.Cursor || len(h.Args) == 0 || !namesFileIn(h.Args[len(h.Args)-1], dir) {
			continue
		}
		h.Args = slices.Clone(h.Args)
		h.Args[len(h.Args)-1] = "cd " + quoted + " && " + h.Args[len(h.Args)-1]
		in.Hooks[i] = h
		moved++
	}
	if moved > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("%d of its hooks name their scripts from %s, where Cursor runs them: they start there (cd) rather than in the workspace", moved, dir))
	}
}

// namesFileIn reports whether a command line has a word that is a
// relative path to a file in dir.
func namesFileIn(line, dir string) bool {
	for _, w := range strings.Fields(line) {
		w = strings.Trim(w, `"'`)
		if w == "" || filepath.IsAbs(w) || strings.ContainsAny(w, "$~`") || !strings.ContainsRune(w, '/') && !strings.HasPrefix(w, ".") {
			continue
		}
		if info, err := os.Stat(filepath.Join(dir, w)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

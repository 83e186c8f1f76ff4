package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRepeated is the circle guard's cost per call: hashing a result
// of MaxOutput's 16 KiB and comparing the call with the run's earlier
// ones, in a run that has made 200 calls (far more than a turn limit of
// 25 allows with a call or two a turn).
func BenchmarkRepeated(b *testing.B) {
	out := strings.Repeat("ok  \tgithub.com/x/y\t0.123s\n", (16<<10)/26)
	r := &run{ended: RunEnded{}}
	for i := range 200 {
		res := ToolResult{ID: fmt.Sprint("c", i), Output: out + fmt.Sprint(i)}
		_ = r.repeated(callKeyOf("shell.run", json.RawMessage(fmt.Sprintf(`{"command":"make %d"}`, i))), &res)
	}
	res := ToolResult{ID: "last", Output: out}
	b.ResetTimer()
	for b.Loop() {
		r2 := *r
		r2.ran = r.ran[:len(r.ran):len(r.ran)]
		res.Output = out
		_ = r2.repeated(callKeyOf("shell.run", json.RawMessage(`{"command":"make new"}`)), &res)
	}
}

package desktop

import (
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSamplingInSettings: Settings shows a model's Modelfile settings
// beside the user's, keeps what is typed (an empty box: the model's own),
// and refuses a value out of range or an unknown name, keeping nothing.
func TestSamplingInSettings(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Parameters: "temperature                    0.6\n"})
	a, _ := openWindowApp(t, srv.URL, "m")
	s := NewSettings(a, nil)
	v, err := s.ModelParams("m")
	if err != nil || len(v.Specs) != 6 || len(v.Set) != 0 || v.Modelfile["temperature"] != 0.6 || v.Note != "" {
		t.Fatalf("before: %+v %v", v, err)
	}
	kept, err := s.SetModelParams("m", map[string]string{"temperature": "0.2", "top_k": "", "seed": " 42 "})
	if err != nil || kept.String() != "temperature 0.2, seed 42" {
		t.Fatalf("set: %v %v", kept, err)
	}
	kept, err = s.SetModelParams("m", map[string]string{"temperature": ""})
	if err != nil || kept.String() != "seed 42" {
		t.Fatalf("an emptied box: %v %v", kept, err)
	}
	for _, bad := range []map[string]string{{"temperature": "9"}, {"seed": "forty"}, {"mirostat": "1"}} {
		if _, err := s.SetModelParams("m", bad); err == nil {
			t.Errorf("%v was kept", bad)
		}
	}
	if v, _ := s.ModelParams("m"); v.Set.String() != "seed 42" {
		t.Errorf("after the refusals: %v", v.Set)
	}
	if v, err := s.ModelParams("not-installed"); err != nil || !strings.Contains(v.Note, "not-installed") {
		t.Errorf("a model Ollama lacks: %+v %v", v, err)
	}
}

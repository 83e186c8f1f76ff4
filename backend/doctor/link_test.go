package doctor

import (
	"context"
	"errors"
	"net"
	"testing"
)

func TestPlainRemote(t *testing.T) {
	resolve := func(_ context.Context, host string) ([]net.IPAddr, error) {
		switch host {
		case "gpu-box":
			return []net.IPAddr{{IP: net.ParseIP("192.168.1.5")}}, nil
		case "me":
			return []net.IPAddr{{IP: net.ParseIP("127.0.1.1")}, {IP: net.ParseIP("::1")}}, nil
		case "split":
			return []net.IPAddr{{IP: net.ParseIP("127.0.0.1")}, {IP: net.ParseIP("10.0.0.2")}}, nil
		}
		return nil, errors.New("no such host")
	}
	for _, c := range []struct {
		base   string
		remote bool
	}{
		{"http://127.0.0.1:11434", false},
		{"http://[::1]:11434", false},
		{"http://localhost:11434", false},
		{"http://LocalHost.:11434", false},
		{"http://me:11434", false}, // resolves to loopback only
		{"http://192.168.1.5:11434", true},
		{"http://[fd00::5]:11434", true},
		{"http://gpu-box:11434", true},
		{"http://split:11434", true}, // one address leaves the machine
		{"http://nowhere.invalid:11434", true},
		{"https://gpu-box:11434", false}, // encrypted
		{"https://ollama.example.com", false},
		{"::not a url", false},
	} {
		if got := PlainRemote(context.Background(), c.base, resolve); got != c.remote {
			t.Errorf("PlainRemote(%q) = %v, want %v", c.base, got, c.remote)
		}
	}
}

// Package secrettest makes random secrets of every kind Shrimp's redactor
// (backend/redact) must catch, each inside the text that carries it, for
// the tests of the redactor and of everything that must not keep a
// secret.
package secrettest

import "math/rand/v2"

// Makers returns makers of random secrets of every kind the redactor
// knows, each with the text that holds it (a line of a config, a header,
// a URL, a PEM block).
func Makers(rng *rand.Rand) []func() (secret, text string) {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rnd := func(n int, chars string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return string(b)
	}
	return []func() (secret, text string){
		func() (string, string) { s := "AKIA" + rnd(16, alnum[:26]+alnum[52:]); return s, s },
		func() (string, string) { s := "ghp_" + rnd(36, alnum); return s, s },
		func() (string, string) { s := "github_pat_" + rnd(60, alnum+"_"); return s, s },
		func() (string, string) { s := "glpat-" + rnd(20, alnum); return s, s },
		func() (string, string) { s := "xoxp-" + rnd(30, alnum+"-"); return s, s },
		func() (string, string) { s := "sk-" + rnd(48, alnum); return s, s },
		func() (string, string) { s := "sk-ant-api03-" + rnd(80, alnum+"_-"); return s, s },
		func() (string, string) { s := "AIza" + rnd(35, alnum+"_-"); return s, s },
		func() (string, string) { s := "sk_live_" + rnd(24, alnum); return s, s },
		func() (string, string) { s := "hf_" + rnd(34, alnum); return s, s },
		func() (string, string) {
			s := "eyJ" + rnd(20, alnum) + ".eyJ" + rnd(30, alnum) + "." + rnd(43, alnum+"_-")
			return s, s
		},
		func() (string, string) { s := rnd(30, alnum); return s, "Authorization: Bearer " + s },
		func() (string, string) {
			s := rnd(12, alnum) + "9"
			return s, "https://deploy:" + s + "@git.example.com/repo.git"
		},
		func() (string, string) { s := rnd(20, alnum) + "7"; return s, "SERVICE_API_KEY=" + s },
		func() (string, string) { s := rnd(40, alnum+"/+"); return s, "aws_secret_access_key=" + s },
		func() (string, string) {
			s := rnd(64, alnum+"+/") + "\n" + rnd(64, alnum+"+/")
			return s, "-----BEGIN PRIVATE KEY-----\n" + s + "\n-----END PRIVATE KEY-----"
		},
	}
}

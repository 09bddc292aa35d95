package llmanswer

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// needsAnswer builds a scout answer of files × needs, the shape of
// scripts/bench/needs (2,000 × 20 is about 3.5 MB): {"files":[{"path",
// "needs":[{"op","path","reason"}]}]} with the noisy paths a model writes.
func needsAnswer(files, needs int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString(`{"files":[`)
	for i := range files {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"path":"src/c%04d.go","needs":[`, i)
		for j := range needs {
			if j > 0 {
				b.WriteByte(',')
			}
			op, p := "get_file", ""
			k := r.IntN(500)
			switch c := r.IntN(100); {
			case c < 60:
				p = fmt.Sprintf("pkg/m%03d/f%02d.go", k, r.IntN(40))
			case c < 65:
				op, p = "list_dir", fmt.Sprintf("pkg/m%03d/", k)
			case c < 73:
				p = []string{"node_modules/x/i.js", "dist/app.js", "yarn.lock", "img/logo.png"}[k%4]
			case c < 83:
				p = []string{"../../etc/passwd", "%2e%2e/x", "src/../../x", "..\\..\\win.ini"}[k%4]
			case c < 88:
				p = []string{".env", "config/.env.production", "keys/server.pem", ".ssh/id_rsa"}[k%4]
			default:
				p = fmt.Sprintf("./pkg/m%03d/f.go?raw=1#L10", k)
			}
			q, _ := json.Marshal(p)
			fmt.Fprintf(&b, `{"op":%q,"path":%s,"reason":"caller of the changed function"}`, op, q)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}")
	return b.String()
}

// reviewAnswer builds a review answer with n findings.
func reviewAnswer(n int) string {
	var b strings.Builder
	b.WriteString(`{"summary":"A large review.","findings":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"path":"src/f%05d.go","line":%d,"existingCode":"x := f(%d)","severity":"medium","title":"finding %d","body":"The call at line %d ignores its error."}`, i, i+1, i, i, i+1)
	}
	b.WriteString("]}")
	return b.String()
}

func jsonText(t testing.TB, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("generates answers of several megabytes")
	}
	needs := needsAnswer(2000, 20)
	review := reviewAnswer(20000)
	cutAt := len(review) * 2 / 3
	tests := []struct {
		name       string
		raw        []byte
		shape      Shape
		quality    Quality
		items      string // the list whose length is checked
		minItems   int
		unfinished bool
	}{
		{"needs as JSON", []byte(needs), scoutShape, Clean, "files", 2000, false},
		{"needs as fenced text", jsonText(t, "Here is what I need:\n```json\n"+needs+"\n```\n"), scoutShape, Clean, "files", 2000, false},
		{"needs with single quotes", jsonText(t, strings.ReplaceAll(needs, `"`, `'`)), scoutShape, Repaired, "files", 2000, false},
		{"needs cut off", jsonText(t, "```json\n"+needs[:len(needs)-1000]), scoutShape, Salvaged, "files", 1999, true},
		{"review as text", jsonText(t, review), reviewShape, Clean, "findings", 20000, false},
		{"review cut off", jsonText(t, review[:cutAt]), reviewShape, Salvaged, "findings", 13000, true},
		{"review with trailing commas", jsonText(t, strings.ReplaceAll(review, "}", ",}")), reviewShape, Repaired, "findings", 20000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			a := Read(tt.raw, tt.shape)
			t.Logf("%d bytes read in %v", len(tt.raw), time.Since(start))
			checkAnswer(t, a, tt.shape)
			if a.Quality != tt.quality {
				t.Fatalf("quality %s, want %s (warnings %q)", a.Quality, tt.quality, a.Warnings)
			}
			list, _ := a.Value.(map[string]any)[tt.items].([]any)
			if len(list) < tt.minItems {
				t.Errorf("%d %s, want at least %d", len(list), tt.items, tt.minItems)
			}
			if got := a.Cut("/" + tt.items); got != tt.unfinished {
				t.Errorf("Cut(/%s) = %v, want %v (unfinished %q)", tt.items, got, tt.unfinished, a.Unfinished)
			}
		})
	}
}

// TestReadHostile feeds 1 MB answers built to cost the most. Each reads in
// well under a second alone; any step quadratic in the answer (as the
// repair library is) would take many minutes and fail by go test's
// timeout, so no clock is asserted here (a loaded machine slows both).
func TestReadHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("generates answers of a megabyte")
	}
	const size = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, size/len(s)) }
	tests := map[string]string{
		"open braces":        rep("{"),
		"open brackets":      rep("["),
		"open keys":          rep(`{"a":`),
		"quotes":             rep(`"`),
		"single quotes":      rep(`'`),
		"unclosed strings":   "[" + rep(`"a`),
		"fences":             rep("```\n"),
		"json fences":        rep("```json\n{\n"),
		"think tags":         rep("<think>\n"),
		"close think tags":   rep("</think>\n"),
		"numbers":            "[" + rep("1,"),
		"prose braces":       rep("see {x} and [y] "),
		"bare keys":          "{" + rep("a:1 "),
		"unescaped quotes":   `{"a": "` + rep(`x" y `),
		"nested almost deep": rep(strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1)),
		"unicode quotes":     rep("“"),
		"comments":           "{" + rep("/* */"),
		"diff lines":         "```diff\n" + rep("+{\n"),
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			a := Read([]byte(text), reviewShape)
			checkAnswer(t, a, reviewShape)
		})
	}
}

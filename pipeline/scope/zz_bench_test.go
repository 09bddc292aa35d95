package scope

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func genPaths() []string {
	r := rand.New(rand.NewPCG(1, 2))
	var out []string
	for range 40000 {
		k := r.IntN(500)
		var p string
		switch c := r.IntN(100); {
		case c < 60:
			p = fmt.Sprintf("pkg/m%03d/f%02d.go", k, r.IntN(40))
		case c < 65:
			p = fmt.Sprintf("pkg/m%03d/", k)
		case c < 73:
			p = []string{"node_modules/x/i.js", "dist/app.js", "yarn.lock", "img/logo.png"}[k%4]
		case c < 78:
			p = fmt.Sprintf("src/c%04d.go", r.IntN(2000))
		case c < 83:
			p = []string{"../../etc/passwd", "%2e%2e/x", "src/../../x", "..\\..\\win.ini"}[k%4]
		case c < 88:
			p = []string{".env", "config/.env.production", "keys/server.pem", ".ssh/id_rsa"}[k%4]
		case c < 93:
			p = fmt.Sprintf("./pkg/m%03d/f.go?raw=1#L10", k)
		default:
			p = fmt.Sprintf("/pkg//m%03d/./g.go", k)
		}
		out = append(out, p)
	}
	return out
}

var paths = genPaths()

func BenchmarkZZCheckNeed(b *testing.B) {
	lim := pipeline.DefaultLimits()
	for b.Loop() {
		for _, p := range paths {
			CheckNeed("get_file", p, lim)
		}
	}
}
func BenchmarkZZNormalize(b *testing.B) {
	for b.Loop() {
		for _, p := range paths {
			NormalizePath(p, 1024)
		}
	}
}
func BenchmarkZZSecret(b *testing.B) {
	for b.Loop() {
		for _, p := range paths {
			secretKind(p)
		}
	}
}
func BenchmarkZZDefault(b *testing.B) {
	for b.Loop() {
		for _, p := range paths {
			IsDefaultPath(p)
		}
	}
}

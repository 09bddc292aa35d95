package docs

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPackageMapCoversEveryPackage fails when a package of `go list ./...`
// has no row in architecture.md's package map, or a row names a package
// that no longer exists, so the map stays written from the code.
func TestPackageMapCoversEveryPackage(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if name, _, ok := strings.Cut(rest, "`"); ok {
				rows[name] = true
			}
		}
	}
	const module = "github.com/prscout/prscout"
	listed := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		name := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if name == "" {
			continue
		}
		listed[name] = true
		if !rows[name] {
			t.Errorf("package %s has no row in architecture.md's package map", name)
		}
	}
	for name := range rows {
		if !listed[name] && looksLikePackage(name) {
			t.Errorf("architecture.md's package map names %s, which go list does not list", name)
		}
	}
}

// looksLikePackage tells a package row (a path of lower-case words) from
// other tables' first columns (routes, settings, metrics).
func looksLikePackage(s string) bool {
	for _, prefix := range []string{"pipeline", "cmd/", "scripts/", "bitbucket", "jira", "sarif", "api", "localgit", "gitmirror", "retry", "n8n", "docs"} {
		if s == prefix || strings.HasPrefix(s, prefix+"/") {
			return !strings.ContainsAny(s, " .…{")
		}
	}
	return false
}

package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/prscout/prscout/api"
)

// TestVersionCommand: `prscout version` and `prscout --version` print the
// same line; a version set at link time wins over the build information.
func TestVersionCommand(t *testing.T) {
	var a, b, errb bytes.Buffer
	if code := run([]string{"version"}, &a, &errb); code != 0 {
		t.Fatalf("version: exit %d: %s", code, errb.String())
	}
	if code := run([]string{"--version"}, &b, &errb); code != 0 {
		t.Fatalf("--version: exit %d", code)
	}
	if a.String() != b.String() {
		t.Errorf("version %q and --version %q differ", a.String(), b.String())
	}
	line := regexp.MustCompile(`^prscout (\S+) ` + regexp.QuoteMeta(runtime.Version()) + ` \S+/\S+\n$`)
	if !line.MatchString(a.String()) {
		t.Errorf("version printed %q, want prscout <version> %s <os>/<arch>", a.String(), runtime.Version())
	}
	if code := run([]string{"version", "extra"}, &a, &errb); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}

	saved := api.Version
	t.Cleanup(func() { api.Version = saved })
	api.Version = "v1.4.2"
	a.Reset()
	run([]string{"version"}, &a, &errb)
	if !strings.HasPrefix(a.String(), "prscout v1.4.2 ") {
		t.Errorf("with a link-time version: %q", a.String())
	}
}

// TestVersionFromLdflags: the built binary reports what -ldflags -X set,
// as the Dockerfile builds it.
func TestVersionFromLdflags(t *testing.T) {
	bin := t.TempDir() + "/prscout"
	out, err := exec.Command("go", "build", "-ldflags", "-X github.com/prscout/prscout/api.Version=v0.7.1-test", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	got, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(got), "prscout v0.7.1-test ") {
		t.Fatalf("--version = %q (%v), want prscout v0.7.1-test ...", got, err)
	}
}

// TestPreviewRevisionSyntax: preview resolves git's revision syntax on the
// checkout (the README's `prscout preview --base HEAD~3`), and sees what
// the same change named by commit ids shows.
func TestPreviewRevisionSyntax(t *testing.T) {
	dir := makeReviewRepo(t)
	git(t, dir, "checkout", "-q", "feature")
	files := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append([]string{"preview", "--repo", dir, "--json"}, args...), &out, &errb); code != 0 {
			t.Fatalf("preview %v: exit %d: %s", args, code, errb.String())
		}
		var res struct {
			Files []struct{ Path, Decision string }
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Files)
		return string(b)
	}
	base := git(t, dir, "rev-parse", "main")
	byID := files("--base", base, "--head", git(t, dir, "rev-parse", "feature"))
	if byID == "null" || byID == "[]" {
		t.Fatalf("the change shows no files: %s", byID)
	}
	n := strings.TrimSpace(git(t, dir, "rev-list", "--count", "main..feature"))
	if got := files("--base", "HEAD~"+n); got != byID {
		t.Errorf("--base HEAD~%s: %s\nwant (by commit ids) %s", n, got, byID)
	}
	if got := files("--base", "feature~"+n, "--head", "feature^0"); got != byID {
		t.Errorf("--base feature~%s --head feature^0: %s\nwant %s", n, got, byID)
	}
	for _, c := range []struct {
		base string
		code int
	}{{"--output=x", 2}, {"no-such~1", 1}} {
		var out, errb bytes.Buffer
		if code := run([]string{"preview", "--repo", dir, "--base=" + c.base}, &out, &errb); code != c.code {
			t.Errorf("--base %q: exit %d, want %d (%s)", c.base, code, c.code, errb.String())
		}
	}
}

package lookup

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/redact"
)

// randomFrom makes a test value at run time (fixed seed), so this file
// holds no string a secret scanner would flag.
func randomFrom(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// TestBatchRedacts: a fetched file's secrets never reach the batch answer,
// whether the file comes from the repository or from the commit cache; each
// answer counts them in stats.redactions, the cache keeps the file as read,
// and the line structure and the file's size are kept.
func TestBatchRedacts(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 34))
	const b62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	gh := "gh" + "p_" + randomFrom(r, b62, 36)
	pass := randomFrom(r, b62, 8) + "-" + randomFrom(r, b62, 5) + "!7"
	content := "package cfg\n\n// GitHub token for the release job.\nconst token = \"" + gh + "\"\n\nvar dsn = \"postgres://app:" + pass + "@db:5432/app\"\n"
	repo := newBatchFakeRepo()
	repo.AddFiles("", map[string]string{"src/cfg.go": content})
	b := NewBatcher(repo, pipeline.DefaultLimits(), 1<<20)
	in := BatchInput{Workspace: "w", RepoSlug: "r", Ref: batchCommit, Requests: []pipeline.Request{
		{Op: "get_file", Path: "src/cfg.go"}, {Op: "get_file", Path: "src/a.go"},
	}}
	want := map[string]int{redact.KindGitHubToken: 1, redact.KindURLPassword: 1}
	for run, name := range []string{"repository", "cache"} {
		out, err := b.Run(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), gh) || strings.Contains(string(data), pass) {
			t.Errorf("%s: a secret reached the batch answer: %s", name, data)
		}
		got := *out.Results[0].Content
		if strings.Count(got, "\n") != strings.Count(content, "\n") || !strings.Contains(got, `const token = "[REDACTED:github_token]"`) {
			t.Errorf("%s: redacted content =\n%s", name, got)
		}
		if *out.Results[0].Size != int64(len(content)) {
			t.Errorf("%s: size %d, want the file's %d", name, *out.Results[0].Size, len(content))
		}
		if *out.Results[1].Content != "package a\n" {
			t.Errorf("%s: harmless file changed: %q", name, *out.Results[1].Content)
		}
		if len(out.Stats.Redactions) != len(want) || out.Stats.Redactions[redact.KindGitHubToken] != 1 || out.Stats.Redactions[redact.KindURLPassword] != 1 {
			t.Errorf("%s: stats.redactions %v, want %v", name, out.Stats.Redactions, want)
		}
		if run == 1 && out.Stats.CacheHits != 2 {
			t.Errorf("second run: %d cache hits, want 2", out.Stats.CacheHits)
		}
	}
	key := lookupKey{Workspace: "w", RepoSlug: "r", Commit: batchCommit, Op: pipeline.OpGetFile, Path: "src/cfg.go"}
	if cached, ok := b.cache.get(key); !ok || *cached.Content != content {
		t.Error("the cache does not hold the file as the repository gave it")
	}

	// Nothing to redact: the answer still says so with an empty object.
	out, err := b.Run(t.Context(), BatchInput{Workspace: "w", RepoSlug: "r", Ref: batchCommit, Requests: []pipeline.Request{{Op: "list_dir", Path: "src"}}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(out.Stats)
	if !strings.Contains(string(data), `"redactions":{}`) {
		t.Errorf("stats without redactions: %s", data)
	}
}

package publish

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/review"
)

// TestEvidenceReadsMissingSources: /v1/merge echoes the changed files
// without their sources; a quote from the new source outside the diff is
// verified by reading that file at the head, and only that file is read.
func TestEvidenceReadsMissingSources(t *testing.T) {
	var fx struct {
		Files []pipeline.ChangedFile `json:"files"`
	}
	data, err := os.ReadFile("../evidence/testdata/corpus/fixtures/shop.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	const head = "4c1d2e3f4a5b6c7d8e9f00112233445566778899"
	repo := pipelinetest.New()
	sources := map[string]string{}
	for i, f := range fx.Files {
		sources[f.Path] = f.Source
		fx.Files[i].Source = "" // as /v1/merge echoes them
	}
	repo.AddFiles(head, sources)
	// Count() is outside every hunk of cart.go: only its source shows it.
	answer, _ := json.Marshal(pipeline.Review{Summary: "s", Findings: []pipeline.Finding{
		{Path: "pkg/cart/cart.go", Line: 42, ExistingCode: "for _, n := range c.items {\n\ttotal += n\n}", Severity: "high", Title: "Count reads items without the lock", Body: "b"},
		{Path: "web/handler.ts", Line: 6, ExistingCode: "const qty = parseInt(req.body.qty);", Severity: "high", Title: "qty not validated", Body: "b"},
	}})
	in := review.CommentsInput{Workspace: "acme", RepoSlug: "shop", Ref: head, Files: fx.Files, Review: answer,
		Policy: placement.Policy{Unverified: placement.UnverifiedFold}}

	without, _, err := Publish(context.Background(), Ports{}, in, PostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(without.Unverified) != 1 || len(without.Inline) != 1 {
		t.Fatalf("without a repository: %d unverified, %d inline; want 1, 1", len(without.Unverified), len(without.Inline))
	}
	with, _, err := Publish(context.Background(), Ports{Sources: repo}, in, PostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Unverified) != 0 || with.Stats.ByEvidence["verified"] != 2 {
		t.Fatalf("with the head read: unverified %+v, byEvidence %v", with.Unverified, with.Stats.ByEvidence)
	}
	if n, all := repo.Calls(pipelinetest.OpRead, "pkg/cart/cart.go"), repo.Calls(pipelinetest.OpRead, ""); n != 1 || all != 1 {
		t.Errorf("reads at the head: %d of cart.go, %d in all; want 1, 1", n, all)
	}
}

package merge_test

import (
	"fmt"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/merge"
)

func ExampleMerge() {
	content := "package cart\n\ntype Coupon struct{ Cents int }\n"
	in := merge.MergeInput{
		Context: merge.MergeContext{
			Workspace: "acme", RepoSlug: "shop", PRID: 42, Mode: "full",
			Ref:   "0123456789abcdef0123456789abcdef01234567",
			PR:    pipeline.PullRequest{Title: "Apply coupons"},
			Files: []pipeline.ChangedFile{{Path: "cart/total.go", Status: "modified", Diff: "@@ -1 +1 @@\n-a\n+b\n"}},
		},
		Results: []pipeline.LookupResult{
			{OK: true, Op: "get_file", Path: "cart/types.go", Content: &content},
			{Op: "get_file", Path: "cart/store.go", Error: "not found at 0123456789ab"},
		},
	}
	out, err := merge.Merge(in, pipeline.DefaultLimits())
	if err != nil {
		panic(err)
	}
	fmt.Println("reviewPass:", out.ReviewPass)
	for _, c := range out.AdditionalContext {
		fmt.Printf("ok=%v %s %s %q\n", c.OK, c.Op, c.Path, c.Error)
	}
	fmt.Println("dropped:", len(out.Stats.Dropped), "within budget:", out.Stats.PromptChars <= out.Stats.Budget)
	// Output:
	// reviewPass: 2
	// ok=true get_file cart/types.go ""
	// ok=false get_file cart/store.go "not found at 0123456789ab"
	// dropped: 0 within budget: true
}

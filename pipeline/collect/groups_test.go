package collect

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// changeRepo builds a scopeRepo whose head adds the given files (path ->
// content) to an empty base.
func changeRepo(files map[string]string, order []string) *pipelinetest.Fake {
	head := map[string]string{}
	var diff strings.Builder
	for _, p := range order {
		c := files[p]
		head[p] = c
		lines := strings.SplitAfter(strings.TrimSuffix(c, "\n"), "\n")
		fmt.Fprintf(&diff, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, p, len(lines))
		for _, l := range lines {
			diff.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	return scopeRepo(map[string]string{}, head, diff.String())
}

func collectChange(t *testing.T, repo *pipelinetest.Fake, lim pipeline.Limits) ContextResult {
	t.Helper()
	res, err := Collect(t.Context(), ContextSources{Repo: repo, Diffs: repo}, ContextInput{Base: "base", Head: "head", Title: "Big change"}, lim)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkGroups asserts the invariants every grouped answer keeps: each
// group's prompts within the budget, every reviewed file in exactly one
// group, group items self-contained, coverage adding up.
func checkGroups(t *testing.T, res ContextResult, lim pipeline.Limits) {
	t.Helper()
	lim = lim.WithDefaults()
	if len(res.Groups) == 0 || len(res.Groups) > lim.MaxGroups {
		t.Fatalf("%d groups, want 1..%d", len(res.Groups), lim.MaxGroups)
	}
	reviewCap := int(float64(lim.MaxPromptChars) * (1 - groups.ContextReserve))
	inGroup := map[string]string{}
	for i, g := range res.Groups {
		if g.ID != fmt.Sprintf("g%d", i+1) || g.Group != g.ID {
			t.Errorf("group %d: id %q group %q", i, g.ID, g.Group)
		}
		if got := promptChars(g.ScoutPrompt); got != g.Stats.PromptChars || got > lim.MaxPromptChars {
			t.Errorf("group %s: scout prompt %d chars (stats %d), budget %d", g.ID, got, g.Stats.PromptChars, lim.MaxPromptChars)
		}
		review := promptChars(merge.ReviewPrompt(mergeContextOf(g.ContextResult)))
		if review != g.Stats.ReviewPromptChars || review > reviewCap {
			t.Errorf("group %s: review prompt %d chars (stats %d), cap %d", g.ID, review, g.Stats.ReviewPromptChars, reviewCap)
		}
		if g.Workspace != res.Workspace || g.Ref != res.Ref || g.PR.Title != res.PR.Title {
			t.Errorf("group %s is not self-contained: %q %q %q", g.ID, g.Workspace, g.Ref, g.PR.Title)
		}
		if len(res.Groups) > 1 && (g.Part == nil || g.Part.Index != i+1 || g.Part.Of != len(res.Groups) || g.Part.Files != len(g.Files)) {
			t.Errorf("group %s: part %+v", g.ID, g.Part)
		}
		if g.Coverage.Reviewed != len(g.Files) {
			t.Errorf("group %s: coverage %+v for %d files", g.ID, g.Coverage, len(g.Files))
		}
		for _, f := range g.Files {
			if other, ok := inGroup[f.Path]; ok {
				t.Errorf("%s in groups %s and %s", f.Path, other, g.ID)
			}
			inGroup[f.Path] = g.ID
		}
	}
	if len(inGroup) != len(res.Files) || res.Coverage.Reviewed != len(res.Files) {
		t.Errorf("%d files in groups, %d top-level files, coverage %+v", len(inGroup), len(res.Files), res.Coverage)
	}
	if c := res.Coverage; c.Changed != c.Reviewed+c.Excluded+c.DroppedForBudget {
		t.Errorf("coverage does not add up: %+v", c)
	}
	if got := promptChars(res.ScoutPrompt); got > lim.MaxPromptChars && len(res.Groups) > 1 {
		t.Errorf("top-level scout prompt %d chars over the budget %d", got, lim.MaxPromptChars)
	}
}

// goFile is a Go source of about size bytes declaring decl (and calling
// each of calls).
func goFile(pkg, decl string, calls []string, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n// %s does its part.\nfunc %s() int {\n\tn := 0\n", pkg, decl, decl)
	for _, c := range calls {
		fmt.Fprintf(&b, "\tn += %s()\n", c)
	}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\tn += %d // step %d of the computation\n", i, i)
	}
	b.WriteString("\treturn n\n}\n")
	return b.String()
}

// TestGroupsKeepPackageTogether: when a package fits one group, all its
// files land in the same group, and no group is over the budget.
func TestGroupsKeepPackageTogether(t *testing.T) {
	files := map[string]string{}
	var order []string
	for _, pkg := range []string{"alpha", "beta", "gamma", "delta"} {
		for i := range 3 {
			p := fmt.Sprintf("pkg/%s/f%d.go", pkg, i)
			files[p] = goFile(pkg, fmt.Sprintf("%sPart%d", strings.ToUpper(pkg[:1])+pkg[1:], i), nil, 2500)
			order = append(order, p)
		}
	}
	lim := pipeline.DefaultLimits()
	lim.MaxPromptChars = 28_000 // room for about two packages' files per review
	res := collectChange(t, changeRepo(files, order), lim)
	checkGroups(t, res, lim)
	if len(res.Groups) < 2 {
		t.Fatalf("%d groups: the change should not fit one review", len(res.Groups))
	}
	groupOf := map[string]string{}
	for _, g := range res.Groups {
		for _, f := range g.Files {
			dir := path.Dir(f.Path)
			if other, ok := groupOf[dir]; ok && other != g.ID {
				t.Errorf("package %s split between groups %s and %s", dir, other, g.ID)
			}
			groupOf[dir] = g.ID
		}
	}
	if res.Coverage.Groups != len(res.Groups) || res.Coverage.DroppedForBudget != 0 {
		t.Errorf("coverage %+v", res.Coverage)
	}
	if !strings.Contains(res.Groups[1].ScoutPrompt.User, "# Part 2 of ") || !strings.Contains(res.Groups[1].ScoutPrompt.User, "the other changed files are handled in the other parts") {
		t.Error("a group's scout prompt does not say which part it is")
	}
}

// TestGroupsSplitPackage: a package larger than one group spans as few
// groups as its size needs, each file with its test, and no other
// directory's file slips in between.
func TestGroupsSplitPackage(t *testing.T) {
	files := map[string]string{}
	var order []string
	for _, name := range []string{"alpha", "beta", "gamma", "delta"} {
		for _, suffix := range []string{"", "_test"} {
			p := "pkg/big/" + name + suffix + ".go"
			files[p] = goFile("big", strings.ToUpper(name[:1])+name[1:]+strings.TrimPrefix(suffix, "_"), nil, 2200)
			order = append(order, p)
		}
	}
	files["other/x.go"] = goFile("other", "Other", nil, 1500)
	order = append(order, "other/x.go")
	lim := pipeline.DefaultLimits()
	lim.MaxPromptChars = 33_000 // two of the four file pairs per review
	res := collectChange(t, changeRepo(files, order), lim)
	checkGroups(t, res, lim)
	groupOf := map[string]string{}
	bigGroups := map[string]bool{}
	for _, g := range res.Groups {
		for _, f := range g.Files {
			groupOf[f.Path] = g.ID
			if strings.HasPrefix(f.Path, "pkg/big/") {
				bigGroups[g.ID] = true
			}
		}
	}
	if len(bigGroups) != 2 {
		t.Errorf("pkg/big spans %d groups, want 2", len(bigGroups))
	}
	for _, name := range []string{"alpha", "beta", "gamma", "delta"} {
		if a, b := groupOf["pkg/big/"+name+".go"], groupOf["pkg/big/"+name+"_test.go"]; a != b {
			t.Errorf("%s.go in %s, its test in %s", name, a, b)
		}
	}
}

// TestGroupsLinkCallers: across directories, a changed function and its
// changed caller are grouped together before unrelated directories.
func TestGroupsLinkCallers(t *testing.T) {
	files := map[string]string{
		"billing/total.go":   goFile("billing", "ComputeInvoiceTotal", nil, 5000),
		"api/handler.go":     goFile("api", "ServeInvoice", []string{"billing.ComputeInvoiceTotal"}, 5000),
		"catalog/items.go":   goFile("catalog", "ListItems", nil, 5000),
		"shipping/parcel.go": goFile("shipping", "PackParcel", nil, 5000),
	}
	order := []string{"api/handler.go", "billing/total.go", "catalog/items.go", "shipping/parcel.go"}
	lim := pipeline.DefaultLimits()
	lim.MaxPromptChars = 36_000 // two of the four files per review
	res := collectChange(t, changeRepo(files, order), lim)
	checkGroups(t, res, lim)
	if len(res.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(res.Groups))
	}
	for _, g := range res.Groups {
		var paths []string
		for _, f := range g.Files {
			paths = append(paths, f.Path)
		}
		if strings.Contains(strings.Join(paths, " "), "api/handler.go") && strings.Join(paths, " ") != "api/handler.go billing/total.go" {
			t.Errorf("the caller and the changed function are apart: group %s holds %v", g.ID, paths)
		}
	}
}

// TestGroups5000Files: 5,000 one-line files give bounded groups and bounded
// prompts; past the group limit whole groups are dropped and named.
func TestGroups5000Files(t *testing.T) {
	files := map[string]string{}
	var order []string
	for d := range 50 {
		for i := range 100 {
			p := fmt.Sprintf("svc%02d/file%03d.go", d, i)
			files[p] = fmt.Sprintf("package svc%02d // %d\n", d, i)
			order = append(order, p)
		}
	}
	lim := pipeline.DefaultLimits()
	res := collectChange(t, changeRepo(files, order), lim)
	checkGroups(t, res, lim)
	if len(res.Groups) != lim.MaxGroups {
		t.Errorf("%d groups, want the limit %d", len(res.Groups), lim.MaxGroups)
	}
	c := res.Coverage
	if c.Changed != 5000 || c.Reviewed+c.DroppedForBudget != 5000 || c.DroppedForBudget == 0 || c.DroppedGroups == 0 || c.DroppedByReason[pipeline.GateMaxGroups] != c.DroppedForBudget {
		t.Errorf("coverage %+v", c)
	}
	named := 0
	for _, e := range res.Excluded {
		if e.Reason == pipeline.GateMaxGroups {
			named++
		}
	}
	if named != c.DroppedForBudget || !strings.Contains(strings.Join(res.Warnings, "\n"), "PRSCOUT_MAX_GROUPS") {
		t.Errorf("%d files named max_groups for %d dropped; warnings %q", named, c.DroppedForBudget, res.Warnings)
	}
	if p := promptChars(res.ScoutPrompt); p > lim.MaxPromptChars || !strings.Contains(res.ScoutPrompt.User, "# Changed files not shown in full") {
		t.Errorf("top-level scout prompt %d chars, budget %d, or no list of files not shown in full", p, lim.MaxPromptChars)
	}
	if strings.Count(res.Groups[0].ScoutPrompt.User, "\n- ") > merge.MaxListedExcluded+1 {
		t.Error("a group's prompt lists more excluded files than the bound")
	}
	// The streamed JSON is the marshalled JSON, groups included.
	var b strings.Builder
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(res)
	if b.String() != string(want) {
		t.Error("WriteJSON differs from json.Marshal for a grouped answer")
	}
}

// TestGroupsMaxGroups: the limit is a setting; the groups kept are those
// with the most changed lines, renumbered in path order.
func TestGroupsMaxGroups(t *testing.T) {
	files := map[string]string{}
	var order []string
	for i, pkg := range []string{"a", "b", "c", "d"} {
		p := pkg + "/x.go"
		files[p] = goFile(pkg, "Do"+strings.ToUpper(pkg), nil, 4000+i*500) // d changes the most lines
		order = append(order, p)
	}
	lim := pipeline.DefaultLimits()
	lim.MaxPromptChars = 20_000 // one file per review
	lim.MaxGroups = 2
	res := collectChange(t, changeRepo(files, order), lim)
	checkGroups(t, res, lim)
	var kept []string
	for _, g := range res.Groups {
		kept = append(kept, g.Files[0].Path)
	}
	if strings.Join(kept, " ") != "c/x.go d/x.go" {
		t.Errorf("kept %v, want the two largest changes in path order", kept)
	}
	if res.Coverage.DroppedGroups != 2 || res.Coverage.DroppedForBudget != 2 ||
		!strings.Contains(res.Coverage.Sentence(), "2 dropped for budget (2 review groups past the group limit)") {
		t.Errorf("coverage %+v: %s", res.Coverage, res.Coverage.Sentence())
	}
	if res.Groups[0].Part.Dropped != 2 || !strings.Contains(res.Groups[0].ScoutPrompt.User, "2 further changed files over the limit of review groups") {
		t.Errorf("part %+v: the prompt does not say files were dropped", res.Groups[0].Part)
	}
}

// TestGroupsWindowHugeFile: a single 2 MB file is reviewed alone with its
// hunks windowed, never silently cut: the omitted new-file lines are named
// in the file, the prompts, the warnings and the coverage.
func TestGroupsWindowHugeFile(t *testing.T) {
	var big strings.Builder
	for i := 1; big.Len() < 2<<20; i++ {
		fmt.Fprintf(&big, "const value%06d = %d // generated table entry\n", i, i*7)
	}
	total := strings.Count(big.String(), "\n")
	files := map[string]string{"tables/table.go": "package tables\n" + big.String(), "main.go": goFile("main", "Main", nil, 800)}
	lim := pipeline.DefaultLimits()
	res := collectChange(t, changeRepo(files, []string{"tables/table.go", "main.go"}), lim)
	checkGroups(t, res, lim)
	if len(res.Groups) != 2 {
		t.Fatalf("%d groups, want the big file alone and main.go", len(res.Groups))
	}
	g := res.Groups[1] // groups come in path order: main.go first
	if len(g.Files) != 1 || g.Files[0].Path != "tables/table.go" {
		t.Fatalf("group 2 holds %d files, first %s", len(g.Files), g.Files[0].Path)
	}
	f := g.Files[0]
	if len(f.DiffOmitted) != 1 || f.DiffOmitted[0].To != total+1 || f.DiffOmitted[0].From < 100 {
		t.Fatalf("omitted %v, want one range ending at line %d", f.DiffOmitted, total+1)
	}
	from := f.DiffOmitted[0].From
	named := fmt.Sprintf("new-file lines %d-%d are left out (not shown, not reviewed)", from, total+1)
	for where, text := range map[string]string{
		"scout prompt": g.ScoutPrompt.User, "review prompt": merge.ReviewPrompt(mergeContextOf(g.ContextResult)).User,
		"warnings": strings.Join(res.Warnings, "\n"), "group label": g.Part.Label,
	} {
		want := named
		if where == "group label" {
			want = "tables/table.go (windowed)"
		}
		if !strings.Contains(text, want) {
			t.Errorf("%s does not say %q", where, want)
		}
	}
	if res.Coverage.Windowed != 1 || res.Coverage.Reviewed != 2 || res.Coverage.DroppedForBudget != 0 || g.Coverage.Windowed != 1 {
		t.Errorf("coverage %+v, group %+v", res.Coverage, g.Coverage)
	}
	// The windowed diff is a valid diff that ends just before the omitted lines.
	parsed, _, err := gitdiff.Parse(strings.NewReader(f.Diff))
	if err != nil || len(parsed) != 1 || len(parsed[0].TextFragments) != 1 {
		t.Fatalf("windowed diff does not parse: %v", err)
	}
	if fr := parsed[0].TextFragments[0]; int(fr.NewPosition+fr.NewLines) != from {
		t.Errorf("kept lines end at %d, omitted range starts at %d", fr.NewPosition+fr.NewLines, from)
	}
	if res.Files[1].Path != f.Path || res.Files[1].Diff != f.Diff {
		t.Error("the top-level file is not the windowed one its group shows")
	}
}

// TestGroupItemThroughMerge: /v1/merge takes a group's item as it takes a
// whole context: the review prompt says which part it is and the answer
// echoes the group for /v1/comments.
func TestGroupItemThroughMerge(t *testing.T) {
	files := map[string]string{}
	var order []string
	for _, pkg := range []string{"a", "b", "c"} {
		p := pkg + "/x.go"
		files[p] = goFile(pkg, "Do"+strings.ToUpper(pkg), nil, 5000)
		order = append(order, p)
	}
	lim := pipeline.DefaultLimits()
	lim.MaxPromptChars = 14_000
	res := collectChange(t, changeRepo(files, order), lim)
	checkGroups(t, res, lim)
	item, err := json.Marshal(res.Groups[1])
	if err != nil {
		t.Fatal(err)
	}
	var in merge.MergeInput
	if err := json.Unmarshal([]byte(`{"context":`+string(item)+`,"results":[]}`), &in); err != nil {
		t.Fatal(err)
	}
	m, err := merge.Merge(in, lim)
	if err != nil {
		t.Fatal(err)
	}
	if m.Group != "g2" || m.Part == nil || m.Part.Index != 2 || len(m.Files) != len(res.Groups[1].Files) {
		t.Errorf("merge answer group %q part %+v files %d", m.Group, m.Part, len(m.Files))
	}
	if !strings.Contains(m.ReviewPrompt.User, "# Part 2 of 3 of this pull request") || !strings.Contains(m.ReviewPrompt.User, "do not report them as missing") {
		t.Error("the review prompt does not say which part it is")
	}
	if m.Stats.PromptChars > lim.MaxPromptChars {
		t.Errorf("review prompt %d over the budget %d", m.Stats.PromptChars, lim.MaxPromptChars)
	}
}

// TestOneGroupMirrorsTopLevel: a change that fits gives exactly one group,
// and the top-level fields are those of that group.
func TestOneGroupMirrorsTopLevel(t *testing.T) {
	res := collectChange(t, changeRepo(map[string]string{"a/x.go": goFile("a", "Do", nil, 500)}, []string{"a/x.go"}), pipeline.DefaultLimits())
	if len(res.Groups) != 1 {
		t.Fatalf("%d groups", len(res.Groups))
	}
	g := res.Groups[0]
	if g.ScoutPrompt != res.ScoutPrompt || len(g.Files) != 1 || g.Part != nil || g.Group != "g1" || res.Group != "" || res.Coverage.Groups != 0 {
		t.Errorf("the one group differs from the top level: part %+v group %q", g.Part, g.Group)
	}
	if strings.Contains(res.ScoutPrompt.User, "# Part ") {
		t.Error("a change that fits has no part note")
	}
}

// TestPlanPrepInBackground: the review groups' preparation made while the
// candidates run is the one made in place, and is not used for other files.
func TestPlanPrepInBackground(t *testing.T) {
	files := []pipeline.ChangedFile{
		{Path: "billing/total.go", Diff: "@@ -1,2 +1,3 @@\n package billing\n+func ComputeInvoiceTotal() int { return 1 }\n-var old = 1\n"},
		{Path: "api/handler.go", Diff: "@@ -1 +1,2 @@\n package api\n+var _ = billing.ComputeInvoiceTotal()\n"},
	}
	res := &ContextResult{Files: files}
	res.startPlanPrep(5000)
	got, want := res.takePlanPrep(), makePlanPrep(files, 5000, nil)
	if len(want.links) == 0 || want.changed["billing/total.go"] != 2 {
		t.Fatalf("the files test nothing: links %v, changed %v", want.links, want.changed)
	}
	if fmt.Sprint(got.links, got.changed) != fmt.Sprint(want.links, want.changed) {
		t.Errorf("background preparation %v %v, want %v %v", got.links, got.changed, want.links, want.changed)
	}
	for i, f := range files {
		if c := fileCost(f, 5000, nil); got.costs[i] != c || c == 0 {
			t.Errorf("%s: background cost %d, fileCost %d", f.Path, got.costs[i], c)
		}
	}
	if p := res.waitPlanPrep(); p != got {
		t.Errorf("waiting again gave another preparation")
	}
	res.startPlanPrep(5000)
	res.Files = files[:1]
	if p := res.takePlanPrep(); len(p.files) != 1 || len(p.links) != 0 || p.costs != nil {
		t.Errorf("preparation of other files used: %d files, links %v, costs %v", len(p.files), p.links, p.costs)
	}
}

// TestMayGroup: the plan is prepared ahead only for changes large enough to
// be split: more than one file holding over half the prompt budget.
func TestMayGroup(t *testing.T) {
	lim := pipeline.DefaultLimits()
	big := strings.Repeat("x", lim.MaxPromptChars/3)
	for _, tt := range []struct {
		name  string
		files []pipeline.ChangedFile
		want  bool
	}{
		{"none", nil, false},
		{"one large file", []pipeline.ChangedFile{{Path: "a.go", Diff: big, Source: big}}, false},
		{"two small files", []pipeline.ChangedFile{{Path: "a.go", Diff: "+a"}, {Path: "b.go", Diff: "+b"}}, false},
		{"two files over half", []pipeline.ChangedFile{{Path: "a.go", Diff: big}, {Path: "b.go", Source: big}}, true},
	} {
		res := &ContextResult{Files: tt.files}
		if got := res.mayGroup(lim); got != tt.want {
			t.Errorf("%s: mayGroup = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCandidatesForKeptGroupsOnly: when review groups are dropped past the
// limit, the candidates are found for the files the review keeps, not for
// the dropped ones, and the groups, files and exclusions are those the
// answer has without candidates.
func TestCandidatesForKeptGroupsOnly(t *testing.T) {
	base := map[string]string{"go.mod": "module example.com/app\n"}
	head := map[string]string{"go.mod": base["go.mod"]}
	var diff strings.Builder
	for i, pkg := range []string{"a", "b", "c", "d"} {
		helper := "Help" + strings.ToUpper(pkg)
		lib := fmt.Sprintf("package lib\n\n// %s helps %s.\nfunc %s() int { return %d }\n", helper, pkg, helper, i)
		base["lib/"+pkg+".go"], head["lib/"+pkg+".go"] = lib, lib
		// d changes the most lines: c and d are kept.
		src := goFile(pkg, "Do"+strings.ToUpper(pkg), []string{"lib." + helper}, 4000+i*500)
		src = strings.Replace(src, "package "+pkg+"\n", "package "+pkg+"\n\nimport \"example.com/app/lib\"\n", 1)
		p := pkg + "/x.go"
		head[p] = src
		lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
		fmt.Fprintf(&diff, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, p, len(lines))
		for _, l := range lines {
			diff.WriteString("+" + l + "\n")
		}
	}
	f := scopeRepo(base, head, diff.String())
	lim := pipeline.DefaultLimits()
	lim.MaxPromptChars = 20_000 // one file per review
	lim.MaxGroups = 2
	collectWith := func(lim pipeline.Limits) ContextResult {
		t.Helper()
		res, err := Collect(t.Context(), ContextSources{Repo: f, Diffs: f, Search: pipelinetest.NewSearchRepo(f)},
			ContextInput{Base: "base", Head: "head", Title: "Big change"}, lim)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := collectWith(lim)
	checkGroups(t, res, lim)
	var got []string
	for _, c := range res.Candidates {
		got = append(got, c.Path)
	}
	if strings.Join(got, " ") != "lib/c.go lib/d.go" && strings.Join(got, " ") != "lib/d.go lib/c.go" {
		t.Errorf("candidates %v, want lib/c.go and lib/d.go: those the kept c/x.go and d/x.go use, none for the dropped a/ and b/", got)
	}
	off := lim
	off.CandidatesMax = 0
	without := collectWith(off)
	shape := func(res ContextResult) string {
		var b strings.Builder
		for _, g := range res.Groups {
			for _, f := range g.Files {
				b.WriteString(g.ID + ":" + f.Path + " ")
			}
		}
		for _, e := range res.Excluded {
			b.WriteString(e.Path + "=" + e.Reason + " ")
		}
		fmt.Fprintf(&b, "%+v %q", res.Coverage, res.Warnings)
		return b.String()
	}
	if a, b := shape(res), shape(without); a != b {
		t.Errorf("with candidates:\n%s\nwithout:\n%s", a, b)
	}
	if res.Groups[0].Part.Dropped != 2 || !strings.Contains(res.Groups[0].ScoutPrompt.User, "2 further changed files over the limit of review groups") {
		t.Errorf("part %+v: the prompt does not say files were dropped", res.Groups[0].Part)
	}
}

package scope

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// RepoRulesPath is the repository's rule file, read at the destination
// (base) commit, never at the head: a pull request cannot rewrite the rules
// it is reviewed by.
const RepoRulesPath = ".prscout/rules.json"

// MaxRulesBytes bounds a rule file.
const MaxRulesBytes = 512 << 10

// Rule layers, highest priority first.
const (
	layerRequest    = "request"    // the request's rules object
	layerRepository = "repository" // .prscout/rules.json at the destination commit
	layerService    = "service"    // PRSCOUT_RULES_FILE
	LayerBuiltin    = "builtin"    // built-in language rules
	LayerNone       = "none"       // nothing matched
)

// PathRule is one rule of a rule file: review guidance for the files its
// glob matches. MergeSystemRule keeps the built-in language rule for those
// files too (otherwise the matched rule replaces it).
type PathRule struct {
	Path            string `json:"path"`
	Rule            string `json:"rule"`
	MergeSystemRule bool   `json:"merge_system_rule,omitempty"`
	// Source names the review thread a learned rule was proposed from
	// (pipeline/learn); nil for a rule written by hand. The rule applies
	// the same either way.
	Source *RuleSource `json:"source,omitempty"`
}

// RuleSource is where a learned rule comes from: the pull request and
// comment of the thread it was proposed in, its link, and who proposed it.
type RuleSource struct {
	PR      int    `json:"pr,omitempty"`
	Comment int64  `json:"comment,omitempty"`
	URL     string `json:"url,omitempty"`
	Author  string `json:"author,omitempty"`
}

// RuleFile is the shape of .prscout/rules.json, PRSCOUT_RULES_FILE and the
// request's rules object. Exclude and include globs at the top join the
// request's (see FileGates).
type RuleFile struct {
	Exclude []string   `json:"exclude,omitempty"`
	Include []string   `json:"include,omitempty"`
	Rules   []PathRule `json:"rules,omitempty"`
	// Reviews says when reviews run (see ReviewSettings).
	Reviews *ReviewSettings `json:"reviews,omitempty"`
}

// ReviewSettings are the "reviews" object of a rule file. Push is how a
// push to an already reviewed pull request is reviewed: PushDelta (the
// change since the reviewed commit) or PushOff (not at all; the first
// review still runs); it overrides PRSCOUT_PUSH_REVIEWS. An unknown value
// is a warning and no setting, never a failed review: RuleSet.PushReviews.
type ReviewSettings struct {
	Push string `json:"push,omitempty"`
}

// Push review modes (ReviewSettings.Push, PRSCOUT_PUSH_REVIEWS).
const (
	PushDelta = "delta"
	PushOff   = "off"
)

// ParsePushMode reads a push review mode, case and spaces forgiven;
// ok is false for anything but PushDelta and PushOff.
func ParsePushMode(v string) (mode string, ok bool) {
	switch m := strings.ToLower(strings.TrimSpace(v)); m {
	case PushDelta, PushOff:
		return m, true
	}
	return "", false
}

// ParseRuleFile decodes a rule file strictly (unknown fields are errors, so
// a misspelt "merge_system_rules" is not silently ignored) and checks every
// glob. field prefixes error field paths ("rules" for the request).
func ParseRuleFile(data []byte, field string) (*RuleFile, error) {
	var rf RuleFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rf); err != nil {
		return nil, pipeline.Invalidf(field, "not a rule file ({exclude?, include?, rules: [{path, rule, merge_system_rule?, source?}], reviews?: {push?}}): %v", err)
	}
	if _, err := rf.compile(layerRequest, "", field); err != nil {
		return nil, err
	}
	return &rf, nil
}

// RulesField is the request's `rules`: free text for the whole review (a
// string) or a RuleFile object.
type RulesField struct {
	Text string
	File *RuleFile
}

// UnmarshalJSON accepts a string or a rule file object.
func (r *RulesField) UnmarshalJSON(data []byte) error {
	d := bytes.TrimSpace(data)
	switch {
	case len(d) == 0 || bytes.Equal(d, []byte("null")):
		*r = RulesField{}
		return nil
	case d[0] == '"':
		*r = RulesField{}
		return json.Unmarshal(d, &r.Text)
	case d[0] == '{':
		rf, err := ParseRuleFile(d, "rules")
		if err != nil {
			return err
		}
		*r = RulesField{File: rf}
		return nil
	}
	return pipeline.Invalidf("rules", "must be a string or a rule file object")
}

// MarshalJSON writes the text, or the rule file when there is one.
func (r RulesField) MarshalJSON() ([]byte, error) {
	if r.File != nil {
		return json.Marshal(r.File)
	}
	return json.Marshal(r.Text)
}

type compiledRule struct {
	glob    Glob
	rule    string
	merge   bool
	learned bool // the rule carries a source (a learned rule)
}

// RuleLayer is one compiled layer of rules.
type RuleLayer struct {
	Name    string // LayerRequest, LayerRepository, LayerService
	Source  string // where it came from, e.g. ".prscout/rules.json@1a2b3c4d5e6f"
	Include []Glob
	Exclude []Glob
	rules   []compiledRule
	// push is the layer's reviews.push as written ("": not set); field
	// names it in warnings.
	push, pushField string
}

func (rf *RuleFile) compile(name, source, field string) (RuleLayer, error) {
	l := RuleLayer{Name: name, Source: source}
	if rf.Reviews != nil {
		l.push, l.pushField = rf.Reviews.Push, field+".reviews.push"
	}
	var err error
	if l.Include, err = CompileGlobs(field+".include", rf.Include); err != nil {
		return l, err
	}
	if l.Exclude, err = CompileGlobs(field+".exclude", rf.Exclude); err != nil {
		return l, err
	}
	for i, r := range rf.Rules {
		g, err := compileGlob(r.Path)
		if err != nil {
			return l, pipeline.Invalidf(fmt.Sprintf("%s.rules[%d].path", field, i), "%v", err)
		}
		if strings.TrimSpace(r.Rule) == "" {
			return l, pipeline.Invalidf(fmt.Sprintf("%s.rules[%d].rule", field, i), "required")
		}
		l.rules = append(l.rules, compiledRule{glob: g, rule: strings.TrimSpace(r.Rule), merge: r.MergeSystemRule, learned: r.Source != nil})
	}
	return l, nil
}

// RuleSet resolves a file's rules through the layers: request > repository >
// service > built-in. Within a layer the first matching pattern wins; layers
// do not merge, except that merge_system_rule appends the built-in language
// rule.
type RuleSet struct {
	Layers []RuleLayer
}

// RuleMatch is the rule that won for one path (rules check's answer).
type RuleMatch struct {
	Path    string `json:"path"`
	Layer   string `json:"layer"`             // request, repository, service, builtin or none
	Source  string `json:"source,omitempty"`  // the rule file, or "built-in"
	Pattern string `json:"pattern,omitempty"` // the winning pattern as written
	// Rule is the guidance the prompts show for the file.
	Rule string `json:"rule"`
	// MergedSystemRule is true when the built-in rule was appended.
	MergedSystemRule bool `json:"mergedSystemRule,omitempty"`
	// Learned marks a rule that carries a source: proposed from a review
	// thread and merged with the review rules pull request.
	Learned bool `json:"learned,omitempty"`
	// Gate is the file gate decision for the path alone ("" = reviewed;
	// binary and deleted need the diff and are not checked).
	Gate string `json:"gate"`
}

// NewRuleSet compiles the layers that are present (nil files are skipped).
// Errors are *InvalidError values naming the layer's field.
func NewRuleSet(request *RuleFile, repository *RuleFile, repositorySource string, service *RuleFile, serviceSource string) (*RuleSet, error) {
	rs := &RuleSet{}
	for _, l := range []struct {
		f            *RuleFile
		name, source string
	}{
		{request, layerRequest, "request"},
		{repository, layerRepository, repositorySource},
		{service, layerService, serviceSource},
	} {
		if l.f == nil {
			continue
		}
		field := "rules"
		if l.name != layerRequest {
			field = l.source
		}
		cl, err := l.f.compile(l.name, l.source, field)
		if err != nil {
			return nil, err
		}
		rs.Layers = append(rs.Layers, cl)
	}
	return rs, nil
}

// Gates returns the file gates with every layer's include and exclude globs
// added to the request's.
func (rs *RuleSet) Gates(include, exclude []Glob) FileGates {
	g := FileGates{Include: append([]Glob(nil), include...), Exclude: append([]Glob(nil), exclude...)}
	if rs == nil {
		return g
	}
	for _, l := range rs.Layers {
		g.Include = append(g.Include, l.Include...)
		g.Exclude = append(g.Exclude, l.Exclude...)
	}
	return g
}

// PushReviews is how a push to an already reviewed pull request is
// reviewed: the highest layer's reviews.push, else fallback (the setting).
// from names where the mode came from ("" for the fallback). A value that
// is neither delta nor off is a warning and the next layer decides.
func (rs *RuleSet) PushReviews(fallback string) (mode, from string, warnings []string) {
	if rs != nil {
		for _, l := range rs.Layers {
			if strings.TrimSpace(l.push) == "" {
				continue
			}
			if m, ok := ParsePushMode(l.push); ok {
				return m, l.pushField, warnings
			}
			warnings = append(warnings, fmt.Sprintf("%s: %q is not a push review mode (delta or off): ignored", l.pushField, l.push))
		}
	}
	if m, ok := ParsePushMode(fallback); ok {
		return m, "", warnings
	}
	return PushDelta, "", warnings
}

// Resolve returns the rule that wins for path.
func (rs *RuleSet) Resolve(p string) RuleMatch {
	if rs != nil {
		for _, l := range rs.Layers {
			for _, r := range l.rules {
				if !r.glob.Match(p) {
					continue
				}
				m := RuleMatch{Path: p, Layer: l.Name, Source: l.Source, Pattern: r.glob.Raw, Rule: r.rule, Learned: r.learned}
				if r.merge {
					if b := builtinRule(p); b != "" {
						m.Rule += "\n\n" + b
						m.MergedSystemRule = true
					}
				}
				return m
			}
		}
	}
	if b := builtinRule(p); b != "" {
		return RuleMatch{Path: p, Layer: LayerBuiltin, Source: "built-in", Pattern: "language:" + Language(p), Rule: b}
	}
	return RuleMatch{Path: p, Layer: LayerNone}
}

// Check explains the decision for each path: the gate (path-only gates) and
// the winning rule.
func (rs *RuleSet) Check(include, exclude []Glob, paths []string) []RuleMatch {
	g := rs.Gates(include, exclude)
	out := make([]RuleMatch, 0, len(paths))
	for _, p := range paths {
		m := rs.Resolve(p)
		m.Gate = g.Decide(GateFile{Path: p, Status: "modified"})
		out = append(out, m)
	}
	return out
}

// builtinRules are short language checklists used when no rule file matches.
var builtinRules = map[string]string{
	"go":         "Go: check that errors are handled or returned with context (fmt.Errorf %w), nil maps/pointers are not dereferenced, goroutines cannot leak or race on shared state, contexts are passed and honoured, and deferred Close errors matter where data is written.",
	"javascript": "JavaScript: check null/undefined access, unawaited promises and unhandled rejections, == vs ===, user input reaching HTML (XSS), eval or dynamic require, and mutation of shared objects.",
	"typescript": "TypeScript: check unsafe `any`/non-null assertions hiding null bugs, unawaited promises, user input reaching HTML (XSS) or queries, and types that no longer match runtime data.",
	"tsx":        "React/TSX: check hook dependency lists, state updates during render, keys in lists, unescaped HTML (dangerouslySetInnerHTML) and unawaited promises.",
	"jsx":        "React/JSX: check hook dependency lists, state updates during render, keys in lists and unescaped HTML (dangerouslySetInnerHTML).",
	"python":     "Python: check None handling, mutable default arguments, broad except clauses that hide errors, SQL built by string formatting, unclosed files and shell=True subprocess calls with user input.",
	"java":       "Java: check NullPointerException risks, unclosed resources (use try-with-resources), equals/hashCode contracts, SQL injection through string concatenation and thread safety of shared fields.",
	"kotlin":     "Kotlin: check !! assertions, coroutine scope leaks, blocking calls on the main dispatcher and platform types from Java.",
	"csharp":     "C#: check null dereferences, async void, missing await, undisposed IDisposable and SQL built from strings.",
	"sql":        "SQL: check missing WHERE clauses on UPDATE/DELETE, locking or full-table migrations, missing indexes for new queries and non-reversible schema changes.",
	"php":        "PHP: check SQL injection, XSS in output, loose comparisons (==) and unvalidated input.",
	"ruby":       "Ruby: check nil handling, SQL built from strings, mass assignment and N+1 queries.",
	"rust":       "Rust: check unwrap/expect on fallible input, unsafe blocks, integer overflow in release builds and blocking in async code.",
	"bash":       "Shell: check unquoted variables, missing `set -euo pipefail`, unsafe temporary files and commands built from untrusted input.",
	"yaml":       "Configuration: check secrets in plain text, wrong indentation changing meaning, and settings that weaken security or availability.",
	"dockerfile": "Dockerfile: check running as root, unpinned base images, secrets in layers and missing cache cleanup.",
	"terraform":  "Terraform: check public exposure, missing encryption, overly broad IAM and destructive changes.",
}

// builtinRule returns the built-in rule for a path's language ("" if none).
func builtinRule(p string) string { return builtinRules[Language(p)] }

// loadRepoRules reads .prscout/rules.json at commit (the destination). A
// missing file is no layer; an unreadable or invalid one is a warning and no
// layer, so a broken rule file never stops a review.
func LoadRepoRules(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, commit string) (*RuleFile, string, string) {
	source := RepoRulesPath + "@" + pipeline.ShortCommit(commit)
	data, err := repo.ReadFile(ctx, r, commit, RepoRulesPath, MaxRulesBytes)
	switch {
	case errors.Is(err, pipeline.ErrNotFound), errors.Is(err, pipeline.ErrNotDir):
		return nil, source, ""
	case err != nil:
		return nil, source, fmt.Sprintf("%s not read (%v): repository rules skipped", source, err)
	}
	rf, err := ParseRuleFile(data, source)
	if err != nil {
		return nil, source, fmt.Sprintf("%s ignored: %v", source, err)
	}
	return rf, source, ""
}

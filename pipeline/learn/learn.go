// Package learn turns a rule a maintainer proposes from a review thread into
// a change of the repository's rule file that a person approves: prscout
// keeps one open "review rules" pull request per repository, from the branch
// Branch into the destination branch, adding each proposed rule to
// .prscout/rules.json with its source. Merging that pull request is the
// approval: the rule layers read .prscout/rules.json at the destination
// commit, so every later review applies the rule. Nothing is stored besides
// the branch and the pull request.
package learn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/sanitize"
	"github.com/prscout/prscout/pipeline/scope"
)

// Modes of PRSCOUT_LEARNINGS.
const (
	ModeOff    = "off"     // proposals are refused
	ModeDryRun = "dry-run" // the rule that would be added is answered, nothing changes
	ModeOn     = "on"      // the rule is added on the review rules pull request
)

// ParseMode reads a PRSCOUT_LEARNINGS value, case and spaces forgiven.
func ParseMode(v string) (string, error) {
	switch m := strings.ToLower(strings.TrimSpace(v)); m {
	case ModeOff, ModeDryRun, ModeOn:
		return m, nil
	case "dryrun", "dry_run":
		return ModeDryRun, nil
	}
	return "", fmt.Errorf("must be off, dry-run or on, got %q", v)
}

// Branch is the review rules pull request's source branch.
const Branch = "prscout/review-rules"

// Title is the review rules pull request's title.
const Title = "prscout: review rules learned from review threads"

// Bounds of a proposal.
const (
	MaxRuleChars = 2000
	MaxPathChars = 300
)

// Statuses of a Result.
const (
	StatusDryRun    = "dry-run"   // nothing changed; Rule is what would be added
	StatusAdded     = "added"     // committed onto Branch
	StatusDuplicate = "duplicate" // the branch already proposes the same rule
	StatusApproved  = "approved"  // the destination already has the same rule
)

// Proposal is one rule proposed from a review thread.
type Proposal struct {
	// Path is the glob of the files the rule is for; Rule the instruction.
	Path string `json:"path"`
	Rule string `json:"rule"`
	// SourcePRID and SourceCommentID name the thread it was proposed in;
	// SourceURL links to it; Author is who proposed it.
	SourcePRID      int    `json:"sourcePrId"`
	SourceCommentID int64  `json:"sourceCommentId,omitempty"`
	SourceURL       string `json:"sourceUrl,omitempty"`
	Author          string `json:"author,omitempty"`
	// DestinationBranch is the branch the rule is for; empty: the source
	// pull request's destination.
	DestinationBranch string `json:"destinationBranch,omitempty"`
}

// Ports are what Propose needs: Repo reads the rule file, PRs the source
// pull request (for its destination branch), Committer writes the branch
// and the pull request (nil: the provider cannot, and only a dry run
// answers). Mode is PRSCOUT_LEARNINGS. LinkHosts are the hosts links in
// the pull request's description may point at (as in posted comments).
type Ports struct {
	Repo      pipeline.Repository
	PRs       pipeline.PullRequests
	Committer pipeline.BranchCommitter
	Mode      string
	LinkHosts []string
}

// Result is the answer of Propose.
type Result struct {
	Mode   string `json:"mode"`
	Status string `json:"status"`
	// Rule is the rule file entry added (or that would be); Text is it as
	// Markdown for the caller to post in the thread.
	Rule scope.PathRule `json:"rule"`
	Text string         `json:"text"`
	// Branch, DestinationBranch and PullRequest say where the rule was
	// proposed (absent in a dry run). Commit is the commit the rule file
	// was read at.
	Branch            string       `json:"branch,omitempty"`
	DestinationBranch string       `json:"destinationBranch,omitempty"`
	PullRequest       *PullRequest `json:"pullRequest,omitempty"`
	Rules             []ListedRule `json:"rules,omitempty"`
	Warnings          []string     `json:"warnings"`
}

// PullRequest is the review rules pull request; Created is true when this
// proposal opened it.
type PullRequest struct {
	ID      int    `json:"id"`
	URL     string `json:"url,omitempty"`
	Created bool   `json:"created,omitempty"`
}

// ListedRule is one learned rule the review rules pull request proposes.
type ListedRule struct {
	Path   string            `json:"path"`
	Rule   string            `json:"rule"`
	Source *scope.RuleSource `json:"source,omitempty"`
}

// locks serialises proposals per repository within a replica, so two
// proposals at once do not commit onto the same branch head.
var locks sync.Map // "ws/slug" -> *sync.Mutex

// Propose checks p and, by ports.Mode: refuses it (off), answers the rule it
// would add (dry-run), or adds it to the rule file on Branch and opens or
// updates the review rules pull request (on). Proposing a rule that the
// branch or the destination already holds (same glob and text, spaces
// forgiven) adds nothing. Bad input is an *InvalidError naming the field.
func Propose(ctx context.Context, ports Ports, repo pipeline.Repo, p Proposal) (Result, error) {
	mode, err := ParseMode(ports.Mode)
	if err != nil {
		return Result{}, err
	}
	if mode == ModeOff {
		return Result{}, &RefusedError{Code: "learnings_off", Msg: "learnings are off (PRSCOUT_LEARNINGS=off): no rule is proposed"}
	}
	rule, err := check(repo, p)
	if err != nil {
		return Result{}, err
	}
	res := Result{Mode: mode, Rule: rule, Text: ruleText(rule, ports.LinkHosts), Warnings: []string{}}
	if mode == ModeDryRun {
		res.Status = StatusDryRun
		return res, nil
	}
	if ports.Committer == nil {
		return Result{}, &RefusedError{Code: "unsupported_provider", Msg: "the configured provider cannot commit files or open pull requests (the local git provider cannot): learnings need the Bitbucket provider; PRSCOUT_LEARNINGS=dry-run answers the rule only"}
	}
	key := repo.Workspace + "/" + repo.RepoSlug
	mu, _ := locks.LoadOrStore(key, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	return propose(ctx, ports, repo, p, res)
}

// check validates p and builds its rule file entry (rule and source
// redacted: the file is read into prompts).
func check(repo pipeline.Repo, p Proposal) (scope.PathRule, error) {
	switch {
	case strings.TrimSpace(repo.Workspace) == "":
		return scope.PathRule{}, pipeline.Invalidf("workspace", "required")
	case strings.TrimSpace(repo.RepoSlug) == "":
		return scope.PathRule{}, pipeline.Invalidf("repoSlug", "required")
	case strings.TrimSpace(p.Path) == "":
		return scope.PathRule{}, pipeline.Invalidf("path", "required: the glob of the files the rule is for")
	case len([]rune(p.Path)) > MaxPathChars:
		return scope.PathRule{}, pipeline.Invalidf("path", "over %d characters", MaxPathChars)
	case strings.TrimSpace(p.Rule) == "":
		return scope.PathRule{}, pipeline.Invalidf("rule", "required: the instruction text")
	case len([]rune(p.Rule)) > MaxRuleChars:
		return scope.PathRule{}, pipeline.Invalidf("rule", "over %d characters", MaxRuleChars)
	case p.SourcePRID <= 0:
		return scope.PathRule{}, pipeline.Invalidf("sourcePrId", "required: the pull request the rule was proposed in")
	case p.SourceCommentID < 0:
		return scope.PathRule{}, pipeline.Invalidf("sourceCommentId", "must not be negative")
	case strings.ContainsAny(p.DestinationBranch, " \t\r\n~^:?*[\\"):
		return scope.PathRule{}, pipeline.Invalidf("destinationBranch", "not a branch name")
	}
	if _, err := scope.CompileGlobs("path", []string{p.Path}); err != nil {
		return scope.PathRule{}, pipeline.Invalidf("path", "%v", err)
	}
	r := scope.PathRule{
		Path: strings.TrimSpace(p.Path),
		Rule: redact.Secrets(strings.TrimSpace(p.Rule), nil),
		Source: &scope.RuleSource{
			PR: p.SourcePRID, Comment: p.SourceCommentID,
			URL: strings.TrimSpace(p.SourceURL), Author: pipeline.OneLine(p.Author),
		},
	}
	// The rule file must parse again with the rule in it.
	if _, err := scope.ParseRuleFile(mustJSON(scope.RuleFile{Rules: []scope.PathRule{r}}), "rule"); err != nil {
		return scope.PathRule{}, err
	}
	return r, nil
}

func propose(ctx context.Context, ports Ports, repo pipeline.Repo, p Proposal, res Result) (Result, error) {
	c := ports.Committer
	dest := strings.TrimSpace(p.DestinationBranch)
	if dest == "" {
		if ports.PRs == nil {
			return Result{}, pipeline.Invalidf("destinationBranch", "required: the provider has no pull requests to take it from")
		}
		src, err := ports.PRs.PullRequest(ctx, repo, p.SourcePRID)
		if err != nil {
			return Result{}, err
		}
		if dest = src.DestinationBranch; dest == "" {
			return Result{}, pipeline.Invalidf("destinationBranch", "required: pull request %d names no destination branch", p.SourcePRID)
		}
	}
	res.Branch, res.DestinationBranch = Branch, dest
	destHead, err := c.BranchHead(ctx, repo, dest)
	if err != nil {
		return Result{}, fmt.Errorf("destination branch %s: %w", dest, err)
	}
	destFile, _, err := readRules(ctx, ports.Repo, repo, destHead)
	if err != nil {
		return Result{}, err
	}
	if holds(destFile, res.Rule) {
		res.Status = StatusApproved
		return res, nil
	}

	open, hasOpen, err := c.OpenPullRequestFrom(ctx, repo, Branch)
	if err != nil {
		return Result{}, err
	}
	branchHead, err := c.BranchHead(ctx, repo, Branch)
	branchExists := err == nil
	if err != nil && !errors.Is(err, pipeline.ErrNotFound) {
		return Result{}, fmt.Errorf("branch %s: %w", Branch, err)
	}

	// An open pull request: the rule joins the branch's file. Otherwise the
	// file starts again from the destination's. The commit's one parent is
	// the branch's tip when the branch exists (a stale branch of a merged
	// or declined pull request: the only parent Bitbucket accepts there),
	// else the destination's head, where the new branch starts.
	parent, file := destHead, destFile
	if branchExists {
		parent = branchHead
	}
	if hasOpen && branchExists {
		if file, _, err = readRules(ctx, ports.Repo, repo, branchHead); err != nil {
			return Result{}, err
		}
	}
	if holds(file, res.Rule) {
		res.Status = StatusDuplicate
	} else {
		file.Rules = append(file.Rules, res.Rule)
		data, err := encode(file)
		if err != nil {
			return Result{}, err
		}
		msg := fmt.Sprintf("prscout: review rule for %s (proposed in pull request #%d)", res.Rule.Path, p.SourcePRID)
		if err := c.CommitFiles(ctx, repo, pipeline.FileCommit{
			Branch: Branch, Parent: parent, Message: msg, Files: map[string][]byte{scope.RepoRulesPath: data},
		}); err != nil {
			return Result{}, fmt.Errorf("commit %s onto %s: %w", scope.RepoRulesPath, Branch, err)
		}
		res.Status = StatusAdded
	}
	res.Rules = learned(file, destFile)
	desc := Description(res.Rules, dest, ports.LinkHosts)
	var pr pipeline.PullRequestInfo
	switch {
	case hasOpen:
		if pr, err = c.UpdatePullRequest(ctx, repo, open.ID, Title, desc); err != nil {
			return Result{}, err
		}
	default:
		if pr, err = c.CreatePullRequest(ctx, repo, pipeline.NewPullRequest{
			Title: Title, Description: desc, SourceBranch: Branch, DestinationBranch: dest,
		}); err != nil {
			return Result{}, err
		}
	}
	res.PullRequest = &PullRequest{ID: pr.ID, URL: pr.URL, Created: !hasOpen}
	return res, nil
}

// readRules reads the rule file at commit: none is an empty file; one that
// does not parse (a human edit broke it) is refused, since rewriting it
// would lose what it says.
func readRules(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, commit string) (scope.RuleFile, bool, error) {
	if repo == nil {
		return scope.RuleFile{}, false, errors.New("no repository access configured")
	}
	data, err := repo.ReadFile(ctx, r, commit, scope.RepoRulesPath, scope.MaxRulesBytes)
	switch {
	case errors.Is(err, pipeline.ErrNotFound), errors.Is(err, pipeline.ErrNotDir):
		return scope.RuleFile{}, false, nil
	case err != nil:
		return scope.RuleFile{}, false, fmt.Errorf("read %s@%s: %w", scope.RepoRulesPath, pipeline.ShortCommit(commit), err)
	}
	source := scope.RepoRulesPath + "@" + pipeline.ShortCommit(commit)
	rf, err := scope.ParseRuleFile(data, source)
	if err != nil {
		return scope.RuleFile{}, true, &RefusedError{Code: "invalid_rule_file", Msg: fmt.Sprintf("%s is not a valid rule file, so no rule is added to it (fix it first): %v", source, err)}
	}
	return *rf, true, nil
}

// RefusedError says the service or the repository does not allow the
// proposal: learnings are off, the provider cannot commit, or the rule
// file does not parse. The API answers it 409 with Code as the error.
type RefusedError struct{ Code, Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// Request is the body of POST /v1/rules/propose: the repository and the
// proposal, flat (so a decoding error names the field as sent).
type Request struct {
	Workspace         string `json:"workspace"`
	RepoSlug          string `json:"repoSlug"`
	Path              string `json:"path"`
	Rule              string `json:"rule"`
	SourcePRID        int    `json:"sourcePrId"`
	SourceCommentID   int64  `json:"sourceCommentId,omitempty"`
	SourceURL         string `json:"sourceUrl,omitempty"`
	Author            string `json:"author,omitempty"`
	DestinationBranch string `json:"destinationBranch,omitempty"`
}

// Split returns the request's repository and proposal.
func (r Request) Split() (pipeline.Repo, Proposal) {
	return pipeline.Repo{Workspace: r.Workspace, RepoSlug: r.RepoSlug}, Proposal{
		Path: r.Path, Rule: r.Rule, SourcePRID: r.SourcePRID, SourceCommentID: r.SourceCommentID,
		SourceURL: r.SourceURL, Author: r.Author, DestinationBranch: r.DestinationBranch,
	}
}

// holds reports whether f already has rule r: the same glob and the same
// text, case of the glob and runs of spaces forgiven.
func holds(f scope.RuleFile, r scope.PathRule) bool {
	for _, x := range f.Rules {
		if sameRule(x, r) {
			return true
		}
	}
	return false
}

func sameRule(a, b scope.PathRule) bool {
	return strings.EqualFold(strings.TrimSpace(a.Path), strings.TrimSpace(b.Path)) &&
		pipeline.OneLine(a.Rule) == pipeline.OneLine(b.Rule)
}

// learned lists the rules with a source in f that dest does not hold: what
// the review rules pull request proposes.
func learned(f, dest scope.RuleFile) []ListedRule {
	var out []ListedRule
	for _, r := range f.Rules {
		if r.Source != nil && !holds(dest, r) {
			out = append(out, ListedRule{Path: r.Path, Rule: r.Rule, Source: r.Source})
		}
	}
	return out
}

// encode writes the rule file as indented JSON with a final newline.
func encode(f scope.RuleFile) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("encode %s: %w", scope.RepoRulesPath, err)
	}
	return b.Bytes(), nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// ruleText is the rule as Markdown for a comment in the thread, as inert
// as the description (a caller may post it as it is).
func ruleText(r scope.PathRule, hosts []string) string {
	return fmt.Sprintf("Review rule for %s:\n\n> %s\n", sanitize.CodeSpan(r.Path), sanitize.Markdown(pipeline.OneLine(r.Rule), hosts))
}

// Description is the review rules pull request's description: what merging
// it does, then each learned rule with its source link. What a commenter
// wrote (the rule, the author's name, the link) is made inert as a posted
// comment is (sanitize.Markdown with hosts): no HTML, images, mentions or
// links to other hosts.
func Description(rules []ListedRule, dest string, hosts []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review rules proposed in review threads. Merging this pull request approves them: prscout reads `%s` from %s, so every later review applies them. Edit or remove a rule here to change it before approving.\n\n", scope.RepoRulesPath, sanitize.CodeSpan(dest))
	for _, r := range rules {
		fmt.Fprintf(&b, "- %s: %s", sanitize.CodeSpan(r.Path), sanitize.Markdown(pipeline.ClipRunes(pipeline.OneLine(r.Rule), 300), hosts))
		if r.Source != nil {
			src := "pull request #" + strconv.Itoa(r.Source.PR)
			if r.Source.URL != "" && safeLink(r.Source.URL) {
				src = sanitize.Markdown("["+src+"]("+r.Source.URL+")", hosts)
			}
			fmt.Fprintf(&b, " (from %s", src)
			if r.Source.Author != "" {
				fmt.Fprintf(&b, ", proposed by %s", sanitize.Markdown(pipeline.ClipRunes(pipeline.OneLine(r.Source.Author), 80), hosts))
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// safeLink keeps a source link to http(s) without spaces or parentheses
// that would break the Markdown link.
func safeLink(u string) bool {
	return (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) && !strings.ContainsAny(u, " ()<>\n\r\t")
}

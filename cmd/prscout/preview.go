package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/preview"
	"github.com/prscout/prscout/pipeline/scope"
)

// listFlag is a repeatable flag; each value may also hold a comma-separated
// list ("--exclude 'docs/**,*.md'"), except inside braces ("*.{ts,tsx}").
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	depth, start := 0, 0
	for i, c := range v {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				if p := strings.TrimSpace(v[start:i]); p != "" {
					*l = append(*l, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(v[start:]); p != "" {
		*l = append(*l, p)
	}
	return nil
}

// scopeFlags are the flags preview and rules check share.
type scopeFlags struct {
	repo             string
	include, exclude listFlag
	rules, rulesFile string
	json             bool
}

func (sf *scopeFlags) register(fs *flag.FlagSet) {
	root := os.Getenv("PRSCOUT_LOCAL_ROOT")
	if root == "" {
		root = "."
	}
	fs.StringVar(&sf.repo, "repo", root, "git repository to read (env PRSCOUT_LOCAL_ROOT)")
	fs.Var(&sf.include, "include", "include glob (repeatable or comma-separated): skips the unsupported_ext and default_path gates")
	fs.Var(&sf.exclude, "exclude", "exclude glob (repeatable or comma-separated)")
	fs.StringVar(&sf.rules, "rules", "", "rule file used as the request's rules (the highest layer)")
	fs.StringVar(&sf.rulesFile, "rules-file", os.Getenv("PRSCOUT_RULES_FILE"), "the service's rule file (env PRSCOUT_RULES_FILE)")
	fs.BoolVar(&sf.json, "json", false, "print JSON instead of text")
}

// ruleFiles loads the request and service rule files named by the flags.
func (sf *scopeFlags) ruleFiles() (request, service *scope.RuleFile, err error) {
	if sf.rules != "" {
		if request, err = loadRulesFile(sf.rules); err != nil {
			return nil, nil, fmt.Errorf("--rules: %w", err)
		}
	}
	if sf.rulesFile != "" {
		if service, err = loadRulesFile(sf.rulesFile); err != nil {
			return nil, nil, fmt.Errorf("--rules-file: %w", err)
		}
	}
	return request, service, nil
}

func runPreview(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("preview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf scopeFlags
	sf.register(fs)
	base := fs.String("base", "", "base revision (the destination; its .prscout/rules.json counts)")
	head := fs.String("head", "HEAD", "head revision")
	lim := pipeline.DefaultLimits()
	lim.MaxPromptChars = envPositive("PRSCOUT_MAX_PROMPT_CHARS", lim.MaxPromptChars)
	lim.MaxGroups = envPositive("PRSCOUT_MAX_GROUPS", lim.MaxGroups)
	fs.IntVar(&lim.MaxPromptChars, "max-prompt-chars", lim.MaxPromptChars, "budget of each prompt in characters (env PRSCOUT_MAX_PROMPT_CHARS); a change over it is split into review groups")
	fs.IntVar(&lim.MaxGroups, "max-groups", lim.MaxGroups, "review groups allowed (env PRSCOUT_MAX_GROUPS); the files of further groups are dropped and named")
	fs.IntVar(&lim.ContextLines, "context-lines", lim.ContextLines, "diff context lines")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: prscout preview --base A [--head B] [flags]\n\n"+
			"Shows which changed files of base..head a review would see, each excluded file's\n"+
			"gate reason, the rules each file gets, the review groups a change over the budget\n"+
			"is split into, the prompt sizes and the estimated cost in characters. No model is called. Exit codes: 0 done, 1 failed, 2 bad usage.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *base == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	request, service, err := sf.ruleFiles()
	if err != nil {
		fmt.Fprintf(stderr, "prscout preview: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The command runs on the user's own checkout: any revision git
	// understands (HEAD~3, main^) is resolved here, the stages then see
	// commit ids.
	baseID, err := localgit.ResolveRevision(ctx, sf.repo, *base)
	if err == nil {
		*head, err = localgit.ResolveRevision(ctx, sf.repo, *head)
	}
	if err != nil {
		return previewFailed(stderr, err)
	}
	in := collect.ContextInput{
		Base: baseID, Head: *head, Include: sf.include, Exclude: sf.exclude,
		Rules: scope.RulesField{File: request}, ServiceRules: service, ServiceRulesSource: sf.rulesFile,
	}
	lg := localgit.New(sf.repo)
	res, err := preview.Preview(ctx, collect.ContextSources{Repo: lg, Diffs: lg}, in, lim)
	if err != nil {
		return previewFailed(stderr, err)
	}
	if sf.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprint(stdout, res.Text())
	return 0
}

// envPositive reads a positive integer from the environment, or gives def.
func envPositive(name string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv(name))); err == nil && n > 0 {
		return n
	}
	return def
}

func runRules(args []string, stdout, stderr io.Writer) int {
	usage := func() {
		fmt.Fprintln(stderr, "usage: prscout rules check [--ref REV] [flags] PATH...\n\n"+
			"Shows, for each path, the file gate decision and which rule layer and pattern win:\n"+
			"--rules (request) > .prscout/rules.json at --ref > --rules-file (service) > built-in.")
	}
	if len(args) == 0 || args[0] != "check" {
		usage()
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return 0
		}
		return 2
	}
	fs := flag.NewFlagSet("rules check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf scopeFlags
	sf.register(fs)
	ref := fs.String("ref", "HEAD", "commit whose .prscout/rules.json counts (a PR's destination); empty skips it")
	fs.Usage = func() {
		usage()
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	request, service, err := sf.ruleFiles()
	if err != nil {
		fmt.Fprintf(stderr, "prscout rules check: %v\n", err)
		return 2
	}
	in := scope.RulesCheckInput{
		Ref: *ref, Paths: fs.Args(), Include: sf.include, Exclude: sf.exclude,
		Rules: scope.RulesField{File: request}, ServiceRules: service, ServiceRulesSource: sf.rulesFile,
	}
	var repo pipeline.Repository
	if *ref != "" {
		repo = localgit.New(sf.repo)
	}
	res, err := scope.RulesCheck(context.Background(), repo, in)
	if err != nil {
		fmt.Fprintf(stderr, "prscout rules check: %v\n", err)
		return 1
	}
	if sf.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
		return 0
	}
	fmt.Fprint(stdout, res.Text())
	return 0
}

// previewFailed reports err and answers the exit code: 2 for invalid
// input, 1 otherwise.
func previewFailed(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "prscout preview: %v\n", err)
	var inv *pipeline.InvalidError
	if errors.As(err, &inv) {
		return 2
	}
	return 1
}

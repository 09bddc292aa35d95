package scope

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/prscout/prscout/pipeline"
)

// Glob is one compiled include or exclude pattern.
type Glob struct {
	// Raw is the pattern as the user wrote it (shown in rules check).
	Raw string `json:"pattern"`
	// pattern is what is matched: lower-cased, spaces around brace
	// alternatives removed, "**/" prefixed when Raw has no "/".
	pattern string
}

// compileGlob checks and compiles one pattern. Patterns use doublestar syntax
// (`*`, `**`, `?`, `[a-z]`, `{a,b}`) over repository-relative paths and match
// case-insensitively. A pattern without "/" matches the base name at any
// depth ("*.go" is "**/*.go"), as in .gitignore; a leading "/" anchors it at
// the root ("/main.go" is only the root's main.go). Spaces next to the commas
// and braces of an alternative are dropped, so "*.{ts, tsx}" matches .tsx
// files instead of silently matching nothing. A pattern that is empty or
// malformed (unclosed "{" or "[") is an error.
func compileGlob(raw string) (Glob, error) {
	p := strings.TrimSpace(raw)
	p = strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "./")
	anchored := strings.HasPrefix(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return Glob{}, fmt.Errorf("empty pattern")
	}
	p = strings.ToLower(tidyBraces(p))
	if strings.HasSuffix(p, "/") {
		p += "**" // "vendor/" means everything under it
	}
	if !strings.Contains(p, "/") && !anchored {
		p = "**/" + p
	}
	if !doublestar.ValidatePattern(p) {
		return Glob{}, fmt.Errorf("malformed pattern %q (unclosed { or [?)", raw)
	}
	if err := checkGlobCost(p); err != nil {
		return Glob{}, fmt.Errorf("pattern %q %w", pipeline.ClipRunes(raw, 80), err)
	}
	return Glob{Raw: raw, pattern: p}, nil
}

// Glob cost bounds. Matching backtracks over brace alternatives and stars,
// so a pattern such as "{,}" repeated 24 times costs seconds per path; these
// bounds keep every match to microseconds and are far above what a real
// pattern uses ("**/*.{ts,tsx,js,jsx}" has 4 alternatives and 3 stars).
const (
	maxGlobChars        = 256
	maxGlobAlternatives = 64
	maxGlobStars        = 8
)

// checkGlobCost refuses a pattern that is too long, expands to too many
// brace alternatives (nested braces multiply) or has too many stars.
func checkGlobCost(p string) error {
	if len(p) > maxGlobChars {
		return fmt.Errorf("is too long: %d characters, at most %d", len(p), maxGlobChars)
	}
	stars := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '*' && (i == 0 || p[i-1] != '*') {
			stars++
		}
	}
	if stars > maxGlobStars {
		return fmt.Errorf("is too complex: %d wildcards, at most %d", stars, maxGlobStars)
	}
	if n := braceAlternatives(p); n > maxGlobAlternatives {
		return fmt.Errorf("is too complex: it expands to more than %d alternatives (brace groups multiply)", maxGlobAlternatives)
	}
	return nil
}

// braceAlternatives counts the patterns p's brace groups expand to, capped
// just above maxGlobAlternatives so hostile input cannot overflow the count.
// A sequence multiplies its groups; a group adds its alternatives.
func braceAlternatives(p string) int {
	const limit = maxGlobAlternatives + 1
	type frame struct{ sum, prod int }
	stack := []frame{{sum: 0, prod: 1}}
	for i := 0; i < len(p); i++ {
		top := &stack[len(stack)-1]
		switch p[i] {
		case '\\':
			i++
		case '{':
			stack = append(stack, frame{sum: 0, prod: 1})
		case ',':
			if len(stack) > 1 {
				top.sum = min(top.sum+top.prod, limit)
				top.prod = 1
			}
		case '}':
			if len(stack) > 1 {
				n := min(top.sum+top.prod, limit)
				stack = stack[:len(stack)-1]
				parent := &stack[len(stack)-1]
				parent.prod = min(parent.prod*n, limit)
			}
		}
	}
	return stack[0].prod
}

// tidyBraces removes white space after "{" and ",", and before "," and "}"
// inside brace alternatives.
func tidyBraces(p string) string {
	if !strings.Contains(p, "{") {
		return p
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			i++
			b.WriteByte(p[i])
			continue
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
			trimTrailingSpace(&b)
		case c == ',' && depth > 0:
			trimTrailingSpace(&b)
		case c == ' ' || c == '\t':
			if depth > 0 {
				prev := b.String()
				if n := len(prev); n > 0 && (prev[n-1] == '{' || prev[n-1] == ',') {
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func trimTrailingSpace(b *strings.Builder) {
	s := b.String()
	t := strings.TrimRight(s, " \t")
	if len(t) != len(s) {
		b.Reset()
		b.WriteString(t)
	}
}

// Match reports whether a repository-relative path matches the glob.
func (g Glob) Match(p string) bool {
	if g.pattern == "" {
		return false
	}
	return g.matchLower(strings.ToLower(p))
}

// matchLower is Match on a lower-cased path.
func (g *Glob) matchLower(lp string) bool {
	if g.pattern == "" {
		return false
	}
	ok, _ := doublestar.Match(g.pattern, lp)
	return ok
}

// CompileGlobs compiles patterns; an error is an *InvalidError naming
// field[i].
func CompileGlobs(field string, raws []string) ([]Glob, error) {
	out := make([]Glob, 0, len(raws))
	for i, r := range raws {
		g, err := compileGlob(r)
		if err != nil {
			return nil, pipeline.Invalidf(fmt.Sprintf("%s[%d]", field, i), "%v", err)
		}
		out = append(out, g)
	}
	return out, nil
}

// LiteralGlob returns a pattern that matches path and no other path: every
// wildcard character is put in a one-character class ("src/*.go" becomes
// "/src/[*].go"), and the pattern is anchored at the root. A path holding a
// backslash (which patterns read as "/") has no such pattern: error.
func LiteralGlob(path string) (string, error) {
	path = strings.TrimPrefix(strings.TrimSpace(path), "/")
	if path == "" || strings.Contains(path, "\\") || strings.TrimSpace(path) != path {
		return "", fmt.Errorf("no pattern names exactly the path %q", pipeline.ClipRunes(path, 80))
	}
	var b strings.Builder
	b.WriteByte('/')
	for _, r := range path {
		switch r {
		case '*', '?', '[', '{', '}', ',':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

// firstMatch returns the first glob matching p.
func firstMatch(gs []Glob, p string) (Glob, bool) {
	for _, g := range gs {
		if g.Match(p) {
			return g, true
		}
	}
	return Glob{}, false
}

// FileGates are the gates /v1/context runs over each changed file. Size is
// not a gate: a file too large for one review is reviewed alone, its hunks
// windowed (see the context stage's review groups).
type FileGates struct {
	Include []Glob
	Exclude []Glob
}

// GateFile is what the gates look at for one changed file.
type GateFile struct {
	Path, OldPath string
	Status        string // added, modified, renamed, deleted
	Binary        bool
	Submodule     bool
}

// Includes reports whether an include glob names p: the request or a rule
// file asks for it to be reviewed.
func (g FileGates) Includes(p string) bool {
	_, ok := firstMatch(g.Include, p)
	return ok
}

// Decide runs the gates in GateOrder and returns the first failed gate's
// reason, or "" when the file is reviewed.
func (g FileGates) Decide(f GateFile) string {
	switch {
	case f.Binary:
		return pipeline.GateBinary
	case IsSecretPath(f.Path) || (f.OldPath != "" && IsSecretPath(f.OldPath)):
		return pipeline.GateSecret
	case f.Submodule:
		return pipeline.GateSubmodule
	}
	if _, ok := firstMatch(g.Exclude, f.Path); ok {
		return pipeline.GateUserExclude
	}
	if _, included := firstMatch(g.Include, f.Path); !included {
		if !supportedPath(f.Path) {
			return pipeline.GateUnsupportedExt
		}
		if IsDefaultPath(f.Path) {
			return pipeline.GateDefaultPath
		}
	}
	if f.Status == "deleted" {
		return pipeline.GateDeleted
	}
	return ""
}

// extraSupported are reviewable extensions beyond the prompt's languages.
var extraSupported = map[string]bool{
	".mk": true, ".cmake": true, ".bzl": true, ".bazel": true, ".hcl": true, ".nix": true, ".zig": true,
	".jl": true, ".vb": true, ".fs": true, ".fsx": true, ".tpl": true, ".tmpl": true, ".gotmpl": true,
	".j2": true, ".mdx": true, ".rst": true, ".cfg": true, ".conf": true, ".sbt": true, ".astro": true,
	".sol": true, ".ml": true, ".mli": true, ".elm": true, ".cue": true, ".rego": true, ".prisma": true,
	".bat": true, ".cmd": true, ".psm1": true, ".fish": true, ".mm": true, ".hh": true, ".cu": true,
	".ino": true, ".v": true, ".sv": true, ".vhd": true, ".glsl": true, ".hlsl": true, ".wgsl": true,
	".nu": true, ".svg": true, ".sass": true, ".pug": true, ".hbs": true, ".ejs": true, ".erb": true,
	".razor": true, ".cshtml": true, ".xaml": true, ".csproj": true, ".json5": true, ".jsonc": true,
	".avsc": true, ".txt": true, ".thrift": true, ".pyi": true, ".pyx": true, ".pxd": true, ".ipynb": true,
}

var extraSupportedNames = map[string]bool{
	"build": true, "workspace": true, "build.bazel": true, "cmakelists.txt": true, "vagrantfile": true,
	"procfile": true, "justfile": true, "podfile": true, "brewfile": true, "go.work": true,
	"requirements.txt": true, "codeowners": true, ".gitlab-ci.yml": true, ".editorconfig": true,
	".gitattributes": true, ".gitignore": true, ".dockerignore": true,
}

// supportedPath reports whether prscout reviews files of this type: a
// language the prompt names (Language), or one of a few more source and
// configuration types. Plain text, data and documents without a known type
// are unsupported_ext unless an include glob matches them.
func supportedPath(p string) bool {
	if Language(p) != "" {
		return true
	}
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	// No extension: scripts, LICENSE, CODEOWNERS and the like are text a
	// reviewer reads; binaries among them fail the binary gate first.
	return ext == "" || extraSupportedNames[base] || extraSupported[ext]
}

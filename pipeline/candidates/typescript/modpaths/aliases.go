// Package modpaths maps the bare import specifiers of a TypeScript or
// JavaScript repository to its files: the root tsconfig.json's (or
// jsconfig.json's) compilerOptions.paths, and the workspace packages by
// their package.json name and exports.
package modpaths

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Aliases are the module path aliases of the repository's root
// tsconfig.json (or jsconfig.json): compilerOptions.paths, whose targets are
// relative to compilerOptions.baseUrl or else to the root. A package that
// imports itself by its own name ("zustand/middleware") resolves through
// them.
type Aliases struct {
	exact map[string][]string // patterns without a star, looked up at once
	wild  []aliasRule         // patterns with one star, at most maxAliasRules
	// memo keeps Resolve's answers: a search resolves the same specifiers
	// against every file it reads.
	memoMu sync.Mutex
	memo   map[string][]string
}

// Bounds of an alias table, so a crafted tsconfig cannot make every import
// cost a scan of thousands of rules (real ones hold a handful): patterns
// beyond maxAliasRules and targets beyond maxAliasTargets per pattern are
// ignored, in the patterns' sorted order; a config over maxAliasConfigBytes
// is not read.
const (
	maxAliasRules       = 256
	maxAliasTargets     = 8
	maxAliasConfigBytes = 1 << 20
	maxAliasMemo        = 1 << 14
)

type aliasRule struct {
	pattern string   // "zustand" or "zustand/*"
	targets []string // repository paths, "src/*.ts"
}

// Load reads the repository's path aliases and workspace packages; nil
// when it has neither (a nil *Aliases resolves nothing).
func Load(ctx context.Context, tree engine.Tree) *Aliases {
	return loadWorkspaces(ctx, tree, loadAliases(ctx, tree))
}

// loadAliases reads the root tsconfig.json or jsconfig.json; a missing or
// unreadable file means no aliases.
func loadAliases(ctx context.Context, tree engine.Tree) *Aliases {
	for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
		if ctx.Err() != nil {
			return nil
		}
		src, err := tree.ReadFile(ctx, name)
		if err != nil {
			continue
		}
		if len(src) > maxAliasConfigBytes || ctx.Err() != nil {
			return nil
		}
		return Parse(src)
	}
	return nil
}

// Parse reads compilerOptions.paths and baseUrl from a tsconfig; it
// returns nil when there are none or the file is not JSON with comments.
func Parse(src []byte) *Aliases {
	var cfg struct {
		CompilerOptions struct {
			BaseURL string              `json:"baseUrl"`
			Paths   map[string][]string `json:"paths"`
		} `json:"compilerOptions"`
	}
	if err := json.Unmarshal(stripJSONC(src), &cfg); err != nil || len(cfg.CompilerOptions.Paths) == 0 {
		return nil
	}
	base := path.Clean(cfg.CompilerOptions.BaseURL)
	if strings.HasPrefix(base, "/") || strings.HasPrefix(base, "..") {
		return nil
	}
	a := &Aliases{exact: map[string][]string{}}
	for _, pattern := range slices.Sorted(maps.Keys(cfg.CompilerOptions.Paths)) {
		if len(a.exact)+len(a.wild) >= maxAliasRules {
			break
		}
		stars := strings.Count(pattern, "*")
		if stars > 1 {
			continue
		}
		r := aliasRule{pattern: pattern}
		for _, t := range cfg.CompilerOptions.Paths[pattern] {
			p := path.Join(base, t)
			if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "..") || strings.Count(p, "*") > 1 {
				continue
			}
			if r.targets = append(r.targets, p); len(r.targets) == maxAliasTargets {
				break
			}
		}
		switch {
		case len(r.targets) == 0:
		case stars == 0:
			a.exact[pattern] = r.targets
		default:
			a.wild = append(a.wild, r)
		}
	}
	if len(a.exact)+len(a.wild) == 0 {
		return nil
	}
	return a
}

// Resolve returns the repository paths an import specifier can name through
// the aliases.
func (a *Aliases) Resolve(spec string) []string {
	if a == nil {
		return nil
	}
	a.memoMu.Lock()
	defer a.memoMu.Unlock()
	if out, ok := a.memo[spec]; ok {
		return out
	}
	out := slices.Clone(a.exact[spec])
	for _, r := range a.wild {
		i := strings.IndexByte(r.pattern, '*')
		prefix, suffix := r.pattern[:i], r.pattern[i+1:]
		if len(spec) < len(prefix)+len(suffix) || !strings.HasPrefix(spec, prefix) || !strings.HasSuffix(spec, suffix) {
			continue
		}
		star := spec[len(prefix) : len(spec)-len(suffix)]
		for _, t := range r.targets {
			out = append(out, strings.Replace(t, "*", star, 1))
		}
	}
	if a.memo == nil {
		a.memo = map[string][]string{}
	}
	if len(a.memo) < maxAliasMemo {
		a.memo[spec] = out
	}
	return out
}

// stripJSONC removes // and /* */ comments and trailing commas outside
// strings, so a tsconfig parses as JSON.
func stripJSONC(src []byte) []byte {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		b := src[i]
		switch {
		case b == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				j = len(src) - 1
			}
			out = append(out, src[i:j+1]...)
			i = j
		case b == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				out = append(out, '\n')
			}
		case b == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/")) // no copy of the rest per comment
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		case b == ']' || b == '}':
			// Drop a trailing comma before the closing bracket.
			k := len(out) - 1
			for k >= 0 && (out[k] == ' ' || out[k] == '\t' || out[k] == '\n' || out[k] == '\r') {
				k--
			}
			if k >= 0 && out[k] == ',' {
				out = append(out[:k], out[k+1:]...)
			}
			out = append(out, b)
		default:
			out = append(out, b)
		}
	}
	return out
}

package tokens

import (
	"bytes"
	"context"
	"encoding/json"
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// pathAliases are the module path aliases of the repository's root
// tsconfig.json (or jsconfig.json): compilerOptions.paths, whose targets are
// relative to compilerOptions.baseUrl or else to the root. A package that
// imports itself by its own name ("zustand/middleware") resolves through
// them.
type pathAliases struct {
	rules []aliasRule
}

type aliasRule struct {
	pattern string   // "zustand" or "zustand/*"
	targets []string // repository paths, "src/*.ts"
}

// loadAliases reads the root tsconfig.json or jsconfig.json; a missing or
// unreadable file means no aliases.
func loadAliases(ctx context.Context, tree engine.Tree) *pathAliases {
	for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
		src, err := tree.ReadFile(ctx, name)
		if err != nil {
			continue
		}
		return parseAliases(src)
	}
	return nil
}

// parseAliases reads compilerOptions.paths and baseUrl from a tsconfig; it
// returns nil when there are none or the file is not JSON with comments.
func parseAliases(src []byte) *pathAliases {
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
	a := &pathAliases{}
	for pattern, targets := range cfg.CompilerOptions.Paths {
		if strings.Count(pattern, "*") > 1 {
			continue
		}
		r := aliasRule{pattern: pattern}
		for _, t := range targets {
			p := path.Join(base, t)
			if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "..") || strings.Count(p, "*") > 1 {
				continue
			}
			r.targets = append(r.targets, p)
		}
		if len(r.targets) > 0 {
			a.rules = append(a.rules, r)
		}
	}
	if len(a.rules) == 0 {
		return nil
	}
	return a
}

// resolve returns the repository paths an import specifier can name through
// the aliases.
func (a *pathAliases) resolve(spec string) []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, r := range a.rules {
		star := ""
		if i := strings.IndexByte(r.pattern, '*'); i >= 0 {
			prefix, suffix := r.pattern[:i], r.pattern[i+1:]
			if len(spec) < len(prefix)+len(suffix) || !strings.HasPrefix(spec, prefix) || !strings.HasSuffix(spec, suffix) {
				continue
			}
			star = spec[len(prefix) : len(spec)-len(suffix)]
		} else if spec != r.pattern {
			continue
		}
		for _, t := range r.targets {
			out = append(out, strings.Replace(t, "*", star, 1))
		}
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

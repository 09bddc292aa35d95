package modpaths

import (
	"context"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Packages by their package.json name: a package imports itself
// ("got/dist/source" from got's own docs, "zustand/vanilla") and, in a
// monorepo, its workspace siblings ("@trpc/server/http") by name. The root
// package.json's workspaces (or pnpm-workspace.yaml's packages) say where
// the packages are; each package's name, exports and entry fields map its
// specifiers to sources, build output paths (dist/, lib/, build/) read as
// the sources they are built from (src/), with the usual entries (src/index,
// index, source/index) as a fallback. They join the tsconfig path aliases.

// maxWorkspacePackages bounds the package.json files read.
const maxWorkspacePackages = 300

type packageJSON struct {
	Name       string          `json:"name"`
	Main       string          `json:"main"`
	Module     string          `json:"module"`
	Types      string          `json:"types"`
	Source     string          `json:"source"`
	Exports    json.RawMessage `json:"exports"`
	Workspaces json.RawMessage `json:"workspaces"`
}

// loadWorkspaces adds the repository's packages to a (nil: new aliases);
// it answers a unchanged when there are none.
func loadWorkspaces(ctx context.Context, tree engine.Tree, a *Aliases) *Aliases {
	var pkgs []string // package.json paths
	var patterns []string
	if ctx.Err() != nil {
		return a
	}
	if src, err := tree.ReadFile(ctx, "package.json"); err == nil && len(src) <= maxAliasConfigBytes {
		pkgs = append(pkgs, "package.json")
		var root packageJSON
		if json.Unmarshal(src, &root) == nil {
			patterns = append(patterns, workspacePatterns(root.Workspaces)...)
		}
	}
	if src, err := tree.ReadFile(ctx, "pnpm-workspace.yaml"); err == nil && len(src) <= maxAliasConfigBytes {
		patterns = append(patterns, pnpmPatterns(string(src))...)
	}
	var globs []string
	for _, p := range patterns {
		p = strings.Trim(strings.TrimPrefix(p, "./"), "/")
		if p == "" || strings.HasPrefix(p, "!") || strings.HasPrefix(p, "..") {
			continue
		}
		globs = append(globs, p+"/package.json")
	}
	if len(globs) > 0 {
		found, err := tree.Grep(ctx, []string{"name"}, globs, maxWorkspacePackages)
		if err == nil {
			for _, p := range found {
				if !engine.SkippedPath(p) && path.Base(p) == "package.json" && p != "package.json" {
					pkgs = append(pkgs, p)
				}
			}
		}
	}
	for _, p := range pkgs {
		if ctx.Err() != nil {
			break
		}
		src, err := tree.ReadFile(ctx, p)
		if err != nil || len(src) > maxAliasConfigBytes {
			continue
		}
		var pj packageJSON
		if json.Unmarshal(src, &pj) != nil || pj.Name == "" || strings.ContainsAny(pj.Name, "* ") {
			continue
		}
		if a == nil {
			a = &Aliases{exact: map[string][]string{}}
		}
		a.addPackage(pj, engine.DirOf(p))
	}
	return a
}

// workspacePatterns reads package.json's workspaces: a list of globs or
// {"packages": [...]}.
func workspacePatterns(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var obj struct {
		Packages []string `json:"packages"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Packages
	}
	return nil
}

// pnpmPatterns reads the "packages:" list of a pnpm-workspace.yaml.
func pnpmPatterns(src string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "packages:"):
			in = true
		case in && strings.HasPrefix(t, "- "):
			out = append(out, strings.Trim(strings.TrimSpace(t[2:]), `'"`))
		case in && t != "" && !strings.HasPrefix(t, "#"):
			in = false
		}
	}
	return out
}

// addPackage adds the specifiers of the package pj in dir: its name (the
// entry) and name/sub (exports' subpaths, then dir/src/sub, dir/sub, ...).
func (a *Aliases) addPackage(pj packageJSON, dir string) {
	if len(a.exact)+len(a.wild) >= maxAliasRules*2 {
		return
	}
	subs := map[string][]string{} // "." or "./sub" -> entry files
	var exports any
	if len(pj.Exports) > 0 && json.Unmarshal(pj.Exports, &exports) == nil {
		switch e := exports.(type) {
		case string:
			subs["."] = []string{e}
		case map[string]any:
			conditions := true
			for k := range e {
				if strings.HasPrefix(k, ".") {
					conditions = false
				}
			}
			if conditions {
				subs["."] = exportLeaves(e, nil)
			} else {
				for k, v := range e {
					subs[k] = exportLeaves(v, nil)
				}
			}
		}
	}
	for _, f := range []string{pj.Source, pj.Module, pj.Main, pj.Types} {
		if f != "" {
			subs["."] = append(subs["."], f)
		}
	}
	join := func(p string) string { return engine.JoinDir(dir, p) }
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range subs {
			if !yield(k) {
				return
			}
		}
	}) {
		sub := strings.TrimPrefix(strings.TrimPrefix(k, "."), "/")
		if strings.Contains(sub, "*") || strings.HasSuffix(sub, ".json") {
			continue
		}
		spec := pj.Name
		if sub != "" {
			spec += "/" + sub
		}
		var targets []string
		for _, e := range subs[k] {
			targets = appendEntry(targets, join(strings.TrimPrefix(path.Clean(e), "./")))
		}
		if sub == "" {
			for _, f := range []string{"src/index", "index", "source/index", "lib/index"} {
				targets = appendEntry(targets, join(f))
			}
		}
		if len(targets) > maxAliasTargets {
			targets = targets[:maxAliasTargets]
		}
		if len(targets) > 0 && a.exact[spec] == nil {
			a.exact[spec] = targets
		}
	}
	a.wild = append(a.wild, aliasRule{pattern: pj.Name + "/*", targets: []string{join("src/*"), join("*"), join("source/*"), join("lib/*")}})
}

// exportLeaves collects the file paths of an exports value (a path, or
// conditions mapping to paths).
func exportLeaves(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case map[string]any:
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range x {
				if !yield(k) {
					return
				}
			}
		}) {
			out = exportLeaves(x[k], out)
		}
	case []any:
		for _, e := range x {
			out = exportLeaves(e, out)
		}
	}
	return out
}

// appendEntry adds an entry file without its extension, and for build
// output the source it is built from (dist/x.js is src/x).
func appendEntry(targets []string, p string) []string {
	if strings.HasPrefix(p, "..") || strings.HasPrefix(p, "/") {
		return targets
	}
	p = strings.TrimSuffix(lexed.StripExt(p), ".d") // x.d.ts declares x
	var out []string
	parts := strings.Split(p, "/")
	for i, d := range parts[:len(parts)-1] {
		switch d {
		case "dist", "build", "lib", "out", "esm", "cjs", "es", "types":
			rest := slices.Clone(parts)
			rest[i] = "src"
			// dist/types/x and dist/esm/x are src/x.
			if i+1 < len(rest)-1 {
				switch rest[i+1] {
				case "types", "esm", "cjs", "es", "src":
					rest = slices.Delete(rest, i+1, i+2)
				}
			}
			out = append(out, strings.Join(rest, "/"))
		}
	}
	out = append(out, p)
	targets = engine.AppendNew(targets, out...)
	return targets
}

// Package compiledb reads a C or C++ project's compilation database
// (compile_commands.json) into the search path its compiler uses for
// #include: the -I, -iquote, -isystem and -idirafter directories of its
// entries, as directories of the project's tree.
package compiledb

import (
	"encoding/json"
	"path"
	"strings"
)

// entry is one entry of a compilation database.
type entry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Command   string   `json:"command"`
	Arguments []string `json:"arguments"`
}

// maxPathBytes bounds a compilation database's file path looked up.
const maxPathBytes = 4096

// maxRootTries bounds the entries tried to find the project's root.
const maxRootTries = 16

// SearchPath is the compilation database b's search path, as directories
// of the tree ("" the root), in the order first named; has reports whether
// a path is a file of the tree. ok is false when b is no database or its
// files are not the tree's.
func SearchPath(b []byte, has func(string) bool) ([]string, bool) {
	var entries []entry
	if json.Unmarshal(b, &entries) != nil || len(entries) == 0 {
		return nil, false
	}
	root, ok := "", false
	for _, e := range entries[:min(len(entries), maxRootTries)] {
		if root, ok = rootOf(absJoin(e.Directory, e.File), has); ok {
			break
		}
	}
	if !ok {
		return nil, false
	}
	dirs := []string{}
	seen := map[string]bool{}
	for _, e := range entries {
		args := e.Arguments
		if len(args) == 0 {
			args = strings.Fields(e.Command)
		}
		for _, d := range includeFlags(args) {
			rel, inside := under(absJoin(e.Directory, strings.Trim(d, `"'`)), root)
			if inside && !seen[rel] {
				seen[rel] = true
				dirs = append(dirs, rel)
			}
		}
	}
	return dirs, true
}

// rootOf is the absolute directory the tree's root is, given the absolute
// path of one of its files: the shortest that leaves a path of the tree.
func rootOf(abs string, has func(string) bool) (string, bool) {
	if !path.IsAbs(abs) || len(abs) > maxPathBytes {
		return "", false
	}
	parts := strings.Split(strings.TrimPrefix(abs, "/"), "/")
	for i := range parts {
		if has(strings.Join(parts[i:], "/")) {
			return "/" + strings.Join(parts[:i], "/"), true
		}
	}
	return "", false
}

// includeFlags are the directories args name with -I, -iquote, -isystem or
// -idirafter, joined (-Idir) or apart (-I dir).
func includeFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		for _, f := range []string{"-iquote", "-isystem", "-idirafter", "-I"} {
			if !strings.HasPrefix(args[i], f) {
				continue
			}
			if d := args[i][len(f):]; d != "" {
				out = append(out, d)
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			break
		}
	}
	return out
}

// absJoin is p made absolute against dir (p when it is absolute), cleaned.
func absJoin(dir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}

// under is abs relative to root ("" for root itself); inside is false when
// abs lies outside it.
func under(abs, root string) (string, bool) {
	if abs == root {
		return "", true
	}
	if root == "/" {
		return strings.TrimPrefix(abs, "/"), path.IsAbs(abs)
	}
	if strings.HasPrefix(abs, root+"/") {
		return abs[len(root)+1:], true
	}
	return "", false
}

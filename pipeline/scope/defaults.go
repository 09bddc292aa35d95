package scope

import (
	"path"
	"strings"
)

// The default paths: files a review leaves out unless an include glob names
// them (the default_path gate of /v1/context), and paths /v1/needs refuses
// whatever the scout asks (reason "noise"). One table serves both, so a
// model can never fetch what the review would not show. Matching is
// case-insensitive.
//
// Tests are not default paths: a pull request's tests say what the change is
// meant to do, a wrong test hides a bug, and a test diff is usually small.
// Exclude them with "**/*_test.go" or similar.
var (
	// defaultDirs are directory names anywhere in a path: build output,
	// vendored and dependency folders, generated code, snapshots, fixtures.
	// A directory counts only when something follows it ("vendor/x.go",
	// "vendor/"): a file named BUILD or out is not a default path.
	defaultDirs = setOf(
		// build output
		"dist", "build", "out", "target", "coverage", ".next", ".nuxt", ".svelte-kit", ".gradle",
		"__pycache__", ".terraform", "obj",
		// vendored and dependency folders
		"node_modules", "vendor", "bower_components", "third_party", "third-party", "thirdparty", "3rdparty", "deps",
		".venv", "venv",
		"site-packages", "pods", ".yarn", "jspm_packages",
		// generated code: generatedDirs
		"generated", "__generated__",
		// snapshots, fixtures and golden data
		"__snapshots__", "fixtures", "__fixtures__", "testdata", "__mocks__",
	)
	// defaultNames are whole file names: lock files without a .lock suffix.
	defaultNames = lockNames
	// defaultSuffixes end a file name: lock files, snapshots, minified files
	// and maps, compiled Python, golden files, images and fonts, generated
	// code by naming convention.
	defaultSuffixes = append(append([]string{
		".snap", ".min.js", ".min.css", ".map", ".pyc", ".golden",
		".png", ".jpg", ".jpeg", ".svg", ".gif", ".ico", ".webp", ".bmp", ".avif", ".tif", ".tiff",
		".woff", ".woff2", ".ttf", ".otf", ".eot",
	}, lockSuffixes...), generatedSuffixes...)
	// defaultUnderscoreSuffixes end a file name too, and start with "_":
	// generated code by naming convention.
	defaultUnderscoreSuffixes = generatedUnderscoreSuffixes
	// defaultGlobs are the rest, patterns a name list cannot say: generated
	// code by naming convention and build folders under a parent.
	defaultGlobs = append(mustGlobs("**/bin/Debug/**", "**/bin/Release/**"), generatedGlobs...)
)

// Lock files and generated code: default paths, and also what a change that
// touches nothing else is made of (TrivialClass).
var (
	// lockNames are lock files without a .lock suffix; lockSuffixes end
	// the others (yarn.lock, Cargo.lock, poetry.lock, Gemfile.lock, ...).
	lockNames = setOf(
		"package-lock.json", "pnpm-lock.yaml", "go.sum", "npm-shrinkwrap.json", "bun.lockb",
		"packages.lock.json", "gradle.lockfile",
	)
	lockSuffixes = []string{".lock"}
	// generatedDirs hold generated code; generatedSuffixes,
	// generatedUnderscoreSuffixes and generatedGlobs name it by convention
	// ("**/*.pb.go" and so on).
	generatedDirs               = setOf("generated", "__generated__")
	generatedSuffixes           = []string{".pb.go", ".pb.gw.go", ".pb.ts", ".gen.go", ".g.dart", ".freezed.dart"}
	generatedUnderscoreSuffixes = []string{"_pb2.py", "_pb2_grpc.py", "_grpc.pb.go", "_generated.go"}
	generatedGlobs              = mustGlobs("**/zz_generated*.go", "**/*.generated.*", "**/gen/**/*.go")
)

// IsDefaultPath reports whether p (a normalized repository path; a directory
// with a trailing "/") is a default path: build output, vendored or
// dependency code, generated code, a lock file, a snapshot, minified code or
// a map, a fixture, an image or a font.
func IsDefaultPath(p string) bool {
	lower := strings.ToLower(p)
	base := lower
	for {
		i := strings.IndexByte(base, '/')
		if i < 0 {
			break
		}
		if seg := base[:i]; defaultDirs[seg] {
			return true
		}
		base = base[i+1:]
	}
	if defaultNames[base] {
		return true
	}
	// Every default suffix starts with a dot: look up the base name's
	// tail from each of its dots.
	for i := strings.IndexByte(base, '.'); i >= 0; {
		if tail := base[i:]; defaultSuffixSet[tail] {
			return true
		}
		j := strings.IndexByte(base[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if strings.IndexByte(base, '_') >= 0 {
		for _, suf := range defaultUnderscoreSuffixes {
			if strings.HasSuffix(base, suf) {
				return true
			}
		}
	}
	for i := range defaultGlobs {
		if defaultGlobs[i].matchLower(lower) {
			return true
		}
	}
	return false
}

// Classes of a trivial change (TrivialClass).
const (
	ClassLockfile  = "lockfile"
	ClassGenerated = "generated"
	ClassDocs      = "docs"
)

// TrivialClass says what p (a normalized repository path) is when it is a
// file a change made only of such files needs no review for: ClassLockfile
// (package-lock.json, yarn.lock, go.sum, Cargo.lock, poetry.lock, ...),
// ClassGenerated (generated code by folder or naming convention) or
// ClassDocs (Markdown, reStructuredText, AsciiDoc and text files, files in a
// docs/ or documentation/ folder or a top-level doc/, LICENSE, CHANGELOG and
// the like); "" for anything else. Matching is case-insensitive.
func TrivialClass(p string) string {
	lower := strings.ToLower(p)
	dirs, base := splitDirs(lower)
	switch {
	case lockNames[base] || hasAnySuffix(base, lockSuffixes):
		return ClassLockfile
	case isGenerated(lower, dirs, base):
		return ClassGenerated
	case isDocs(dirs, base):
		return ClassDocs
	}
	return ""
}

func isGenerated(lower string, dirs []string, base string) bool {
	for _, d := range dirs {
		if generatedDirs[d] {
			return true
		}
	}
	if hasAnySuffix(base, generatedSuffixes) || hasAnySuffix(base, generatedUnderscoreSuffixes) {
		return true
	}
	for i := range generatedGlobs {
		if generatedGlobs[i].matchLower(lower) {
			return true
		}
	}
	return false
}

// docSuffixes end documentation files; docNames are documentation files
// without an extension; notDocs are .txt files that are build or
// dependency input, not prose.
var (
	docSuffixes = []string{".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc"}
	docNames    = setOf("license", "licence", "copying", "authors", "contributors", "notice", "changelog", "changes")
	notDocs     = []string{"cmakelists.txt", "requirements*.txt", "constraints*.txt", "*requirements.txt"}
)

func isDocs(dirs []string, base string) bool {
	for i, d := range dirs {
		if d == "docs" || d == "documentation" || (i == 0 && d == "doc") {
			return true
		}
	}
	if docNames[base] {
		return true
	}
	if !hasAnySuffix(base, docSuffixes) {
		return false
	}
	for _, pat := range notDocs {
		if ok, _ := path.Match(pat, base); ok {
			return false
		}
	}
	return true
}

// splitDirs cuts a path into its directory names and its base name.
func splitDirs(p string) (dirs []string, base string) {
	parts := strings.Split(p, "/")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

// defaultSuffixSet holds defaultSuffixes, each of which starts with a dot.
var defaultSuffixSet = func() map[string]bool {
	for _, s := range defaultSuffixes {
		if !strings.HasPrefix(s, ".") {
			panic("scope: default suffix " + s + " does not start with a dot")
		}
	}
	return setOf(defaultSuffixes...)
}()

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func mustGlobs(raws ...string) []Glob {
	gs, err := CompileGlobs("defaults", raws)
	if err != nil {
		panic(err)
	}
	return gs
}

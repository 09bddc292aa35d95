package scope

import "strings"

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
		"node_modules", "vendor", "bower_components", "third_party", "third-party", ".venv", "venv",
		"site-packages", "pods", ".yarn", "jspm_packages",
		// generated code
		"generated", "__generated__",
		// snapshots, fixtures and golden data
		"__snapshots__", "fixtures", "__fixtures__", "testdata", "__mocks__",
	)
	// defaultNames are whole file names: lock files without a .lock suffix.
	defaultNames = setOf(
		"package-lock.json", "pnpm-lock.yaml", "go.sum", "npm-shrinkwrap.json", "bun.lockb",
		"packages.lock.json", "gradle.lockfile",
	)
	// defaultSuffixes end a file name: lock files, snapshots, minified files
	// and maps, compiled Python, golden files, images and fonts.
	defaultSuffixes = []string{
		".lock", ".snap", ".min.js", ".min.css", ".map", ".pyc", ".golden",
		".png", ".jpg", ".jpeg", ".svg", ".gif", ".ico", ".webp", ".bmp", ".avif", ".tif", ".tiff",
		".woff", ".woff2", ".ttf", ".otf", ".eot",
		// generated code by naming convention ("**/*.pb.go" and so on)
		".pb.go", ".pb.gw.go", ".pb.ts", ".gen.go", ".g.dart", ".freezed.dart",
	}
	// defaultUnderscoreSuffixes end a file name too, and start with "_":
	// generated code by naming convention.
	defaultUnderscoreSuffixes = []string{"_pb2.py", "_pb2_grpc.py", "_grpc.pb.go", "_generated.go"}
	// defaultGlobs are the rest, patterns a name list cannot say: generated
	// code by naming convention and build folders under a parent.
	defaultGlobs = mustGlobs(
		"**/zz_generated*.go", "**/*.generated.*", "**/gen/**/*.go", "**/bin/Debug/**", "**/bin/Release/**",
	)
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

package scope

import (
	"path"
	"slices"
	"strings"
)

// languages maps file extensions (and a few whole names) to the language
// named in the prompt's code fences. It is the one table of languages by
// extension: the candidates' readers are chosen from it too (IsCode).
var languages = map[string]string{
	".go": "go", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
	".py": "python", ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala",
	".groovy": "groovy", ".gradle": "groovy", ".rb": "ruby", ".php": "php", ".cs": "csharp",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
	".rs": "rust", ".swift": "swift", ".m": "objectivec", ".dart": "dart", ".lua": "lua",
	".sql": "sql", ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ps1": "powershell",
	".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".xml": "xml",
	".md": "markdown", ".html": "html", ".htm": "html", ".css": "css", ".scss": "scss",
	".less": "less", ".vue": "vue", ".svelte": "svelte", ".tf": "terraform", ".proto": "protobuf",
	".graphql": "graphql", ".gql": "graphql", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
	".hs": "haskell", ".clj": "clojure", ".r": "r", ".pl": "perl", ".ini": "ini", ".properties": "properties",
	".pyi": "python", ".fs": "fsharp", ".hh": "cpp", ".hxx": "cpp", ".ipp": "cpp", ".tpp": "cpp", ".inl": "cpp", ".h++": "cpp", ".c++": "cpp", ".sc": "scala", ".pm": "perl",
	".mm": "objectivec", ".hrl": "erlang", ".ml": "ocaml", ".mli": "ocaml", ".cljs": "clojure", ".elm": "elm",
	".jl": "julia", ".nim": "nim", ".zig": "zig", ".v": "v", ".sol": "solidity", ".cmake": "cmake",
}

// notCode are the languages of the table that hold data, markup, styles or
// build settings rather than declarations and references.
var notCode = map[string]bool{
	"yaml": true, "json": true, "toml": true, "xml": true, "markdown": true, "html": true, "css": true,
	"scss": true, "less": true, "ini": true, "properties": true, "dockerfile": true, "makefile": true,
	"go.mod": true, "cmake": true,
}

// hashComments are the languages whose comments start with '#'.
var hashComments = map[string]bool{
	"ruby": true, "bash": true, "perl": true, "r": true, "yaml": true, "toml": true, "elixir": true,
	"nim": true, "cmake": true, "terraform": true, "python": true,
}

// Extensions answers the extensions the table maps to one of langs, in
// order.
func Extensions(langs ...string) []string {
	var out []string
	for ext, l := range languages {
		if slices.Contains(langs, l) {
			out = append(out, ext)
		}
	}
	slices.Sort(out)
	return out
}

// IsCode reports whether lang (a name Language answers) is a programming
// language: its files declare and refer to names.
func IsCode(lang string) bool { return lang != "" && !notCode[lang] }

// HashComments reports whether lang's comments start with '#'.
func HashComments(lang string) bool { return hashComments[lang] }

var languageNames = map[string]string{
	"dockerfile": "dockerfile", "makefile": "makefile", "jenkinsfile": "groovy", "gemfile": "ruby",
	"rakefile": "ruby", "go.mod": "go.mod",
}

// Language names the language of a path from its extension or file name, or
// "" when unknown.
func Language(p string) string {
	base := strings.ToLower(path.Base(p))
	if l, ok := languageNames[base]; ok {
		return l
	}
	if strings.HasPrefix(base, "dockerfile.") || strings.HasSuffix(base, ".dockerfile") {
		return "dockerfile"
	}
	return languages[path.Ext(base)]
}

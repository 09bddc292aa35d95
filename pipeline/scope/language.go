package scope

import (
	"path"
	"strings"
)

// languages maps file extensions (and a few whole names) to the language
// named in the prompt's code fences.
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
}

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

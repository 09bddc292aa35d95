module github.com/prscout/prscout/scripts/bench/structure

go 1.26.8

require github.com/prscout/prscout v0.0.0

require github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82

require (
	github.com/bluekeyes/go-gitdiff v0.9.0 // indirect
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/maypok86/otter/v2 v2.4.0 // indirect
	github.com/pelletier/go-toml/v2 v2.2.4 // indirect
	golang.org/x/sync v0.25.0 // indirect
)

replace github.com/prscout/prscout => ../../..

module github.com/prscout/prscout/scripts/bench/candidates

go 1.26.8

require github.com/prscout/prscout v0.0.0

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/getkin/kin-openapi v0.153.0 // indirect
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/maypok86/otter/v2 v2.4.0 // indirect
	github.com/pelletier/go-toml/v2 v2.2.4 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

require (
	github.com/bluekeyes/go-gitdiff v0.9.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/tools v0.52.0
)

replace github.com/prscout/prscout => ../../..

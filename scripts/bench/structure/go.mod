module github.com/prscout/prscout/scripts/bench/structure

go 1.26.8

require github.com/prscout/prscout v0.0.0

require github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82

replace github.com/prscout/prscout => ../../..

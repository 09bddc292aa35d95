module github.com/prscout/prscout/scripts/bench/candidates

go 1.26.8

require github.com/prscout/prscout v0.0.0

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/go-json-experiment/json v0.0.0-20251027170946-4849db3c2f7e // indirect
	github.com/kaptinlin/jsonrepair v0.2.15 // indirect
)

require (
	github.com/bluekeyes/go-gitdiff v0.9.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/tools v0.52.0
)

replace github.com/prscout/prscout => ../../..

package typescript

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
)

// TestResolves checks which files an import can name: relative specifiers
// with and without extensions, the folders "." and ".." (their index), TypeScript's compiled .js names, index
// files, path aliases and bare specifiers compared by their tail.
func TestResolves(t *testing.T) {
	aliases := modpaths.Parse([]byte(`{"compilerOptions": {"baseUrl": ".", "paths": {"@app/*": ["src/app/*"]}}}`))
	src := `import a from "./util";
import b from "./helpers/format.js";
import c from "../common";
import d from "@app/client";
import e from "lodash";
import f from "pkg/sub/mod";
import g from "..";
import h from ".";
import i from "../..";
`
	f := readJS("src/lib/main.ts", []byte(src), aliases)
	if len(f.Imports) != 9 {
		t.Fatalf("read %d imports, want 9", len(f.Imports))
	}
	for _, tc := range []struct {
		imp    int
		target string
		want   bool
	}{
		{0, "src/lib/util.ts", true},
		{0, "src/lib/util/index.ts", true},
		{0, "src/lib/util.js", true},
		{0, "src/lib/utils.ts", false},
		{0, "src/util.ts", false},
		{1, "src/lib/helpers/format.ts", true}, // ./format.js names format.ts
		{1, "src/lib/helpers/format.js", true},
		{1, "src/lib/helpers/format/index.ts", false},
		{2, "src/common.ts", true},
		{2, "src/common/index.tsx", true},
		{2, "src/lib/common.ts", false},
		{3, "src/app/client.ts", true},
		{3, "src/app/client/index.ts", true},
		{3, "src/app/clients.ts", false},
		{4, "node_modules/lodash/index.js", false}, // a bare name without '/' names no file
		{5, "packages/pkg/sub/mod.ts", true},
		{5, "pkg/sub/mod/index.ts", true},
		{5, "packages/xpkg/sub/mod.ts", false},
		{5, "packages/pkg/sub/mode.ts", false},
		{6, "src/index.ts", true}, // ".." is the parent folder's index
		{6, "src/lib.ts", false},
		{6, "index.ts", false},
		{7, "src/lib/index.ts", true},
		{7, "src/lib/main.ts", false},
		{8, "index.ts", true}, // the root folder's index
		{8, "src/index.ts", false},
	} {
		if got := resolves(f, tc.imp, tc.target); got != tc.want {
			t.Errorf("import %q resolves %s = %v, want %v", f.Imports[tc.imp].Spec, tc.target, got, tc.want)
		}
	}
}

// TestImportClauses checks the names of long clauses (a package index
// re-exporting 150 renamed names, with comments and type-only entries,
// binds both names of each), of
// import x = require(...), and that a clause never runs into the next
// statement's from.
func TestImportClauses(t *testing.T) {
	var long strings.Builder
	long.WriteString("export {\n")
	for i := range 150 {
		fmt.Fprintf(&long, "  /** doc %d */\n  type T%d as U%d,\n", i, i, i)
	}
	long.WriteString("  initTRPC,\n} from '../../core';\n")
	src := long.String() + "import fs = require('fs');\nimport {a} from './a';\nexport type X = {b: 1};\nexport {c} from './c';\n"
	f := readJS("src/index.ts", []byte(src), nil)
	var got []string
	for _, im := range f.Imports {
		last := ""
		if len(im.Names) > 0 {
			last = im.Names[len(im.Names)-1]
		}
		got = append(got, fmt.Sprintf("%s %d %s %v", im.Spec, len(im.Names), last, im.Call))
	}
	want := []string{"../../core 301 initTRPC false", "fs 0  true", "./a 1 a false", "./c 1 c false"}
	if !slices.Equal(got, want) {
		t.Errorf("imports = %q, want %q", got, want)
	}
}

// TestResolvesDottedNames checks that only a JS extension is taken off a
// specifier: ./script.output names script.output.ts, and ./x.service.js
// names x.service.ts; '..' names the parent folder's index.
func TestResolvesDottedNames(t *testing.T) {
	f := readJS("src/app/main.tsx", []byte("import {all} from './script.output';\nimport {S} from './x.service.js';\nimport {test} from '..';\n"), nil)
	for _, tc := range []struct {
		imp    int
		target string
		want   bool
	}{
		{0, "src/app/script.output.ts", true},
		{0, "src/app/script.ts", false},
		{0, "src/app/script.output/index.ts", true},
		{1, "src/app/x.service.ts", true},
		{1, "src/app/x.ts", false},
		{2, "src/index.ts", true}, // '..' with no tsconfig: the parent folder's index
		{2, "src/app/index.ts", false},
	} {
		if got := resolves(f, tc.imp, tc.target); got != tc.want {
			t.Errorf("import %d resolves %s = %v, want %v", tc.imp, tc.target, got, tc.want)
		}
	}
}

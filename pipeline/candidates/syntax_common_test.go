//go:build cgo

package candidates

import (
	"fmt"
	"testing"
)

// TestSyntaxUntypedMembers: a member of a receiver whose type is unknown
// (items.clear, m.flush()) lists a file declaring the name only when the
// changed file sees it (an import, or the same directory), not when the
// name alone ties them; in a language whose files all see each other
// (Ruby), a name more than six files declare lists none of them, and so
// does a member of an unknown receiver that more than six files of the
// namespace declare (C#).
func TestSyntaxUntypedMembers(t *testing.T) {
	const run = "class Run\n  def go(items)\n    1\n  end\nend\n"
	const store = "class Store\n  def clear\n    @x = nil\n  end\nend\n"
	many := map[string]string{"app/run.rb": run}
	for i := range 8 {
		many[fmt.Sprintf("lib/part%d/helper.rb", i)] = fmt.Sprintf("class Part%d\n  def tidy_up(n)\n    n\n  end\nend\n", i)
	}
	few := map[string]string{"app/run.rb": run,
		"lib/part0/helper.rb": many["lib/part0/helper.rb"], "lib/part1/helper.rb": many["lib/part1/helper.rb"]}
	const rustRun = "pub fn go() -> i32 {\n    let m = make();\n    1\n}\n"
	const rustMem = "pub struct Mem;\n\nimpl Mem {\n    pub fn flush(&self) -> i32 {\n        0\n    }\n}\n"
	const ktRun = "package com.acme.app\n\nfun run(): Int {\n    val x = make()\n    return 1\n}\n"
	const csRun = "namespace Acme\n{\n    class Run\n    {\n        int Go()\n        {\n            var x = Make();\n            return 1;\n        }\n    }\n}\n"
	csMany := map[string]string{"src/Run.cs": csRun}
	for i := range 8 {
		csMany[fmt.Sprintf("src/Stores/Store%d.cs", i)] = fmt.Sprintf("namespace Acme\n{\n    class Store%d\n    {\n        public int Flush()\n        {\n            return %d;\n        }\n    }\n}\n", i, i)
	}
	csFew := map[string]string{"src/Run.cs": csRun, "src/Stores/Store0.cs": csMany["src/Stores/Store0.cs"], "src/Stores/Store1.cs": csMany["src/Stores/Store1.cs"]}
	ktBeside := map[string]string{
		"src/com/acme/ksp/Run.kt":   "package com.acme.ksp\n\nfun run(): Int {\n    val x = make()\n    return 1\n}\n",
		"src/com/acme/ksp/Names.kt": "package com.acme.ksp\n\nfun Thing.toName(): Int = 1\n",
	}
	for i := range 8 {
		ktBeside[fmt.Sprintf("src/com/acme/Names%d.kt", i)] = fmt.Sprintf("package com.acme\n\nfun Other%d.toName(): Int = %d\n", i, i)
	}
	const ktStore = "package com.acme.store\n\nclass Store {\n    fun flushAll(): Int {\n        return 0\n    }\n}\n"
	resolveCases{
		{
			name: "ruby: a member of an unknown receiver declared elsewhere", files: map[string]string{"app/run.rb": run, "lib/store/store.rb": store},
			path: "app/run.rb", old: "    1\n", new: "    items.clear\n",
		},
		{
			name: "ruby: a member of an unknown receiver declared beside", files: map[string]string{"app/run.rb": run, "app/store.rb": store},
			path: "app/run.rb", old: "    1\n", new: "    items.clear\n", want: []string{"app/store.rb"},
		},
		{
			name: "ruby: a name more than six files declare", files: many,
			path: "app/run.rb", old: "    1\n", new: "    tidy_up(1)\n",
		},
		{
			name: "ruby: a name two files declare", files: few,
			path: "app/run.rb", old: "    1\n", new: "    tidy_up(1)\n", want: []string{"lib/part0/helper.rb", "lib/part1/helper.rb"},
		},
		{
			name: "rust: a method of an unknown receiver in an unseen module", files: map[string]string{"src/run.rs": rustRun, "src/store/mem.rs": rustMem},
			path: "src/run.rs", old: "    1\n", new: "    m.flush()\n",
		},
		{
			name: "rust: a method of an unknown receiver in a module the file uses", files: map[string]string{
				"src/run.rs": "use crate::store::mem::Mem;\n\n" + rustRun, "src/store/mem.rs": rustMem},
			path: "src/run.rs", old: "    1\n", new: "    m.flush()\n", want: []string{"src/store/mem.rs"},
		},
		{
			name: "kotlin: a member of an unknown receiver in a package not imported", files: map[string]string{
				"src/main/kotlin/com/acme/app/Run.kt": ktRun, "src/main/kotlin/com/acme/store/Store.kt": ktStore},
			path: "src/main/kotlin/com/acme/app/Run.kt", old: "    return 1\n", new: "    return x.flushAll()\n",
		},
		{
			name: "kotlin: a member of an unknown receiver in a package imported", files: map[string]string{
				"src/main/kotlin/com/acme/app/Run.kt":     "package com.acme.app\n\nimport com.acme.store.Store\n\nfun run(): Int {\n    val x = make()\n    return 1\n}\n",
				"src/main/kotlin/com/acme/store/Store.kt": ktStore},
			path: "src/main/kotlin/com/acme/app/Run.kt", old: "    return 1\n", new: "    return x.flushAll()\n",
			want: []string{"src/main/kotlin/com/acme/store/Store.kt"},
		},
		{
			name: "csharp: a member of an unknown receiver more than six files of the namespace declare", files: csMany,
			path: "src/Run.cs", old: "return 1;", new: "return x.Flush();",
		},
		{
			name:  "kotlin: a member of an unknown receiver declared beside and by more than six files of the enclosing package",
			files: ktBeside, path: "src/com/acme/ksp/Run.kt", old: "    return 1\n", new: "    return x.toName()\n",
			want: []string{"src/com/acme/ksp/Names.kt"},
		},
		{
			name: "csharp: a member of an unknown receiver two files of the namespace declare", files: csFew,
			path: "src/Run.cs", old: "return 1;", new: "return x.Flush();", want: []string{"src/Stores/Store0.cs", "src/Stores/Store1.cs"},
		},
	}.run(t)
}

// TestSyntaxOwnNestedTypes: a changed member of a nested type
// (TypeSpec.Builder.build) is not referred to by a file whose build()
// calls are its own nested type's (FunSpec.Builder), unless it names the
// changed type's outer type; a subclass overriding it still is.
func TestSyntaxOwnNestedTypes(t *testing.T) {
	const spec = "package com.acme.spec\n\nclass TypeSpec {\n    class Builder {\n        fun build(): TypeSpec {\n            return TypeSpec()\n        }\n    }\n}\n"
	const funSpec = "package com.acme.spec\n\nclass FunSpec {\n    class Builder {\n        fun build(): FunSpec {\n            return FunSpec()\n        }\n    }\n\n" +
		"    fun copy(): FunSpec = Builder().build()\n}\n"
	const user = "package com.acme.spec\n\nclass FileSpec {\n    class Builder {\n        fun build(): FileSpec {\n            return FileSpec()\n        }\n\n" +
		"        fun add(): Int {\n            val t = TypeSpec.Builder().build()\n            return 1\n        }\n    }\n}\n"
	resolveCases{
		{
			name: "a builder of its own", files: map[string]string{"src/com/acme/spec/TypeSpec.kt": spec, "src/com/acme/spec/FunSpec.kt": funSpec},
			path: "src/com/acme/spec/TypeSpec.kt", old: "return TypeSpec()", new: "return TypeSpec().also { }",
		},
		{
			name: "a builder of its own naming the outer type", files: map[string]string{"src/com/acme/spec/TypeSpec.kt": spec, "src/com/acme/spec/FileSpec.kt": user},
			path: "src/com/acme/spec/TypeSpec.kt", old: "return TypeSpec()", new: "return TypeSpec().also { }",
			want: []string{"src/com/acme/spec/FileSpec.kt"},
		},
	}.run(t)
}

// TestSyntaxAmbiguousNames: a member whose receiver no read type declares
// it in (a call's result, a property named like a type) is as untyped as
// one of a local; a name more than six files the changed file sees
// declare lists none of them, whatever the sight; and the callers of a
// declaration whose body alone changed are listed only when few.
func TestSyntaxAmbiguousNames(t *testing.T) {
	const csRun = "namespace Acme\n{\n    class Run\n    {\n        int Go()\n        {\n            return 1;\n        }\n    }\n}\n"
	csStore := func(ns string, i int) string {
		return fmt.Sprintf("namespace %s\n{\n    class Store%d\n    {\n        public int Flush()\n        {\n            return %d;\n        }\n    }\n}\n", ns, i, i)
	}
	csMany, csFew := map[string]string{"src/Run.cs": csRun}, map[string]string{"src/Run.cs": csRun}
	for i := range 8 {
		csMany[fmt.Sprintf("src/Stores/Store%d.cs", i)] = csStore("Acme", i)
	}
	for i := range 2 {
		csFew[fmt.Sprintf("src/Stores/Store%d.cs", i)] = csStore("Acme", i)
	}
	const ktRun = "package com.acme.app\n\nfun run(): Int {\n    return 1\n}\n"
	const ktStore = "package com.acme.store\n\nclass Store {\n    fun flushAll(): Int {\n        return 0\n    }\n}\n"
	const ktTarget = "package com.acme.app\n\nfun target(n: Int): Int {\n    return n\n}\n"
	ktCallers := func(n int) map[string]string {
		out := map[string]string{"src/com/acme/app/Target.kt": ktTarget}
		for i := range n {
			out[fmt.Sprintf("src/com/acme/app/Use%d.kt", i)] = fmt.Sprintf("package com.acme.app\n\nfun use%d(): Int = target(%d)\n", i, i)
		}
		return out
	}
	ktValue := map[string]string{"src/com/acme/app/Target.kt": "package com.acme.app\n\nval limit: Int = 1\n"}
	for i := range 8 {
		ktValue[fmt.Sprintf("src/com/acme/app/Use%d.kt", i)] = fmt.Sprintf("package com.acme.app\n\nfun use%d(): Int = limit + %d\n", i, i)
	}
	var eight, two []string
	for i := range 8 {
		eight = append(eight, fmt.Sprintf("src/com/acme/app/Use%d.kt", i))
	}
	two = eight[:2]
	resolveCases{
		{
			name: "kotlin: a member of a call's result in a package not imported", files: map[string]string{
				"src/main/kotlin/com/acme/app/Run.kt": ktRun, "src/main/kotlin/com/acme/store/Store.kt": ktStore},
			path: "src/main/kotlin/com/acme/app/Run.kt", old: "    return 1\n", new: "    return make().flushAll()\n",
		},
		{
			name: "csharp: a member of a property named like a type, declared in a namespace not used", files: map[string]string{
				"src/Run.cs": csRun, "lib/Store0.cs": csStore("Other", 0)},
			path: "src/Run.cs", old: "return 1;", new: "return Metadata.Flush();",
		},
		{
			name: "csharp: a member of a call's result more than six files of the namespace declare", files: csMany,
			path: "src/Run.cs", old: "return 1;", new: "return Make().Flush();",
		},
		{
			name: "csharp: a member of a call's result two files of the namespace declare", files: csFew,
			path: "src/Run.cs", old: "return 1;", new: "return Make().Flush();", want: []string{"src/Stores/Store0.cs", "src/Stores/Store1.cs"},
		},
		{
			name: "csharp: a bare name more than six files of the namespace declare", files: csMany,
			path: "src/Run.cs", old: "return 1;", new: "return Flush();",
		},
		{
			name: "csharp: a bare name two files of the namespace declare", files: csFew,
			path: "src/Run.cs", old: "return 1;", new: "return Flush();", want: []string{"src/Stores/Store0.cs", "src/Stores/Store1.cs"},
		},
		{
			name: "csharp: a bare name one file declares as a type, another as a member", files: map[string]string{
				"src/Run.cs": csRun, "src/Kinds.cs": "namespace Acme\n{\n    enum EntityState\n    {\n        Added,\n    }\n}\n",
				"src/Entry.cs": "namespace Acme\n{\n    class Entry\n    {\n        public int EntityState { get; set; }\n    }\n}\n"},
			path: "src/Run.cs", old: "return 1;", new: "return (int)EntityState.Added;", want: []string{"src/Kinds.cs"},
		},
		{
			name: "kotlin: a changed body with eight callers", files: ktCallers(8),
			path: "src/com/acme/app/Target.kt", old: "return n\n", new: "return n + 1\n",
		},
		{
			name: "kotlin: a changed signature with eight callers", files: ktCallers(8),
			path: "src/com/acme/app/Target.kt", old: "target(n: Int)", new: "target(n: Long)", want: eight,
		},
		{
			name: "kotlin: a changed value with eight users", files: ktValue,
			path: "src/com/acme/app/Target.kt", old: "val limit: Int = 1", new: "val limit: Int = 2",
		},
		{
			name: "kotlin: a changed type with eight users", files: ktValue,
			path: "src/com/acme/app/Target.kt", old: "val limit: Int = 1", new: "val limit: Long = 1", want: eight,
		},
		{
			name: "kotlin: a changed body with two callers", files: ktCallers(2),
			path: "src/com/acme/app/Target.kt", old: "return n\n", new: "return n + 1\n", want: two,
		},
	}.run(t)
}

// TestSyntaxLocalVariables: a variable declared inside a function's body
// is the function's, not a declaration of the file: changing it changes
// the function's body, and a file using another thing of its name does
// not refer to it; a property of a class stays a declaration.
func TestSyntaxLocalVariables(t *testing.T) {
	const meta = "package com.acme.meta\n\nclass Reader {\n    val header = 1\n}\n\nfun load(): Int {\n    val metadata = read(1)\n    return metadata\n}\n"
	const other = "package com.acme.meta\n\nfun show(r: Reader, xs: List<Item>): Int = r.header + xs.map { it.metadata }.size\n"
	files := map[string]string{"src/com/acme/meta/Reader.kt": meta, "src/com/acme/meta/Show.kt": other}
	resolveCases{
		{
			name: "a local variable's change", files: files,
			path: "src/com/acme/meta/Reader.kt", old: "read(1)", new: "readStrict(1)",
		},
		{
			name: "a property's change", files: files,
			path: "src/com/acme/meta/Reader.kt", old: "val header = 1", new: "val header: Long = 1",
			want: []string{"src/com/acme/meta/Show.kt"},
		},
	}.run(t)
}

package candidates

import (
	"slices"
	"strings"
	"testing"
)

// The Java failure classes: each test is a small repository whose truth
// (the files javac resolves the names to) is written by hand.

// checkJavaPaths compares the listed paths with want (as a set) and the kind of
// each.
func checkJavaPaths(t *testing.T, got []Candidate, want map[string]Kind) {
	t.Helper()
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path)
		k, ok := want[c.Path]
		if !ok {
			t.Errorf("listed %s (%s: %s), not in the truth", c.Path, c.Kind, c.Reason)
			continue
		}
		if k != c.Kind {
			t.Errorf("%s listed as %s, want %s (%s)", c.Path, c.Kind, k, c.Reason)
		}
	}
	for p := range want {
		if !slices.Contains(paths, p) {
			t.Errorf("missing %s\n%s", p, dump(got))
		}
	}
}

func edit(t *testing.T, src, old, new string) string {
	t.Helper()
	if !strings.Contains(src, old) {
		t.Fatalf("fixture has no %q", old)
	}
	return strings.Replace(src, old, new, 1)
}

const javaRoot = "src/main/java/com/acme/"

// A method named get or set is a method, not an accessor modifier.
func TestJavaGetSetMethods(t *testing.T) {
	base := map[string]string{
		javaRoot + "Store.java": "package com.acme;\n\npublic class Store {\n    private final java.util.Map<String, String> m = new java.util.HashMap<>();\n\n    public String get(String key) {\n        return m.get(key);\n    }\n\n    public void set(String key, String value) {\n        m.put(key, value);\n    }\n}\n",
		javaRoot + "Page.java":  "package com.acme;\n\npublic class Page {\n    private final Store store = new Store();\n\n    String title() {\n        return store.get(\"title\");\n    }\n}\n",
		javaRoot + "Other.java": "package com.acme;\n\npublic class Other {\n    private final java.util.List<String> list = new java.util.ArrayList<>();\n\n    String first() {\n        return list.get(0);\n    }\n}\n",
		javaRoot + "Cache.java": "package com.acme;\n\npublic class Cache {\n    public void set(String k, String v) {\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		javaRoot + "Store.java": edit(t, base[javaRoot+"Store.java"], "return m.get(key);", "return m.getOrDefault(key, \"\");"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Page.java": KindImpact})

	got = repo{base: base, changed: map[string]string{
		javaRoot + "Page.java": edit(t, base[javaRoot+"Page.java"], "return store.get(\"title\");", "store.set(\"seen\", \"1\");\n        return store.get(\"title\");"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Store.java": KindUses})
}

// A constructor is the class's constructor: new C(, super( and C::new reach it.
func TestJavaConstructors(t *testing.T) {
	base := map[string]string{
		javaRoot + "Point.java":   "package com.acme;\n\npublic class Point {\n    final int x;\n\n    public Point(int x) {\n        this.x = x;\n    }\n\n    public Point() {\n        this(0);\n    }\n}\n",
		javaRoot + "Plot.java":    "package com.acme;\n\nclass Plot {\n    Point origin() {\n        return new Point(1);\n    }\n}\n",
		javaRoot + "Labeled.java": "package com.acme;\n\nclass Labeled extends Point {\n    Labeled() {\n        super(2);\n    }\n}\n",
		javaRoot + "Many.java":    "package com.acme;\n\nimport java.util.stream.IntStream;\n\nclass Many {\n    Object all() {\n        return IntStream.range(0, 3).mapToObj(Point::new).toArray();\n    }\n}\n",
		javaRoot + "Mention.java": "package com.acme;\n\nclass Mention {\n    int x(Point p) {\n        return 0;\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		javaRoot + "Point.java": edit(t, base[javaRoot+"Point.java"], "this.x = x;", "this.x = Math.max(0, x);"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Plot.java": KindImpact, javaRoot + "Labeled.java": KindImpact, javaRoot + "Many.java": KindImpact})

	got = repo{base: base, changed: map[string]string{
		javaRoot + "Mention.java": edit(t, base[javaRoot+"Mention.java"], "return 0;", "return new Point(3).x;"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Point.java": KindUses})
}

// The receiver's declared type (field, local, parameter) decides which
// class's method a call reaches.
func TestJavaReceiverTypes(t *testing.T) {
	base := map[string]string{
		javaRoot + "Client.java":  "package com.acme;\n\npublic class Client {\n    public int send(String s) {\n        return s.length();\n    }\n}\n",
		javaRoot + "Mailer.java":  "package com.acme;\n\npublic class Mailer {\n    public int send(String s) {\n        return 0;\n    }\n}\n",
		javaRoot + "ByField.java": "package com.acme;\n\nclass ByField {\n    private Client client;\n\n    int go() {\n        return client.send(\"a\");\n    }\n}\n",
		javaRoot + "ByLocal.java": "package com.acme;\n\nclass ByLocal {\n    int go() {\n        Client c = new Client();\n        return c.send(\"b\");\n    }\n}\n",
		javaRoot + "ByParam.java": "package com.acme;\n\nclass ByParam {\n    int go(final Client c, int n) {\n        return c.send(\"c\") + n;\n    }\n}\n",
		javaRoot + "ByThis.java":  "package com.acme;\n\nclass ByThis {\n    private Client client = new Client();\n\n    int go() {\n        return this.client.send(\"d\");\n    }\n}\n",
		javaRoot + "Mail.java":    "package com.acme;\n\nclass Mail {\n    private Mailer mailer;\n\n    int go() {\n        return mailer.send(\"e\");\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		javaRoot + "Client.java": edit(t, base[javaRoot+"Client.java"], "return s.length();", "return s.trim().length();"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "ByField.java": KindImpact, javaRoot + "ByLocal.java": KindImpact,
		javaRoot + "ByParam.java": KindImpact, javaRoot + "ByThis.java": KindImpact})

	got = repo{base: base, changed: map[string]string{
		javaRoot + "Mail.java": edit(t, base[javaRoot+"Mail.java"], "return mailer.send(\"e\");", "return mailer.send(\"e\") + mailer.send(\"f\");"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Mailer.java": KindUses})
}

// A call's return type types the next call of a chain: client().get().
func TestJavaReturnTypes(t *testing.T) {
	base := map[string]string{
		javaRoot + "Factory.java": "package com.acme;\n\npublic class Factory {\n    public Session open() {\n        return new Session();\n    }\n}\n",
		javaRoot + "Session.java": "package com.acme;\n\npublic class Session {\n    public void commit() {\n    }\n}\n",
		javaRoot + "Other.java":   "package com.acme;\n\npublic class Other {\n    public void commit() {\n    }\n}\n",
		javaRoot + "Job.java":     "package com.acme;\n\nclass Job {\n    private final Factory factory = new Factory();\n\n    void run() {\n        factory.open();\n    }\n\n    Factory factory() {\n        return factory;\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		javaRoot + "Job.java": edit(t, base[javaRoot+"Job.java"], "        factory.open();", "        factory().open().commit();"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Factory.java": KindUses, javaRoot + "Session.java": KindUses})
}

// extends/implements: an interface method reaches its implementations and
// its callers through the interface; an inherited member is declared by
// the superclass.
func TestJavaHierarchy(t *testing.T) {
	base := map[string]string{
		javaRoot + "Shape.java":  "package com.acme;\n\npublic interface Shape {\n    double area();\n}\n",
		javaRoot + "Base.java":   "package com.acme;\n\npublic abstract class Base implements Shape {\n    public String describe() {\n        return \"shape\";\n    }\n}\n",
		javaRoot + "Circle.java": "package com.acme;\n\npublic class Circle extends Base {\n    @Override\n    public double area() {\n        return 3.14;\n    }\n}\n",
		javaRoot + "Sum.java":    "package com.acme;\n\nclass Sum {\n    double total(java.util.List<Shape> shapes) {\n        double t = 0;\n        for (Shape s : shapes) {\n            t += s.area();\n        }\n        return t;\n    }\n}\n",
		javaRoot + "Show.java":   "package com.acme;\n\nclass Show {\n    String show(Circle c) {\n        return \"\";\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		javaRoot + "Shape.java": edit(t, base[javaRoot+"Shape.java"], "double area();", "double area();\n\n    default double perimeter() {\n        return area();\n    }"),
	}}.run(t)
	// Adding perimeter touches no existing declaration: nothing to list.
	checkJavaPaths(t, got, map[string]Kind{})

	got = repo{base: base, changed: map[string]string{
		javaRoot + "Shape.java": edit(t, base[javaRoot+"Shape.java"], "double area();", "double area(); // in square units"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Circle.java": KindImpact, javaRoot + "Sum.java": KindImpact})

	got = repo{base: base, changed: map[string]string{
		javaRoot + "Show.java": edit(t, base[javaRoot+"Show.java"], "return \"\";", "return c.describe();"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Base.java": KindUses})
}

// Packages and imports: single-type, on-demand and static imports, and the
// same package in another source root without an import.
func TestJavaPackagesAndImports(t *testing.T) {
	util := "src/main/java/com/acme/util/"
	base := map[string]string{
		util + "Strings.java":                          "package com.acme.util;\n\npublic final class Strings {\n    public static String trim(String s) {\n        return s.trim();\n    }\n}\n",
		util + "Numbers.java":                          "package com.acme.util;\n\npublic final class Numbers {\n    public static int parse(String s) {\n        return Integer.parseInt(s);\n    }\n}\n",
		"src/main/java/com/other/util/Strings.java":    "package com.other.util;\n\npublic final class Strings {\n    public static String trim(String s) {\n        return s;\n    }\n}\n",
		javaRoot + "Single.java":                       "package com.acme;\n\nimport com.acme.util.Strings;\n\nclass Single {\n    String a(String s) {\n        return Strings.trim(s);\n    }\n}\n",
		javaRoot + "OnDemand.java":                     "package com.acme;\n\nimport com.acme.util.*;\n\nclass OnDemand {\n    String a(String s) {\n        return Strings.trim(s);\n    }\n}\n",
		javaRoot + "Static.java":                       "package com.acme;\n\nimport static com.acme.util.Strings.trim;\n\nclass Static {\n    String a(String s) {\n        return trim(s);\n    }\n}\n",
		javaRoot + "Elsewhere.java":                    "package com.acme;\n\nimport com.other.util.Strings;\n\nclass Elsewhere {\n    String a(String s) {\n        return Strings.trim(s);\n    }\n}\n",
		"src/test/java/com/acme/util/StringsTest.java": "package com.acme.util;\n\nclass StringsTest {\n    void t() {\n        Strings.trim(\" a \");\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		util + "Strings.java": edit(t, base[util+"Strings.java"], "return s.trim();", "return s == null ? null : s.trim();"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Single.java": KindImpact, javaRoot + "OnDemand.java": KindImpact,
		javaRoot + "Static.java": KindImpact, "src/test/java/com/acme/util/StringsTest.java": KindImpact})

	got = repo{base: base, changed: map[string]string{
		"src/test/java/com/acme/util/StringsTest.java": edit(t, base["src/test/java/com/acme/util/StringsTest.java"],
			"Strings.trim(\" a \");", "Strings.trim(\" a \");\n        Numbers.parse(\"1\");"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{util + "Numbers.java": KindUses})
}

// A single-type import of another module's class (its source root seen in
// no other file of the search) still reaches the class's file.
func TestJavaImportAcrossModules(t *testing.T) {
	base := map[string]string{
		"core/src/main/java/com/acme/core/Engine.java": "package com.acme.core;\n\npublic class Engine {\n    public static void start() {\n    }\n}\n",
		"app/src/main/java/com/acme/app/Main.java":     "package com.acme.app;\n\nimport com.acme.core.Engine;\n\nclass Main {\n    void run() {\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"app/src/main/java/com/acme/app/Main.java": edit(t, base["app/src/main/java/com/acme/app/Main.java"], "    void run() {\n", "    void run() {\n        Engine.start();\n"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{"core/src/main/java/com/acme/core/Engine.java": KindUses})
}

// Classes of one simple name nested in different classes (every Spec's
// Builder) are different classes.
func TestJavaNestedClassesApart(t *testing.T) {
	base := map[string]string{
		javaRoot + "TypeSpec.java":  "package com.acme;\n\npublic class TypeSpec {\n    public static Builder builder() {\n        return new Builder();\n    }\n\n    public static class Builder {\n        public TypeSpec build() {\n            return new TypeSpec();\n        }\n    }\n}\n",
		javaRoot + "FieldSpec.java": "package com.acme;\n\npublic class FieldSpec {\n    public static Builder builder() {\n        return new Builder();\n    }\n\n    public static class Builder {\n        public FieldSpec build() {\n            return new FieldSpec();\n        }\n    }\n}\n",
		javaRoot + "Types.java":     "package com.acme;\n\nclass Types {\n    TypeSpec make() {\n        TypeSpec.Builder b = TypeSpec.builder();\n        return b.build();\n    }\n}\n",
		javaRoot + "Fields.java":    "package com.acme;\n\nclass Fields {\n    FieldSpec make() {\n        FieldSpec.Builder b = FieldSpec.builder();\n        return b.build();\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		javaRoot + "TypeSpec.java": edit(t, base[javaRoot+"TypeSpec.java"], "            return new TypeSpec();", "            TypeSpec t = new TypeSpec();\n            return t;"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Types.java": KindImpact})
}

// Java readings are shared by every search that reads the same path and
// content: concurrent searches of two repositories holding the same files
// answer as each does alone (run with -race: what a search learns of a
// file, such as how it sees another's classes, stays in the search).
func TestJavaSharedReadings(t *testing.T) {
	store := "package com.acme;\n\npublic class Store {\n    public String get(String k) {\n        return k;\n    }\n}\n"
	page := "package com.acme.web;\n\nimport com.acme.Store;\n\nclass Page {\n    String title(Store s) {\n        return s.get(\"title\");\n    }\n}\n"
	star := "package com.acme.api;\n\nimport com.acme.*;\n\nclass Api {\n    String name(Store s) {\n        return s.get(\"name\");\n    }\n}\n"
	changed := map[string]string{javaRoot + "Store.java": strings.Replace(store, "return k;", "return k.trim();", 1)}
	here := repo{base: map[string]string{
		javaRoot + "Store.java":    store,
		javaRoot + "web/Page.java": page,
		javaRoot + "api/Api.java":  star,
	}, changed: changed}
	// Elsewhere, Page and Api are the same files but another package
	// declares the Store they import.
	elsewhere := repo{base: map[string]string{
		javaRoot + "Store.java":              store,
		javaRoot + "web/Page.java":           strings.Replace(page, "import com.acme.Store;", "import com.other.Store;", 1),
		javaRoot + "api/Api.java":            star,
		"src/main/java/com/other/Store.java": strings.Replace(store, "package com.acme;", "package com.other;", 1),
	}, changed: changed}
	// The concurrent runs come first, so that they fill the cache and
	// their searches learn about the shared files at the same time.
	wantHere, wantElsewhere := runShared(t, here, elsewhere)
	if !strings.Contains(wantHere, "web/Page.java") || !strings.Contains(wantHere, "api/Api.java") {
		t.Fatalf("Page and Api not both listed:\n%s", wantHere)
	}
	if strings.Contains(wantElsewhere, "web/Page.java") {
		t.Fatalf("Page, which imports another Store, listed:\n%s", wantElsewhere)
	}
}

// A reference whose receiver no type resolves, in a file that cannot see
// the touched class, matches only by its rare name: it is listed, labelled
// textual (few of them are kept).
func TestJavaUnresolvedReceiverIsTextual(t *testing.T) {
	other := "src/main/java/org/elsewhere/"
	base := map[string]string{
		javaRoot + "Digest.java": "package com.acme;\n\npublic class Digest {\n    public long computeChecksum(byte[] data) {\n        return data.length;\n    }\n}\n",
		javaRoot + "Upload.java": "package com.acme;\n\npublic class Upload {\n    private final Digest digest = new Digest();\n\n    long sum(byte[] b) {\n        return digest.computeChecksum(b);\n    }\n}\n",
		other + "Remote.java":    "package org.elsewhere;\n\npublic class Remote {\n    long sum(Object box, byte[] b) {\n        return ((Summer) box).computeChecksum(b);\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		javaRoot + "Digest.java": edit(t, base[javaRoot+"Digest.java"], "return data.length;", "return data.length * 31L;"),
	}}.run(t)
	checkJavaPaths(t, got, map[string]Kind{javaRoot + "Upload.java": KindImpact, other + "Remote.java": KindImpact})
	for _, c := range got {
		want := MethodTokens
		if c.Path == other+"Remote.java" {
			want = MethodTextual
		}
		if c.Method != want {
			t.Errorf("%s: method %s, want %s (%s)", c.Path, c.Method, want, c.Reason)
		}
	}
}

// Truth.java: what the JDK's compiler (javax.tools, com.sun.source) says a
// commit's reviewer needs, for the candidates recall benchmark (see
// ../javabench.go, subcommand "recall -lang java").
//
// Run: java --add-exports jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED
// Truth.java < request.json (source-launch mode), or compile it once (javac
// with the same --add-exports, -d DIR) and run java --add-exports ... -cp DIR
// Truth. The export gives JavacTaskImpl's enter() and analyze(classes): only
// the files that can refer to a touched declaration are attributed.
//
// Input (stdin, JSON): {"dir": checkout at the head commit, "changes":
// [{"path", "oldPath", "added": [head line numbers], "removed": [base line
// numbers], "old": base source or null}]}.
//
// Output (stdout, JSON): {"uses", "impact", "errors", "bodyChanged"}:
//   uses    files outside the change that declare the element an
//           identifier, member select (a.b, the line of b counts) or `new C(`
//           on an added line of a changed file refers to (Trees.getPath of
//           the element: its declaring source file; the JDK's own classes
//           have none and do not count; local variables and parameters are
//           in the changed file itself);
//   impact  files outside the change with a reference to a touched
//           declaration: every identifier, member select or `new C(` whose
//           element is the declaration, imports included. Touched are the
//           methods, constructors, fields, enum constants and classes
//           (interfaces, enums, records) declared in class bodies (not
//           inside method bodies) whose span holds an added line, or whose
//           base span held a removed line and which the head still declares
//           (matched by enclosing class, name and parameter types as
//           written, else by arity). A class counts by its header, from its
//           first modifier to its opening brace; its members count on their
//           own. A touched constructor counts the `new C(...)` that call it
//           and the explicit `super(...)` of subclass constructors (the
//           implicit super() javac inserts does not count). A method that
//           overrides a touched method (elements.overrides) counts as a
//           reference in its file: the override is bound to the touched
//           method's signature and contract. Calls that resolve to a method
//           the touched one overrides (a call through the supertype) do not
//           count: they reach every implementation, not the touched one;
//   errors  error diagnostics of javac in the changed files (dependencies
//           are not on the class path, so their names do not resolve; the
//           repository's own names still do);
//   bodyChanged  whether a changed line with code on it (not only a comment
//           or blank) falls inside a method or constructor body, at the
//           head for added lines and at the base for removed ones.
//
// Files compiled: every .java file of the checkout outside dot directories,
// build/, target/, out/ and node_modules/, except module-info.java (several
// modules' descriptors cannot be compiled together), tests included, all in
// one JavacTask (parse, then analyze) with no class path, so the source roots
// of every module resolve each other. Attribution goes on past errors
// (-XDshould-stop.ifError=FLOW).

import com.sun.source.tree.*;
import com.sun.source.util.*;

import javax.lang.model.element.*;
import javax.lang.model.util.Elements;
import javax.tools.*;
import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;

public class Truth {
    static final Set<String> SKIP_DIRS = Set.of("build", "target", "out", "node_modules");

    public static void main(String[] args) throws Exception {
        String inputText = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        Object parsed = new Json(inputText).value();
        @SuppressWarnings("unchecked")
        Map<String, Object> input = (Map<String, Object>) parsed;
        Path dir = Paths.get((String) input.get("dir")).toAbsolutePath().normalize();
        List<Change> changes = new ArrayList<>();
        for (Object o : (List<?>) input.getOrDefault("changes", List.of())) {
            changes.add(Change.of((Map<?, ?>) o));
        }
        System.out.println(new Truth(dir, changes).run());
    }

    record Change(String path, String oldPath, Set<Integer> added, Set<Integer> removed, String old) {
        static Change of(Map<?, ?> m) {
            return new Change((String) m.get("path"), (String) m.get("oldPath"), lines(m.get("added")),
                    lines(m.get("removed")), (String) m.get("old"));
        }

        static Set<Integer> lines(Object o) {
            Set<Integer> out = new HashSet<>();
            if (o instanceof List<?> l) {
                for (Object x : l) {
                    out.add(((Number) x).intValue());
                }
            }
            return out;
        }
    }

    final Path dir;
    final List<Change> changes;
    final Set<String> changed = new HashSet<>();
    final TreeSet<String> uses = new TreeSet<>();
    final TreeSet<String> impact = new TreeSet<>();
    int errors;
    boolean bodyChanged;
    Trees trees;
    Elements elements;

    Truth(Path dir, List<Change> changes) {
        this.dir = dir;
        this.changes = changes;
        for (Change c : changes) {
            changed.add(c.path);
            if (c.oldPath != null && !c.oldPath.isEmpty()) {
                changed.add(c.oldPath);
            }
        }
    }

    String rel(CompilationUnitTree cu) {
        if (cu == null || cu.getSourceFile() == null) {
            return "";
        }
        Path p = Paths.get(cu.getSourceFile().toUri()).toAbsolutePath().normalize();
        if (!p.startsWith(dir)) {
            return "";
        }
        return dir.relativize(p).toString().replace(File.separatorChar, '/');
    }

    List<Path> sources() throws IOException {
        List<Path> out = new ArrayList<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, java.nio.file.attribute.BasicFileAttributes a) {
                String n = d.getFileName() == null ? "" : d.getFileName().toString();
                if (!d.equals(dir) && (n.startsWith(".") || SKIP_DIRS.contains(n))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) {
                String n = f.getFileName().toString();
                if (n.endsWith(".java") && !n.equals("module-info.java") && a.isRegularFile()) {
                    out.add(f);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        Collections.sort(out);
        return out;
    }

    String run() throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Map<String, Integer> errorsByFile = new HashMap<>();
        DiagnosticListener<JavaFileObject> diags = d -> {
            if (d.getKind() == Diagnostic.Kind.ERROR && d.getSource() != null) {
                errorsByFile.merge(d.getSource().toUri().toString(), 1, Integer::sum);
            }
        };
        StandardJavaFileManager fm = javac.getStandardFileManager(diags, null, StandardCharsets.UTF_8);
        List<Path> srcs = sources();
        List<String> opts = List.of("-proc:none", "--limit-modules", "java.se,jdk.unsupported", "-classpath", "", "-encoding", "UTF-8", "-Xmaxerrs", "1000000",
                "-Xmaxwarns", "0", "-nowarn", "-XDshould-stop.ifError=ATTR", "-XDshould-stop.ifNoError=ATTR", "-implicit:none");
        JavacTask task = (JavacTask) javac.getTask(null, fm, diags, opts, null, fm.getJavaFileObjectsFromPaths(srcs));
        trees = Trees.instance(task);
        elements = task.getElements();
        List<CompilationUnitTree> units = new ArrayList<>();
        long t0 = System.nanoTime();
        for (CompilationUnitTree cu : task.parse()) {
            units.add(cu);
        }
        long tParse = System.nanoTime();
        long cParse = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        Iterable<? extends Element> entered = ((com.sun.tools.javac.api.JavacTaskImpl) task).enter();
        long t1 = System.nanoTime();

        Map<String, CompilationUnitTree> byPath = new HashMap<>();
        for (CompilationUnitTree cu : units) {
            byPath.put(rel(cu), cu);
        }
        Set<Element> touched = new HashSet<>();
        List<CompilationUnitTree> changedUnits = new ArrayList<>();
        for (Change c : changes) {
            if (!c.path.endsWith(".java")) {
                continue;
            }
            CompilationUnitTree cu = byPath.get(c.path);
            List<Decl> head = List.of();
            if (cu != null) {
                changedUnits.add(cu);
                head = new DeclCollector(cu, trees.getSourcePositions()).collect();
                for (Decl d : head) {
                    if (d.hit(c.added)) {
                        touched.add(d.element(trees));
                    }
                    if (d.bodyHit(c.added)) {
                        bodyChanged = true;
                    }
                }
            }
            if (c.old != null && !c.removed.isEmpty()) {
                matchBase(c, head, touched);
            }
        }
        touched.remove(null);

        // Only files whose text holds a touched name can refer to a touched
        // declaration (a constructor by its class's name, an override by
        // the method's): the others are entered but not attributed.
        Set<String> names = new HashSet<>();
        for (Element e : touched) {
            names.add((e.getKind() == ElementKind.CONSTRUCTOR ? e.getEnclosingElement() : e).getSimpleName().toString());
        }
        Set<CompilationUnitTree> selected = Collections.newSetFromMap(new IdentityHashMap<>());
        selected.addAll(changedUnits);
        if (!names.isEmpty()) {
            java.util.regex.Pattern word = java.util.regex.Pattern.compile("\\b(" + names.stream()
                    .map(java.util.regex.Pattern::quote).collect(Collectors.joining("|")) + ")\\b");
            for (CompilationUnitTree cu : units) {
                if (word.matcher(source(cu)).find()) {
                    selected.add(cu);
                }
            }
        }
        List<Element> classes = new ArrayList<>();
        for (Element e : entered) {
            TreePath p = e instanceof TypeElement ? trees.getPath(e) : null;
            if (p != null && selected.contains(p.getCompilationUnit())) {
                classes.add(e);
            }
        }
        if (!classes.isEmpty()) {
            ((com.sun.tools.javac.api.JavacTaskImpl) task).analyze(classes);
        }
        long t2 = System.nanoTime();
        if (System.getenv("TRUTH_TIMING") != null) {
            System.err.printf("files %d parse %d ms (cpu %d) enter %d ms analyze %d of them %d ms cpu total %d%n", srcs.size(), (tParse - t0) / 1000000, cParse / 1000000, (t1 - tParse) / 1000000,
                    selected.size(), (t2 - t1) / 1000000, java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1000000);
        }
        for (CompilationUnitTree cu : changedUnits) {
            errors += errorsByFile.getOrDefault(cu.getSourceFile().toUri().toString(), 0);
            for (Change c : changes) {
                if (c.path.equals(rel(cu))) {
                    usesIn(cu, c.added);
                }
            }
        }
        List<CompilationUnitTree> scanned = units.stream().filter(selected::contains).toList();
        impactOf(scanned, touched);
        return "{\"uses\":" + Json.strings(uses) + ",\"impact\":" + Json.strings(impact) + ",\"errors\":" + errors
                + ",\"bodyChanged\":" + bodyChanged + "}";
    }

    // matchBase parses the base source and adds the head declarations that
    // match base declarations holding a removed line.
    void matchBase(Change c, List<Decl> head, Set<Element> touched) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String name = c.oldPath != null && !c.oldPath.isEmpty() ? c.oldPath : c.path;
        JavaFileObject fo = new SimpleJavaFileObject(URI.create("string:///" + name), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignore) {
                return c.old;
            }
        };
        JavacTask t = (JavacTask) javac.getTask(null, null, d -> {}, List.of("-proc:none"), null, List.of(fo));
        for (CompilationUnitTree cu : t.parse()) {
            for (Decl od : new DeclCollector(cu, Trees.instance(t).getSourcePositions()).collect()) {
                if (od.bodyHit(c.removed)) {
                    bodyChanged = true;
                }
                if (!od.hit(c.removed)) {
                    continue;
                }
                List<Decl> same = head.stream().filter(h -> h.key().equals(od.key()) && h.sig.equals(od.sig)).toList();
                if (same.isEmpty()) {
                    same = head.stream().filter(h -> h.key().equals(od.key())).toList();
                }
                for (Decl h : same) {
                    touched.add(h.element(trees));
                }
            }
        }
    }

    int line(CompilationUnitTree cu, long pos) {
        return pos < 0 ? -1 : (int) cu.getLineMap().getLineNumber(pos);
    }

    boolean outside(String r) {
        return !r.isEmpty() && !changed.contains(r);
    }

    String declaringFile(Element e) {
        if (e == null || e.getKind() == ElementKind.PACKAGE || e.getKind() == ElementKind.MODULE) {
            return "";
        }
        TreePath p = trees.getPath(e);
        return p == null ? "" : rel(p.getCompilationUnit());
    }

    // usesIn records the declaring files of the elements referred to on the
    // added lines of cu.
    void usesIn(CompilationUnitTree cu, Set<Integer> added) {
        if (added.isEmpty()) {
            return;
        }
        SourcePositions sp = trees.getSourcePositions();
        String src = source(cu);
        new TreePathScanner<Void, Void>() {
            void ref(Tree t, long pos, String name) {
                if (!added.contains(line(cu, pos)) || !explicit(src, pos, name)) {
                    return;
                }
                String r = declaringFile(trees.getElement(getCurrentPath()));
                if (outside(r)) {
                    uses.add(r);
                }
            }

            @Override
            public Void visitIdentifier(IdentifierTree t, Void v) {
                ref(t, sp.getStartPosition(cu, t), t.getName().toString());
                return super.visitIdentifier(t, v);
            }

            @Override
            public Void visitMemberSelect(MemberSelectTree t, Void v) {
                ref(t, namePos(src, sp.getEndPosition(cu, t), t.getIdentifier().toString()), t.getIdentifier().toString());
                return super.visitMemberSelect(t, v);
            }

            @Override
            public Void visitNewClass(NewClassTree t, Void v) {
                ref(t, sp.getStartPosition(cu, t), "new");
                return super.visitNewClass(t, v);
            }

            @Override
            public Void visitMemberReference(MemberReferenceTree t, Void v) {
                String n = refName(t);
                ref(t, namePos(src, sp.getEndPosition(cu, t), n), n);
                return super.visitMemberReference(t, v);
            }
        }.scan(cu, null);
    }

    // impactOf scans every compilation unit once for references to the
    // touched elements (and overrides of touched methods).
    void impactOf(List<CompilationUnitTree> units, Set<Element> touched) {
        if (touched.isEmpty()) {
            return;
        }
        Set<Element> ctors = touched.stream().filter(e -> e.getKind() == ElementKind.CONSTRUCTOR).collect(Collectors.toSet());
        Map<String, List<ExecutableElement>> methodsByName = new HashMap<>();
        for (Element e : touched) {
            if (e.getKind() == ElementKind.METHOD) {
                methodsByName.computeIfAbsent(e.getSimpleName().toString(), k -> new ArrayList<>()).add((ExecutableElement) e);
            }
        }
        SourcePositions sp = trees.getSourcePositions();
        for (CompilationUnitTree cu : units) {
            String r = rel(cu);
            if (!outside(r) || impact.contains(r)) {
                continue;
            }
            String src = source(cu);
            boolean[] found = {false};
            new TreePathScanner<Void, Void>() {
                void ref(long pos, String name) {
                    if (found[0] || !explicit(src, pos, name)) {
                        return;
                    }
                    Element e = trees.getElement(getCurrentPath());
                    if (e == null || !touched.contains(e)) {
                        return;
                    }
                    if (ctors.contains(e) && !name.equals("new") && !name.equals("super") && !name.equals("this")) {
                        return; // a constructor is reached by new, super(...) or this(...)
                    }
                    found[0] = true;
                }

                @Override
                public Void visitIdentifier(IdentifierTree t, Void v) {
                    ref(sp.getStartPosition(cu, t), t.getName().toString());
                    return found[0] ? null : super.visitIdentifier(t, v);
                }

                @Override
                public Void visitMemberSelect(MemberSelectTree t, Void v) {
                    String n = t.getIdentifier().toString();
                    ref(namePos(src, sp.getEndPosition(cu, t), n), n);
                    return found[0] ? null : super.visitMemberSelect(t, v);
                }

                @Override
                public Void visitMemberReference(MemberReferenceTree t, Void v) {
                    String n = refName(t);
                    ref(namePos(src, sp.getEndPosition(cu, t), n), n);
                    return found[0] ? null : super.visitMemberReference(t, v);
                }

                @Override
                public Void visitNewClass(NewClassTree t, Void v) {
                    long pos = sp.getStartPosition(cu, t);
                    if (!found[0] && explicit(src, pos, "new")) {
                        Element e = trees.getElement(getCurrentPath());
                        if (e != null && (ctors.contains(e) || ctors.contains(anonymousSuper(e)))) {
                            found[0] = true;
                        }
                    }
                    return found[0] ? null : super.visitNewClass(t, v);
                }

                @Override
                public Void visitMethod(MethodTree t, Void v) {
                    List<ExecutableElement> ms = methodsByName.get(t.getName().toString());
                    if (ms != null && !found[0]) {
                        Element e = trees.getElement(getCurrentPath());
                        if (e instanceof ExecutableElement m && m.getEnclosingElement() instanceof TypeElement owner) {
                            for (ExecutableElement tm : ms) {
                                if (!tm.equals(m) && elements.overrides(m, tm, owner)) {
                                    found[0] = true;
                                }
                            }
                        }
                    }
                    return found[0] ? null : super.visitMethod(t, v);
                }
            }.scan(cu, null);
            if (found[0]) {
                impact.add(r);
            }
        }
    }

    // anonymousSuper maps the constructor of an anonymous class to the
    // constructor of its superclass that it calls, when javac tells.
    Element anonymousSuper(Element ctor) {
        Element owner = ctor.getEnclosingElement();
        if (!(owner instanceof TypeElement te) || te.getNestingKind() != NestingKind.ANONYMOUS) {
            return null;
        }
        if (!(te.getSuperclass() instanceof javax.lang.model.type.DeclaredType st)) {
            return null;
        }
        Element sup = st.asElement();
        int arity = ((ExecutableElement) ctor).getParameters().size();
        Element only = null;
        for (Element m : sup.getEnclosedElements()) {
            if (m.getKind() == ElementKind.CONSTRUCTOR && ((ExecutableElement) m).getParameters().size() == arity) {
                if (only != null) {
                    return null; // overloads of one arity: javac's choice is not visible here
                }
                only = m;
            }
        }
        return only;
    }

    final Map<CompilationUnitTree, String> sourceCache = new IdentityHashMap<>();

    String source(CompilationUnitTree cu) {
        return sourceCache.computeIfAbsent(cu, u -> {
            try {
                return u.getSourceFile().getCharContent(true).toString();
            } catch (IOException e) {
                return "";
            }
        });
    }

    // explicit reports whether the source holds name at pos: trees javac
    // made up (implicit super(), default constructors, enum constant
    // creations) sit at positions where the source says something else.
    static boolean explicit(String src, long pos, String name) {
        if (pos < 0 || pos + name.length() > src.length()) {
            return false;
        }
        return src.startsWith(name, (int) pos);
    }

    // refName is the name of a method reference as written: C::new
    // names a constructor.
    static String refName(MemberReferenceTree t) {
        String n = t.getName().toString();
        return n.equals("<init>") ? "new" : n;
    }

    // namePos is the position of a member select's name: its end less the
    // name's length.
    static long namePos(String src, long end, String name) {
        return end < 0 ? -1 : end - name.length();
    }

    // Decl is a declaration of a class body: a class, method, constructor,
    // field or enum constant, with its span in lines and, for methods and
    // constructors, its body's.
    static final class Decl {
        String container; // enclosing classes, outer first, dot-separated
        String name;      // <init> for constructors
        String kind;      // class, method, field
        String sig = "";  // parameter types as written
        int arity = -1;
        int from, to;            // span (a class: its header)
        int bodyFrom = -1, bodyTo = -1;
        TreePath path;
        Set<Integer> codeLines;  // lines with code on them in the file

        String key() {
            return container + "#" + kind + "#" + name + "/" + arity;
        }

        boolean hit(Set<Integer> lines) {
            for (int l = from; l <= to; l++) {
                if (lines.contains(l) && codeLines.contains(l)) {
                    return true;
                }
            }
            return false;
        }

        boolean bodyHit(Set<Integer> lines) {
            if (bodyFrom < 0) {
                return false;
            }
            for (int l = bodyFrom; l <= bodyTo; l++) {
                if (lines.contains(l) && codeLines.contains(l)) {
                    return true;
                }
            }
            return false;
        }

        Element element(Trees trees) {
            return path == null ? null : trees.getElement(path);
        }
    }

    // DeclCollector lists the declarations of class bodies (members of
    // classes nested in class bodies included, not those of classes inside
    // methods).
    static final class DeclCollector {
        final CompilationUnitTree cu;
        final SourcePositions sp;
        final String src;
        final Set<Integer> codeLines;
        final List<Decl> out = new ArrayList<>();

        DeclCollector(CompilationUnitTree cu, SourcePositions sp) {
            this.cu = cu;
            this.sp = sp;
            String s;
            try {
                s = cu.getSourceFile().getCharContent(true).toString();
            } catch (IOException e) {
                s = "";
            }
            this.src = s;
            this.codeLines = codeLines(s);
        }

        int line(long pos) {
            return pos < 0 ? -1 : (int) cu.getLineMap().getLineNumber(pos);
        }

        List<Decl> collect() {
            TreePath root = new TreePath(cu);
            for (Tree t : cu.getTypeDecls()) {
                if (t instanceof ClassTree ct) {
                    klass(new TreePath(root, ct), "");
                }
            }
            return out;
        }

        Decl add(TreePath p, String container, String name, String kind, long start, long end) {
            Decl d = new Decl();
            d.container = container;
            d.name = name;
            d.kind = kind;
            d.from = line(start);
            d.to = line(end);
            d.path = p;
            d.codeLines = codeLines;
            out.add(d);
            return d;
        }

        void klass(TreePath p, String outer) {
            ClassTree ct = (ClassTree) p.getLeaf();
            String name = ct.getSimpleName().toString();
            String container = outer.isEmpty() ? name : outer + "." + name;
            long start = sp.getStartPosition(cu, ct);
            long headerEnd = start;
            List<Tree> header = new ArrayList<>(ct.getTypeParameters());
            if (ct.getExtendsClause() != null) {
                header.add(ct.getExtendsClause());
            }
            header.addAll(ct.getImplementsClause());
            header.addAll(ct.getPermitsClause());
            for (Tree h : header) {
                headerEnd = Math.max(headerEnd, sp.getEndPosition(cu, h));
            }
            int brace = braceAfter(src, (int) Math.max(headerEnd, 0));
            add(p, outer, name, "class", start, brace < 0 ? headerEnd : brace);
            for (Tree m : ct.getMembers()) {
                TreePath mp = new TreePath(p, m);
                long ms = sp.getStartPosition(cu, m), me = sp.getEndPosition(cu, m);
                if (ms < 0 || !explicitStart(m, ms)) {
                    continue; // a default constructor javac added
                }
                if (m instanceof ClassTree) {
                    klass(mp, container);
                } else if (m instanceof MethodTree mt) {
                    boolean ctor = mt.getName().contentEquals("<init>");
                    Decl d = add(mp, container, ctor ? "<init>" : mt.getName().toString(), "method", ms, me);
                    d.arity = mt.getParameters().size();
                    d.sig = mt.getParameters().stream().map(v -> String.valueOf(v.getType())).collect(Collectors.joining(","));
                    if (mt.getBody() != null) {
                        d.bodyFrom = line(sp.getStartPosition(cu, mt.getBody()));
                        d.bodyTo = line(sp.getEndPosition(cu, mt.getBody()));
                    }
                } else if (m instanceof VariableTree vt) {
                    add(mp, container, vt.getName().toString(), "field", ms, me);
                }
            }
        }

        // explicitStart rejects members javac generated (a default
        // constructor): the source holds no text for them.
        boolean explicitStart(Tree m, long ms) {
            long me = sp.getEndPosition(cu, m);
            return me > ms;
        }

        // braceAfter is the position of the first '{' at or after from
        // outside comments and strings.
        static int braceAfter(String s, int from) {
            for (int i = from; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '/' && i + 1 < s.length() && s.charAt(i + 1) == '/') {
                    while (i < s.length() && s.charAt(i) != '\n') {
                        i++;
                    }
                } else if (c == '/' && i + 1 < s.length() && s.charAt(i + 1) == '*') {
                    int e = s.indexOf("*/", i + 2);
                    i = e < 0 ? s.length() : e + 1;
                } else if (c == '{') {
                    return i;
                }
            }
            return -1;
        }

        // codeLines are the lines (1-based) that hold something other than
        // whitespace and comments.
        static Set<Integer> codeLines(String s) {
            Set<Integer> out = new HashSet<>();
            int line = 1;
            int n = s.length();
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                if (c == '\n') {
                    line++;
                } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                    while (i + 1 < n && s.charAt(i + 1) != '\n') {
                        i++;
                    }
                } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                    i += 2;
                    while (i < n && !(s.charAt(i) == '*' && i + 1 < n && s.charAt(i + 1) == '/')) {
                        if (s.charAt(i) == '\n') {
                            line++;
                        }
                        i++;
                    }
                    i++;
                } else if (c == '"' || c == '\'') {
                    out.add(line);
                    boolean text = c == '"' && s.startsWith("\"\"\"", i);
                    i += text ? 3 : 1;
                    while (i < n) {
                        char d = s.charAt(i);
                        if (d == '\\') {
                            i += 2;
                            continue;
                        }
                        if (d == '\n') {
                            if (!text) {
                                break;
                            }
                            line++;
                            out.add(line);
                        } else if (text ? s.startsWith("\"\"\"", i) : d == c) {
                            i += text ? 2 : 0;
                            break;
                        }
                        i++;
                    }
                    if (i < n && s.charAt(i) == '\n') {
                        i--;
                    }
                } else if (!Character.isWhitespace(c)) {
                    out.add(line);
                }
            }
            return out;
        }
    }

    // Json is a minimal reader and writer of the protocol's JSON.
    static final class Json {
        final String s;
        int i;

        Json(String s) {
            this.s = s;
        }

        static String strings(Collection<String> xs) {
            return xs.stream().map(Json::quote).collect(Collectors.joining(",", "[", "]"));
        }

        static String quote(String x) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : x.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    default -> {
                        if (c < 0x20) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            return b.append('"').toString();
        }

        void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        Object value() {
            ws();
            char c = s.charAt(i);
            switch (c) {
                case '{': {
                    i++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    ws();
                    if (s.charAt(i) == '}') {
                        i++;
                        return m;
                    }
                    while (true) {
                        ws();
                        String k = (String) value();
                        ws();
                        i++; // ':'
                        m.put(k, value());
                        ws();
                        if (s.charAt(i++) == '}') {
                            return m;
                        }
                    }
                }
                case '[': {
                    i++;
                    List<Object> l = new ArrayList<>();
                    ws();
                    if (s.charAt(i) == ']') {
                        i++;
                        return l;
                    }
                    while (true) {
                        l.add(value());
                        ws();
                        if (s.charAt(i++) == ']') {
                            return l;
                        }
                    }
                }
                case '"': {
                    i++;
                    StringBuilder b = new StringBuilder();
                    while (s.charAt(i) != '"') {
                        char d = s.charAt(i++);
                        if (d != '\\') {
                            b.append(d);
                            continue;
                        }
                        char e = s.charAt(i++);
                        switch (e) {
                            case 'n' -> b.append('\n');
                            case 't' -> b.append('\t');
                            case 'r' -> b.append('\r');
                            case 'b' -> b.append('\b');
                            case 'f' -> b.append('\f');
                            case 'u' -> {
                                b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                                i += 4;
                            }
                            default -> b.append(e);
                        }
                    }
                    i++;
                    return b.toString();
                }
                default: {
                    if (s.startsWith("null", i)) {
                        i += 4;
                        return null;
                    }
                    if (s.startsWith("true", i)) {
                        i += 4;
                        return true;
                    }
                    if (s.startsWith("false", i)) {
                        i += 5;
                        return false;
                    }
                    int j = i;
                    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                        i++;
                    }
                    return Double.parseDouble(s.substring(j, i));
                }
            }
        }
    }
}

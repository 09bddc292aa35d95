"""truth.py: what jedi says a commit's reviewer needs, for the candidates
recall benchmark of Python (see ../main.go, subcommand "recall -lang py").

Input (stdin, JSON): {"dir": checkout at the head commit, "changes":
[{"path", "oldPath", "added": [head line numbers], "removed": [base line
numbers], "old": base source or null}]}.

Output (stdout, JSON): {"uses", "impact", "errors", "bodyChanged"}:
  uses    files outside the change that declare what a name on an added
          code line refers to: jedi's goto with follow_imports, so a package
          __init__.py that re-exports a name leads on to the file declaring
          it;
  impact  files outside the change with a reference (not a definition) that
          jedi's get_references returns for a touched declaration: a
          function, method, class, class-level attribute or module variable
          whose span holds an added code line, or whose base span held a
          removed code line and which the head still declares; a touched
          __init__ counts the constructions C(...) of its class (references
          to the class name followed by a call);
  errors  syntax errors in the changed files (jedi has no type diagnostics);
  bodyChanged  whether a changed code line falls in the body of a def.
A code line is a line with a token that is no comment and no string standing
alone as a statement (a docstring): an edit of comments or docstrings
changes no behaviour and touches nothing. A declaration's span runs from its
first decorator to its last line; a class's span is its header (decorators to
the colon), its members count on their own. Declarations are the module's
statements (also under module-level if/try/with blocks, e.g. TYPE_CHECKING)
and the members of its classes, not what is local to a function.
Files are the .py/.pyi files of the checkout outside dot directories,
virtual environments and build output. The checkout's own source roots (the
checkout itself, src/ and lib/) come first on jedi's sys.path, so an installed
copy of the package does not answer for its sources; jedi's limit of 30
parsed files per reference search is lifted, so a common name is searched
in every file that mentions it.
"""

import io
import json
import os
import sys
import tokenize

import jedi
import parso
from jedi.inference import references as _jedi_references

_jedi_references._PARSED_FILE_LIMIT = 10 ** 9
_jedi_references._OPENED_FILE_LIMIT = 10 ** 9

SKIP_DIRS = {"venv", "env", "build", "dist", "site-packages", "node_modules", "__pycache__"}


def is_py(p):
    return p.endswith(".py") or p.endswith(".pyi")


def skipped_rel(r):
    """A path relative to the checkout that the truth leaves out."""
    if not r or r.startswith("../") or r == "..":
        return True
    for d in r.split("/")[:-1]:
        if d.startswith(".") or d in SKIP_DIRS:
            return True
    return False


def code_lines(src):
    """The lines holding a token that is no comment and no lone string."""
    out = set()
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set(range(1, src.count("\n") + 2))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
            tokenize.DEDENT, tokenize.ENDMARKER}
    stmt = []  # significant tokens of the current logical line

    def flush():
        if not stmt:
            return
        if all(t.type == tokenize.STRING for t in stmt):
            del stmt[:]
            return
        for t in stmt:
            for line in range(t.start[0], t.end[0] + 1):
                out.add(line)
        del stmt[:]

    for t in toks:
        if t.type == tokenize.NEWLINE or t.type == tokenize.ENDMARKER:
            flush()
            continue
        if t.type in skip:
            continue
        stmt.append(t)
    flush()
    return out


class Decl:
    __slots__ = ("container", "name", "leaf", "start", "end", "body", "kind")

    def __init__(self, container, name, leaf, start, end, body, kind):
        self.container, self.name, self.leaf = container, name, leaf
        self.start, self.end, self.body, self.kind = start, end, body, kind

    def key(self):
        return self.container + "." + self.name


def last_line(node):
    leaf = node.get_last_leaf()
    return leaf.start_pos[0]


def assigned_names(stmt):
    """The names an expression statement assigns at its own level."""
    names = []
    if stmt.type != "expr_stmt":
        return names
    ch = stmt.children
    for i, c in enumerate(ch):
        if i + 1 < len(ch) and (ch[i + 1].type == "annassign" or
                                (ch[i + 1].type == "operator" and ch[i + 1].value == "=")):
            if c.type == "name":
                names.append(c)
            elif c.type in ("testlist_star_expr", "exprlist", "atom"):
                for x in c.children:
                    if x.type == "name":
                        names.append(x)
    return names


def declarations(module):
    """The declarations of a parso module: functions, classes, their members,
    module variables."""
    out = []

    def funcs_and_classes(node, container, at_module):
        for c in node.children:
            visit(c, container, at_module)

    def visit(c, container, at_module):
        t = c.type
        if t in ("newline", "endmarker", "operator", "keyword"):
            return
        start = c.start_pos[0]
        inner = c
        if t == "decorated":
            inner = c.children[-1]
        if inner.type == "async_stmt" or inner.type == "async_funcdef":
            inner = inner.children[-1]
        if inner.type == "funcdef":
            colon = inner.children[-2]
            suite = inner.children[-1]
            body_from = suite.start_pos[0]
            if suite.type == "suite":
                stmts = [s for s in suite.children if s.type != "newline"]
                body_from = stmts[0].start_pos[0] if stmts else colon.start_pos[0] + 1
            kind = "method" if container else "function"
            out.append(Decl(container, inner.name.value, inner.name, start, last_line(inner),
                            (body_from, last_line(inner)), kind))
            return
        if inner.type == "classdef":
            colon = inner.children[-2]
            name = inner.name.value
            out.append(Decl(container, name, inner.name, start, colon.start_pos[0], None, "class"))
            suite = inner.children[-1]
            inner_container = name if not container else container + "." + name
            if suite.type == "suite":
                for s in suite.children:
                    visit(s, inner_container, False)
            return
        if t == "simple_stmt":
            for s in c.children:
                for n in assigned_names(s):
                    kind = "field" if container else "variable"
                    out.append(Decl(container, n.value, n, s.start_pos[0], last_line(s), None, kind))
            return
        if t in ("if_stmt", "try_stmt", "with_stmt", "for_stmt", "while_stmt"):
            for s in c.children:
                if s.type == "suite":
                    for x in s.children:
                        visit(x, container, at_module)
                elif s.type in ("simple_stmt",):
                    visit(s, container, at_module)
                elif s.type == "except_clause":
                    continue
            return

    funcs_and_classes(module, "", True)
    return out


def hit(lines, a, b):
    return any(a <= l <= b for l in lines)


def main():
    inp = json.load(sys.stdin)
    root = os.path.realpath(inp["dir"])

    def rel(p):
        if p is None:
            return ""
        r = os.path.relpath(os.path.realpath(str(p)), root).replace(os.sep, "/")
        return "" if r.startswith("..") else r

    sys_path = [os.path.join(root, d) for d in ("src", "lib") if os.path.isdir(os.path.join(root, d))]
    sys_path.append(root)
    env = jedi.get_default_environment()
    base = [p for p in env.get_sys_path() if os.path.realpath(p) != root]
    project = jedi.Project(root, sys_path=sys_path + base, smart_sys_path=False)

    changed = set()
    for c in inp["changes"]:
        changed.add(c["path"])
        if c.get("oldPath"):
            changed.add(c["oldPath"])

    def keep(r):
        return r and r not in changed and not skipped_rel(r) and is_py(r)

    uses, impact = set(), set()
    errors = 0
    body_changed = False
    line_cache = {}

    def is_call(path, line, col, name):
        lines = line_cache.get(path)
        if lines is None:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    lines = fh.read().split("\n")
            except OSError:
                lines = []
            line_cache[path] = lines
        if line < 1 or line > len(lines):
            return False
        rest = lines[line - 1][col + len(name):].lstrip()
        return rest.startswith("(")

    for c in inp["changes"]:
        if not is_py(c["path"]):
            continue
        abs_path = os.path.join(root, c["path"])
        try:
            with open(abs_path, encoding="utf-8", errors="replace") as fh:
                code = fh.read()
        except OSError:
            continue
        script = jedi.Script(code, path=abs_path, project=project)
        try:
            errors += len(script.get_syntax_errors())
        except Exception:
            pass
        head_code = code_lines(code)
        added = set(c.get("added") or []) & head_code
        module = parso.parse(code)
        head_decls = declarations(module)
        touched = []
        for d in head_decls:
            if hit(added, d.start, d.end):
                touched.append(d)
            if d.body and hit(added, d.body[0], d.body[1]):
                body_changed = True
        removed = c.get("removed") or []
        if c.get("old") and removed:
            old_code = c["old"]
            removed = set(removed) & code_lines(old_code)
            by_key = {d.key(): d for d in head_decls}
            for od in declarations(parso.parse(old_code)):
                if od.body and hit(removed, od.body[0], od.body[1]):
                    body_changed = True
                if not hit(removed, od.start, od.end):
                    continue
                hd = by_key.get(od.key())
                if hd is not None and hd not in touched:
                    touched.append(hd)

        # Uses: names on added code lines, followed to their declarations.
        if added:
            for n in script.get_names(all_scopes=True, definitions=True, references=True):
                if n.line not in added:
                    continue
                try:
                    targets = n.goto(follow_imports=True)
                except Exception:
                    continue
                for t in targets:
                    r = rel(t.module_path)
                    if keep(r):
                        uses.add(r)

        # Impact: references to touched declarations.
        for d in touched:
            leaf = d.leaf
            name = d.name
            ctor = False
            if d.name == "__init__" and d.container:
                cls = [x for x in head_decls if x.kind == "class" and
                       (x.container + "." + x.name).lstrip(".") == d.container]
                if not cls:
                    continue
                leaf, name, ctor = cls[0].leaf, cls[0].name, True
            try:
                refs = script.get_references(leaf.start_pos[0], leaf.start_pos[1], scope="project")
            except Exception:
                continue
            for ref in refs:
                if ref.is_definition():
                    continue
                r = rel(ref.module_path)
                if not keep(r):
                    continue
                if ctor and not is_call(str(ref.module_path), ref.line, ref.column, name):
                    continue
                impact.add(r)

    json.dump({"uses": sorted(uses), "impact": sorted(impact), "errors": errors,
               "bodyChanged": body_changed}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""truth.py: the C and C++ truth of one commit, as clangd answers it.

Reads {"dir": checkout at the commit, "changes": [{path, oldPath, added,
removed, old}]} on stdin and prints {"uses": [], "impact": [files],
"errors": n, "bodyChanged": bool}.

impact: the files outside the change that clangd's textDocument/references
finds referring to a declaration the commit changed (declarations included:
a header's prototype of a changed function counts). A declaration changed
is the innermost one clangd's textDocument/documentSymbol gives around an
added line of a changed file, or around the place of a removed line in the
file's head (namespaces left out). bodyChanged: one of them is a function
or method.

clangd runs without its background index with the flags this script
writes in a compile_flags.txt (every directory of the tree holding headers on the search
path; an include naming no file of the tree nor of the system is given an
empty stand-in, so a generated header does not end the parse). Its
references then cover the files it has opened: the changed files and, per
changed declaration, the files of the tree naming it as a whole word (git
grep), at most MAX_OPEN in all, those naming it most first. A declaration
named in more files has its references bounded by that cut.
"""
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import quote, unquote

MAX_OPEN = 24  # files opened per commit besides the changed ones
MAX_DECLS = 12  # changed declarations whose references are asked
PARSE_WAIT = 240  # seconds to wait for the opened files' parses
C_EXTS = (".c", ".h")
CXX_EXTS = (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".inl", ".tpp")
ALL_EXTS = C_EXTS + CXX_EXTS
SKIP_KINDS = {1, 2, 3, 4}  # file, module, namespace, package
CALLABLE_KINDS = {6, 9, 12}  # method, constructor, function
SYSTEM_DIRS = ["/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/local/include"]


def git(d, *args):
    return subprocess.run(["git", "-C", d, *args], capture_output=True, text=True).stdout


class Client:
    """A minimal LSP client of clangd over stdio."""

    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.answers = {}
        self.cond = threading.Condition()
        self.diags = {}  # uri -> number of errors, once published
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        f = self.p.stdout
        while True:
            n = 0
            while True:
                line = f.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    n = int(line.split(b":")[1])
            msg = json.loads(f.read(n))
            with self.cond:
                if "id" in msg and "method" not in msg:
                    self.answers[msg["id"]] = msg
                elif msg.get("method") == "textDocument/publishDiagnostics":
                    ps = msg["params"]
                    self.diags[ps["uri"]] = sum(1 for x in ps.get("diagnostics", []) if x.get("severity") == 1)
                elif "id" in msg:  # a request of the server's: answer nothing
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                self.cond.notify_all()

    def send(self, msg):
        b = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        self.p.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=120):
        self.next_id += 1
        i = self.next_id
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        end = time.time() + timeout
        with self.cond:
            while i not in self.answers:
                if not self.cond.wait(max(0.0, end - time.time())) and time.time() >= end:
                    return None
            return self.answers.pop(i).get("result")

    def wait_parsed(self, uris, timeout):
        end = time.time() + timeout
        with self.cond:
            while not all(u in self.diags for u in uris):
                if time.time() >= end:
                    return
                self.cond.wait(max(0.0, end - time.time()))

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
        except Exception:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def head_lines(c, new):
    """The head's lines (0-based) a change touches: its added lines, and
    the head position of each removed line."""
    added = set(c.get("added") or [])
    removed = set(c.get("removed") or [])
    out = {n - 1 for n in added}
    if removed and c.get("old") is not None:
        n_old = c["old"].count("\n") + 1
        n_new = new.count("\n") + 1
        i, j = 1, 1
        while i <= n_old or j <= n_new:
            if i in removed:
                out.add(max(j - 1, 0))
                i += 1
            elif j in added:
                j += 1
            else:
                i += 1
                j += 1
    return out


def innermost(symbols, line):
    """The innermost symbol whose range holds line, but namespaces."""
    best = None
    for s in symbols or []:
        r = s.get("range")
        if not r or not (r["start"]["line"] <= line <= r["end"]["line"]):
            continue
        inner = innermost(s.get("children"), line)
        if inner is not None:
            return inner
        if s.get("kind") not in SKIP_KINDS:
            best = s
    return best


def include_dirs(files):
    dirs = {}
    for p in files:
        if p.endswith((".h", ".hpp", ".hh", ".hxx", ".h++", ".inl", ".ipp", ".tpp")):
            d = os.path.dirname(p)
            dirs[d] = dirs.get(d, 0) + 1
    # include/ folders first, then the rest by depth
    return sorted(dirs, key=lambda d: (os.path.basename(d) != "include", d.count("/"), d))


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def stand_ins(root, files, opened, stub):
    """Writes an empty header under stub for each include of the opened
    files that names no file of the tree nor of the system."""
    suffixes = set()
    for p in files:
        parts = p.split("/")
        for k in range(len(parts)):
            suffixes.add("/".join(parts[k:]))
    sysdirs = list(SYSTEM_DIRS)
    for base in ("/usr/include/c++", "/usr/lib/llvm-14/lib/clang"):
        if os.path.isdir(base):
            for v in os.listdir(base):
                sysdirs.append(os.path.join(base, v))
                sysdirs.append(os.path.join(base, v, "include"))
    seen = set()
    todo = list(opened)
    while todo:
        p = todo.pop()
        try:
            with open(os.path.join(root, p), errors="replace") as f:
                src = f.read()
        except OSError:
            continue
        for inc in INCLUDE.findall(src):
            if inc in seen or inc.startswith("/") or ".." in inc:
                continue
            seen.add(inc)
            if inc in suffixes:
                continue
            if any(os.path.exists(os.path.join(d, inc)) for d in sysdirs):
                continue
            dst = os.path.join(stub, inc)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            open(dst, "a").close()


def grep_files(root, name, exts, changed):
    """The files of the tree naming name as a whole word, most matches first."""
    out = git(root, "grep", "-c", "-w", "-F", "-e", name, "--", *["*" + e for e in exts])
    counts = []
    for line in out.splitlines():
        p, _, n = line.rpartition(":")
        if p and p not in changed and n.isdigit():
            counts.append((-int(n), p))
    return [p for _, p in sorted(counts)]


def main():
    req = json.load(sys.stdin)
    root = os.path.realpath(req["dir"])
    changes = [c for c in req["changes"] if c["path"].endswith(ALL_EXTS)]
    files = [p for p in git(root, "ls-files", "-z").split("\0") if p.endswith(ALL_EXTS)]
    cxx = sum(p.endswith(CXX_EXTS) for p in files) > sum(p.endswith(".c") for p in files)
    changed = set()
    for c in req["changes"]:
        changed.add(c["path"])
        if c.get("oldPath"):
            changed.add(c["oldPath"])
    heads = [c for c in changes if os.path.isfile(os.path.join(root, c["path"]))]
    result = {"uses": [], "impact": [], "errors": 0, "bodyChanged": False}
    if not heads:
        print(json.dumps(result))
        return
    tmp = tempfile.mkdtemp(prefix="clangd-truth")
    stub = os.path.join(tmp, "stand-ins")
    os.makedirs(stub)
    lang = ["-x", "c++", "-std=c++17"] if cxx else ["-x", "c", "-std=gnu11"]
    flags = lang + ["-I" + os.path.join(root, d) for d in include_dirs(files)[:300]] + ["-idirafter", stub]

    # One set of flags for every file: compile_flags.txt in the directory
    # clangd reads its compilation database from.
    with open(os.path.join(tmp, "compile_flags.txt"), "w") as f:
        f.write("\n".join(flags) + "\n")

    def uri(p):
        return "file://" + quote(os.path.join(root, p))

    def text(p):
        with open(os.path.join(root, p), errors="replace") as f:
            return f.read()

    # The changed declarations, from the heads' document symbols.
    stand_ins(root, files, [c["path"] for c in heads], stub)
    cl = Client([os.environ.get("CLANGD", "clangd"), "--background-index=false", "--compile-commands-dir=" + tmp, "--log=error",
                 "--pch-storage=memory", "--header-insertion=never", "--clang-tidy=false", "-j=2", "--limit-references=0"])
    try:
        cl.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + quote(root), "capabilities": {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}}})
        cl.notify("initialized", {})
        decls = []  # (path, name, position)
        for c in heads:
            src = text(c["path"])
            cl.notify("textDocument/didOpen", {"textDocument": {"uri": uri(c["path"]), "languageId": "cpp" if cxx else "c", "version": 1, "text": src}})
            syms = cl.request("textDocument/documentSymbol", {"textDocument": {"uri": uri(c["path"])}}) or []
            seen = set()
            for line in sorted(head_lines(c, src)):
                s = innermost(syms, line)
                if s is None or id(s) in seen:
                    continue
                seen.add(id(s))
                if s.get("kind") in CALLABLE_KINDS:
                    result["bodyChanged"] = True
                name = re.sub(r"[^A-Za-z0-9_~].*$", "", s["name"].split("::")[-1])
                if name:
                    decls.append((c["path"], name, s["selectionRange"]["start"]))
        decls = decls[:MAX_DECLS]
        # The files naming them, round robin over the declarations.
        exts = CXX_EXTS + C_EXTS if cxx else C_EXTS
        lists = [grep_files(root, name, exts, changed) for _, name, _ in decls]
        opened = []
        while len(opened) < MAX_OPEN and any(lists):
            for ls in lists:
                while ls and ls[0] in opened:
                    ls.pop(0)
                if ls and len(opened) < MAX_OPEN:
                    opened.append(ls.pop(0))
        stand_ins(root, files, opened, stub)
        for p in opened:
            cl.notify("textDocument/didOpen", {"textDocument": {"uri": uri(p), "languageId": "cpp" if cxx else "c", "version": 1, "text": text(p)}})
        cl.wait_parsed([uri(p) for p in opened] + [uri(c["path"]) for c in heads], PARSE_WAIT)
        result["errors"] = sum(cl.diags.get(uri(c["path"]), 0) for c in heads)
        impact = set()
        prefix = root + "/"
        for p, _, pos in decls:
            refs = cl.request("textDocument/references", {"textDocument": {"uri": uri(p)}, "position": pos,
                                                          "context": {"includeDeclaration": True}}) or []
            for r in refs:
                f = unquote(r["uri"][len("file://"):])
                if f.startswith(prefix) and f[len(prefix):] not in changed:
                    impact.add(f[len(prefix):])
        result["impact"] = sorted(impact)
    finally:
        cl.close()
        subprocess.run(["rm", "-rf", tmp])
    print(json.dumps(result))


if __name__ == "__main__":
    main()

// truth.mjs: what the TypeScript compiler and its language service say a
// commit's reviewer needs, for the candidates recall benchmark (see
// ../main.go, subcommand "recall -lang ts").
//
// Input (stdin, JSON): {"dir": checkout at the head commit, "changes":
// [{"path", "oldPath", "added": [head line numbers], "removed": [base line
// numbers], "old": base source or null}]}.
//
// Output (stdout, JSON): {"uses", "impact", "errors", "bodyChanged"}:
//   uses    files outside the change that declare a symbol an identifier on
//           an added line refers to (import aliases followed to the original
//           declaration, so a re-exporting index is not the declaring file);
//   impact  files outside the change with a reference (not a definition) that
//           the language service's findReferences returns for a touched
//           declaration: a function, class member, interface member, type,
//           enum or variable whose span holds an added line, or whose base
//           span held a removed line and which the head still declares (a
//           line holding only comments touches nothing); a
//           touched constructor counts the `new` expressions of its class;
//   errors  semantic diagnostics in the changed files (the truth may miss
//           files where the program does not type-check, e.g. imports of
//           packages that are not installed);
//   bodyChanged  whether a changed line falls in a function or method.
// Files are every TypeScript/JavaScript file of the checkout outside
// node_modules, dot directories and build output, compiled with fixed options
// (the repository's own tsconfig may extend packages that are not installed)
// and the path aliases ("paths") of the root tsconfig.json, if it has any.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const dir = path.resolve(input.dir);

const exts = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const skipDirs = new Set(['node_modules', 'distribution', 'dist', 'build', 'coverage', 'vendor', 'testdata']);

function walk(d, out) {
	for (const e of fs.readdirSync(d, {withFileTypes: true})) {
		if (e.name.startsWith('.') || e.name.startsWith('_')) {
			continue;
		}
		const p = path.join(d, e.name);
		if (e.isDirectory()) {
			if (!skipDirs.has(e.name)) {
				walk(p, out);
			}
		} else if (exts.some(x => e.name.endsWith(x))) {
			out.push(p);
		}
	}
	return out;
}

const files = walk(dir, []);
const rel = p => {
	const r = path.relative(dir, p);
	return r.startsWith('..') || path.isAbsolute(r) ? '' : r.split(path.sep).join('/');
};
const skipped = r => r === '' || r.split('/').slice(0, -1).some(d => skipDirs.has(d) || d.startsWith('.') || d.startsWith('_'));

const options = {
	target: ts.ScriptTarget.ES2022,
	module: ts.ModuleKind.ESNext,
	moduleResolution: ts.ModuleResolutionKind.Bundler,
	allowJs: true,
	checkJs: false,
	jsx: ts.JsxEmit.Preserve,
	noEmit: true,
	skipLibCheck: true,
	strict: true,
	allowImportingTsExtensions: true,
	types: [],
	lib: ['lib.esnext.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
};

// The root tsconfig's path aliases, so imports of the package's own name
// ("zustand/middleware") resolve to its sources.
try {
	const cfg = ts.readConfigFile(path.join(dir, 'tsconfig.json'), ts.sys.readFile).config;
	const paths = cfg && cfg.compilerOptions && cfg.compilerOptions.paths;
	if (paths && typeof paths === 'object') {
		options.paths = paths;
		options.baseUrl = path.resolve(dir, (cfg.compilerOptions.baseUrl) || '.');
	}
} catch {}

const host = {
	getScriptFileNames: () => files,
	getScriptVersion: () => '1',
	getScriptSnapshot: f => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
	getCurrentDirectory: () => dir,
	getCompilationSettings: () => options,
	getDefaultLibFileName: o => ts.getDefaultLibFilePath(o),
	fileExists: ts.sys.fileExists,
	readFile: ts.sys.readFile,
	readDirectory: ts.sys.readDirectory,
	directoryExists: ts.sys.directoryExists,
	getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = ls.getProgram();
const checker = program.getTypeChecker();

const changed = new Set();
for (const c of input.changes) {
	changed.add(c.path);
	if (c.oldPath) {
		changed.add(c.oldPath);
	}
}

const isFunctionLike = n => ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n)
	|| ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n);

// declarations lists the declarations of a source file that the truth can
// touch: {container, name, nameNode, from, to, fn, ctorOf}. from/to are 1-based
// lines; a class or interface counts from its start to its opening brace, its
// members on their own.
function declarations(sf) {
	const out = [];
	const line = pos => sf.getLineAndCharacterOfPosition(pos).line + 1;
	const nameText = n => (n && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n)) ? n.text : '');
	const bindingNames = (n, acc) => {
		if (ts.isIdentifier(n)) {
			acc.push(n);
		} else if (ts.isObjectBindingPattern(n) || ts.isArrayBindingPattern(n)) {
			for (const e of n.elements) {
				if (ts.isBindingElement(e)) {
					bindingNames(e.name, acc);
				}
			}
		}
		return acc;
	};
	const members = (owner, list, headerTo) => {
		const name = nameText(owner.name);
		out.push({container: '', name, nameNode: owner.name, from: line(owner.getStart(sf)), to: headerTo, fn: false});
		for (const m of list) {
			const from = line(m.getStart(sf));
			const to = line(m.end);
			if (ts.isConstructorDeclaration(m)) {
				out.push({container: name, name: 'constructor', nameNode: owner.name, from, to, fn: true, ctorOf: true});
				continue;
			}
			const mn = nameText(m.name);
			if (mn) {
				const fn = isFunctionLike(m) || (ts.isPropertyDeclaration(m) && m.initializer && isFunctionLike(m.initializer));
				out.push({container: name, name: mn, nameNode: m.name, from, to, fn: Boolean(fn)});
			}
		}
	};
	const visit = statements => {
		for (const s of statements) {
			if (ts.isFunctionDeclaration(s) && s.name) {
				out.push({container: '', name: s.name.text, nameNode: s.name, from: line(s.getStart(sf)), to: line(s.end), fn: true});
			} else if (ts.isClassDeclaration(s) && s.name) {
				const brace = s.members.pos;
				members(s, s.members, line(brace));
			} else if (ts.isInterfaceDeclaration(s)) {
				members(s, s.members, line(s.members.pos));
			} else if (ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) {
				out.push({container: '', name: s.name.text, nameNode: s.name, from: line(s.getStart(sf)), to: line(s.end), fn: false});
			} else if (ts.isVariableStatement(s)) {
				const list = s.declarationList.declarations;
				for (const d of list) {
					const from = list.length === 1 ? line(s.getStart(sf)) : line(d.getStart(sf));
					const fn = Boolean(d.initializer && isFunctionLike(d.initializer));
					for (const id of bindingNames(d.name, [])) {
						out.push({container: '', name: id.text, nameNode: id, from, to: line(d.end), fn});
					}
				}
			} else if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) {
				visit(s.body.statements);
			}
		}
	};
	visit(sf.statements);
	return out;
}

const hit = (lines, d) => {
	for (let l = d.from; l <= d.to; l++) {
		if (lines.has(l)) {
			return true;
		}
	}
	return false;
};

// codeLines keeps the lines of lines that hold a token: a line with only
// comments changes no behaviour, so it touches no declaration. The tokens
// are the parsed file's (a raw scanner loses its place after a template
// literal's ${...} and reads the comments after it as code); JSDoc is
// comment.
const codeLines = (sf, lines) => {
	const out = new Set();
	if (lines.size === 0) {
		return out;
	}
	const visit = n => {
		if (n.kind >= ts.SyntaxKind.FirstJSDocNode && n.kind <= ts.SyntaxKind.LastJSDocNode) {
			return;
		}
		const kids = n.getChildren(sf);
		if (kids.length > 0) {
			kids.forEach(visit);
			return;
		}
		if (n.kind === ts.SyntaxKind.EndOfFileToken || n.end <= n.pos) {
			return;
		}
		const from = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
		const to = sf.getLineAndCharacterOfPosition(n.end).line + 1;
		for (let l = from; l <= to; l++) {
			if (lines.has(l)) {
				out.add(l);
			}
		}
	};
	visit(sf);
	return out;
};

const touched = []; // {fileName, d}
let bodyChanged = false;
let errors = 0;
const uses = new Set();
const impact = new Set();

for (const c of input.changes) {
	const abs = path.join(dir, c.path);
	const sf = program.getSourceFile(abs);
	if (!sf) {
		continue;
	}
	errors += program.getSemanticDiagnostics(sf).length;
	const added = new Set(c.added || []);
	const headDecls = declarations(sf);
	const addedCode = codeLines(sf, added);
	for (const d of headDecls) {
		if (d.name && hit(addedCode, d)) {
			touched.push(d);
			bodyChanged ||= d.fn;
		}
	}
	if (c.old && (c.removed || []).length > 0) {
		const oldSf = ts.createSourceFile(c.oldPath || c.path, c.old, ts.ScriptTarget.Latest, true);
		const removed = codeLines(oldSf, new Set(c.removed));
		const byKey = new Map(headDecls.map(d => [d.container + '.' + d.name, d]));
		for (const od of declarations(oldSf)) {
			if (!od.name || !hit(removed, od)) {
				continue;
			}
			bodyChanged ||= od.fn;
			const hd = byKey.get(od.container + '.' + od.name);
			if (hd && !touched.includes(hd)) {
				touched.push(hd);
			}
		}
	}

	// Uses: identifiers on added lines.
	const visit = n => {
		if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) {
			const l = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
			if (added.has(l)) {
				let sym = checker.getSymbolAtLocation(n);
				if (ts.isShorthandPropertyAssignment(n.parent)) {
					sym = checker.getShorthandAssignmentValueSymbol(n.parent) || sym;
				}
				if (sym && (sym.flags & ts.SymbolFlags.Alias)) {
					try {
						sym = checker.getAliasedSymbol(sym);
					} catch {}
				}
				const decls = (sym && sym.declarations) || [];
				if (!decls.some(d => d.name === n)) {
					for (const d of decls) {
						const r = rel(d.getSourceFile().fileName);
						if (r && !changed.has(r) && !skipped(r)) {
							uses.add(r);
						}
					}
				}
			}
		}
		ts.forEachChild(n, visit);
	};
	visit(sf);
}

// Impact: references to touched declarations.
const nodeAt = (sf, pos) => {
	let found;
	const find = n => {
		if (pos >= n.getStart(sf) && pos < n.end) {
			found = n;
			ts.forEachChild(n, find);
		}
	};
	find(sf);
	return found;
};
for (const d of touched) {
	const sf = d.nameNode.getSourceFile();
	const refs = ls.findReferences(sf.fileName, d.nameNode.getStart(sf)) || [];
	for (const rs of refs) {
		for (const r of rs.references) {
			if (r.isDefinition) {
				continue;
			}
			const rp = rel(r.fileName);
			if (!rp || changed.has(rp) || skipped(rp)) {
				continue;
			}
			if (d.ctorOf) {
				const rsf = program.getSourceFile(r.fileName);
				const n = rsf && nodeAt(rsf, r.textSpan.start);
				if (!n || !n.parent || !ts.isNewExpression(n.parent) || n.parent.expression !== n) {
					continue;
				}
			}
			impact.add(rp);
		}
	}
}

process.stdout.write(JSON.stringify({uses: [...uses].sort(), impact: [...impact].sort(), errors, bodyChanged}) + '\n');

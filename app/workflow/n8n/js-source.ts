/**
 * Turns a Code-node function (a file in ./code/) into the jsCode of an n8n Code node: the file, the
 * decisions and the constants are transpiled to JavaScript with the project's TypeScript (types
 * stripped, text and comments kept), and the node's jsCode is the top-level declarations the node
 * function needs, in their source order, followed by `return <node function>({ $, $input });`.
 * Transpiling the source text (not Function.prototype.toString of whatever loaded the module) makes
 * the output the same under tsx, vitest and node.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const WORKFLOW_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CODE_DIR = join(WORKFLOW_DIR, 'n8n', 'code');
/** The modules every Code node may draw on, besides its own file. */
const SHARED = [
  join(WORKFLOW_DIR, 'constants.ts'),
  join(WORKFLOW_DIR, 'alert.ts'),
  join(WORKFLOW_DIR, 'decisions.ts'),
];

interface Declaration {
  name: string;
  file: string;
  /** The JavaScript of the declaration, its doc comment included, without `export`. */
  text: string;
  /** Top-level names of any module that this declaration mentions (resolved later). */
  mentions: Set<string>;
  exportedFunction: boolean;
}

const cache = new Map<string, Declaration[]>();

function declarationsOf(file: string): Declaration[] {
  const known = cache.get(file);
  if (known) return known;
  const js = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: false },
    fileName: file,
  }).outputText;
  const source = ts.createSourceFile(file, js, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const out: Declaration[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) continue;
    const names = ts.isFunctionDeclaration(statement)
      ? [statement.name?.text ?? '']
      : ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => (ts.isIdentifier(d.name) ? d.name.text : ''))
        : [];
    if (names.length !== 1 || names[0] === '') {
      throw new Error(
        `${file}: only named function and single const declarations may stand at the top level ` +
          `(found: ${statement.getText().slice(0, 60)})`,
      );
    }
    const text = statement
      .getFullText()
      .trim()
      .replace(/^((?:\/\*[\s\S]*?\*\/\s*|\/\/.*\n\s*)*)export /, '$1');
    const exported = (ts.getModifiers(statement as ts.HasModifiers) ?? []).some(
      (m) => m.kind === ts.SyntaxKind.ExportKeyword,
    );
    out.push({
      name: names[0] as string,
      file,
      text,
      mentions: mentionsOf(statement),
      exportedFunction: exported && ts.isFunctionDeclaration(statement),
    });
  }
  cache.set(file, out);
  return out;
}

/** Identifiers a declaration mentions, leaving out property names (`x.name`, `{ name: ... }`). */
function mentionsOf(root: ts.Node): Set<string> {
  const found = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n)) {
      const p = n.parent;
      const property =
        (ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isPropertyAssignment(p) && p.name === n);
      if (!property) found.add(n.text);
    }
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(root, visit);
  return found;
}

/**
 * The jsCode of the Code node whose body is the one exported function of `file` (a path, or a file name
 * in ./code/). Throws when the file does not export exactly one function or a name is declared twice.
 */
export function codeNodeSource(file: string): string {
  const path = file.includes('/') ? file : join(CODE_DIR, file);
  const own = declarationsOf(path);
  const entry = own.filter((d) => d.exportedFunction);
  if (entry.length !== 1) throw new Error(`${path}: must export exactly one function (the node's body)`);
  const all = [...SHARED.flatMap(declarationsOf), ...own];
  const byName = new Map<string, Declaration>();
  for (const d of all) {
    const other = byName.get(d.name);
    if (other) throw new Error(`${d.name} is declared in ${other.file} and ${d.file}`);
    byName.set(d.name, d);
  }
  const needed = new Set<Declaration>();
  const visit = (d: Declaration) => {
    if (needed.has(d)) return;
    needed.add(d);
    for (const name of d.mentions) {
      const dep = byName.get(name);
      if (dep && dep !== d) visit(dep);
    }
  };
  const main = entry[0] as Declaration;
  visit(main);
  const body = all.filter((d) => needed.has(d)).map((d) => d.text);
  return `${body.join('\n\n')}\n\nreturn ${main.name}({ $, $input });`;
}

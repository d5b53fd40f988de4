// Measures the functions and classes of kernel/, plugins/ and sdk/ in lines: `npx tsx scripts/unit-length.ts [min]` lists those longer than min (default 150).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';

export const maxUnitLines = 150;
export interface Unit { name: string; lines: number }

interface AstNode { type: string; loc?: { start: { line: number }; end: { line: number } }; [key: string]: unknown }

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sources(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const unitTypes = new Set([
  'FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod',
  'ClassDeclaration', 'ClassExpression',
]);

const keyName = (key: unknown): string | undefined => {
  const k = key as AstNode | undefined;
  return k?.type === 'Identifier' ? (k.name as string) : k?.type === 'StringLiteral' ? (k.value as string) : k?.type === 'PrivateName' ? `#${(k.id as AstNode).name as string}` : undefined;
};

/** what a function or class is called: its own name, the method, variable or property it is, else its line */
function nameOf(node: AstNode, parent: AstNode | undefined, className: string | undefined): string {
  const own = (node.id as AstNode | null | undefined)?.name as string | undefined;
  if (own) return own;
  const method = node.type.endsWith('Method') ? keyName(node.key) : undefined;
  if (method) return className && node.type.startsWith('Class') ? `${className}.${method}` : method;
  if (parent?.type === 'VariableDeclarator') return ((parent.id as AstNode).name as string | undefined) ?? `(line ${node.loc!.start.line})`;
  if (parent?.type === 'ObjectProperty' || parent?.type === 'ClassProperty') {
    const property = keyName(parent.key);
    if (property) return className && parent.type === 'ClassProperty' ? `${className}.${property}` : property;
  }
  return `(anonymous, line ${node.loc!.start.line})`;
}

/** every function and class of a file with its length in lines, named `<path> <name>` */
export function unitsOf(path: string, text: string): Unit[] {
  const ast = parse(text, { sourceType: 'module', plugins: ['typescript', ...(path.endsWith('.tsx') ? ['jsx' as const] : [])], errorRecovery: false }) as unknown as AstNode;
  const units: Unit[] = [];
  const visit = (node: AstNode, parent: AstNode | undefined, className: string | undefined) => {
    let inClass = className;
    if (unitTypes.has(node.type) && node.loc) {
      const name = nameOf(node, parent, className);
      units.push({ name: `${path} ${name}`, lines: node.loc.end.line - node.loc.start.line + 1 });
      if (node.type.startsWith('Class') && !node.type.endsWith('Method')) inClass = name;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || key === 'leadingComments' || key === 'trailingComments' || key === 'innerComments') continue;
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof child === 'object' && typeof (child as AstNode).type === 'string') visit(child as AstNode, node, inClass);
      }
    }
  };
  visit(ast, undefined, undefined);
  return units;
}

/** the units of kernel/, plugins/ and sdk/ longer than `min` lines, longest first */
export function longUnits(root: string, min = maxUnitLines): Unit[] {
  return ['kernel', 'plugins', 'sdk']
    .flatMap((dir) => sources(join(root, dir)))
    .flatMap((file) => unitsOf(relative(root, file), readFileSync(file, 'utf8')))
    .filter((u) => u.lines > min)
    .sort((a, b) => b.lines - a.lines || (a.name < b.name ? -1 : 1));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const u of longUnits(root, Number(process.argv[2] ?? maxUnitLines))) console.log(`${String(u.lines).padStart(4)}  ${u.name}`);
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '#infra/cdk/paths';

/**
 * The repository's import graph, read with TypeScript's own parser, so every import form is
 * seen (static, `export ... from`, type-only, `import type('...')` types, dynamic `import()`
 * with a string or a template literal, `require()`) and nothing in a comment or a string that
 * is not an import is.
 */

/** One import: the importing file (repository path), what it names, and the file it resolves to. */
export interface ImportEdge {
  file: string;
  specifier: string;
  /** The repository path the import names (a template literal's static start for `${...}` parts); undefined for a package. */
  target: string | undefined;
  /** The file it resolves to (a .ts file of the repository), when it names one. */
  resolved: string | undefined;
  /** A dynamic import or require whose specifier is a template with `${...}` parts. */
  partial: boolean;
  /** Only types are imported (erased at run time). */
  typeOnly: boolean;
}

/** The specifiers a source imports, with whether each is type-only or a template with substitutions. */
export function importsOf(fileName: string, text: string): { specifier: string; typeOnly: boolean; partial: boolean }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { specifier: string; typeOnly: boolean; partial: boolean }[] = [];
  const literal = (node: ts.Node | undefined): { text: string; partial: boolean } | undefined => {
    if (!node) return undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return { text: node.text, partial: false };
    if (ts.isTemplateExpression(node)) return { text: node.head.text, partial: true };
    return undefined;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const named = literal(node.moduleSpecifier);
      const typeOnly = ts.isImportDeclaration(node) ? Boolean(node.importClause?.isTypeOnly) : node.isTypeOnly;
      if (named) found.push({ specifier: named.text, typeOnly, partial: false });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const named = literal(node.moduleReference.expression);
      if (named) found.push({ specifier: named.text, typeOnly: node.isTypeOnly, partial: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const named = literal(node.argument.literal);
      if (named) found.push({ specifier: named.text, typeOnly: true, partial: false });
    } else if (ts.isCallExpression(node)) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isImport || isRequire) {
        const named = literal(node.arguments[0]);
        if (named) found.push({ specifier: named.text, typeOnly: false, partial: named.partial });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const SUBPATHS: Record<string, string> = { '#shared/': 'shared/', '#functions/': 'functions/', '#infra/': 'infra/', '#tools/': 'tools/' };

/** The repository path an import names (a template literal's static start), or undefined for a package. */
export function targetOf(from: string, specifier: string): string | undefined {
  for (const [prefix, folder] of Object.entries(SUBPATHS)) {
    if (specifier.startsWith(prefix)) return folder + specifier.slice(prefix.length);
  }
  if (specifier.startsWith('.')) return relative(REPO_ROOT, resolve(REPO_ROOT, dirname(from), specifier));
  return undefined;
}

/** The .ts file a repository path names, if there is one. */
function resolveFile(path: string): string | undefined {
  const candidates = path.endsWith('.ts') ? [path] : [`${path}.ts`, `${path}/index.ts`, path.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => existsSync(join(REPO_ROOT, candidate)) && candidate.endsWith('.ts'));
}

/** Every .ts file under `folder` (repository paths). */
export function sourcesUnder(folder: string): string[] {
  return readdirSync(join(REPO_ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.parentPath.includes('node_modules'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)));
}

/** The import graph of the files under `folders`. */
export function importGraph(folders: readonly string[]): ImportEdge[] {
  return folders.flatMap(sourcesUnder).flatMap((file) =>
    importsOf(file, readFileSync(join(REPO_ROOT, file), 'utf8')).map(({ specifier, typeOnly, partial }) => {
      const target = targetOf(file, specifier);
      return { file, specifier, target, resolved: target === undefined || partial ? undefined : resolveFile(target), partial, typeOnly };
    }),
  );
}

/** The import cycles among files (strongly connected components of more than one file, or a file importing itself). */
export function cycles(edges: readonly Pick<ImportEdge, 'file' | 'resolved'>[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { file, resolved } of edges) {
    if (resolved === undefined) continue;
    next.set(file, [...(next.get(file) ?? []), resolved]);
  }
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (next.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return found;
}

/** How often a source reads `process.env` (in code, not in comments or strings). */
export function processEnvReads(fileName: string, text: string): number {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let reads = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'env' && ts.isIdentifier(node.expression) && node.expression.text === 'process') reads += 1;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return reads;
}

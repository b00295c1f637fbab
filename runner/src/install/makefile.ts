// A small reader of GNU Makefiles, enough to say which commands one target runs: variables
// (`=`, `:=`, `?=`, `+=`, with command-line overrides winning as in `make VAR=value`), the
// conditionals a build Makefile branches on (ifeq/ifneq/ifdef/ifndef, else, endif), the functions
// those use (filter, findstring, if, strip; shell is never run) and rules with their recipes. Pure:
// it never runs make or a shell, so a tree's build is read, not executed, and unit-tested on text.

export interface MakeRule {
  prereqs: string[];
  /** Recipe lines as written (unexpanded), in order. */
  recipe: string[];
  /** Target-specific `export VAR=value` (runc's `static: export CGO_ENABLED=1`). */
  exports: Record<string, string>;
}

export interface Makefile {
  /** Expands `$(…)` references with the variables as they stand at the end of the file. */
  expand(text: string): string;
  rules: Map<string, MakeRule>;
}

/** Splits `a,b` at top-level commas (not inside nested `$(…)`). */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

const words = (s: string) => s.split(/\s+/).filter((w) => w !== '');

/** The `%` patterns of make's filter: `a%` matches words starting with a. */
function matches(pattern: string, word: string): boolean {
  const i = pattern.indexOf('%');
  if (i < 0) return pattern === word;
  return word.startsWith(pattern.slice(0, i)) && word.endsWith(pattern.slice(i + 1));
}

/** Reads a Makefile's text; `overrides` are command-line variables (they beat every assignment). */
export function readMakefile(text: string, overrides: Record<string, string> = {}): Makefile {
  const raw = new Map<string, string>();
  const simple = new Set<string>();
  const rules = new Map<string, MakeRule>();

  const value = (name: string, seen: Set<string>): string => {
    if (name in overrides) return overrides[name]!;
    const v = raw.get(name);
    if (v === undefined) return '';
    if (simple.has(name) || seen.has(name)) return v;
    return expandWith(v, new Set([...seen, name]));
  };

  const call = (fn: string, rest: string, seen: Set<string>): string => {
    const args = splitArgs(rest);
    const arg = (i: number) => expandWith(args[i] ?? '', seen);
    switch (fn) {
      case 'filter': {
        const patterns = words(arg(0));
        return words(arg(1))
          .filter((w) => patterns.some((p) => matches(p, w)))
          .join(' ');
      }
      case 'findstring':
        return arg(1).includes(arg(0)) ? arg(0) : '';
      case 'strip':
        return words(arg(0)).join(' ');
      case 'if':
        return arg(0).trim() !== '' ? arg(1) : arg(2);
      default:
        // shell and the rest are never run: they read the machine, not the tree.
        return '';
    }
  };

  function expandWith(text: string, seen: Set<string>): string {
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (ch !== '$') {
        out += ch;
        continue;
      }
      const next = text[i + 1];
      if (next === '$') {
        out += '$';
        i++;
        continue;
      }
      if (next !== '(' && next !== '{') {
        // `$@` and friends belong to a recipe: kept as written.
        out += ch;
        continue;
      }
      const close = next === '(' ? ')' : '}';
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] === next) depth++;
        else if (text[j] === close && --depth === 0) break;
      }
      const inner = text.slice(i + 2, j);
      i = j;
      const fn = /^([a-z-]+)\s+([\s\S]*)$/.exec(inner);
      out += fn ? call(fn[1]!, fn[2]!, seen) : value(expandWith(inner, seen).trim(), seen);
    }
    return out;
  }
  const expand = (t: string) => expandWith(t, new Set());

  // Logical lines: a trailing backslash joins the next line (as make does, with one space).
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n');
  /** Per open conditional: is its current branch taken, and was any branch taken yet. */
  const conditions: { taken: boolean; done: boolean }[] = [];
  const active = () => conditions.every((c) => c.taken);
  const test = (directive: string, rest: string): boolean => {
    if (directive === 'ifdef' || directive === 'ifndef') {
      const defined = expand(value(rest.trim(), new Set())).trim() !== '';
      return directive === 'ifdef' ? defined : !defined;
    }
    const m = /^\(([\s\S]*)\)$/.exec(rest.trim());
    const [a = '', b = ''] = m ? splitArgs(m[1]!) : [];
    const same = expand(a).trim() === expand(b).trim();
    return directive === 'ifeq' ? same : !same;
  };
  /** The rules the recipe lines that follow belong to (several targets on one line share them). */
  let current: MakeRule[] = [];
  for (const line of lines) {
    const isDirective = /^\s*(ifeq|ifneq|ifdef|ifndef|else|endif)\b/.test(line);
    // A tab starts a recipe line only after a rule; elsewhere it is indentation (runc's
    // nested conditionals and their assignments are indented with tabs).
    if (line.startsWith('\t') && current.length > 0 && !isDirective) {
      if (active()) for (const r of current) r.recipe.push(line.slice(1).trim());
      continue;
    }
    const stripped = line.replace(/(^|\s)#.*$/, '').trim();
    if (stripped === '') continue;
    const directive = /^(ifeq|ifneq|ifdef|ifndef)\s*(.*)$/.exec(stripped);
    if (directive) {
      conditions.push(
        active() ? { taken: test(directive[1]!, directive[2]!), done: false } : { taken: false, done: true },
      );
      conditions.at(-1)!.done ||= conditions.at(-1)!.taken;
      continue;
    }
    const otherwise = /^else(?:\s+(ifeq|ifneq|ifdef|ifndef)\s*(.*))?$/.exec(stripped);
    if (otherwise && conditions.length > 0) {
      const c = conditions.at(-1)!;
      const outer = conditions.slice(0, -1).every((o) => o.taken);
      c.taken = !c.done && outer && (otherwise[1] ? test(otherwise[1], otherwise[2]!) : true);
      c.done ||= c.taken;
      continue;
    }
    if (stripped === 'endif') {
      conditions.pop();
      continue;
    }
    current = [];
    if (!active()) continue;
    const assignment =
      /^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*(::?:?=|\?=|\+=|=)\s*(.*)$/.exec(stripped);
    if (assignment) {
      const [, name, op, v] = assignment as unknown as [string, string, string, string];
      if (op === '?=') {
        if (!raw.has(name)) raw.set(name, v);
      } else if (op === '+=') {
        const before = raw.get(name);
        const add = simple.has(name) ? expand(v) : v;
        raw.set(name, before === undefined || before === '' ? add : `${before} ${add}`);
      } else if (op === '=') {
        raw.set(name, v);
        simple.delete(name);
      } else {
        raw.set(name, expand(v));
        simple.add(name);
      }
      continue;
    }
    const rule = /^([^:=]+?)\s*::?\s*(.*)$/.exec(stripped);
    if (!rule || stripped.startsWith('include ') || stripped.startsWith('-include ')) continue;
    const targets = words(expand(rule[1]!));
    const rest = rule[2]!;
    const exported = /^export\s+([A-Za-z_][A-Za-z0-9_]*)\s*:?=\s*(.*)$/.exec(rest);
    if (exported || /^[A-Za-z_][A-Za-z0-9_]*\s*(:?=|\?=|\+=)/.test(rest)) {
      // A target-specific variable: only exports shape a build's environment.
      for (const t of targets) {
        const r = ruleOf(rules, t);
        if (exported) r.exports[exported[1]!] = expand(exported[2]!);
      }
      continue;
    }
    if (targets.some((t) => t.startsWith('.'))) continue;
    const [recipeInline] = rest.split(';').slice(1);
    const prereqs = words(expand(rest.split(';')[0]!));
    for (const t of targets) {
      const r = ruleOf(rules, t);
      r.prereqs.push(...prereqs);
      if (recipeInline) r.recipe.push(recipeInline.trim());
    }
    current = targets.map((t) => ruleOf(rules, t));
  }
  return { expand, rules };
}

function ruleOf(rules: Map<string, MakeRule>, target: string): MakeRule {
  let r = rules.get(target);
  if (!r) rules.set(target, (r = { prereqs: [], recipe: [], exports: {} }));
  return r;
}

/**
 * The recipe lines `make target` runs, prerequisites first (each target once), expanded, with
 * every export of the targets on the way (a prerequisite's recipe sees its own target's exports).
 */
export function targetCommands(
  make: Makefile,
  target: string,
): { lines: { target: string; command: string }[]; exports: Record<string, string> } {
  const visited = new Set<string>();
  const lines: { target: string; command: string }[] = [];
  const exports: Record<string, string> = {};
  const visit = (t: string) => {
    if (visited.has(t)) return;
    visited.add(t);
    const rule = make.rules.get(t);
    if (!rule) return;
    Object.assign(exports, rule.exports);
    for (const p of rule.prereqs) visit(p);
    for (const l of rule.recipe) lines.push({ target: t, command: make.expand(l).trim() });
  };
  visit(target);
  return { lines, exports };
}

/** Splits a command as a POSIX shell would into words (quotes removed; no expansion). */
export function shellWords(command: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== null) out.push(word);
      word = null;
    } else word = (word ?? '') + ch;
  }
  if (word !== null) out.push(word);
  return out;
}

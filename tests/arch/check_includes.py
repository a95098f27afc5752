#!/usr/bin/env python3
"""Checks every #include of the tree against the rules of docs/ARCHITECTURE.md.

Usage:
    python3 tests/arch/check_includes.py [--rules docs/ARCHITECTURE.md]
        [--root .] [--report-only PART-PREFIX ...]

The rules are the fenced block ```rules of the rules file (its grammar is
described there, "Who may include whom"). For every .c and .h under the root
(build directories, hidden and subprojects/ folders skipped), each quoted
#include must name a file of the tree by its path from the root (or a header
the build generates), the including file's part must be allowed to include the
included file's part, and each system header (<...>) must be among those its
part allows, where the rules say. The graph between parts must have no cycle,
and neither may the rules themselves.

Each broken rule is printed as `file:line: part A includes part B (header)`,
each cycle with the includes that make it. Exit 0 when nothing is broken
(or only in parts under a --report-only prefix), 1 otherwise, 2 when the
rules cannot be read.
"""

import argparse
import os
import re
import sys
from collections import deque

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]*)[>"]')
SKIP_DIRS = {'subprojects', 'node_modules', '__pycache__'}


class RulesError(Exception):
    pass


class Rules:
    """The parsed rules block: parts, what each may include, system headers."""

    def __init__(self):
        self.allow = {}      # part pattern -> list of part patterns it may include
        self.system = {}     # part pattern -> set of system headers allowed
        self.sets = {}       # @name -> list of headers
        self.generated = set()
        self.lines = {}      # part pattern -> line number in the rules file

    # A pattern is a folder path ("server/net") or "P/*": each folder
    # directly under P is a part of its own.
    def part_of(self, path):
        """(part, pattern) of the deepest part whose folder holds path, or None."""
        best = None
        comps = path.split('/')
        for pat in self.allow:
            if pat.endswith('/*'):
                base = pat[:-2].split('/')
                # base/<dir>/file: the file must sit in a folder under base
                if len(comps) >= len(base) + 2 and comps[:len(base)] == base:
                    part = '/'.join(comps[:len(base) + 1])
                    cand = (len(base) + 1, 0, part, pat)
                else:
                    continue
            else:
                base = pat.split('/')
                if len(comps) >= len(base) + 1 and comps[:len(base)] == base:
                    cand = (len(base), 1, pat, pat)  # a literal wins a tie
                else:
                    continue
            if best is None or cand[:2] > best[:2]:
                best = cand
        return None if best is None else (best[2], best[3])

    def resolve(self, entry):
        """The patterns an entry of a rule's right side stands for."""
        if entry.endswith('/*'):
            base = entry[:-1]
            return sorted(p for p in self.allow
                          if p == entry or (not p.endswith('/*') and p.startswith(base)
                                            and '/' not in p[len(base):]))
        if entry in self.allow:
            return [entry]
        located = self.part_of(entry + '/x')
        if located and located[0] == entry:
            return [located[1]]
        return []

    def may_include(self, pat, part_a, part_b):
        if part_a == part_b:
            return True
        for entry in self.allow[pat]:
            if entry == part_b:
                return True
            if entry.endswith('/*') and part_b.startswith(entry[:-1]) \
                    and '/' not in part_b[len(entry) - 1:]:
                return True
        return False


def parse_rules(text, origin='rules'):
    """Parses the first ```rules block of text."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if line.strip() == '```rules':
            start = i + 1
            break
    if start is None:
        raise RulesError(f'{origin}: no ```rules block')
    rules = Rules()
    pending_system = []
    end = None
    for i in range(start, len(lines)):
        raw = lines[i]
        lineno = i + 1
        if raw.strip() == '```':
            end = i
            break
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        if line.startswith('@'):
            name, eq, rest = line.partition('=')
            if not eq:
                raise RulesError(f'{origin}:{lineno}: a set is "@name = headers"')
            rules.sets[name.strip()] = rest.split()
            continue
        left, colon, rest = line.partition(':')
        if not colon:
            raise RulesError(f'{origin}:{lineno}: expected "part: parts"')
        words = left.split()
        if words == ['generated']:
            rules.generated.update(rest.split())
            continue
        if len(words) == 2 and words[1] == 'system':
            pending_system.append((words[0], rest.split(), lineno))
            continue
        if len(words) != 1:
            raise RulesError(f'{origin}:{lineno}: expected "part: parts"')
        pat = words[0].strip('/') if not words[0].endswith('/*') else words[0]
        if pat in rules.allow:
            raise RulesError(f'{origin}:{lineno}: part {pat} listed twice')
        check_pattern(pat, origin, lineno)
        rules.allow[pat] = rest.split()
        rules.lines[pat] = lineno
    if end is None:
        raise RulesError(f'{origin}: the ```rules block is not closed')
    for pat, entries in rules.allow.items():
        for entry in entries:
            check_pattern(entry, origin, rules.lines[pat])
            if not rules.resolve(entry):
                raise RulesError(f'{origin}:{rules.lines[pat]}: {pat} may include '
                                 f'{entry}, which is not a part')
    for pat, headers, lineno in pending_system:
        if pat not in rules.allow:
            raise RulesError(f'{origin}:{lineno}: system headers of {pat}, not a part')
        allowed = set()
        for h in headers:
            if h.startswith('@'):
                if h not in rules.sets:
                    raise RulesError(f'{origin}:{lineno}: unknown set {h}')
                allowed.update(rules.sets[h])
            else:
                allowed.add(h)
        rules.system[pat] = allowed
    return rules


def check_pattern(pat, origin, lineno):
    body = pat[:-2] if pat.endswith('/*') else pat
    if not body or '*' in body or body.startswith('/') or '..' in body.split('/'):
        raise RulesError(f'{origin}:{lineno}: {pat!r} is not a folder path or "folder/*"')


def source_files(root):
    """Every .c and .h under root, as paths from root, build trees skipped."""
    out = []
    for d, dirs, files in os.walk(root):
        keep = []
        for name in dirs:
            full = os.path.join(d, name)
            if name.startswith('.') or name in SKIP_DIRS:
                continue
            # a meson (or any ninja) build directory, whatever its name
            if os.path.exists(os.path.join(full, 'meson-private')) or \
                    os.path.exists(os.path.join(full, 'build.ninja')):
                continue
            keep.append(name)
        dirs[:] = sorted(keep)
        for name in sorted(files):
            if name.endswith(('.c', '.h')):
                out.append(os.path.relpath(os.path.join(d, name), root).replace(os.sep, '/'))
    return out


def includes_of(text):
    """(line number, kind, name) of each #include, comments of /* */ skipped."""
    out = []
    in_comment = False
    for lineno, line in enumerate(text.splitlines(), 1):
        code = ''
        i = 0
        while i < len(line):
            if in_comment:
                j = line.find('*/', i)
                if j < 0:
                    i = len(line)
                else:
                    in_comment = False
                    i = j + 2
            else:
                j = line.find('/*', i)
                k = line.find('//', i)
                if k >= 0 and (j < 0 or k < j):
                    code += line[i:k]
                    break
                if j < 0:
                    code += line[i:]
                    break
                code += line[i:j] + ' '
                in_comment = True
                i = j + 2
        m = INCLUDE_RE.match(code)
        if m:
            out.append((lineno, m.group(1), m.group(2)))
    return out


class Report:
    def __init__(self, report_only):
        self.report_only = [p.rstrip('/') for p in report_only]
        self.failed = 0
        self.reported = 0
        self.lines = []

    def is_report_only(self, part):
        return any(part == p or part.startswith(p + '/') for p in self.report_only)

    def add(self, msg, parts):
        """parts: the parts the problem is about; report-only when all are."""
        if parts and all(self.is_report_only(p) for p in parts):
            self.reported += 1
            first, nl, rest = msg.partition('\n')
            self.lines.append(first + ' [report only]' + nl + rest)
        else:
            self.failed += 1
            self.lines.append(msg)


def find_cycles(graph):
    """Strongly connected components of more than one node (Tarjan), sorted."""
    index = {}
    low = {}
    stack = []
    on_stack = set()
    comps = []
    counter = [0]

    def visit(v):
        # iterative, so that a deep graph cannot hit the recursion limit
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(comps)


def shortest_cycle(graph, start, members):
    """The shortest path start -> ... -> start inside members."""
    prev = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return None


def describe_cycles(graph, evidence, report, what, always_fail=False):
    """Adds each cycle of graph to the report, with the edges that make it:
    every pair of parts that include each other, then a shortest cycle
    through each part no such pair covers."""
    def edge(x, y):
        return f'    {x} -> {y}' + (f': {evidence[(x, y)]}' if evidence else '')

    for comp in find_cycles(graph):
        members = set(comp)
        msgs = [f'cycle{what}: {" ".join(comp)}']
        shown = set()
        for a in comp:
            for b in sorted(graph.get(a, ())):
                if a < b and b in members and a in graph.get(b, ()):
                    msgs += [f'  {a} <-> {b}', edge(a, b), edge(b, a)]
                    shown.update((a, b))
        for a in comp:
            if a in shown:
                continue
            path = shortest_cycle(graph, a, members)
            shown.update(path)
            msgs.append('  ' + ' -> '.join(path))
            msgs += [edge(x, y) for x, y in zip(path, path[1:])]
        report.add('\n'.join(msgs), [] if always_fail else comp)


def check(rules, root, report):
    files = source_files(root)
    tree = set(files)
    graph = {}
    evidence = {}
    for path in files:
        located = rules.part_of(path)
        if located is None:
            report.add(f'{path}:1: in no part of the rules', [])
            continue
        part, pat = located
        with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
            text = f.read()
        for lineno, kind, name in includes_of(text):
            where = f'{path}:{lineno}'
            if kind == '<':
                if name in tree:
                    report.add(f'{where}: <{name}> is a file of the tree: '
                               f'include it as "{name}"', [part])
                    continue
                allowed = rules.system.get(pat)
                if allowed is not None and name not in allowed:
                    report.add(f'{where}: part {part} includes system header <{name}>, '
                               f'not among its system headers', [part])
                continue
            if name not in tree and name not in rules.generated:
                guess = os.path.normpath(os.path.join(os.path.dirname(path), name)).replace(os.sep, '/')
                hint = f' (by its path from the root: "{guess}"?)' if guess in tree else ''
                report.add(f'{where}: "{name}" is no file of the tree by its path '
                           f'from the root{hint}', [part])
                continue
            target = rules.part_of(name)
            if target is None:
                report.add(f'{where}: "{name}" is in no part of the rules', [part])
                continue
            tpart = target[0]
            if tpart != part:
                graph.setdefault(part, set()).add(tpart)
                evidence.setdefault((part, tpart), f'{where} "{name}"')
            if not rules.may_include(pat, part, tpart):
                report.add(f'{where}: part {part} includes part {tpart} ({name})', [part])
    describe_cycles(graph, evidence, report, ' between parts')
    return graph


def check_rules_acyclic(rules, report):
    """The rules themselves must not let two parts include each other."""
    graph = {}
    for pat, entries in rules.allow.items():
        for entry in entries:
            for node in rules.resolve(entry):
                if node != pat:
                    graph.setdefault(pat, set()).add(node)
    describe_cycles(graph, None, report, ' in the rules', always_fail=True)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    default_root = os.path.normpath(os.path.join(here, '..', '..'))
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('--rules', help='the file with the ```rules block '
                    '(default: docs/ARCHITECTURE.md under the root)')
    ap.add_argument('--root', default=default_root, help='the source tree (default: %(default)s)')
    ap.add_argument('--report-only', action='append', default=[], metavar='PART-PREFIX',
                    help='report, but do not fail for, what concerns only parts under this prefix')
    args = ap.parse_args(argv)
    rules_path = args.rules or os.path.join(args.root, 'docs', 'ARCHITECTURE.md')
    try:
        with open(rules_path, encoding='utf-8') as f:
            rules = parse_rules(f.read(), rules_path)
    except (OSError, RulesError) as e:
        print(f'check_includes: {e}', file=sys.stderr)
        return 2
    report = Report(args.report_only)
    check_rules_acyclic(rules, report)
    check(rules, args.root, report)
    for line in report.lines:
        print(line)
    print(f'check_includes: {report.failed} broken, {report.reported} reported only'
          + (f' (under {", ".join(args.report_only)})' if args.report_only else ''))
    return 1 if report.failed else 0


if __name__ == '__main__':
    sys.exit(main())

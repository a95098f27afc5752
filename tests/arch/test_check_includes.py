#!/usr/bin/env python3
"""Tests of check_includes.py on small trees written to a temporary folder:
a tree that keeps its rules passes, and each kind of broken rule fails with
its message. Python 3 standard library only.

    python3 tests/arch/test_check_includes.py [-v]
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, 'check_includes.py')
sys.path.insert(0, HERE)
import check_includes  # noqa: E402

RULES = '''\
# rules

```rules
generated: core/gen.h
@libc = stdio.h string.h
include:
include system: @libc
core: include
core system: @libc jansson.h
core/*: core include
core/* system: @libc jansson.h
protocol: include
server/low: include protocol
server/high: server/low include
server: server/* core protocol include
tests/core: core core/* include
```
'''

# A tree that keeps every rule above.
CLEAN = {
    'include/err.h': '#include <string.h>\n',
    'core/game.h': '#include <jansson.h>\n#include "include/err.h"\n',
    'core/registry.c': '#include "core/game.h"\n#include "core/gen.h"\n',
    'core/g1/g1.c': '#include <stdio.h>\n#include "core/game.h"\n#include "core/g1/g1.h"\n',
    'core/g1/g1.h': '#include "core/game.h"\n',
    'core/g2/g2.c': '/* #include "core/g1/g1.h" is commented out */\n#include "core/game.h"\n'
                    '// #include "protocol/p.h"\n',
    'protocol/p.h': '#include "include/err.h"\n',
    'server/low/low.h': '#include <uv.h>\n#include "protocol/p.h"\n',
    'server/high/high.c': '#include "server/low/low.h"\n',
    'server/main.c': '#  include "server/high/high.c"\n#include "core/game.h"\n#include <sys/socket.h>\n',
    'tests/core/test_g1.c': '#include "core/g1/g1.h"\n#include "tests/core/util.h"\n',
    'tests/core/util.h': '#include "core/game.h"\n',
    # a build directory: never read
    'build/meson-private/x': '',
    'build/core/bad.c': '#include "nowhere.h"\n',
    'objdir/build.ninja': '',
    'objdir/bad.c': '#include "nowhere.h"\n',
}


class Tree:
    def __init__(self, files, rules=RULES):
        self.tmp = tempfile.TemporaryDirectory(prefix='tapis-arch-')
        self.root = self.tmp.name
        self.rules = os.path.join(self.root, 'docs', 'ARCHITECTURE.md')
        self.write('docs/ARCHITECTURE.md', rules)
        for path, text in files.items():
            self.write(path, text)

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w', encoding='utf-8') as f:
            f.write(text)

    def run(self, *extra):
        p = subprocess.run([sys.executable, CHECKER, '--rules', self.rules,
                            '--root', self.root, *extra],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr

    def close(self):
        self.tmp.cleanup()


class CheckerTest(unittest.TestCase):
    def tree(self, changes=None, rules=RULES):
        files = dict(CLEAN)
        files.update(changes or {})
        t = Tree(files, rules)
        self.addCleanup(t.close)
        return t

    def assert_fails_with(self, changes, *expected, rules=RULES, extra=()):
        rc, out = self.tree(changes, rules).run(*extra)
        self.assertEqual(rc, 1, out)
        for e in expected:
            self.assertIn(e, out)
        return out

    def test_clean_tree_passes(self):
        rc, out = self.tree().run()
        self.assertEqual(rc, 0, out)
        self.assertIn('0 broken, 0 reported only', out)

    def test_part_including_a_part_it_may_not(self):
        self.assert_fails_with(
            {'core/game.c': '#include <string.h>\n\n#include "protocol/p.h"\n'},
            'core/game.c:3: part core includes part protocol (protocol/p.h)')

    def test_game_including_another_game(self):
        self.assert_fails_with(
            {'core/g2/g2.h': '#include "core/g1/g1.h"\n'},
            'core/g2/g2.h:1: part core/g2 includes part core/g1 (core/g1/g1.h)')

    def test_core_including_a_game(self):
        self.assert_fails_with(
            {'core/registry.c': '#include "core/g1/g1.h"\n'},
            'core/registry.c:1: part core includes part core/g1 (core/g1/g1.h)')

    def test_lower_part_including_its_parent(self):
        self.assert_fails_with(
            {'server/low/low.c': '#include "server/main.c"\n'},
            'server/low/low.c:1: part server/low includes part server (server/main.c)')

    def test_missing_and_relative_includes(self):
        self.assert_fails_with(
            {'core/g1/g1.c': '#include "g1.h"\n#include "core/none.h"\n'},
            'core/g1/g1.c:1: "g1.h" is no file of the tree by its path from the root '
            '(by its path from the root: "core/g1/g1.h"?)',
            'core/g1/g1.c:2: "core/none.h" is no file of the tree')

    def test_forbidden_system_header(self):
        self.assert_fails_with(
            {'core/g1/net.c': '#include <sys/socket.h>\n', 'core/clock.c': '#include <uv.h>\n'},
            'core/g1/net.c:1: part core/g1 includes system header <sys/socket.h>',
            'core/clock.c:1: part core includes system header <uv.h>')

    def test_tree_file_by_angle_brackets(self):
        self.assert_fails_with(
            {'server/high/h.c': '#include <protocol/p.h>\n'},
            'server/high/h.c:1: <protocol/p.h> is a file of the tree')

    def test_file_in_no_part(self):
        self.assert_fails_with({'tools/x.c': '\n'}, 'tools/x.c:1: in no part of the rules')

    def test_test_file_included_by_a_part(self):
        self.assert_fails_with(
            {'core/g1/t.c': '#include "tests/core/util.h"\n'},
            'part core/g1 includes part tests/core (tests/core/util.h)')

    def test_cycle_between_parts(self):
        out = self.assert_fails_with(
            {'core/game.c': '#include "protocol/p.h"\n',
             'protocol/p.c': '#include "core/game.h"\n'},
            'cycle between parts: core protocol',
            '  core <-> protocol',
            '    core -> protocol: core/game.c:1 "protocol/p.h"',
            '    protocol -> core: protocol/p.c:1 "core/game.h"')
        self.assertNotIn('[report only]', out)

    def test_cycle_through_three_parts(self):
        self.assert_fails_with(
            {'server/low/a.c': '#include "server/high/high.c"\n',
             'server/high/b.c': '#include "server/main.c"\n'},
            'cycle between parts: server server/high server/low',
            'server/low -> server/high')

    def test_cycle_in_the_rules(self):
        rules = RULES.replace('protocol: include\n', 'protocol: include core\n') \
                     .replace('core: include\n', 'core: include protocol\n')
        self.assert_fails_with({}, 'cycle in the rules: core protocol', rules=rules)

    def test_report_only_under_a_prefix(self):
        t = self.tree({'server/low/low.c': '#include "server/high/high.c"\n'})
        rc, out = t.run('--report-only', 'server/')
        self.assertEqual(rc, 0, out)
        self.assertIn('server/low/low.c:1: part server/low includes part server/high '
                      '(server/high/high.c) [report only]', out)
        self.assertIn('cycle between parts: server/high server/low [report only]', out)
        self.assertIn('0 broken, 2 reported only (under server/)', out)
        rc, out = t.run()
        self.assertEqual(rc, 1, out)
        self.assertIn('2 broken, 0 reported only', out)

    def test_report_only_keeps_failing_elsewhere(self):
        self.assert_fails_with(
            {'server/low/low.c': '#include "server/high/high.c"\n',
             'core/x.c': '#include "server/low/low.h"\n'},
            'core/x.c:1: part core includes part server/low (server/low/low.h)\n',
            '1 broken, 2 reported only', extra=('--report-only', 'server/'))

    def test_report_only_does_not_cover_a_cycle_leaving_the_prefix(self):
        self.assert_fails_with(
            {'protocol/q.c': '#include "server/low/low.h"\n'},
            'cycle between parts: protocol server/low\n', extra=('--report-only', 'server/'))

    def test_unreadable_rules(self):
        for rules, msg in [('no block\n', 'no ```rules block'),
                           ('```rules\ncore: include\n', 'not closed'),
                           ('```rules\ncore: nothing\n```\n', 'core may include nothing, which is not a part'),
                           ('```rules\ncore:\ncore:\n```\n', 'core listed twice'),
                           ('```rules\ncore:\ncore system: @none\n```\n', 'unknown set @none'),
                           ('```rules\n../x:\n```\n', 'not a folder path')]:
            t = self.tree({}, rules)
            rc, out = t.run()
            self.assertEqual(rc, 2, out)
            self.assertIn(msg, out)


class UnitTest(unittest.TestCase):
    def test_part_of(self):
        r = check_includes.parse_rules(RULES)
        self.assertEqual(r.part_of('core/game.h'), ('core', 'core'))
        self.assertEqual(r.part_of('core/g1/x/y.c'), ('core/g1', 'core/*'))
        self.assertEqual(r.part_of('server/low/a.c'), ('server/low', 'server/low'))
        self.assertEqual(r.part_of('server/other/a.c'), ('server', 'server'))
        self.assertEqual(r.part_of('server/main.c'), ('server', 'server'))
        self.assertIsNone(r.part_of('main.c'))
        self.assertIsNone(r.part_of('coreish/a.c'))

    def test_includes_of(self):
        text = textwrap.dedent('''\
            #include <a.h>
            # include "b.h" /* a comment */
            /* #include "c.h"
               #include "d.h" */ #include "e.h" (a directive still, as for cpp)
            // #include "f.h"
            #define X 1 /* start
            #include "g.h"
            end */
            #include "h.h" // end
            ''')
        self.assertEqual(check_includes.includes_of(text),
                         [(1, '<', 'a.h'), (2, '"', 'b.h'), (4, '"', 'e.h'), (9, '"', 'h.h')])

    def test_the_tree_rules_parse(self):
        root = os.path.normpath(os.path.join(HERE, '..', '..'))
        with open(os.path.join(root, 'docs', 'ARCHITECTURE.md'), encoding='utf-8') as f:
            r = check_includes.parse_rules(f.read())
        self.assertIn('core/*', r.allow)
        self.assertNotIn('uv.h', r.system['core'])
        self.assertNotIn('sys/socket.h', r.system['core'])


if __name__ == '__main__':
    unittest.main()

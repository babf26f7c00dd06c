#!/usr/bin/env python3
"""Every Catch2 test case name can be run by CTest, checked.

CTest runs each test case as `test_x "NAME"` (catch_discover_tests), and
Catch reads that argument as a test spec, not as a literal name. The
discovery escapes `,`, `[` and `]`, but not the rest: a `;` splits the CMake
list it builds (the two halves match nothing), a leading `-` or `~` negates,
a `*` at either end is a wildcard, and `\\` escapes. Such a name became a
CTest entry that ran no test and passed (23 of them, issue 19). The test
binaries now run with `--warn NoTests`, so such an entry fails; this script
says why before anything runs, naming file and line.

  check_test_names.py ROOT              check tests/; exit 1 on a bad name
  check_test_names.py --self-test ROOT  require that planted bad names are caught
"""
import os
import re
import sys

# Characters that change what Catch's test spec matches (see above).
BAD_ANYWHERE = {';': 'a semicolon (CMake: list separator)', '\\': 'a backslash (Catch: escape)',
                '"': 'a quote'}
BAD_START = {'-': 'a leading dash (Catch: negation or an option)', '~': 'a leading tilde (Catch: negation)',
             '*': 'a leading star (Catch: wildcard)'}

TEST_CASE = re.compile(r'\bTEST_CASE\s*\(')
LITERAL = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')


def names(text):
    """(line, name) of every TEST_CASE: its adjacent string literals joined."""
    for m in TEST_CASE.finditer(text):
        pos, parts = m.end(), []
        while True:
            lit = LITERAL.match(text, pos)
            if not lit:
                break
            parts.append(lit.group(1).encode().decode('unicode_escape'))
            pos = lit.end()
        if parts:
            yield text.count('\n', 0, m.start()) + 1, ''.join(parts)


def problems(name):
    found = [why for ch, why in BAD_ANYWHERE.items() if ch in name]
    found += [why for ch, why in BAD_START.items() if name.startswith(ch)]
    if name.endswith('*'):
        found.append('a trailing star (Catch: wildcard)')
    if name != name.strip():
        found.append('leading or trailing spaces')
    return found


def check(root):
    bad = 0
    for folder, _, files in os.walk(os.path.join(root, 'tests')):
        for f in sorted(files):
            if not f.endswith('.cpp'):
                continue
            path = os.path.join(folder, f)
            with open(path, encoding='utf-8') as fh:
                text = fh.read()
            for line, name in names(text):
                for why in problems(name):
                    print(f'{os.path.relpath(path, root)}:{line}: test case "{name}" has {why}; '
                          'CTest would run nothing under this name')
                    bad += 1
    return bad


def self_test():
    planted = 'TEST_CASE("ok name") {}\nTEST_CASE("two parts; one test") {}\nTEST_CASE("a, b [c]") {}\n' \
              'TEST_CASE("joined "\n          "over lines; here") {}\nTEST_CASE("-starts with a dash") {}\n'
    found = [(line, name) for line, name in names(planted) if problems(name)]
    want = [2, 4, 6]
    if [line for line, _ in found] != want:
        print(f'self-test: expected bad names on lines {want}, found {found}')
        return 1
    print('self-test: every planted bad name was caught')
    return 0


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--self-test':
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    n = check(sys.argv[1])
    print(f'{n} test case name(s) CTest cannot run' if n else 'every test case name can be run by CTest')
    sys.exit(1 if n else 0)

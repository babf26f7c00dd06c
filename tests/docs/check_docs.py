#!/usr/bin/env python3
"""Keeps the user documentation honest: README.md and docs/*.md.

    check_docs.py PLASTIC_BINARY REPO_ROOT

Three checks, each failure printed as `file:line: message` (exit 1 on any):

(a) Commands. In fenced blocks tagged sh, bash, shell, console or untagged,
    every command that runs `plastic SUB ...` (or `build/plastic`, any path
    ending in `/plastic`, also behind `mpirun`, `srun`, env assignments,
    `$ ` prompts, `\\` continuations and `&&` / `|` / `;` chains) must name a
    subcommand that `plastic --help` lists (nested ones, such as
    `plastic analyze stability`, through the parent's help) and only long
    flags (`--xyz`) that `plastic SUB --help` lists. In console blocks only
    the lines after a `$ ` prompt are commands; the rest is output.
(b) Models. Every block tagged `ode` must be a complete model that
    `plastic check` accepts. A first line `# check: ARGS` passes ARGS to the
    check (e.g. `# check: --set d=3`). Fragments are tagged `ode-fragment`
    or `text` and are not checked.
(c) Links. Every relative Markdown link must point to an existing file, and
    a `#fragment` into a Markdown file to one of its headings.

Standard library only.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

COMMAND_TAGS = {"sh", "bash", "shell", "console", ""}
SKIPPED_TAGS = {"text", "ode-fragment"}
CHAIN = {"&&", "||", ";", "|", "&"}

failures = []


def fail(path, line, message):
    failures.append(f"{path}:{line}: {message}")


# ---------------------------------------------------------------- help text

_help_cache = {}


def help_of(plastic, words):
    """(long flags, subcommands) that `plastic WORDS --help` lists, or None."""
    key = tuple(words)
    if key not in _help_cache:
        try:
            done = subprocess.run([plastic, *words, "--help"], capture_output=True, text=True,
                                  timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            sys.exit(f"check_docs: cannot run {plastic}: {e}")
        if done.returncode != 0:
            _help_cache[key] = None
        else:
            flags, subs, in_subs = set(), set(), False
            for line in done.stdout.splitlines():
                if re.match(r"^\S.*:\s*$", line):
                    in_subs = line.strip() == "Subcommands:"
                    continue
                m = re.match(r"^\s+(?:-\w,\s*)?(--[A-Za-z0-9][\w-]*)", line)
                if m:
                    flags.add(m.group(1))
                    continue
                m = re.match(r"^\s+([a-z][\w-]*)\s", line)
                if in_subs and m:
                    subs.add(m.group(1))
            _help_cache[key] = (flags, subs)
    return _help_cache[key]


# ---------------------------------------------------------------- markdown

def fenced_blocks(lines):
    """(tag, first line number of the content, [content lines])."""
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)", lines[i])
        if not m:
            i += 1
            continue
        fence, tag = m.group(1), m.group(2).lower()
        start, body = i + 2, []
        i += 1
        while i < len(lines) and not re.match(r"^ {0,3}" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence), lines[i]):
            body.append(lines[i])
            i += 1
        blocks.append((tag, start, body))
        i += 1
    return blocks


def prose_lines(lines):
    """Line numbers and text of the lines outside fenced blocks."""
    out, fence = [], None
    for n, line in enumerate(lines, 1):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence is None and m:
            fence = m.group(1)[0]
            continue
        if fence is not None:
            if re.match(r"^ {0,3}" + re.escape(fence) + "{3,}\\s*$", line):
                fence = None
            continue
        out.append((n, line))
    return out


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            for _, line in prose_lines(f.read().splitlines()):
                m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not m:
                    continue
                s = slug(m.group(1))
                k = seen.get(s, 0)
                found.add(s if k == 0 else f"{s}-{k}")
                seen[s] = k + 1
                for a in re.findall(r'<a\s+(?:name|id)="([^"]+)"', line):
                    found.add(a)
        _anchor_cache[path] = found
    return _anchor_cache[path]


# ---------------------------------------------------------------- (a) commands

def logical_lines(body, start, console):
    """Joins `\\` continuations; yields (line number, command text)."""
    pending, first = None, None
    for k, raw in enumerate(body):
        n = start + k
        line = raw.rstrip()
        if pending is None:
            if console:
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            else:
                line = re.sub(r"^\$ ", "", line)
            first = n
            pending = ""
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield first, pending + line
        pending = None
    if pending:
        yield first, pending


def segments(text):
    text = re.sub(r"\$\([^)]*\)", "SUBST", text)  # $(mktemp -d) and the like
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
    lexer.commenters = "#"
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    segs, cur = [], []
    for t in tokens:
        if t in CHAIN:
            segs.append(cur)
            cur = []
        else:
            cur.append(t)
    segs.append(cur)
    return segs


def is_plastic(token):
    return token == "plastic" or token.endswith("/plastic")


def check_command(plastic, path, n, tokens):
    at = next((i for i, t in enumerate(tokens) if is_plastic(t)), None)
    if at is None:
        return
    args = tokens[at + 1:]
    words = []
    while args and not args[0].startswith("-"):
        known = help_of(plastic, words)
        if known is None or not known[1]:
            break
        sub = args[0]
        if sub not in known[1]:
            fail(path, n, f"`plastic {' '.join(words + [sub])}`: no such subcommand"
                 f" (known: {', '.join(sorted(known[1]))})")
            return
        words.append(sub)
        args = args[1:]
    known = help_of(plastic, words)
    if known is None:
        fail(path, n, f"`plastic {' '.join(words)} --help` fails")
        return
    for a in args:
        if not a.startswith("--") or a == "--":
            continue
        flag = a.split("=", 1)[0]
        if flag not in known[0]:
            where = " ".join(["plastic"] + words)
            fail(path, n, f"`{where}` has no option {flag}")


def check_commands(plastic, path, blocks):
    for tag, start, body in blocks:
        if tag not in COMMAND_TAGS:
            continue
        for n, text in logical_lines(body, start, console=(tag == "console")):
            if not re.search(r"(?:^|[\s/])plastic(?:\s|$)", text):
                continue
            segs = segments(text)
            if segs is None:
                fail(path, n, "cannot split the command line (unbalanced quotes?)")
                continue
            for seg in segs:
                check_command(plastic, path, n, seg)


# ---------------------------------------------------------------- (b) models

def check_models(plastic, path, blocks, tmp):
    for tag, start, body in blocks:
        if tag != "ode":
            continue
        extra = []
        m = re.match(r"^\s*#\s*check:\s*(.*)$", body[0]) if body else None
        if m:
            extra = shlex.split(m.group(1))
        name = f"{os.path.basename(path).replace('.', '_')}_{start}.ode"
        model = os.path.join(tmp, name)
        with open(model, "w", encoding="utf-8") as f:
            f.write("\n".join(body) + "\n")
        done = subprocess.run([plastic, "check", model, *extra], capture_output=True, text=True,
                              timeout=120)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            first = said[0] if said else f"exit code {done.returncode}"
            first = first.replace(model, "the block")
            fail(path, start, f"`plastic check` refuses this ode block: {first}")


# ---------------------------------------------------------------- (c) links

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def check_links(path, lines):
    base = os.path.dirname(path)
    for n, line in prose_lines(lines):
        line = re.sub(r"`[^`]*`", "", line)
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # http:, https:, mailto:
            file_part, _, fragment = target.partition("#")
            dest = os.path.normpath(os.path.join(base, file_part)) if file_part else path
            if not os.path.exists(dest):
                fail(path, n, f"broken link: {target} ({os.path.relpath(dest)} does not exist)")
                continue
            if fragment and dest.endswith(".md") and os.path.isfile(dest):
                if fragment not in anchors(dest):
                    fail(path, n, f"broken link: {target} (no heading #{fragment} in "
                                  f"{os.path.relpath(dest)})")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_docs.py PLASTIC_BINARY REPO_ROOT")
    plastic, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.chdir(root)
    pages = ["README.md"]
    if os.path.isdir("docs"):
        pages += sorted(os.path.join("docs", p) for p in os.listdir("docs") if p.endswith(".md"))
    with tempfile.TemporaryDirectory(prefix="plastic-docs-") as tmp:
        for page in pages:
            with open(page, encoding="utf-8") as f:
                lines = f.read().splitlines()
            blocks = fenced_blocks(lines)
            check_commands(plastic, page, blocks)
            check_models(plastic, page, blocks, tmp)
            check_links(page, lines)
    for f in failures:
        print(f)
    print(f"check_docs: {len(pages)} pages, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

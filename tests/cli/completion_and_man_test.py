#!/usr/bin/env python3
"""Shell completion and man pages are generated from the option tables of
`--help`: bash completes subcommands (nested ones too), options and files
with the script `plastic completion bash` prints, and `plastic man` writes
one page per subcommand listing every option its --help lists.

Usage: completion_and_man_test.py PLASTIC
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

PLASTIC = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else "build/plastic")


def run(*args):
    return subprocess.run([PLASTIC, *args], capture_output=True, text=True, check=True).stdout


def help_options(*subcommand):
    """The long options --help lists (its option lines, not its prose)."""
    lines = run(*subcommand, "--help").splitlines()
    return {m.group(1) for m in (re.match(r"\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", l) for l in lines)
            if m}


class Completion(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.script = os.path.join(cls.tmp.name, "plastic.bash")
        with open(cls.script, "w") as f:
            f.write(run("completion", "bash"))
        open(os.path.join(cls.tmp.name, "model.ode"), "w").close()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def complete(self, *words):
        """What bash offers for the last of `words` (a command line being typed)."""
        quoted = " ".join("'%s'" % w for w in ("plastic",) + words)
        program = (f"source '{self.script}'; COMP_WORDS=({quoted}); "
                   f"COMP_CWORD={len(words)}; _plastic; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        out = subprocess.run(["bash", "-c", program], capture_output=True, text=True,
                             cwd=self.tmp.name, check=True).stdout
        return set(out.split())

    def test_subcommands_options_and_files(self):
        self.assertEqual(self.complete("tr"), {"train"})
        self.assertIn("lsp", self.complete(""))
        self.assertEqual(self.complete("analyze", "st"), {"stability"})
        self.assertEqual(self.complete("train", "--ep"), {"--epochs"})
        self.assertEqual(self.complete("analyze", "stability", "--pl"), {"--plot"})
        self.assertEqual(self.complete("train", "mod"), {"model.ode"})
        self.assertEqual(self.complete("train", "--out", "mod"), {"model.ode"})
        # After a flag (no value), options again, not files.
        self.assertIn("--resume", self.complete("train", "--force", "--res"))

    def test_every_option_of_help_completes(self):
        for sub in (["train"], ["predict"], ["analyze", "fixed-points"], ["build"]):
            offered = self.complete(*sub, "--")
            self.assertEqual(help_options(*sub) - offered, set(), sub)

    def test_zsh_script_is_the_bash_one_through_bashcompinit(self):
        zsh = run("completion", "zsh")
        self.assertIn("bashcompinit", zsh)
        self.assertIn("complete -F _plastic plastic", zsh)


class ManPages(unittest.TestCase):
    def test_a_page_per_subcommand_with_every_option(self):
        with tempfile.TemporaryDirectory() as folder:
            out = run("man", "--out", folder)
            pages = set(os.listdir(folder))
            self.assertIn("%d pages" % len(pages), out)
            for page in ("plastic.1", "plastic-train.1", "plastic-analyze-stability.1",
                         "plastic-lsp.1"):
                self.assertIn(page, pages)
            with open(os.path.join(folder, "plastic-train.1")) as f:
                text = f.read().replace("\\-", "-")
            self.assertTrue(text.startswith(".TH PLASTIC-TRAIN 1"))
            self.assertEqual({o for o in help_options("train") if o not in text}, set())
            rendered = subprocess.run(["man", "-l", os.path.join(folder, "plastic-train.1")],
                                      capture_output=True, text=True,
                                      env=dict(os.environ, MANWIDTH="100"))
            if rendered.returncode == 0:  # man-db is not required to build Plastic
                self.assertIn("--epochs", rendered.stdout)

    def test_a_folder_that_is_not_there_is_an_error(self):
        result = subprocess.run([PLASTIC, "man", "--out", "/nonexistent/folder"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("plastic man:", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

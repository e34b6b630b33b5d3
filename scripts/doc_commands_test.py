#!/usr/bin/env python3
"""Tests of scripts/doc_commands.py on small Markdown files (no axe needed: plain shell)."""

import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "doc_commands.py"
FENCE = "`" * 3


def run_doc(markdown: str, *flags: str):
    """Runs the script on one Markdown file in a scratch tree: (exit status, stdout+stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "data.txt").write_text("from the tree\n")
        doc = root / "doc.md"
        doc.write_text(textwrap.dedent(markdown).replace("~~~", FENCE))
        proc = subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *flags,
                               str(doc)], capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stdout + proc.stderr


class DocCommandsTest(unittest.TestCase):
    def test_matching_output_exit_status_and_state_pass(self):
        rc, out = run_doc("""
            ~~~console
            $ X=hello; echo "$X"
            hello
            $ echo "$X again" && cat data.txt
            hello again
            from the tree
            $ printf 'took 0.123 s\\nline 2\\nline 3\\nlast\\n'
            took ... s
            ...
            last
            $ ls missing-file > /dev/null 2>&1   # exit 2
            $ echo a \\
                b
            a b
            ~~~
            """)
        self.assertEqual(rc, 0, out)
        self.assertIn("ran 5 command(s)", out)

    def test_different_output_fails_naming_the_line(self):
        rc, out = run_doc("""
            text

            ~~~console
            $ echo hello
            goodbye
            ~~~
            """)
        self.assertEqual(rc, 1, out)
        self.assertIn("doc.md:5: the output differs from the doc: echo hello", out)

    def test_unexpected_exit_status_fails(self):
        rc, out = run_doc("""
            ~~~console
            $ false
            $ true    # exit 3
            ~~~
            """)
        self.assertEqual(rc, 1, out)
        self.assertIn("doc.md:3: exit status 1, the doc expects 0: false", out)
        self.assertIn("doc.md:4: exit status 0, the doc expects 3", out)

    def test_an_undefined_variable_fails(self):
        rc, out = run_doc("~~~console\n$ echo \"$NOT_DEFINED_BY_THE_DOC\"\n~~~\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("NOT_DEFINED_BY_THE_DOC: unbound variable", out)

    def test_a_syntax_error_fails_only_its_command(self):
        rc, out = run_doc("""
            ~~~console
            $ echo (
            $ echo after
            after
            ~~~
            """)
        self.assertEqual(rc, 1, out)
        self.assertIn("doc.md:3: exit status 2", out)
        self.assertNotIn("doc.md:4", out)

    def test_norun_and_slow_blocks_are_not_run_by_default(self):
        rc, out = run_doc("""
            ~~~console norun
            # not run: an example of a failing command
            $ false
            ~~~

            ~~~console slow
            $ false
            ~~~
            """)
        self.assertEqual(rc, 0, out)
        self.assertIn("ran 0 command(s)", out)
        self.assertIn("1 norun block(s)", out)
        rc, out = run_doc("~~~console slow\n$ false\n~~~\n", "--slow")
        self.assertEqual(rc, 1, out)

    def test_convention_errors(self):
        for markdown, message in [
            ("~~~sh\nls\n~~~\n", "shell commands go in ```console blocks"),
            ("~~~\n$ ls\n~~~\n", "a block with '$ ' prompts must be a ```console block"),
            ("~~~console norun\n$ ls\n~~~\n", "starts with a '#' comment"),
            ("~~~console fast\n$ ls\n~~~\n", "unknown tag(s) ['fast']"),
            ("~~~console\nls\n~~~\n", "a console block starts with a command line"),
            ("~~~console\n$ ls\n", "the code block is never closed"),
        ]:
            rc, out = run_doc(markdown)
            self.assertEqual(rc, 2, out)
            self.assertIn(message, out)

    def test_background_jobs_are_stopped(self):
        rc, out = run_doc("""
            ~~~console
            $ sleep 300 &
            ~~~
            """, "--timeout", "60")
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()

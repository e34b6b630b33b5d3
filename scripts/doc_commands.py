#!/usr/bin/env python3
"""Runs the shell commands shown in README.md and docs/**/*.md and checks their output.

The convention (docs/writing-docs.md has the writer-facing version):

* Shell commands live in ```console blocks. A line starting with "$ " is a command; a
  command whose line ends in a backslash continues on the next line. The lines after a
  command, up to the next "$ " line, are its expected output (stdout and stderr together).
  A command followed by no output lines is run, but its output is not compared.
* Output comparison: trailing blanks are ignored; "..." inside an expected line matches any
  text on that line (timings, paths, ports); a line that is only "..." matches any number of
  lines, none included.
* A command exits 0 unless its last line ends in a comment naming another status:
  "# exit 2" (anything may precede "exit N" in that comment).
* Words after "console" in the fence are tags:
    norun   shown, never run; the block's first line must be a "#" comment giving the reason
    slow    run only with --slow (the ctest entry docs.commands_slow, label slow)
    mpi     needs `mpirun` and an axe built with MPI (skipped otherwise)
    python  needs the axe Python module (--python-path) (skipped otherwise)
    jax     needs the axe Python module and JAX (skipped otherwise)
* ```sh, ```bash and ```shell blocks, and "$ " prompts in blocks without a language, are
  errors: shell commands are written as ```console blocks so that every one is covered.
* Fenced blocks of other languages (cpp, python, none) are not run; docs/notes/ (lab notes)
  is not covered.

The commands of one Markdown file run in order in one bash process (variables and the
working directory carry over; `set -o pipefail -o nounset`: an undefined variable fails), in
a scratch copy of the source tree (without build/, .git and the fuzz corpora; one copy per
run, and what a file's commands create is removed before the next file runs), with the
directory of the built `axe` first on PATH and stdin from /dev/null. Processes a file leaves
running in the background are killed when its last command has run.

Exit status: 0 when every command run behaved as shown, 1 otherwise, 2 for a doc that
breaks the convention.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KNOWN_TAGS = {"norun", "slow", "mpi", "python", "jax"}
SHELL_LANGUAGES = {"sh", "bash", "shell", "zsh", "shell-session"}
FENCE = re.compile(r"^(\s*)```\s*([^`]*?)\s*$")
EXIT_COMMENT = re.compile(r"#[^\n]*\bexit (\d+)\b[^\n]*$")
BEGIN = "\x1eAXE-DOC-BEGIN"
END = "\x1eAXE-DOC-END"


@dataclasses.dataclass
class Command:
    doc: Path
    line: int  # 1-based line of the "$ " in the Markdown file
    text: str
    expected: list[str] | None  # None: output not compared
    exit_status: int
    tags: set[str]


class ConventionError(Exception):
    pass


def parse_blocks(path: Path):
    """Yields (first line number of the body, language, tags, body lines) per fenced block."""
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2)
        words = info.split()
        language = words[0] if words else ""
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        if j == len(lines):
            raise ConventionError(f"{path}:{i + 1}: the code block is never closed")
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j]]
        yield i + 2, language, set(words[1:]), body
        i = j + 1


def commands_of_block(path: Path, first: int, tags: set[str], body: list[str]):
    commands: list[Command] = []
    k = 0
    while k < len(body):
        line = body[k]
        if not line.startswith("$ "):
            if commands:
                raise AssertionError("unreachable: output lines are consumed below")
            raise ConventionError(
                f"{path}:{first + k}: a console block starts with a command line ('$ ...'), "
                f"found {line!r}")
        start = k
        text = [line[2:]]
        while text[-1].endswith("\\") and k + 1 < len(body):
            k += 1
            text.append(body[k])
        k += 1
        output = []
        while k < len(body) and not body[k].startswith("$ "):
            output.append(body[k])
            k += 1
        while output and not output[-1].strip():
            output.pop()
        m = EXIT_COMMENT.search(text[-1])
        commands.append(Command(path, first + start, "\n".join(text), output or None,
                                int(m.group(1)) if m else 0, tags))
    return commands


def extract(path: Path) -> tuple[list[Command], int]:
    """The commands of one Markdown file and the number of norun blocks."""
    commands: list[Command] = []
    norun = 0
    for first, language, tags, body in parse_blocks(path):
        if language in SHELL_LANGUAGES:
            raise ConventionError(
                f"{path}:{first - 1}: shell commands go in ```console blocks with '$ ' "
                f"prompts (```{language} is not run by the docs test)")
        if language == "" and any(l.startswith("$ ") for l in body):
            raise ConventionError(
                f"{path}:{first - 1}: a block with '$ ' prompts must be a ```console block")
        if language != "console":
            continue
        unknown = tags - KNOWN_TAGS
        if unknown:
            raise ConventionError(f"{path}:{first - 1}: unknown tag(s) {sorted(unknown)} "
                                  f"(known: {sorted(KNOWN_TAGS)})")
        if "norun" in tags:
            if not body or not (body[0].startswith("#") or body[0].startswith("$ #")):
                raise ConventionError(
                    f"{path}:{first - 1}: a ```console norun block starts with a '#' comment "
                    "saying why it is not run")
            norun += 1
            continue
        commands.extend(commands_of_block(path, first, tags, body))
    return commands, norun


def line_matches(pattern: str, actual: str) -> bool:
    if "..." not in pattern:
        return pattern == actual
    regex = ".*".join(re.escape(p) for p in pattern.split("..."))
    return re.fullmatch(regex, actual) is not None


def output_matches(expected: list[str], actual: list[str]) -> bool:
    expected = [l.rstrip() for l in expected]
    actual = [l.rstrip() for l in actual]
    while actual and not actual[-1]:
        actual.pop()

    # Backtracking over the "..." lines; docs have few of them.
    def match(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        if expected[i].strip() == "...":
            return any(match(i + 1, jj) for jj in range(j, len(actual) + 1))
        return j < len(actual) and line_matches(expected[i], actual[j]) and match(i + 1, j + 1)

    return match(0, 0)


def build_script(commands: list[Command]) -> str:
    parts = ["set -o pipefail -o nounset", "exec 2>&1"]
    for n, c in enumerate(commands):
        parts.append(f"printf '\\n{BEGIN} {n}\\n'")
        # eval: a syntax error is this command's failure, not the end of the script.
        parts.append("eval " + shlex.quote(c.text))
        parts.append(f"printf '\\n{END} {n} %d\\n' $?")
    parts.append("kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; true")
    return "\n".join(parts) + "\n"


def split_output(output: str, count: int):
    """Per command: (its output lines, its exit status) or None when it never finished."""
    results = [None] * count
    pattern = re.compile(
        "\n" + re.escape(BEGIN) + r" (\d+)\n(.*?)\n" + re.escape(END) + r" \1 (\d+)\n", re.S)
    for m in pattern.finditer("\n" + output):
        results[int(m.group(1))] = (m.group(2).split("\n"), int(m.group(3)))
    return results


class Scratch:
    """One copy of the source tree (without build outputs, git's data and the fuzz corpora),
    shared by the pages of a run: what a page's commands create is removed after it."""

    def __init__(self, root: Path):
        self.dir = Path(tempfile.mkdtemp(prefix="axe-doc-"))
        self.tree = self.dir / "src"
        skipped = {root: {".git", "build"}, root / "fuzz": {"corpus"}}

        def ignore(folder, names):
            return {n for n in names
                    if n in skipped.get(Path(folder), ()) or n == "__pycache__"}

        shutil.copytree(root, self.tree, ignore=ignore, symlinks=True)
        self.original = set(self._paths())

    def _paths(self):
        for folder, dirs, files in os.walk(self.tree):
            for name in dirs + files:
                yield os.path.join(folder, name)

    def reset(self):
        for path in sorted(set(self._paths()) - self.original, reverse=True):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.lexists(path):
                os.remove(path)

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def available(tag: str, env: dict[str, str]) -> bool:
    def runs(*argv: str) -> bool:
        try:
            return subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, timeout=120).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False

    if tag == "mpi":
        return shutil.which("mpirun", path=env["PATH"]) is not None and runs(
            "axe", "collective", "--op", "all_reduce", "--mesh", "x=1", "--axes", "x",
            "--shape", "1", "--backend", "mpi")
    if tag == "python":
        return "PYTHONPATH" in env and runs("python3", "-c", "import axe")
    if tag == "jax":
        return available("python", env) and runs("python3", "-c", "import jax")
    return True


def run_doc(root: Path, scratch: Scratch, doc: Path, commands: list[Command],
            env: dict[str, str], timeout: float) -> list[str]:
    failures = []
    home = Path(tempfile.mkdtemp(prefix="home-", dir=scratch.dir))
    env = dict(env, HOME=str(home), TMPDIR=str(home))
    started = time.monotonic()
    proc = subprocess.Popen(["bash", "--norc", "--noprofile", "-c", build_script(commands)],
                            cwd=scratch.tree, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        failures.append(f"{doc}: the commands did not finish within {timeout:.0f} s")
    finally:
        try:  # the page's shell and whatever it left running
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if failures:
        output, _ = proc.communicate()
    output = output.decode("utf-8", "replace")
    elapsed = time.monotonic() - started
    shutil.rmtree(home, ignore_errors=True)
    scratch.reset()
    for c, result in zip(commands, split_output(output, len(commands))):
        where = f"{c.doc.relative_to(root)}:{c.line}"
        if result is None:
            begin = f"\n{BEGIN} {commands.index(c)}\n"
            rest = output.split(begin, 1)[1] if begin in output else ""
            failures.append(f"{where}: the page's shell stopped in this command (an undefined "
                            f"variable, `exit`, or the time limit): {c.text}\n"
                            + "\n".join("    " + l for l in rest.rstrip().split("\n")))
            break
        lines, status = result
        if status != c.exit_status:
            failures.append(f"{where}: exit status {status}, the doc expects {c.exit_status}: "
                            f"{c.text}\n" + "\n".join("    " + l for l in lines))
        elif c.expected is not None and not output_matches(c.expected, lines):
            failures.append(f"{where}: the output differs from the doc: {c.text}\n"
                            "  the doc shows:\n" + "\n".join("    " + l for l in c.expected)
                            + "\n  the command printed:\n"
                            + "\n".join("    " + l for l in lines))
    print(f"  {doc.relative_to(root)}: {len(commands)} command(s), {elapsed:.1f} s",
          flush=True)
    return failures


def default_docs(root: Path) -> list[Path]:
    docs = [root / "README.md"]
    docs += sorted(p for p in (root / "docs").rglob("*.md")
                   if "notes" not in p.relative_to(root / "docs").parts)
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("docs", nargs="*", type=Path,
                        help="Markdown files (default: README.md and docs/**/*.md)")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the source tree (default: this script's repository)")
    parser.add_argument("--axe", type=Path, help="the built axe executable (else: axe on PATH)")
    parser.add_argument("--python-path", type=Path,
                        help="the built Python package's folder (PYTHONPATH for python/jax)")
    parser.add_argument("--python", type=Path,
                        help="the Python interpreter that `python3` names in the docs")
    parser.add_argument("--slow", action="store_true", help="run only the blocks tagged slow")
    parser.add_argument("--list", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per Markdown file")
    args = parser.parse_args()
    root = args.root.resolve()
    docs = [d.resolve() for d in args.docs] or default_docs(root)

    extracted, errors = [], []
    for d in docs:
        try:
            extracted.append((d, *extract(d)))
        except ConventionError as e:
            errors.append(str(e))
    if errors:
        for e in errors:
            print(f"doc_commands: {e}", file=sys.stderr)
        return 2

    env = {k: v for k, v in os.environ.items() if not k.startswith("AXE_")}
    bin_dir = Path(tempfile.mkdtemp(prefix="axe-doc-bin-"))
    try:
        if args.axe:
            os.symlink(args.axe.resolve(), bin_dir / "axe")
        if args.python:
            # A wrapper, not a link: a virtual environment's interpreter finds its packages
            # only when it is started by its own path.
            for name in ("python", "python3"):
                wrapper = bin_dir / name
                wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(os.path.abspath(args.python))} "$@"\n')
                wrapper.chmod(0o755)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        if args.python_path:
            env["PYTHONPATH"] = str(args.python_path.resolve())
        env.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return run_all(root, extracted, env, args)
    finally:
        shutil.rmtree(bin_dir, ignore_errors=True)


def chosen_commands(commands: list[Command], args, env: dict[str, str],
                    have: dict[str, bool]) -> tuple[list[Command], int]:
    """The commands of a page this run runs, and how many it skips for a missing tool."""
    chosen, skipped = [], 0
    for c in commands:
        if ("slow" in c.tags) != args.slow:
            continue
        needs = c.tags & {"mpi", "python", "jax"}
        for tag in needs:
            if tag not in have:
                have[tag] = available(tag, env)
        if all(have[t] for t in needs):
            chosen.append(c)
        else:
            skipped += 1
    return chosen, skipped


def run_all(root: Path, extracted, env: dict[str, str], args) -> int:
    have: dict[str, bool] = {}
    failures: list[str] = []
    ran = skipped = norun_total = 0
    scratch = None
    try:
        for doc, commands, norun in extracted:
            norun_total += norun
            chosen, skips = chosen_commands(commands, args, env, have)
            skipped += skips
            if args.list:
                for c in chosen:
                    print(f"{c.doc.relative_to(root)}:{c.line}: {c.text}")
            elif chosen:
                scratch = scratch or Scratch(root)
                failures += run_doc(root, scratch, doc, chosen, env, args.timeout)
                ran += len(chosen)
    finally:
        if scratch is not None:
            scratch.remove()
    missing = sorted(t for t, ok in have.items() if not ok)
    print(f"doc_commands: ran {ran} command(s) from {len(extracted)} file(s); "
          f"{skipped} skipped (missing: {', '.join(missing) or 'nothing'}); "
          f"{norun_total} norun block(s); {len(failures)} failure(s)")
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The links and paths of the documentation (make links, part of make test).

Reads README.md and docs/*.md of the repository and fails, naming
file:line, on:

- a relative link ([text](path), ![alt](path), [label]: path) whose file
  or folder is not in the repository, or that leaves it (../ past the
  top, an absolute path, file:);
- a link's #anchor that names no heading of its Markdown file (GitHub's
  anchors: the heading's text in lower case, punctuation dropped, spaces
  as hyphens, -1, -2, ... on repeats), or an anchor on a file that is not
  Markdown;
- a repository path named in backticks (`src/evaluate/terms.c`,
  `data/validation/*.ini`, `tests/fuzz/corpus/<target>/`) that names no
  file or folder of the repository: a path from the top of the
  repository whose first folder is one of the repository's own (out/ and
  build/ hold generated output and are not checked), a glob matching at
  least one file, a <placeholder> checked up to the folder before it,
  and an upper-case placeholder word (`data/hardware/NAME.ini`) matching
  any name;
- a file named bare in backticks with an extension of the repository's
  sources, data or docs (`cost.c`, `terms.h`, `validation-table.py`,
  `run_integration.sh`, `h800.ini`, `README.md`: .c .h .py .sh .ini .md
  .gp.in) that no folder holds and no source includes as a library's
  header (`#include <xlsxwriter.h>`);
- a path in backticks that starts with ../ (it leaves the repository).

Web addresses (http:, https:, mailto:) are not the repository's and are
not followed. Code blocks (``` fences) are examples and are not read.
The repository's files are git's (tracked, and new files git does not
ignore) where ROOT is a git work tree, else every file under ROOT.

Usage: scripts/check-links.py [ROOT]   (exit 1 on a broken link or path)
"""
import fnmatch
import os
import re
import subprocess
import sys

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^()\s<>]*)>?"
                  r"(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
WEB = re.compile(r"^(https?|mailto):", re.I)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
SOURCE_EXT = (".c", ".h", ".py", ".sh", ".ini", ".md", ".gp.in")
GENERATED = {"out", "build"}
# Words that stand for a name in a path, as the docs write them.
PLACEHOLDER = re.compile(r"(?<![A-Za-z])(NAME|RUN|FILE|BASE|DIR)(?![A-Za-z])")
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s*<([^>]+)>', re.M)


def repository_files(root):
    """The repository's files, relative to root, with '/' separators."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "--cached", "--others",
             "--exclude-standard", "-z"],
            check=True, capture_output=True, text=True)
        if subprocess.run(["git", "-C", root, "rev-parse", "--show-prefix"],
                          capture_output=True, text=True).stdout.strip():
            raise subprocess.CalledProcessError(1, "git")  # a subfolder
        files = {f for f in out.stdout.split("\0") if f}
        return {f for f in files if os.path.lexists(os.path.join(root, f))}
    except (OSError, subprocess.CalledProcessError):
        files = set()
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x != ".git"]
            for n in names:
                files.add(os.path.relpath(os.path.join(d, n), root)
                          .replace(os.sep, "/"))
        return files


def folders(files):
    out = set()
    for f in files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]))
    return out


def slug(text):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def read_doc(path):
    """(lines outside code blocks with their numbers, the anchors)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    body, anchors, seen, fence = [], set(), {}, None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is not None:
            continue
        body.append((n, line))
        h = HEADING.match(line)
        if h:
            base = slug(h.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            anchors.add(base if k == 0 else f"{base}-{k}")
    return body, anchors


class Checker:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.files = repository_files(self.root)
        self.folders = folders(self.files)
        self.top = {f.split("/")[0] for f in self.files} - GENERATED
        self.basenames = {os.path.basename(f) for f in self.files}
        self.basenames |= self.library_headers()
        self.anchors = {}
        self.errors = []

    def library_headers(self):
        """The headers the sources include from outside (<name.h>)."""
        out = set()
        for f in self.files:
            if f.endswith((".c", ".h")):
                try:
                    with open(os.path.join(self.root, f),
                              encoding="utf-8", errors="replace") as src:
                        out |= {os.path.basename(h) for h in
                                SYSTEM_INCLUDE.findall(src.read())}
                except OSError:
                    pass
        return out

    def error(self, doc, n, problem):
        self.errors.append(f"{doc}:{n}: {problem}")

    def anchors_of(self, rel):
        if rel not in self.anchors:
            self.anchors[rel] = read_doc(os.path.join(self.root, rel))[1]
        return self.anchors[rel]

    def exists(self, rel):
        return rel in self.files or rel in self.folders or rel == ""

    def link(self, doc, n, target):
        if not target or WEB.match(target):
            return
        if SCHEME.match(target) or target.startswith("/"):
            self.error(doc, n, f"link {target}: points outside the "
                       "repository (an absolute path or a scheme)")
            return
        path, _, anchor = target.partition("#")
        if path:
            joined = os.path.normpath(os.path.join(os.path.dirname(doc),
                                                   path))
            rel = joined.replace(os.sep, "/")
            if rel == ".":
                rel = ""
            if rel == ".." or rel.startswith("../"):
                self.error(doc, n, f"link {target}: points outside the "
                           "repository")
                return
            if not self.exists(rel):
                self.error(doc, n, f"link {target}: no such file or folder "
                           "in the repository")
                return
        else:
            rel = doc
        if not anchor:
            return
        if not rel.endswith(".md") or rel not in self.files:
            self.error(doc, n, f"link {target}: an anchor on a file that "
                       "is not Markdown")
        elif anchor not in self.anchors_of(rel):
            self.error(doc, n, f"link {target}: no heading of {rel} has "
                       f"the anchor #{anchor}")

    def path(self, doc, n, text):
        if any(c.isspace() for c in text) or text.startswith("-"):
            return
        if text.startswith("../"):
            self.error(doc, n, f"`{text}`: a path outside the repository")
            return
        if "/" not in text:
            if (text.endswith(SOURCE_EXT) and not text.startswith(".") and
                    not any(c in text for c in "*<") and
                    not PLACEHOLDER.search(text) and
                    text not in self.basenames):
                self.error(doc, n, f"`{text}`: no file of that name in the "
                           "repository")
            return
        if text.split("/")[0] not in self.top:
            return
        if "<" in text:
            # a placeholder: the folder before it must exist
            head = text[:text.index("<")].rstrip("/")
            head = head[:head.rfind("/")] if "/" in head else head
            if not self.exists(head):
                self.error(doc, n, f"`{text}`: no folder {head} in the "
                           "repository")
            return
        pattern = text.rstrip("/")
        if not self.exists(pattern) and PLACEHOLDER.search(pattern):
            pattern = PLACEHOLDER.sub("*", pattern)
        if any(c in pattern for c in "*?["):
            if not any(fnmatch.fnmatchcase(f, pattern) for f in self.files):
                self.error(doc, n, f"`{text}`: matches no file of the "
                           "repository")
        elif not self.exists(pattern):
            self.error(doc, n, f"`{text}`: no such file or folder in the "
                       "repository")

    def doc(self, rel):
        body, anchors = read_doc(os.path.join(self.root, rel))
        self.anchors[rel] = anchors
        for n, line in body:
            d = REF_DEF.match(line)
            if d:
                self.link(rel, n, d.group(1))
            spans = [m.group(2).strip() for m in CODE_SPAN.finditer(line)]
            for s in spans:
                self.path(rel, n, s)
            prose = CODE_SPAN.sub("", line)
            for m in LINK.finditer(prose):
                self.link(rel, n, m.group(1))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    c = Checker(root)
    docs = sorted(f for f in c.files
                  if f == "README.md" or re.fullmatch(r"docs/[^/]+\.md", f))
    if "README.md" not in docs:
        c.errors.append(f"{root}: no README.md")
    for d in docs:
        c.doc(d)
    for e in c.errors:
        print(e)
    if c.errors:
        print(f"check-links: {len(c.errors)} broken link(s) or path(s) in "
              f"{len(docs)} file(s)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

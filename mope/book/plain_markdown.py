"""The book's MyST, written as the plain Markdown that Jupyter and Colab render.

The book's pages are MyST Markdown: Sphinx resolves their roles (cross-references, figure numbers, citations, computed values, ...)
and directives (tabs, dropdowns, proofs). A notebook front end shows the same text as raw markup. This
module rewrites it, both when ``mope.book.colab_notebook`` writes a page's Colab notebook and, through
:func:`show_markdown_outputs_plainly`, when a cell displays MyST as a Markdown output:

* a cross-reference becomes a link to the page of the published book that holds its target, with the
  text the book shows (a section's title, ``Fig. 2.3``, ``(1.1)``, ``Proposition 1.2``, a page's title);
* a citation becomes ``Author [year]`` or ``[Author, year]``, an API role the object's name in code (linked to the API page
  when the object is the package's);
* a tab set or a dropdown becomes headings, a proof or an admonition a plain paragraph, a target line
  ``(label)=`` disappears and a labelled equation gets its number as ``\\tag``.

Numbers follow Sphinx's numbering of this book: in a numbered chapter ``chapter.count``, figures,
equations and propositions each counted in page order; on an unnumbered page one count across them.
"""
from __future__ import annotations

import dataclasses
import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

DIRECTIVE_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}\s*(?P<argument>.*)$")
CODE_FENCE_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})[^`]*$")
TARGET = re.compile(r"^\s*\((?P<label>[\w:.-]+)\)=\s*$")
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
ROLE = re.compile(r"\{(?P<name>[a-z][\w:-]*)\}`(?P<content>[^`]+)`")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
LABELLED_EQUATION_END = re.compile(r"^\s*\$\$\s*\((?P<label>[\w:.-]+)\)\s*$")

ADMONITIONS = ("note", "tip", "hint", "important", "warning", "caution", "attention", "danger", "error",
               "seealso", "admonition")
PROOF_KINDS = ("proposition", "theorem", "lemma", "corollary", "definition", "proof", "remark", "example",
               "conjecture", "axiom", "criterion", "property", "observation", "algorithm", "assumption")
#: An autodoc class in an eval-rst block, with its indented options: ".. autoclass:: mope.Rotary".
AUTOCLASS = re.compile(r"^\.\. autoclass:: (\S+)[ \t]*(?:\n|$)(?:[ \t]+:[\w-]+:.*(?:\n|$))*", re.MULTILINE)
HANDLED_DIRECTIVES = ("tab-set", "tab-item", "dropdown", "grid", "grid-item", "literalinclude", "eval:figure",
                      "eval-rst", *ADMONITIONS, *(f"prf:{kind}" for kind in PROOF_KINDS))
HANDLED_ROLES = ("eval", "ref", "doc", "numref", "eq", "prf:ref", "cite", "cite:p", "cite:t", "download",
                 "py:class", "py:func", "py:meth", "py:mod", "py:obj", "py:attr", "py:data", "py:exc")
NUMBERED_KINDS = {"figure": "Fig.", "equation": None, **{kind: kind.capitalize() for kind in PROOF_KINDS}}


class MystError(ValueError):
    """MyST this module cannot write as plain Markdown (an unknown role, directive or label)."""


# --- the book's labels -------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Target:
    """Where a label of the book points and what a reference to it shows."""
    page: str    # the page's path without suffix, as in _toc.yml: "notebooks/01_mathematics"
    anchor: str  # the HTML id on that page ("" for the page itself)
    text: str    # a section's or page's title, "Fig. 2.3", "(1.1)", "Proposition 1.2"


def toc_pages(root: Path = ROOT) -> list[tuple[str, bool]]:
    """The book's pages in reading order, each with whether its part is numbered."""
    import yaml  # the book's configuration; only needed to resolve cross-references

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    pages = [(toc["root"], False)]
    for part in toc.get("parts", []):
        pages += [(chapter["file"], bool(part.get("numbered"))) for chapter in part.get("chapters", [])]
    return pages


def _html_id(label: str) -> str:
    """The id Sphinx gives a label (docutils' make_id: lower case, runs of other characters as '-')."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def book_targets(root: Path = ROOT) -> dict[str, Target]:
    """Every label of the book's pages, and each page as ``doc:<page>``, mapped to its target."""
    targets: dict[str, Target] = {}
    chapter = 0
    unnumbered_counts: dict[str, int] = {}
    for page, numbered in toc_pages(root):
        path = root / f"{page}.md"
        if not path.is_file():
            continue
        chapter += numbered
        counts: dict[str, int] = unnumbered_counts if not numbered else {}
        lines = _strip_front_matter(path.read_text()).split("\n")
        pending: list[str] = []
        fence: str | None = None  # the closing fence of the code cell or code block we are in
        directives: list[str] = []  # the closing fences of the directives we are in
        for i, line in enumerate(lines):
            if fence is not None:  # inside a code cell or a plain code block: no labels there
                if line.strip() == fence:
                    fence = None
                continue
            if directives and line.strip() == directives[-1]:
                directives.pop()
                continue
            heading = HEADING.match(line)
            directive = DIRECTIVE_OPEN.match(line)
            if directive and directive["name"] == "code-cell" or not directive and (code := CODE_FENCE_OPEN.match(line)):
                fence = (directive or code)["fence"]
                continue
            if directive:
                directives.append(directive["fence"])
            if (target := TARGET.match(line)):
                pending.append(target["label"])
            elif heading:
                title = _inline_text(heading["title"])
                if len(heading["hashes"]) == 1 and f"doc:{page}" not in targets:
                    targets[f"doc:{page}"] = Target(page, "", title)
                targets.update({label: Target(page, _html_id(label), title) for label in pending})
                pending = []
            elif directive:
                kind = _numbered_kind(directive["name"])
                label = _option(lines, i, "name" if kind == "figure" else "label")
                if kind and label:
                    counts[kind] = counts.get(kind, 0) + 1
                    number = f"{chapter}.{counts[kind]}" if numbered else str(counts[kind])
                    targets[label] = Target(page, _html_id(label), f"{NUMBERED_KINDS[kind]} {number}")
            elif (equation := LABELLED_EQUATION_END.match(line)):
                counts["equation"] = counts.get("equation", 0) + 1
                number = f"{chapter}.{counts['equation']}" if numbered else str(counts["equation"])
                targets[equation["label"]] = Target(page, f"equation-{_html_id(equation['label'])}", f"({number})")
    return targets


def _numbered_kind(directive: str) -> str | None:
    if directive in ("eval:figure", "figure"):
        return "figure"
    if directive.startswith("prf:") and directive[4:] in PROOF_KINDS and directive != "prf:proof":
        return directive[4:]
    return None


def _option(lines: list[str], start: int, key: str) -> str | None:
    for line in lines[start + 1:]:
        if not line.startswith(":") or line.strip() in ("", ":::"):
            return None
        name, _, value = line[1:].partition(":")
        if name == key:
            return value.strip()
    return None


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n"):
        return text[text.index("\n---\n", 4) + 5:]
    return text


def _inline_text(title: str) -> str:
    """A heading's text as a reference shows it (inline code and emphasis kept, roles' text only)."""
    return ROLE.sub(lambda m: EXPLICIT.sub(r"\g<text>", m["content"]), title).strip()


# --- the book's bibliography -------------------------------------------------------------------------

def bibliography(root: Path = ROOT) -> dict[str, tuple[str, str]]:
    """Each key of book/references.bib mapped to its authors as the book cites them ("Surname",
    "A and B", "A et al.") and its year."""
    entries: dict[str, tuple[str, str]] = {}
    text = (root / "book" / "references.bib").read_text()
    for match in re.finditer(r"@\w+\{(?P<key>[^,\s]+),(?P<body>.*?)\n\}", text, re.S):
        fields = dict(re.findall(r"(\w+)\s*=\s*[{\"](.*?)[}\"],?\s*$", match["body"], re.M))
        authors = [a.strip() for a in fields.get("author", "").split(" and ") if a.strip()]
        surnames = [a.split(",")[0].strip("{} ") if "," in a else a.split()[-1].strip("{}") for a in authors]
        who = surnames[0] if len(surnames) == 1 else (
            " and ".join(surnames) if len(surnames) == 2 else f"{surnames[0]} et al.")
        entries[match["key"]] = (who, fields.get("year", "n.d."))
    return entries


# --- roles -------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Book:
    """What a reference needs: the book's labels and bibliography, and the address it is published at."""
    targets: dict[str, Target]
    citations: dict[str, tuple[str, str]]  # key: (authors, year)
    url: str  # the published book, ending in "/"

    @classmethod
    def from_repository(cls, root: Path = ROOT) -> "Book":
        import yaml

        repository = yaml.safe_load((root / "_config.yml").read_text())["repository"]["url"]
        return cls(book_targets(root), bibliography(root), published_url(repository))

    def link(self, target: Target, text: str | None = None) -> str:
        address = f"{self.url}{target.page}.html" + (f"#{target.anchor}" if target.anchor else "")
        return f"[{text or target.text}]({address})"

    def target(self, label: str, role: str, page: str | None = None) -> Target:
        key = label
        if role == "doc":  # relative to the page's folder, or to the book's root with a leading "/"
            folder = posixpath.dirname(page) if page and not label.startswith("/") else ""
            key = "doc:" + posixpath.normpath(posixpath.join(folder, label.lstrip("/"))).removesuffix(".md")
        if key not in self.targets:
            raise MystError(f"{{{role}}}`{label}`: no such label in the book's pages")
        return self.targets[key]


def published_url(repository_url: str) -> str:
    """Where GitHub Pages publishes the book of ``https://github.com/OWNER/NAME``: OWNER.github.io/NAME/."""
    match = re.fullmatch(r"https://github\.com/(?P<owner>[^/]+)/(?P<name>[^/]+?)/?", repository_url)
    if not match:
        raise MystError(f"repository.url {repository_url!r} is not https://github.com/OWNER/NAME")
    return f"https://{match['owner'].lower()}.github.io/{match['name']}/"


def rewrite_roles(text: str, book: Book, page: str | None = None, evaluate=None) -> str:
    """``text`` with every role written as plain Markdown. ``evaluate(expression)`` gives what a role that
    shows a value computed by the page's cells (``eval``) shows; without it such a role is an error."""

    def replace(match: re.Match) -> str:
        role, content = match["name"], match["content"]
        explicit = EXPLICIT.match(content)
        text_, label = (explicit["text"], explicit["target"]) if explicit else (None, content)
        if role == "eval":
            if evaluate is None:
                raise MystError(f"{{eval}}`{content}` cannot be written without running the page")
            return evaluate(content)
        if role in ("ref", "doc", "eq", "prf:ref"):
            return book.link(book.target(label, role, page), text_)
        if role == "numref":
            target = book.target(label, role, page)
            return book.link(target, text_.replace("%s", target.text.split()[-1]) if text_ else target.text)
        if role in ("cite", "cite:p", "cite:t"):
            missing = [key for key in content.split(",") if key.strip() not in book.citations]
            if missing:
                raise MystError(f"{{{role}}}`{content}`: {missing} not in book/references.bib")
            # sphinxcontrib-bibtex's author-year style, as the book shows it: Gabor [1946], [Gabor, 1946, Mallat, 1999]
            entries = [book.citations[key.strip()] for key in content.split(",")]
            shown = [f"{who} [{year}]" if role == "cite:t" else f"{who}, {year}" for who, year in entries]
            linked = [book.link(Target("book/references", "", text)) for text in shown]
            return ", ".join(linked) if role == "cite:t" else f"[{', '.join(linked)}]"
        if role == "download":  # a file the notebook wrote: its name and where it lies
            return f"`{text_ or Path(label).name}` (in `{label.lstrip('/')}`)"
        if role.startswith("py:"):
            name = label.lstrip("~.")
            shown = f"`{text_ or (name.rsplit('.', 1)[-1] if label.startswith('~') else name)}`"
            if name.split(".")[0] == "mope":  # the package's objects are on the API page (autodoc ids)
                return book.link(Target("book/api", f"module-{name}" if role == "py:mod" else name, shown))
            return shown
        raise MystError(f"unknown role {{{role}}} in {match[0]!r}; the roles written as Markdown: "
                        f"{', '.join(HANDLED_ROLES)}")

    return ROLE.sub(replace, text)


# --- blocks ------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Piece:
    """One part of a page in notebook form: ``markdown`` text, or a ``figure`` to display (its name)."""
    kind: str  # "markdown" or "figure"
    text: str  # the Markdown, or the name of the figure's variable
    title: str = ""  # a figure's number ("Fig. 2.3")


def _directive_end(lines: list[str], start: int, fence: str) -> int:
    """The index of the line closing the directive opened at ``start`` (nested fences skipped)."""
    depth_fence = [fence]
    for i in range(start + 1, len(lines)):
        stripped = lines[i].strip()
        if stripped == depth_fence[-1]:
            depth_fence.pop()
            if not depth_fence:
                return i
        elif (opened := DIRECTIVE_OPEN.match(lines[i]) or CODE_FENCE_OPEN.match(lines[i])) and (
                stripped != opened["fence"] or depth_fence[-1][0] != opened["fence"][0]):
            depth_fence.append(opened["fence"])
    raise MystError(f"the directive opened by {lines[start].strip()!r} is never closed")


def _options_and_body(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    options: dict[str, str] = {}
    body_start = 0
    if lines and lines[0].strip() == "---":
        end = lines.index("---", 1)
        for line in lines[1:end]:
            key, _, value = line.partition(":")
            options[key.strip()] = value.strip()
        body_start = end + 1
    else:
        while body_start < len(lines) and re.match(r"^:[\w-]+:", lines[body_start]):
            key, _, value = lines[body_start][1:].partition(":")
            options[key] = value.strip()
            body_start += 1
    if body_start < len(lines) and not lines[body_start].strip():
        body_start += 1
    return options, lines[body_start:]


def blocks_to_pieces(text: str, book: Book, *, page: str | None = None, heading_level: int = 2,
                     include=None) -> list[Piece]:
    """A MyST text as plain Markdown pieces, with each ``{eval:figure}`` as a figure piece followed by
    its caption. Roles are left for :func:`rewrite_roles`. ``include(path, options)`` returns the
    source a ``literalinclude`` shows; without it a ``literalinclude`` is an error."""
    lines = text.split("\n")
    pieces: list[Piece] = []
    markdown: list[str] = []

    def flush():
        if markdown:
            pieces.append(Piece("markdown", "\n".join(markdown)))
            markdown.clear()

    def heading(title: str, level: int) -> str:
        return f"{'#' * min(level, 6)} {title.strip()}"

    i = 0
    level = heading_level
    while i < len(lines):
        line = lines[i]
        if (found := HEADING.match(line)):
            level = len(found["hashes"])
            markdown.append(line)
        elif TARGET.match(line):
            pass  # a label: links point into the book instead
        elif (equation := LABELLED_EQUATION_END.match(line)):
            target = book.targets.get(equation["label"])
            number = target.text.strip("()") if target else equation["label"]
            markdown += [f"\\tag{{{number}}}", "$$"]
        elif (directive := DIRECTIVE_OPEN.match(line)):
            end = _directive_end(lines, i, directive["fence"])
            name, argument = directive["name"], directive["argument"].strip()
            options, body = _options_and_body(lines[i + 1:end])
            body_text = "\n".join(body)
            if name == "eval:figure":
                flush()
                pieces.append(Piece("figure", argument, target.text if (target := book.targets.get(
                    options.get("name", ""))) else argument))
                caption = " ".join(body_text.split("\n\n")[0].split())
                target = book.targets.get(options.get("name", ""))
                prefix = f"**{target.text}** " if target else ""
                rest = body_text.split("\n\n", 1)[1:]  # a legend after the caption's paragraph
                markdown.append(f"{prefix}{caption}" + (f"\n\n{rest[0]}" if rest else ""))
                flush()
            elif name == "literalinclude":
                if include is None:
                    raise MystError(f"literalinclude {argument}: no source to include")
                source = include(argument, options)
                language = options.get("language", "python" if argument.endswith(".py") else "")
                if "caption" in options:
                    markdown += [f"*{options['caption']}*", ""]
                markdown += [f"```{language}", source.rstrip("\n"), "```", ""]
            elif name == "eval-rst":  # autodoc's classes only: in a notebook, help() shows the same docstring
                classes = AUTOCLASS.findall(body_text)
                if not classes or AUTOCLASS.sub("", body_text).strip(" \n"):
                    raise MystError("an eval-rst block has a plain Markdown form only when it holds autoclass "
                                    "directives alone (with their options)")
                markdown += [f"* `help({cls})`" for cls in classes] + [""]
            elif name in ("tab-set", "grid", "grid-item"):  # containers: their contents, one after another
                flush()
                pieces += blocks_to_pieces(body_text, book, page=page, heading_level=level, include=include)
            elif name in ("tab-item", "dropdown"):
                markdown += [heading(argument, level + 1), ""]
                flush()
                pieces += blocks_to_pieces(body_text, book, page=page, heading_level=level + 1, include=include)
            elif name.startswith("prf:") and name[4:] in PROOF_KINDS:
                kind = name[4:]
                if kind == "proof":
                    markdown.append("*Proof.* " + body_text.strip() + " ∎")
                else:
                    target = book.targets.get(options.get("label", ""))
                    title = target.text if target else kind.capitalize()
                    markdown.append(f"**{title}** ({argument})." if argument else f"**{title}.**")
                    markdown += ["", body_text.strip()]
                flush()
            elif name in ADMONITIONS:
                title = argument if name == "admonition" else name.capitalize()
                inner = [p.text for p in blocks_to_pieces(body_text, book, page=page, heading_level=level,
                                                          include=include)]
                quoted = "\n".join(f"> {row}" if row else ">" for row in "\n\n".join(inner).split("\n"))
                markdown.append(f"> **{title}.**\n>\n{quoted}")
            else:
                raise MystError(f"directive {{{name}}} has no plain Markdown form; those that do: "
                                f"{', '.join(HANDLED_DIRECTIVES)}")
            i = end
        elif (code := CODE_FENCE_OPEN.match(line)):
            end = _directive_end(lines, i, code["fence"])
            markdown += lines[i:end + 1]  # a plain code block, verbatim
            i = end
        else:
            markdown.append(line)
        i += 1
    flush()
    # merge neighbouring Markdown pieces; drop empty ones
    merged: list[Piece] = []
    for piece in pieces:
        if piece.kind == "markdown" and not piece.text.strip():
            continue
        if piece.kind == "markdown" and merged and merged[-1].kind == "markdown":
            merged[-1] = Piece("markdown", merged[-1].text.rstrip("\n") + "\n\n" + piece.text.strip("\n"))
        else:
            merged.append(dataclasses.replace(piece, text=piece.text.strip("\n")))
    return merged


RAW_MYST = re.compile(r"\{[a-z][\w:-]*\}`|^\s*(`{3,}|:{3,})\{[\w:-]+\}|^\s*\([\w:.-]+\)=\s*$", re.M)


def raw_myst(text: str) -> list[str]:
    """The MyST marks left in ``text``: roles, directive fences, target lines."""
    return [m[0].strip() for m in RAW_MYST.finditer(text)]


def to_plain_markdown(text: str, book: Book, page: str | None = None) -> str:
    """A MyST text with no figures, includes or computed values, as plain Markdown."""
    pieces = blocks_to_pieces(text, book, page=page)
    return "\n\n".join(rewrite_roles(piece.text, book, page) for piece in pieces)


def show_markdown_outputs_plainly(root: Path = ROOT) -> None:
    """From now on, a Markdown output of this IPython kernel shows the book's MyST as plain Markdown
    (the book renders a cell's Markdown output as MyST: tabs, dropdowns, cross-references)."""
    from IPython import get_ipython
    from IPython.display import Markdown

    book = Book.from_repository(root)
    formatter = get_ipython().display_formatter.formatters["text/markdown"]
    formatter.for_type(Markdown, lambda shown: to_plain_markdown(shown.data, book))
